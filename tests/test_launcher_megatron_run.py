"""What verl's Megatron engine needed when it first ran for real (on four H200s, verl 0.9.1): each fact
the run revealed is a plan check here, so the next team finds it before a cluster is booked."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from cli.launch.parallel import ray_cpus_finding, ray_cpus_needed
from tests.helpers.launch_plans import checks, gsm8k_files, model_dirs, plan_for  # noqa: F401 (fixtures)

pytest.importorskip("verl")
pytestmark = pytest.mark.verl


def test_ray_cpus_below_what_verl_reserves_is_an_error(model_dirs):
    """A 2-GPU Megatron run given ray_init.num_cpus=14 waited forever at "worker group kwargs": the V1
    trainer reserves 1 + 9 (its transfer queue) + 3 per GPU = 16 CPUs before the first step."""
    plan = plan_for("tiny-gsm8k-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
                    "ray_kwargs.ray_init.num_cpus=14", strategy="megatron", gpus_per_node=2, model_dirs=model_dirs)
    [message] = checks(plan)["ray-cpus"]
    assert "gives Ray 14 CPUs but verl reserves 16" in message and "at least 16" in message
    assert not plan.ok


def test_ray_cpus_that_suffice_pass(model_dirs):
    """The 1-GPU run that trained with 14 CPUs needs 13."""
    plan = plan_for("tiny-gsm8k-grpo", "ray_kwargs.ray_init.num_cpus=14", strategy="megatron", model_dirs=model_dirs)
    assert "ray-cpus" not in checks(plan)
    assert ray_cpus_needed(plan.cfg) == 13


def test_the_legacy_trainer_has_no_transfer_queue(model_dirs):
    plan = plan_for("tiny-gsm8k-grpo", "trainer.use_v1=false", model_dirs=model_dirs)
    assert ray_cpus_needed(plan.cfg) == 1 + 3
    finding = ray_cpus_finding(plan.cfg, 3, "this machine")
    assert finding is not None and "transfer queue" not in finding.message


def test_a_multi_node_cluster_is_not_judged_by_one_count(model_dirs):
    plan = plan_for("tiny-gsm8k-grpo", "trainer.nnodes=2", model_dirs=model_dirs)
    assert ray_cpus_finding(plan.cfg, 1, "this machine") is None


def test_megatron_runs_with_mbridge_and_cudnn_attention_by_default(model_dirs):
    """What ran: mbridge (verl's default Megatron-Bridge is pinned at 0.5.2, which PyPI lacks) and
    TransformerEngine's fused (cuDNN) attention (verl's default, flash, needs the flash-attn package)."""
    plan = plan_for("tiny-gsm8k-grpo", strategy="megatron", model_dirs=model_dirs)
    actor = plan.cfg.actor_rollout_ref.actor.megatron
    assert actor.vanilla_mbridge is True and actor.override_transformer_config.attention_backend == "fused"
    assert "attention" not in checks(plan) and plan.ok
    argv = " ".join(plan.argv)
    assert "actor_rollout_ref.actor.megatron.vanilla_mbridge=true" in argv
    assert "critic.megatron" not in argv   # no critic: nothing to set


def test_a_preset_or_user_choice_of_bridge_and_attention_wins(model_dirs):
    plan = plan_for("tiny-gsm8k-grpo", "actor_rollout_ref.actor.megatron.vanilla_mbridge=false",
                    "actor_rollout_ref.actor.megatron.override_transformer_config.attention_backend=flash",
                    strategy="megatron", model_dirs=model_dirs)
    actor = plan.cfg.actor_rollout_ref.actor.megatron
    assert actor.vanilla_mbridge is False and actor.override_transformer_config.attention_backend == "flash"
    assert "attention" in checks(plan)   # the flash-attn note comes back with verl's own default


def test_a_megatron_critic_gets_the_same_defaults(model_dirs):
    plan = plan_for("qwen2.5-0.5b-ppo", model_dirs=model_dirs)
    assert plan.strategy == "megatron"
    critic = plan.cfg.critic.megatron
    assert critic.vanilla_mbridge is True and critic.override_transformer_config.attention_backend == "fused"


def test_mbridge_with_a_megatron_core_that_removed_its_model_type_is_an_error():
    """mbridge 0.15.1 with megatron-core 0.19.2 stopped at the first model build on the GPU node
    (`ModelType has no attribute encoder_and_decoder`); 0.16.1 ran."""
    from cli.launch.env import Requirement, _bridge_mismatch

    def reqs(core):
        return [Requirement("megatron-core", "", "0.16.1", core), Requirement("mbridge", "", "0.15.1", "0.15.1")]
    finding = _bridge_mismatch(reqs("0.19.2"))
    assert finding is not None and finding.level == "error"
    assert "encoder_and_decoder" in finding.message and "megatron-core==0.16.1" in finding.message
    assert _bridge_mismatch(reqs("0.16.1")) is None and _bridge_mismatch(reqs("0.15.3")) is None
    assert _bridge_mismatch(reqs("0.17.0rc1")) is not None
    assert _bridge_mismatch([Requirement("megatron-core", "", None, "0.19.2")]) is None   # Megatron-Bridge users


def test_a_megatron_critic_on_a_tied_model_through_mbridge_is_an_error(model_dirs):
    """The H200 rehearsal of qwen2.5-0.5b-ppo stopped at the critic's load (`Weights {'lm_head.weight'}
    not found`): verl builds the value model untied and mbridge reads lm_head.weight, which Qwen2.5-0.5B,
    tying its output layer to the embedding, never saved."""
    plan = plan_for("qwen2.5-0.5b-ppo", model_dirs=model_dirs)
    [message] = checks(plan)["critic-weights"]
    assert "lm_head.weight" in message and "critic.model.path" in message and "vanilla_mbridge=false" in message
    assert not plan.ok


@pytest.mark.parametrize("way_out", ["critic.megatron.vanilla_mbridge=false", "critic.megatron.use_dist_checkpointing=true"])
def test_a_critic_that_does_not_read_lm_head_passes(model_dirs, way_out):
    plan = plan_for("qwen2.5-0.5b-ppo", way_out, model_dirs=model_dirs)
    assert "critic-weights" not in checks(plan)


def test_the_untied_critic_the_preset_asks_for_draws_no_warning(model_dirs, tmp_path):
    """The critic-weights way out (critic.model.path=an untied copy) is the documented path: a critic the
    user named is meant, so only a critic left behind by an actor override is warned about."""
    untied = tmp_path / "untied"
    shutil.copytree(model_dirs["Qwen2.5-0.5B-Instruct"], untied)
    config = json.loads((untied / "config.json").read_text())
    (untied / "config.json").write_text(json.dumps({**config, "tie_word_embeddings": False}))
    plan = plan_for("qwen2.5-0.5b-ppo", f"critic.model.path={untied}", model_dirs=model_dirs)
    assert "critic-weights" not in checks(plan) and "critic-model" not in checks(plan)
    left_behind = plan_for("qwen2.5-0.5b-ppo", f"actor_rollout_ref.model.path={untied}", model_dirs=model_dirs)
    [message] = checks(left_behind)["critic-model"]
    assert "pass critic.model.path" in message


def test_an_actor_alone_on_a_tied_model_is_fine(model_dirs):
    """mbridge maps a tied actor's output layer to the embedding: only the value model reads lm_head."""
    plan = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs)
    assert "critic-weights" not in checks(plan)


def test_qwen2_5_vl_on_megatron_goes_through_megatron_bridge(model_dirs):
    """mbridge 0.15.1 reads config.rope_scaling, which transformers 5 (verl 0.9.1's pin) answers for
    Qwen2.5-VL with AttributeError 'rope_parameters' (the H200 rehearsal of the Megatron VL preset). The
    preset asks for Megatron-Bridge; forcing mbridge back is a plan error."""
    plan = plan_for("qwen2.5-vl-3b-geo3k-grpo-megatron", model_dirs=model_dirs)
    assert plan.cfg.actor_rollout_ref.actor.megatron.vanilla_mbridge is False
    assert "bridge" not in checks(plan)
    forced = plan_for("qwen2.5-vl-3b-geo3k-grpo-megatron", "actor_rollout_ref.actor.megatron.vanilla_mbridge=true",
                      model_dirs=model_dirs)
    [message] = checks(forced)["bridge"]
    assert "rope_parameters" in message and "vanilla_mbridge=false" in message and not forced.ok


def test_megatron_bridge_roles_build_without_apex(model_dirs):
    """Megatron-Bridge turns gradient-accumulation fusion on, which needs Apex: the H200 rehearsal of the
    VL Megatron preset stopped at the model build ("ColumnParallelLinear was called with
    gradient_accumulation_fusion set to True ..."). The plan turns it off where Megatron-Bridge builds
    the model and the key is not set, and the node's megatron-core is the one Megatron-Bridge 0.6.2 needs."""
    from cli.launch.env import requirements

    key = "actor_rollout_ref.actor.megatron.override_transformer_config.gradient_accumulation_fusion"
    plan = plan_for("qwen2.5-vl-3b-geo3k-grpo-megatron", model_dirs=model_dirs)
    assert f"+{key}=false" in plan.argv and "Apex" in checks(plan)["fusion"][0]
    assert plan.cfg.actor_rollout_ref.actor.megatron.override_transformer_config.gradient_accumulation_fusion is False
    core = {r.package: r.pinned for r in requirements(plan.cfg, vision=True)}["megatron-core"]
    assert core == "0.19.2"
    kept = plan_for("qwen2.5-vl-3b-geo3k-grpo-megatron", f"+{key}=true", model_dirs=model_dirs)
    assert f"+{key}=true" in kept.argv and f"+{key}=false" not in kept.argv and "fusion" not in checks(kept)
    mbridge = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs)   # mbridge leaves the fusion off itself
    assert not any("gradient_accumulation_fusion" in a for a in mbridge.argv) and "fusion" not in checks(mbridge)
    assert {r.package: r.pinned for r in requirements(mbridge.cfg)}["megatron-core"] == "0.16.1"


def test_transformers_5_no_longer_answers_rope_scaling_for_qwen2_5_vl():
    """The fact the bridge check rests on, with the transformers installed here."""
    transformers = pytest.importorskip("transformers")
    from cli.launch.tiny_vl import QWEN25_VL_3B

    if int(transformers.__version__.split(".")[0]) < 5:
        pytest.skip("transformers 4 still answers rope_scaling")
    known = {k: v for k, v in QWEN25_VL_3B.items() if k not in ("architectures", "model_type")}
    config = transformers.AutoConfig.for_model("qwen2_5_vl", **copy.deepcopy(known))   # it edits nested dicts
    with pytest.raises(AttributeError, match="rope_parameters"):
        config.rope_scaling


@pytest.mark.parametrize("preset", ["qwen2.5-vl-3b-geo3k-grpo", "qwen2.5-vl-3b-geo3k-grpo-megatron"])
def test_a_vision_language_plan_names_the_image_stack_its_nodes_need(model_dirs, preset):
    """The H200 rehearsal of the FSDP VL preset stopped once on pydantic_extra_types, which vLLM's
    tokenizer module imports when a vision-language processor loads; torchvision and qwen_vl_utils too."""
    from cli.launch.env import requirements

    vision = plan_for(preset, model_dirs=model_dirs)
    assert vision.vision
    names = {r.package for r in requirements(vision.cfg, vision.vision)}
    assert {"torchvision", "qwen-vl-utils", "pydantic-extra-types"} <= names
    text = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs)
    assert not text.vision and "qwen-vl-utils" not in {r.package for r in requirements(text.cfg, text.vision)}


def test_an_sglang_rollout_is_told_that_verls_own_sglang_pins_do_not_resolve(model_dirs):
    """`pip install "verl[sglang]==0.9.1"` fails: sglang 0.5.12 pins transformers==5.6.0, which verl
    excludes. The plan of an SGLang preset says so where sglang is not installed; vLLM's does not."""
    pytest.importorskip("verl")
    from importlib.metadata import PackageNotFoundError, version
    try:
        version("sglang")
        pytest.skip("sglang is installed here")
    except PackageNotFoundError:
        pass
    [message] = checks(plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs))["sglang"]
    assert "transformers==5.6.0" in message and "rollout.name=vllm" in message
    assert "sglang" not in checks(plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.name=vllm",
                                           model_dirs=model_dirs))


def test_a_megatron_bridge_plan_names_what_its_checkpoint_save_imports(model_dirs):
    """The H200 rehearsal of the VL Megatron preset trained a step, then stopped at its first checkpoint on
    `No module named 'modelopt'` and, with it, on `pulp`: Megatron-Bridge saves weights through
    save_hf_weights, which imports NVIDIA's model optimizer. An mbridge plan needs none of it."""
    from cli.launch.env import requirements

    bridge = plan_for("qwen2.5-vl-3b-geo3k-grpo-megatron", model_dirs=model_dirs)
    names = {r.package for r in requirements(bridge.cfg, bridge.vision)}
    assert {"megatron-bridge", "nvidia-modelopt", "pulp", "scipy"} <= names
    mbridge = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs)
    assert not {"nvidia-modelopt", "pulp"} & {r.package for r in requirements(mbridge.cfg, mbridge.vision)}


# --- memory: the Megatron terms against the H200 runs --------------------------------------------------

MEGATRON_MEASURED = json.loads((Path(__file__).parent / "bench" / "gpu_memory_megatron_h200.json").read_text())
TOLERANCE = 0.15


def _measured_plan(row):
    """The preset's plan for a measured run: its settings and the lengths it ran at (every response
    1,024 tokens, the prompts' mean), with the vLLM share the run gave it."""
    meta = MEGATRON_MEASURED["meta"]
    overrides = [key for name in row["overrides"] for key in meta[name]]
    return plan_for("qwen3-0.6b-grpo", *overrides, f"data.max_prompt_length={round(row['prompt_mean'])}",
                    "actor_rollout_ref.rollout.gpu_memory_utilization=0.2", gpu_memory_gb=139, check_verl=False)


def _training_peak(plan):
    return max((p for p in plan.memory.phases if p.name != "rollout"), key=lambda p: p.total)


@pytest.mark.parametrize("row", MEGATRON_MEASURED["rows"], ids=lambda r: r["setting"])
def test_the_megatron_estimate_is_within_15_percent_of_each_h200_run(row):
    """Torch's peak against the estimate without its fixed term, and the worker's peak in nvidia-smi
    against the whole training-side estimate (the rollout runs in vLLM's own processes)."""
    from cli.launch.memory import GIB, MEGATRON_OVERHEAD_GIB
    peak = _training_peak(_measured_plan(row))
    allocated = peak.total - MEGATRON_OVERHEAD_GIB
    assert abs(allocated - row["allocated_gib"]) <= TOLERANCE * row["allocated_gib"], (peak, row)
    worker = row["worker_smi_mib"] * 2 ** 20 / GIB
    assert abs(peak.total - worker) <= TOLERANCE * worker, (peak, row)


def test_the_log_prob_pass_is_the_peak_where_the_runs_showed_it():
    """Recompute or not, the runs without offload peaked alike (13.78 / 13.79 GiB): the old and reference
    log-probs at micro-batch 8 hold more logits than an update at 4 holds activations. With the optimizer
    offloaded and no recompute, the update is the peak."""
    names = {row["setting"]: _training_peak(_measured_plan(row)).name for row in MEGATRON_MEASURED["rows"]}
    assert names == {"full recompute (the preset)": "log-prob", "no recompute": "log-prob",
                     "full recompute, optimizer offload": "log-prob", "no recompute, optimizer offload": "update"}


def test_a_log_prob_peak_that_does_not_fit_is_told_to_lower_its_micro_batches():
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=64",
                    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=64",
                    "actor_rollout_ref.rollout.gpu_memory_utilization=0.3", gpu_memory_gb=40, check_verl=False)
    assert plan.memory.peak.name == "log-prob" and not plan.memory.fits
    assert "log_prob_micro_batch_size_per_gpu" in plan.memory.suggestion


def test_the_docs_table_shows_the_megatron_measurements():
    docs = (Path(__file__).parent.parent / "docs" / "measurements.md").read_text()
    table = docs.split("Megatron, measured on H200s", 1)[1]
    for row in MEGATRON_MEASURED["rows"]:
        assert f"| {row['setting']} |" in table and f"{row['allocated_gib']:.2f} GiB" in table


# --- a fixed vLLM KV cache -------------------------------------------------------------------------------

KV = "+actor_rollout_ref.rollout.engine_kwargs.vllm.kv_cache_memory_bytes"


def _rollout_engine(plan):
    rollout = next(p for p in plan.memory.phases if p.name == "rollout")
    return next((label, gib) for label, gib in rollout.parts.items() if label.startswith("rollout engine"))


def test_a_fixed_kv_cache_sizes_the_rollout_engine_not_the_utilization():
    """vLLM ignores gpu_memory_utilization when kv_cache_memory_bytes is set: the 2x H200 memory runs fixed
    it at 4 GiB, and vLLM's worker held 7.7 GiB (weights 0.56, the cache, 3.2 of its own), not the 27.8
    GiB that 0.2 x 139 charges."""
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.name=vllm", f"{KV}=4294967296",
                    "actor_rollout_ref.rollout.gpu_memory_utilization=0.2", gpu_memory_gb=139, check_verl=False)
    label, gib = _rollout_engine(plan)
    assert "fixed KV" in label and gib == pytest.approx(0.56 + 4 + 3.2, abs=0.01)
    assert abs(gib - 7916 / 1024) <= TOLERANCE * 7916 / 1024
    assert plan.parallel.rollout_kv_bytes == 2 ** 32 and plan.memory.kv_fixed
    from cli.launch.plan_text import render_plan
    assert "KV cache fixed at 4.00 GiB" in render_plan(plan)


@pytest.mark.parametrize("value, expected", [("4Gi", 4 * 2 ** 30), ("4G", 4 * 2 ** 30), ("4g", 4 * 10 ** 9),
                                             ("2.5g", 25 * 10 ** 8), ("1024", 1024)])
def test_a_kv_size_is_read_as_vllm_reads_it_taking_the_larger_reading(value, expected):
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.name=vllm", f"{KV}='{value}'", check_verl=False)
    assert plan.parallel.rollout_kv_bytes == expected


def test_an_unreadable_kv_size_is_named():
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.name=vllm", f"{KV}=lots", check_verl=False)
    assert any("kv_cache_memory_bytes='lots' is not a size vLLM reads" in m for m in checks(plan)["rollout-memory"])


def test_a_kv_cache_too_large_for_the_gpu_is_told_the_size_that_fits():
    """A cache larger than the utilization share was charged the share: the plan said it fit."""
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.name=vllm", f"{KV}=20Gi", gpu_memory_gb=24,
                    check_verl=False)
    assert not plan.memory.fits and plan.memory.peak.name == "rollout"
    assert "lower actor_rollout_ref.rollout.engine_kwargs.vllm.kv_cache_memory_bytes to" in plan.memory.suggestion


def test_sglang_ignores_vllms_kv_setting():
    plan = plan_for("qwen3-0.6b-grpo", f"{KV}=4294967296", check_verl=False)
    assert plan.parallel.rollout_name == "sglang" and plan.parallel.rollout_kv_bytes is None
    assert _rollout_engine(plan)[0] == "rollout engine (gpu_memory_utilization)"
