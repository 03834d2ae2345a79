"""verl's FSDP engine in `rewards train`, against the real verl 0.9.1 config (CPU): the FSDP presets, the
strategy switch, the data-size check, absolute paths in the command, and the memory model held to
the figures measured on an H100 (tests/bench/gpu_memory_h100.json)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from cli.launch import verl_config
from cli.launch.memory import (FSDP_ADAM_BYTES, FSDP_GRAD_BYTES, FSDP_MASTER_BYTES, FSDP_STEP_BYTES, GIB,
                               fsdp_activation_bytes)
from cli.launch.model import shape_from_config
from cli.main import main
from tests.helpers.launch_plans import checks, gsm8k_files, model_dirs, plan_for, verl_rows  # noqa: F401 (fixtures)

pytest.importorskip("verl")
pytestmark = pytest.mark.verl

BENCH = Path(__file__).resolve().parent / "bench"
MEASURED = json.loads((BENCH / "gpu_memory_h100.json").read_text())
SHARDED = json.loads((BENCH / "gpu_memory_h200x2_sharded.json").read_text())   # states over 2 GPUs
TOLERANCE = 0.15
FSDP_PRESET = "qwen2.5-0.5b-ppo-gsm8k"


# --- presets and the strategy ------------------------------------------------------------------------

def test_list_shows_the_fsdp_presets(capsys):
    assert main(["train", "--list"]) == 0
    lines = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()}
    assert lines["qwen2.5-0.5b-ppo-gsm8k"] == "fsdp"
    assert lines["qwen2.5-vl-3b-geo3k-grpo"] == "fsdp2"
    assert lines["qwen3-0.6b-grpo"] == "megatron"


def test_qwen2_5_0_5b_on_one_gpu_composes_and_passes_verls_config_classes(model_dirs, gsm8k_files):
    plan = plan_for(FSDP_PRESET, model_dirs=model_dirs, data=gsm8k_files)
    assert plan.ok, [str(f) for f in plan.findings]
    cfg = plan.cfg
    assert cfg.model_engine == "dp" and cfg.actor_rollout_ref.actor.strategy == "fsdp"
    assert cfg.critic.strategy == "fsdp" and cfg.trainer.n_gpus_per_node == 1 and plan.parallel.world == 1
    # verl's own dataclasses, built the way its workers build them (HFModelConfig from the local model)
    assert verl_config.verl_checks(cfg, build_model=True) == []
    from verl.utils.config import omega_conf_to_dataclass
    from verl.workers.config import FSDPActorConfig, FSDPCriticConfig
    assert isinstance(omega_conf_to_dataclass(cfg.actor_rollout_ref.actor), FSDPActorConfig)
    with_critic = cfg.copy()
    with_critic.critic.model = None           # the critic's HFModelConfig needs the model: checked above
    assert isinstance(omega_conf_to_dataclass(with_critic.critic), FSDPCriticConfig)
    assert plan.memory.fits and plan.memory.peak.total < 40


def test_the_cli_dry_run_prints_the_fsdp_command(capsys):
    assert main(["train", FSDP_PRESET, "--skip-data-check", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "actor      FSDP sharded over 1 GPU(s), Ulysses SP 1 -> DP 1" in out
    assert "FSDP terms calibrated on an H100" in out
    assert "    model_engine=dp \\" in out and "    actor_rollout_ref.actor.strategy=fsdp \\" in out


@pytest.mark.parametrize("preset, strategy, left_out", [
    ("qwen3-0.6b-grpo", "fsdp2", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size"),
    ("qwen2.5-vl-3b-geo3k-grpo", "megatron", None),   # its FSDP-only keys (offload) all carry over
])
def test_strategy_flag_switches_the_engine_and_leaves_out_the_other_engines_keys(preset, strategy, left_out):
    plan = plan_for(preset, strategy=strategy)
    assert plan.cfg is not None
    # TP 1 on Megatron may not fit 80 GiB; Qwen2.5-VL on Megatron needs Megatron-Bridge (the bridge check)
    assert [str(f) for f in plan.errors if f.check not in ("memory", "bridge")] == []
    assert plan.cfg.actor_rollout_ref.actor.strategy == strategy
    if left_out:
        assert left_out in plan.dropped and any(left_out in m for m in checks(plan)["strategy"])
    else:
        assert plan.dropped == []


def test_offload_and_checkpointing_carry_over_to_megatron():
    """The FSDP preset's gradient checkpointing (which the Megatron engine never reads) becomes Megatron's
    full recompute, and its offload flags the Megatron engine's: the memory plan and the run keep them."""
    plan = plan_for("qwen2.5-vl-3b-geo3k-grpo", strategy="megatron", check_verl=False)
    megatron = plan.cfg.actor_rollout_ref.actor.megatron
    recompute = megatron.override_transformer_config
    assert (recompute.recompute_granularity, recompute.recompute_method, recompute.recompute_num_layers) == (
        "full", "uniform", 1)
    assert plan.parallel.actor.recompute == "full" and plan.parallel.ref_param_offload
    assert plan.cfg.actor_rollout_ref.ref.megatron.param_offload is True
    assert not megatron.param_offload and not megatron.optimizer_offload
    [message] = [m for m in checks(plan)["strategy"] if "carried over" in m]
    assert ("actor_rollout_ref.ref.fsdp_config.param_offload=true -> actor_rollout_ref.ref.megatron.param_offload=true"
            in message)
    assert "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full" in plan.argv


def test_offload_and_recompute_carry_over_to_fsdp_unless_given():
    """The other way: Megatron's optimizer offload and full recompute become FSDP's; a key the command
    line sets itself wins over the carried value."""
    plan = plan_for("qwen3-8b-grpo", strategy="fsdp", gpu_memory_gb=80, check_verl=False)
    assert plan.cfg.actor_rollout_ref.actor.fsdp_config.optimizer_offload is True
    assert plan.cfg.actor_rollout_ref.model.enable_gradient_checkpointing is True
    assert plan.parallel.actor.optimizer_offload and plan.parallel.actor.recompute == "full"
    mine = plan_for("qwen3-8b-grpo", "actor_rollout_ref.actor.fsdp_config.optimizer_offload=false",
                    strategy="fsdp", gpu_memory_gb=80, check_verl=False)
    assert mine.cfg.actor_rollout_ref.actor.fsdp_config.optimizer_offload is False
    same_engine = plan_for("qwen2.5-vl-3b-geo3k-grpo", strategy="fsdp", check_verl=False)
    assert not any("carried over" in m for m in checks(same_engine).get("strategy", []))


def test_ulysses_size_must_divide_the_heads():
    plan = plan_for(FSDP_PRESET, "actor_rollout_ref.actor.ulysses_sequence_parallel_size=4",
                    "actor_rollout_ref.actor.ppo_mini_batch_size=64", gpus_per_node=4, check_verl=False)
    [message] = checks(plan)["sp-heads"]
    assert "does not divide the model's 14 attention heads" in message and "one of 1, 2" in message


def test_fsdp_memory_overflow_suggests_a_change():
    plan = plan_for(FSDP_PRESET, "actor_rollout_ref.model.enable_gradient_checkpointing=false",
                    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8", gpu_memory_gb=40, check_verl=False)
    assert not plan.memory.fits
    [message] = checks(plan)["memory"]
    assert "turn on gradient checkpointing" in message


# --- data checks before launch -----------------------------------------------------------------------

def test_six_training_rows_with_a_batch_of_64_are_refused_naming_both_numbers(tmp_path, capsys):
    verl_rows(6).to_parquet(tmp_path / "train.parquet")
    verl_rows(4).to_parquet(tmp_path / "test.parquet")
    code = main(["train", FSDP_PRESET, "--train-files", str(tmp_path / "train.parquet"),
                 "--val-files", str(tmp_path / "test.parquet"), "data.train_batch_size=64",
                 "actor_rollout_ref.actor.ppo_mini_batch_size=64", "--emit", str(tmp_path / "run.sh")])
    captured = capsys.readouterr()
    assert code == 2 and "not launched" in captured.err
    assert not (tmp_path / "run.sh").exists()
    [line] = [line for line in captured.out.splitlines() if "training rows" in line]
    assert "6 training rows" in line and "data.train_batch_size=64" in line and "Train dataloader is empty" in line


def test_an_empty_validation_set_is_refused(tmp_path):
    verl_rows(300).to_parquet(tmp_path / "train.parquet")
    verl_rows(1).iloc[:0].to_parquet(tmp_path / "test.parquet")
    plan = plan_for(FSDP_PRESET, check_verl=False, data=(tmp_path / "train.parquet", tmp_path / "test.parquet"))
    assert any("no validation rows" in m for m in checks(plan)["data-size"])


def test_train_files_a_folder_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "train.parquet").write_bytes(b"")
    assert main(["train", FSDP_PRESET, "--train-files", str(tmp_path), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "is a folder: give parquet files (it holds train.parquet)" in err


def test_a_missing_local_model_folder_is_named_not_sent_to_the_hub(tmp_path):
    plan = plan_for(FSDP_PRESET, model=str(tmp_path / "no-such-model"))
    [message] = checks(plan)["model-config"]
    assert f"model folder {tmp_path / 'no-such-model'} does not exist on this machine" in message
    assert "huggingface-cli" not in message


def test_emit_writes_absolute_paths_and_lists_what_must_exist_on_the_cluster(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    verl_rows(300).to_parquet(tmp_path / "data" / "train.parquet")
    script = tmp_path / "run.sh"
    assert main(["train", FSDP_PRESET, "--skip-data-check", "--train-files", "data/train.parquet",
                 "--val-files", "elsewhere/test.parquet", "--model", "/cluster/models/Qwen2.5-0.5B-Instruct",
                 "--model-config", str(BENCH / "configs" / "qwen2.5-0.5b-instruct.json"), "--emit", str(script)]) == 0
    text = script.read_text()
    assert f"data.train_files={tmp_path / 'data' / 'train.parquet'}" in text
    missing = f"data.val_files={tmp_path / 'elsewhere' / 'test.parquet'}"
    assert missing in text and "actor_rollout_ref.model.path=/cluster/models/Qwen2.5-0.5B-Instruct" in text
    assert f"must exist on the cluster: {missing}, actor_rollout_ref.model.path=/cluster/models/" in text
    out = capsys.readouterr().out
    assert f"must exist on the cluster (not on this machine): {missing}" in out
    assert "critic.model.path=/cluster/models/Qwen2.5-0.5B-Instruct" in out


def _png() -> bytes:
    from PIL import Image
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_geometry3k_plan_does_not_warn_about_the_overlong_filter_it_turns_off(tmp_path):
    rows = pd.DataFrame([{
        "data_source": "hiyouga/geometry3k",
        "prompt": [{"role": "user", "content": f"<image>Find x in figure {i}."}],
        "images": [{"bytes": _png()}],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": str(30 + i)},
        "extra_info": {"split": "train", "index": i},
    } for i in range(40)])
    rows.to_parquet(tmp_path / "train.parquet")
    rows.iloc[:4].assign(prompt=[[{"role": "user", "content": f"<image>Held-out {i}."}] for i in range(4)]) \
        .to_parquet(tmp_path / "test.parquet")
    data = (tmp_path / "train.parquet", tmp_path / "test.parquet")
    plan = plan_for("qwen2.5-vl-3b-geo3k-grpo", check_verl=False, data=data)
    assert plan.cfg.data.filter_overlong_prompts is False
    assert not any("filter_overlong_prompts) would" in f.message for f in plan.findings), plan.findings
    import importlib.util
    if importlib.util.find_spec("qwen_vl_utils") is None:     # with the filter on, the warning stands
        plan = plan_for("qwen2.5-vl-3b-geo3k-grpo", "data.filter_overlong_prompts=true", check_verl=False, data=data)
        assert any("filter_overlong_prompts) would" in f.message for f in plan.findings), plan.findings


# --- the memory model against the H100 measurements ----------------------------------------------------

def _measured_rows(measured=MEASURED):
    return [r for r in measured["rows"] if r["mode"].startswith("fsdp2") and "error" not in r]


def _text_shape(model: str):
    raw = json.loads((BENCH / "configs" / f"{model}.json").read_text())
    raw.pop("vision_config", None)      # the bench runs the language model (see gpu_memory.py)
    return shape_from_config(raw)


def fsdp_step_peak_bytes(params: float, shard: int, activations: float) -> tuple[float, float]:
    """(backward peak, optimizer-step peak) of a training step: states plus activations, or plus AdamW's
    copy, with the byte counts per parameter the plan's FSDP phases use."""
    states = params * (FSDP_MASTER_BYTES + FSDP_GRAD_BYTES + FSDP_ADAM_BYTES) / max(shard, 1)
    return states + activations, states + params * FSDP_STEP_BYTES / max(shard, 1)


def estimate_row(row) -> float:
    """Our estimate of a measured setting's peak, GiB: the same functions the plan's FSDP phases use."""
    shape = _text_shape(row["model"])
    critic = row["mode"] == "fsdp2-critic"
    params = shape.params - shape.head_params + shape.hidden if critic else shape.params
    act = fsdp_activation_bytes(shape, row["tokens"], row["gradient_checkpointing"], logits=not critic)
    return max(fsdp_step_peak_bytes(params, row.get("world", 1), act)) / GIB


def test_the_measurements_cover_every_fsdp_preset_model():
    assert len(_measured_rows()) >= 12
    assert MEASURED["meta"]["device"].startswith("NVIDIA H100")
    assert {r["model"] for r in _measured_rows()} == {"qwen2.5-0.5b-instruct", "qwen3-0.6b-base",
                                                      "qwen2.5-vl-3b-instruct"}


@pytest.mark.parametrize("row", _measured_rows(),
                         ids=lambda r: f"{r['model']}-{r['mode']}-{r['micro_batch']}x{r['seq_len']}-gc{int(r['gradient_checkpointing'])}")
def test_estimate_within_15_percent_of_the_h100_measurement(row):
    measured = row["peak_mib"] / 1024
    estimate = estimate_row(row)
    assert abs(estimate - measured) <= TOLERANCE * measured, (estimate, measured)


@pytest.mark.parametrize("row", _measured_rows(SHARDED), ids=lambda r: f"{r['model']}-{r['mode']}-{r['micro_batch']}x{r['seq_len']}")
def test_estimate_within_15_percent_with_the_states_sharded_over_two_gpus(row):
    assert row["world"] == 2 and SHARDED["meta"]["device"].startswith("NVIDIA H200")
    measured = row["peak_mib"] / 1024
    assert abs(estimate_row(row) - measured) <= TOLERANCE * measured, (estimate_row(row), measured)


@pytest.mark.parametrize("row", _measured_rows()[:1] + _measured_rows()[-1:], ids=lambda r: r["model"])
def test_parameter_counts_match_the_built_models(row):
    shape = _text_shape(row["model"])
    critic = row["mode"] == "fsdp2-critic"
    assert (shape.params - shape.head_params + shape.hidden if critic else shape.params) == row["n_params"]


def test_the_plan_uses_the_measured_terms():
    """The plan's update phase for a setting that was measured is the measured model plus the fixed overhead."""
    plan = plan_for(FSDP_PRESET, check_verl=False)
    update = next(p for p in plan.memory.phases if p.name == "update")
    actor = sum(v for k, v in update.parts.items() if k.startswith("actor"))
    row = next(r for r in _measured_rows() if r["model"] == "qwen2.5-0.5b-instruct" and r["mode"] == "fsdp2"
               and r["tokens"] == 4096 and r["gradient_checkpointing"])
    assert actor == pytest.approx(estimate_row(row), rel=1e-6)
    assert abs(actor - row["peak_mib"] / 1024) <= TOLERANCE * row["peak_mib"] / 1024


def _table_after(docs: str, heading: str) -> list[str]:
    """The rows of the first markdown table after `heading` (its header and rule dropped)."""
    lines = docs.split(heading, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return lines[start + 2:end]


def test_the_docs_table_shows_these_measurements():
    """docs/measurements.md's 'measured on an H100' table: one row per measured setting, figures as recorded."""
    docs = (BENCH.parent.parent / "docs" / "measurements.md").read_text()
    table = _table_after(docs, "FSDP training steps, measured on an H100")
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in table]
    assert len(cells) == len(_measured_rows())
    shown = sorted((float(c[3]), float(c[4])) for c in cells)
    recorded = sorted((round(r["peak_mib"] / 1024, 1), round(estimate_row(r), 1)) for r in _measured_rows())
    assert shown == recorded


def test_flash_attn_is_required_unless_the_run_asks_for_sdpa_without_remove_padding():
    """verl 0.9.1's FSDP workers default the model's attention to flash_attention_2; a node without
    flash-attn fails inside the actor's start, minutes into the run. Its FSDP critic asks for
    flash_attention_2 whatever the config says (a smoke run of the PPO preset on an H100 failed there
    with the critic set to sdpa): no way around it is offered for a critic."""
    from cli.launch.env import missing_sentence, requirements
    default = plan_for("qwen2.5-0.5b-ppo", strategy="fsdp")   # verl's defaults: flash_attention_2, unpadded
    assert "flash-attn" in [r.package for r in requirements(default.cfg)]
    padded_sdpa = plan_for("tiny-gsm8k-grpo")
    assert "flash-attn" not in [r.package for r in requirements(padded_sdpa.cfg)]
    unpadded_sdpa = plan_for("tiny-gsm8k-grpo", "actor_rollout_ref.model.use_remove_padding=true")
    assert "flash-attn" in [r.package for r in requirements(unpadded_sdpa.cfg)]
    critic_sdpa = plan_for("qwen2.5-0.5b-ppo", "+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
                           "actor_rollout_ref.model.use_remove_padding=false",
                           "+critic.model.override_config.attn_implementation=sdpa",
                           "critic.model.use_remove_padding=false", strategy="fsdp")
    assert "flash-attn" in [r.package for r in requirements(critic_sdpa.cfg)]
    assert "attn_implementation=sdpa" in missing_sentence(["flash-attn"], unpadded_sdpa.cfg)
    assert "whatever the config says" in missing_sentence(["flash-attn"], critic_sdpa.cfg)


# --- log-probs without flash-attn ----------------------------------------------------------------------

FUSED = "actor_rollout_ref.model.use_fused_kernels"


def test_a_run_without_flash_attn_gets_verls_fused_log_probs(model_dirs):
    """The tiny preset runs on sdpa without padding-free batches, so verl 0.9.1 would compute each
    token's log-probability in its own Python iteration: the plan turns on the fused kernels and says why."""
    plan = plan_for("tiny-gsm8k-grpo", model_dirs=model_dirs)
    assert plan.cfg.actor_rollout_ref.model.use_fused_kernels is True
    assert f"{FUSED}=true" in plan.overrides.texts()
    assert any("one token at a time" in m for m in checks(plan)["speed"])


@pytest.mark.parametrize("given", ["false", "true"])
def test_the_users_fused_kernels_setting_wins(model_dirs, given):
    plan = plan_for("tiny-gsm8k-grpo", f"{FUSED}={given}", model_dirs=model_dirs)
    assert plan.cfg.actor_rollout_ref.model.use_fused_kernels is (given == "true")
    assert "speed" not in checks(plan)


@pytest.mark.parametrize("preset, overrides", [
    (FSDP_PRESET, ()),                                         # flash-attn's cross-entropy serves
    ("tiny-gsm8k-grpo", ("actor_rollout_ref.actor.calculate_sum_pi_squared=true",)),   # verl refuses both
])
def test_fused_log_probs_are_left_off_where_flash_attn_or_verl_rules_them_out(model_dirs, preset, overrides):
    plan = plan_for(preset, *overrides, model_dirs=model_dirs)
    assert not plan.cfg.actor_rollout_ref.model.use_fused_kernels
    assert FUSED not in " ".join(plan.overrides.texts())


def test_megatron_computes_its_own_log_probs(model_dirs):
    plan = plan_for("tiny-gsm8k-grpo", strategy="megatron", model_dirs=model_dirs)
    assert FUSED not in " ".join(plan.overrides.texts())


def test_verls_fused_log_probs_equal_its_fallback_in_far_fewer_ops():
    """What the plan's choice rests on, with verl's own functions: the fallback that runs without
    flash-attn takes a Python iteration per token; the fused path gives the same log-probabilities
    (and their gradient) from the hidden states in 512-token chunks."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    from verl.utils.experimental.torch_functional import FusedLinearForPPO
    from verl.utils.torch_functional import logprobs_from_logits_v2

    gen = torch.Generator().manual_seed(0)
    tokens, hidden, vocab = 1000, 64, 259
    states = torch.randn(tokens, hidden, generator=gen)
    weight = torch.randn(vocab, hidden, generator=gen) * 0.1
    labels = torch.randint(0, vocab, (tokens,), generator=gen)

    def ops(fn):
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            out = fn()
        return out, sum(e.count for e in prof.key_averages() if e.key.startswith("aten::"))

    a = states.clone().requires_grad_()
    looped, looped_ops = ops(lambda: logprobs_from_logits_v2((a @ weight.T).bfloat16(), labels))
    b = states.clone().requires_grad_()
    (fused, _entropy), fused_ops = ops(lambda: FusedLinearForPPO()(b, weight, labels))
    assert torch.allclose(looped.float(), fused, atol=0.05)        # bf16 logits on the looped side
    looped.float().sum().backward()
    fused.sum().backward()
    assert torch.allclose(a.grad, b.grad, atol=0.02, rtol=0.05)
    assert looped_ops > 3 * tokens and looped_ops > 20 * fused_ops, (looped_ops, fused_ops)


def test_the_estimate_holds_no_full_logits_when_verl_fuses_the_log_probs(model_dirs):
    """Qwen3-0.6B's 151,936-word vocabulary: the full-logits term is 14 bytes a word a token (12 GiB for
    four 1,536-token samples); verl's fused kernels hold one 512-token chunk at a time."""
    sdpa = ("+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
            "actor_rollout_ref.model.use_remove_padding=false", "actor_rollout_ref.rollout.name=vllm")
    fused = plan_for("qwen3-0.6b-grpo", *sdpa, strategy="fsdp", model_dirs=model_dirs)
    full = plan_for("qwen3-0.6b-grpo", *sdpa, f"{FUSED}=false", strategy="fsdp", model_dirs=model_dirs)
    update = lambda plan: next(p for p in plan.memory.phases if p.name == "update").parts
    fused_act = update(fused)["actor activations (fused log-probs)"]
    full_act = update(full)["actor activations (logits included)"]
    vocab = fused.shape.vocab
    assert full_act - fused_act == pytest.approx((4 * 1536 * 14 - 512 * 16) * vocab / GIB, rel=1e-6)


# --- the old and reference log-prob passes, measured on an H200 ------------------------------------------

LOGPROB_MEASURED = json.loads((BENCH / "gpu_memory_fsdp_logprob_h200.json").read_text())


def _log_prob_plan(micro: int, *extra: str, **kwargs):
    """The measured runs' plan: the 0.6B preset on FSDP on one GPU, its log-prob micro-batches at `micro`."""
    kwargs = {"strategy": "fsdp", "gpus_per_node": 1, "gpu_memory_gb": 139, "check_verl": False, **kwargs}
    return plan_for("qwen3-0.6b-grpo", *LOGPROB_MEASURED["meta"]["common"], *extra,
                    f"actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={micro}",
                    f"actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu={micro}", **kwargs)


def _phase(plan, name):
    return next(p for p in plan.memory.phases if p.name == name)


def test_the_log_prob_pass_at_micro_batch_16_is_the_peak_within_15_percent():
    """The run that showed the phase: the old and reference log-probs of 16 padded 1,536-token samples
    held 44.8 GiB (torch) where the update at micro-batch 2 holds about 12; the plan said 18.2 before."""
    from cli.launch.memory import OVERHEAD_GIB
    row = LOGPROB_MEASURED["rows"][0]
    plan = _log_prob_plan(row["log_prob_micro"])
    training = max((p for p in plan.memory.phases if p.name != "rollout"), key=lambda p: p.total)
    assert training.name == "log-prob"
    allocated = training.total - OVERHEAD_GIB
    assert abs(allocated - row["allocated_gib"]) <= TOLERANCE * row["allocated_gib"], (training, row)
    worker = row["worker_smi_mib"] / 1024
    assert abs(training.total - worker) <= TOLERANCE * worker, (training, row)


@pytest.mark.parametrize("row", LOGPROB_MEASURED["rows"], ids=lambda r: r["setting"])
def test_each_log_prob_phase_is_within_15_percent_of_the_worker_during_it(row):
    """nvidia-smi's reading of the worker while it computed the reference log-probs."""
    phase = _phase(_log_prob_plan(row["log_prob_micro"]), "log-prob")
    during = row["log_prob_smi_mib"] / 1024
    assert abs(phase.total - during) <= TOLERANCE * during, (phase, row)


def test_the_training_estimate_is_never_below_a_measured_peak():
    """At micro-batch 2 the update is the estimate's peak, and it is above the run's (verl's padded path
    without flash-attn holds less of the logits than the calibration's fp32 chain): an upper bound."""
    from cli.launch.memory import OVERHEAD_GIB
    for row in LOGPROB_MEASURED["rows"]:
        plan = _log_prob_plan(row["log_prob_micro"])
        training = max((p for p in plan.memory.phases if p.name != "rollout"), key=lambda p: p.total)
        assert training.total - OVERHEAD_GIB >= row["allocated_gib"], (training, row)


def test_fused_kernels_hold_one_chunk_in_the_log_prob_pass():
    from cli.launch.memory import FUSED_CHUNK_TOKENS, FUSED_LOGIT_BYTES
    plan = _log_prob_plan(16, f"{FUSED}=true")
    parts = _phase(plan, "log-prob").parts
    assert parts["actor log-prob forward (fused chunk)"] == pytest.approx(
        FUSED_CHUNK_TOKENS * plan.shape.vocab * FUSED_LOGIT_BYTES / GIB)


def test_ulysses_splits_the_log_prob_micro_batch_and_a_token_budget_is_per_gpu():
    from cli.launch.memory import LOGPROB_BYTES
    sp = ("actor_rollout_ref.actor.ulysses_sequence_parallel_size=2", "actor_rollout_ref.actor.ppo_mini_batch_size=4")
    split = _log_prob_plan(16, *sp, gpus_per_node=2)
    assert split.parallel.actor.log_prob_tokens == 16 * 1536 / 2
    budget = _log_prob_plan(16, *sp, "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true",
                            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=8192",
                            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true",
                            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=8192", gpus_per_node=2)
    assert budget.parallel.actor.log_prob_tokens == 8192   # verl multiplies the budget by the split
    logits = _phase(budget, "log-prob").parts["actor log-prob forward (logits, no gradient)"]
    assert logits == pytest.approx(8192 * budget.shape.vocab * LOGPROB_BYTES / GIB)


def test_a_log_prob_peak_that_does_not_fit_is_told_to_lower_its_micro_batches():
    plan = _log_prob_plan(16, gpu_memory_gb=40)
    assert plan.memory.peak.name == "log-prob" and not plan.memory.fits
    [message] = checks(plan)["memory"]
    assert "log_prob_micro_batch_size_per_gpu" in message and "to 1" in message


def test_the_docs_show_the_log_prob_measurements():
    docs = (BENCH.parent.parent / "docs" / "measurements.md").read_text()
    table = docs.split("FSDP log-prob pass, measured on an H200", 1)[1]
    for row in LOGPROB_MEASURED["rows"]:
        assert f"| {row['setting']} |" in table and f"{row['allocated_gib']:.2f} GiB" in table


def test_a_token_budget_is_told_to_shrink_the_budget_not_the_micro_batches():
    budget = ("actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true",
              "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=24576",
              "actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true",
              "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=24576")
    plan = _log_prob_plan(16, *budget, gpu_memory_gb=40)
    assert plan.memory.peak.name == "log-prob" and not plan.memory.fits
    [message] = checks(plan)["memory"]
    assert "log_prob_max_token_len_per_gpu to 1536 (one sequence)" in message



def test_a_ulysses_variant_splits_the_log_prob_micro_batch_but_not_a_token_budget():
    """The suggester's Ulysses try counts the log-prob pass as that split would run it."""
    from cli.launch.memory import _variant
    fixed = _log_prob_plan(16, "actor_rollout_ref.actor.ppo_mini_batch_size=4", gpus_per_node=2).parallel
    assert _variant(fixed, sp=2, dp=1).actor.log_prob_tokens == 16 * 1536 / 2
    budget = _log_prob_plan(16, "actor_rollout_ref.actor.ppo_mini_batch_size=4",
                            "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true",
                            "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=8192",
                            "actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true",
                            "actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=8192", gpus_per_node=2).parallel
    assert _variant(budget, sp=2, dp=1).actor.log_prob_tokens == budget.actor.log_prob_tokens == 8192
