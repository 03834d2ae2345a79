"""The launch plan against the real verl 0.9.1 config (CPU): presets compose and pass verl's own
checks, and each mistake from the published debugging advice is rejected with the right sentence."""

from __future__ import annotations

import json
import shutil

import pytest

from cli.launch.model import read_config, shape_from_config
from cli.launch.presets import load_preset, preset_names
from cli.launch import verl_config
from tests.helpers.launch_plans import (MODELS, PRESET_MODEL, checks, gsm8k_files, model_dirs,  # noqa: F401 (fixtures)
                                        plan_for, verl_rows)

pytest.importorskip("verl")
pytestmark = pytest.mark.verl

# --- every preset composes with verl's config and passes verl's own checks -------------------------

@pytest.mark.parametrize("name", sorted(PRESET_MODEL))
def test_preset_composes_and_verl_accepts_it(name, model_dirs, gsm8k_files, tmp_path):
    overrides = []
    if name == "qwen2.5-0.5b-ppo":   # its Megatron critic reads lm_head.weight: an untied copy, as the preset says
        untied = tmp_path / "critic"
        shutil.copytree(model_dirs[PRESET_MODEL[name]], untied)
        config = json.loads((untied / "config.json").read_text())
        (untied / "config.json").write_text(json.dumps({**config, "tie_word_embeddings": False}))
        overrides.append(f"critic.model.path={untied}")
    plan = plan_for(name, *overrides, model_dirs=model_dirs, data=gsm8k_files if "vl" not in name else None)
    assert plan.cfg is not None, plan.findings
    errors = [str(f) for f in plan.errors]
    assert errors == [], errors
    # verl's HFModelConfig was built from the local model directory (config.json + tokenizer)
    assert plan.model == str(model_dirs[PRESET_MODEL[name]])
    assert plan.cfg.actor_rollout_ref.actor.strategy == load_preset(name).strategy
    assert plan.cfg.reward.custom_reward_function.path == "pkg://rewards.verl"
    assert plan.cfg.reward.custom_reward_function.name == "compute_score"


def test_all_presets_are_covered():
    assert sorted(preset_names()) == sorted(PRESET_MODEL)


@pytest.mark.parametrize("name", sorted(PRESET_MODEL))
def test_recorded_model_config_matches_the_published_file(name):
    preset = load_preset(name)
    recorded = shape_from_config(preset.model_config)
    published = shape_from_config(read_config(MODELS / PRESET_MODEL[name]))
    assert recorded == published


def test_verl_itself_rejects_what_it_rejects():
    cfg = verl_config.compose(["model_engine=megatron", "actor_rollout_ref.rollout.name=vllm",
                               "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
                               "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
                               "actor_rollout_ref.actor.loss_agg_mode=bogus-mode",
                               "reward.custom_reward_function.path=pkg://rewards.verl"])
    problems = verl_config.verl_checks(cfg)
    assert any("Invalid loss_agg_mode" in p for p in problems), problems


def test_reward_wiring_loads_the_package_scorer():
    cfg = verl_config.compose(["model_engine=megatron", "actor_rollout_ref.rollout.name=vllm",
                               "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2",
                               "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2",
                               "reward.custom_reward_function.path=pkg://rewards.verl",
                               "+reward.custom_reward_function.reward_kwargs.gsm8k_mode=flexible"])
    from verl.trainer.ppo.reward import get_custom_reward_fn
    fn = get_custom_reward_fn(cfg)
    out = fn(data_source="openai/gsm8k", solution_str="so 18 in all", ground_truth="18", extra_info={})
    assert out["acc"] == 1.0   # flexible mode reached the scorer through reward_kwargs


# --- each mistake, rejected with the right sentence -------------------------------------------------

def test_tp_that_does_not_divide_the_heads(model_dirs):
    plan = plan_for("qwen2.5-0.5b-ppo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4",
                    "actor_rollout_ref.rollout.tensor_model_parallel_size=2", gpus_per_node=4, check_verl=False)
    found = checks(plan)
    assert not plan.ok
    [message] = found["tp-heads"]
    assert "TP 4 does not divide the model's 14 attention heads" in message
    assert "tensor_model_parallel_size to one of 1, 2" in message
    # the rollout engine's TP 2 divides 14 heads: no rollout complaint
    assert "rollout-tp-heads" not in found


def test_tp_that_does_not_divide_the_kv_heads():
    plan = plan_for("qwen3-8b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=16",
                    gpus_per_node=16, check_verl=False)
    assert "does not divide the model's 8 KV heads" in checks(plan)["tp-kv-heads"][0]


def test_too_few_gpus():
    plan = plan_for("qwen3-8b-grpo", gpus_per_node=2, check_verl=False)
    [message] = checks(plan)["too-few-gpus"]
    assert "TP 4 x PP 1 x CP 1 = 4 GPUs" in message and "the cluster has 2" in message
    plan = plan_for("qwen3-8b-grpo", available_gpus=2, check_verl=False)
    [message] = checks(plan)["gpu-count"]
    assert "4 GPUs but only 2 are available" in message


def test_pipeline_that_does_not_divide_the_layers():
    plan = plan_for("qwen3-8b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                    "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=5",
                    "actor_rollout_ref.rollout.tensor_model_parallel_size=1", gpus_per_node=5, check_verl=False)
    assert "PP 5 does not divide the model's 36 layers" in checks(plan)["pp-layers"][0]


@pytest.mark.parametrize("overrides, expected", [
    (("data.train_batch_size=5",), "data.train_batch_size (5) is not a multiple of actor_rollout_ref.actor.ppo_mini_batch_size (2)"),
    (("data.train_batch_size=1",), "data.train_batch_size (1) is smaller than actor_rollout_ref.actor.ppo_mini_batch_size (2)"),
    (("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3",), "each GPU gets 16 responses per mini-batch"),
])
def test_a_batch_that_does_not_divide(overrides, expected):
    plan = plan_for("qwen3-0.6b-grpo", *overrides, check_verl=False)
    messages = checks(plan)["batch-divides"]
    assert any(expected in m for m in messages), messages
    assert not plan.ok


def test_mini_batch_that_does_not_split_over_dp():
    # 2 GPUs at TP 1 -> DP 2; a mini-batch of 1 prompt x n=1 response cannot be split over 2 ranks
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                    "actor_rollout_ref.rollout.n=1", "algorithm.adv_estimator=reinforce_plus_plus",
                    "actor_rollout_ref.actor.ppo_mini_batch_size=1", check_verl=False)
    assert any("cannot be split evenly over data-parallel size 2" in m for m in checks(plan)["batch-divides"])


def test_our_batch_rules_agree_with_verl(model_dirs):
    """A case both our arithmetic and verl's validate_config reject, from the same numbers."""
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=3",
                    "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1", model_dirs=model_dirs)
    found = checks(plan)
    assert "batch-divides" in found
    assert any("real_train_batch_size (32) must be divisible by minimal possible batch size (6)" in m
               for m in found["verl"]), found


def test_grpo_needs_a_group():
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.rollout.n=1", check_verl=False)
    assert "every advantage is zero" in checks(plan)["group-size"][0]


def test_unknown_key_is_named_with_a_suggestion():
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_paralel_size=2")
    [message] = checks(plan)["unknown-key"]
    assert "no config key actor_rollout_ref.actor.megatron.tensor_model_paralel_size" in message
    assert "did you mean actor_rollout_ref.actor.megatron.tensor_model_parallel_size" in message


def test_truncation_error_with_prompts_too_long(model_dirs, gsm8k_files):
    plan = plan_for("qwen3-0.6b-grpo", "data.max_prompt_length=8", model_dirs=model_dirs, data=gsm8k_files,
                    check_verl=False)
    message, val_message = checks(plan)["truncation"]
    assert "4 of 4 val prompts" in val_message
    assert "256 of 256 train prompts are longer than data.max_prompt_length=8" in message
    assert "data.truncation=error allows none" in message
    # with verl's filter on, the same prompts are dropped: a warning unless every prompt would go
    plan = plan_for("qwen3-0.6b-grpo", "data.max_prompt_length=8", "data.filter_overlong_prompts=true",
                    model_dirs=model_dirs, data=gsm8k_files, check_verl=False)
    assert "truncation" not in checks(plan)
    assert any("will drop them" in m for m in checks(plan)["data-length"])


def test_prompts_within_limits_pass(model_dirs, gsm8k_files):
    plan = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs, data=gsm8k_files, check_verl=False)
    assert plan.ok, [str(f) for f in plan.findings]
    train = plan.data[0]
    assert train.rows == 256 and train.data_sources == {"openai/gsm8k": 256}
    assert 0 < train.prompt_tokens["max"] <= 512


def test_a_data_source_no_scorer_knows(model_dirs, tmp_path):
    verl_rows(3, data_source="openai/gsm8kk").to_parquet(tmp_path / "train.parquet")
    verl_rows(2).to_parquet(tmp_path / "test.parquet")
    plan = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs, check_verl=False,
                    data=(tmp_path / "train.parquet", tmp_path / "test.parquet"))
    messages = checks(plan)["data-data_source"]
    assert any("row 0" in m and "openai/gsm8kk" in m and "did you mean 'openai/gsm8k'" in m for m in messages), messages


def test_missing_data_file_says_how_to_make_it(tmp_path):
    plan = plan_for("qwen3-0.6b-grpo", check_verl=False, data=(tmp_path / "no.parquet", tmp_path / "no2.parquet"))
    assert "rewards prepare" in checks(plan)["data-missing"][0]


@pytest.mark.parametrize("kwarg, expected", [
    ("format_wieght=0.1", "reward setting 'format_wieght' (did you mean format_weight?)"),
    ("format_weight=0.9", "format_weight must be in [0, 0.5]"),
])
def test_reward_settings_are_checked(kwarg, expected):
    plan = plan_for("qwen3-0.6b-grpo", f"reward.custom_reward_function.reward_kwargs.{kwarg}", check_verl=False)
    assert any(expected in m for m in checks(plan)["reward-kwargs"]), plan.findings
    assert plan.overrides.get(f"reward.custom_reward_function.reward_kwargs.{kwarg.split('=')[0]}").prefix == "+"



KWARGS = "reward.custom_reward_function.reward_kwargs"
NAIVE_EXTRA = {"split": "train", "index": 0, "num_turns": 2, "rollout_reward_scores": {}}


def test_length_shaping_gets_what_verls_reward_call_needs(model_dirs, gsm8k_files):
    """verl 0.9.1's reward managers pass no response_length: the plan adds the policy's tokenizer and
    data.max_response_length, and the command, loaded as verl loads it, scores verl's sample."""
    plan = plan_for("qwen3-0.6b-grpo", f"{KWARGS}.overlong_buffer_len=256", model_dirs=model_dirs,
                    data=gsm8k_files, check_verl=False)
    assert plan.ok, plan.errors
    assert plan.reward_kwargs["max_resp_len"] == plan.cfg.data.max_response_length == 1024
    assert plan.reward_kwargs["length_tokenizer"] == plan.model
    from verl.trainer.ppo.reward import get_custom_reward_fn
    fn = get_custom_reward_fn(verl_config.compose(plan.overrides.texts()))
    out = fn(data_source="openai/gsm8k", solution_str="#### 72", ground_truth="72", extra_info=dict(NAIVE_EXTRA))
    assert out["overlong_penalty"] == 0.0 and out["acc"] == 1.0


def test_the_users_own_length_settings_are_kept(model_dirs, gsm8k_files):
    plan = plan_for("qwen3-0.6b-grpo", f"{KWARGS}.overlong_buffer_len=256", f"{KWARGS}.length_unit=chars",
                    f"{KWARGS}.max_resp_len=4096", model_dirs=model_dirs, data=gsm8k_files, check_verl=False)
    assert "length_tokenizer" not in plan.reward_kwargs and plan.reward_kwargs["max_resp_len"] == 4096
    assert "data.max_response_length=1024" in checks(plan)["reward-length"][0]


@pytest.mark.parametrize("override, expected", [
    ("reward.custom_reward_function.name=compute_score_batch", "TypeError"),   # verl calls it one sample at a time
    (f"{KWARGS}.length_tokenizer={{folder}}", "TokenizerError"),               # a folder with no tokenizer in it
])
def test_a_setting_that_fails_at_the_first_reward_fails_the_plan(override, expected, model_dirs, gsm8k_files,
                                                                  tmp_path):
    plan = plan_for("qwen3-0.6b-grpo", f"{KWARGS}.overlong_buffer_len=256", override.format(folder=tmp_path),
                    model_dirs=model_dirs, data=gsm8k_files, check_verl=False)
    [message] = checks(plan)["reward-call"]
    assert message.startswith("verl's first reward call for data_source openai/gsm8k would stop the run")
    assert expected in message
    if "batch" in override:
        assert message.endswith("one sample at a time, so use compute_score or compute_score_async")

# --- memory: the published findings ------------------------------------------------------------------

def test_qwen3_8b_on_four_48gb_gpus_needs_optimizer_offload():
    plan = plan_for("qwen3-8b-grpo", gpu_memory_gb=48, check_verl=False)
    assert plan.ok and plan.memory.fits
    assert "optimizer offload is needed" in checks(plan)["offload"][0]
    without = plan_for("qwen3-8b-grpo", "actor_rollout_ref.actor.megatron.optimizer_offload=false",
                       gpu_memory_gb=48, check_verl=False)
    assert not without.memory.fits
    [message] = checks(without)["memory"]
    assert "GiB per GPU but a GPU has 48 GiB" in message
    assert "set actor_rollout_ref.actor.megatron.optimizer_offload=true" in message


def test_qwen3_0_6b_on_two_24gb_gpus_fits():
    plan = plan_for("qwen3-0.6b-grpo", gpu_memory_gb=24, check_verl=False)
    assert plan.memory.fits and plan.memory.peak.total < 24
    assert "memory" not in checks(plan) and "offload" not in checks(plan)


def test_memory_overflow_can_be_downgraded():
    plan = plan_for("qwen3-8b-grpo", "actor_rollout_ref.actor.megatron.optimizer_offload=false",
                    gpu_memory_gb=48, check_verl=False, memory_is_error=False)
    assert plan.ok and any(f.check == "memory" and f.level == "warning" for f in plan.findings)


def test_legacy_reward_keys_are_flagged():
    plan = plan_for("qwen3-0.6b-grpo", "custom_reward_function.path=pkg://rewards.verl", check_verl=False)
    assert any("ignores the top-level custom_reward_function" in m for m in checks(plan)["reward-wiring"])


def test_missing_gpu_software_is_a_note_when_planning():
    from cli.launch.env import verl_pins
    plan = plan_for("qwen3-0.6b-grpo", check_verl=False)
    assert verl_pins().get("megatron-bridge") == "0.5.2"      # read from verl's own package metadata
    notes = checks(plan).get("versions", [])
    assert all("needed on the GPU nodes" in n for n in notes)


def test_data_findings_count_every_problem_not_only_the_listed_ones(tmp_path):
    from omegaconf import OmegaConf

    from cli.launch.data import MAX_LISTED, check_data
    from schemas.verl_row import make_row, write_parquet

    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q {i}"}],
                     ground_truth="not a number", extra_info={"split": "train", "index": i}) for i in range(30)]
    write_parquet(rows, tmp_path / "train.parquet")
    cfg = OmegaConf.create({"data": {"max_prompt_length": 512}})
    _, findings = check_data({"train": str(tmp_path / "train.parquet")}, cfg, None)
    more = [f.message for f in findings if f.check == "data"]
    assert more == [f"{tmp_path / 'train.parquet'} has {30 - MAX_LISTED} more problems: "
                    f"`rewards validate {tmp_path / 'train.parquet'}` lists them all"]


def test_the_overlap_warning_names_the_command_that_shows_it(tmp_path, capsys):
    """A prompt in both files is found only against the other file: the hint must say --against."""
    from omegaconf import OmegaConf

    from cli.launch.data import check_data
    from cli.main import main
    from schemas.verl_row import make_row, write_parquet

    def rows(numbers):
        return [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q {i}"}],
                         ground_truth="4", extra_info={"split": "train", "index": i}) for i in numbers]

    write_parquet(rows(range(4)), tmp_path / "train.parquet")
    write_parquet(rows([3, 9]), tmp_path / "test.parquet")
    cfg = OmegaConf.create({"data": {"max_prompt_length": 512}})
    files = {"train": str(tmp_path / "train.parquet"), "val": str(tmp_path / "test.parquet")}
    _, findings = check_data(files, cfg, None)
    [hint] = [f.message for f in findings if f.check == "data-contamination"]   # the run's validation file
    command = hint.split("`")[-2]
    assert command == f"rewards validate {files['train']} --against {files['val']}"
    capsys.readouterr()
    assert main([*command.split()[1:], "-q"]) == 0
    assert "1 prompts of held-out file" in capsys.readouterr().out


# --- the Megatron engine on the tiny model: what the GPU run would otherwise find ------------------

def _tiny_config(tmp_path, vocab: int):
    """`rewards tiny-model`'s shape (4 heads, 256 wide): its byte-level vocabulary has 259 rows."""
    import json
    path = tmp_path / f"tiny-{vocab}" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "num_hidden_layers": 4,
                                "num_attention_heads": 4, "num_key_value_heads": 4, "hidden_size": 256,
                                "intermediate_size": 1024, "vocab_size": vocab, "tie_word_embeddings": True,
                                "max_position_embeddings": 2048}))
    return str(path)


def test_tp_that_does_not_divide_the_vocabulary(tmp_path):
    """Megatron splits the embedding rows evenly over TP and verl builds through mbridge (or
    Megatron-Bridge) without padding them: vocab 259 at TP 2 stops every worker with '259 is not
    divisible by 2' after the cluster is up."""
    plan = plan_for("qwen3-0.6b-grpo", model_config=_tiny_config(tmp_path, 259), check_verl=False)
    assert plan.parallel.actor.tp == 2 and not plan.ok
    [message] = checks(plan)["tp-vocab"]
    assert "TP 2 does not divide the model's vocabulary of 259 rows" in message
    assert "'259 is not divisible by 2'" in message and "tensor_model_parallel_size to one of 1" in message
    padded = plan_for("qwen3-0.6b-grpo", model_config=_tiny_config(tmp_path, 320), check_verl=False)
    assert "tp-vocab" not in checks(padded)
    single = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1",
                      "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
                      model_config=_tiny_config(tmp_path, 259), check_verl=False)
    assert "tp-vocab" not in checks(single)


def test_flash_attention_backend_needs_flash_attn():
    """verl's own default, attention_backend=flash, makes TransformerEngine use the flash-attn package
    only, so a node without it fails at the first forward; `fused` (cuDNN, the launcher's default) needs
    nothing more."""
    from cli.launch.env import check_environment, missing_sentence
    flash = "actor_rollout_ref.actor.megatron.override_transformer_config.attention_backend=flash"
    plan = plan_for("qwen3-0.6b-grpo", flash, check_verl=False)
    [message] = checks(plan)["attention"]
    assert "actor_rollout_ref.actor.megatron.override_transformer_config.attention_backend=fused" in message
    assert "actor_rollout_ref.ref" not in message   # the reference copies the actor's transformer overrides
    _, missing = check_environment(plan.cfg, launching=True)
    assert "flash-attn" in missing                   # this machine has none: a launch from here stops
    sentence = missing_sentence(missing, plan.cfg)   # with the Megatron way around it, not FSDP's sdpa
    assert "override_transformer_config.attention_backend=fused" in sentence and "sdpa" not in sentence
    fused = plan_for("qwen3-0.6b-grpo", check_verl=False)
    assert "attention" not in checks(fused)
    assert "flash-attn" not in check_environment(fused.cfg, launching=True)[1]
    fsdp = plan_for("qwen3-0.6b-grpo", strategy="fsdp", check_verl=False)
    assert "attention" not in checks(fsdp)           # FSDP's own flash-attn rule is test_launcher_fsdp's


def test_unpublished_bridge_pin_points_at_mbridge():
    """verl 0.9.1 pins megatron-bridge 0.5.2, which PyPI does not have: the advice names mbridge instead
    of an install that cannot succeed."""
    from cli.launch.env import check_environment
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.vanilla_mbridge=false", check_verl=False)
    [message] = checks(plan)["versions"]
    assert "megatron-bridge==0.5.2, which PyPI does not have" in message
    assert "vanilla_mbridge=true" in message and "pins megatron-bridge==0.5.2, vllm" not in message
    legacy = plan_for("qwen3-0.6b-grpo", check_verl=False)   # mbridge: the launcher's default
    _, missing = check_environment(legacy.cfg, launching=True)
    assert "mbridge" in missing and "megatron-bridge" not in missing


def test_megatron_without_a_bridge_is_refused():
    """verl 0.9.1's MegatronEngine asserts use_mbridge: the bridge-less path is gone."""
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.use_mbridge=false", check_verl=False)
    [message] = checks(plan)["bridge"]
    assert "actor_rollout_ref.actor.megatron.use_mbridge=false" in message and "use_mbridge must be True" in message
    assert "bridge" not in checks(plan_for("qwen3-0.6b-grpo", check_verl=False))


# --- a format rule the prompts do not ask for ---------------------------------------------------------

def _prepared(tmp_path, template: str, answer_format: str = "gsm8k"):
    """Rows as `rewards prepare --template TEMPLATE` writes their prompts."""
    from datasources.templates import build_prompt, get_template

    rows = verl_rows(256)
    rows["prompt"] = [build_prompt(get_template(template), f"How many? Case {i}.", answer_format=answer_format)
                      for i in range(256)]
    rows.to_parquet(tmp_path / f"{template}.parquet")
    return tmp_path / f"{template}.parquet"


@pytest.mark.parametrize("rule, template, flagged", [
    ("think_answer", "r1", True),        # r1 asks for the answer after </think>, never for <answer> tags
    ("think_answer", "r1_tags", False),
    ("think_boxed", "gsm8k", True),
    ("think_boxed", "think_box", False),
    ("none", "r1_tags", True),           # tags asked for, but no rule under which the scorer reads them
    ("none", "r1", False),
])
def test_a_format_rule_the_prompts_do_not_ask_for_is_flagged(tmp_path, rule, template, flagged):
    data = _prepared(tmp_path, template)
    plan = plan_for("qwen3-0.6b-grpo", f"reward.custom_reward_function.reward_kwargs.format_rule={rule}",
                    check_verl=False, data=(data, data))
    found = checks(plan).get("format-prompt", [])
    assert bool(found) == flagged, found
    if flagged and rule == "think_answer":
        assert "none of its 256 prompts" in found[0] and "--template r1_tags" in found[0]


def test_a_tiny_model_is_counted_in_millions(tmp_path):
    """`rewards tiny-model`'s 4.3 M parameters read `0.00 B` in the plan; large models keep B."""
    from cli.launch.model import parameter_count

    shape = shape_from_config(read_config(_tiny_config(tmp_path, 259)))
    assert shape.describe().endswith(f"{shape.params / 1e6:.1f} M parameters") and "0.00 B" not in shape.describe()
    assert [parameter_count(n) for n in (596_049_920, 4_300_000, 980_000, 12)] == ["0.60 B", "4.3 M", "980 K", "12"]


# --- the plan describes the run, not its preset ----------------------------------------------------------

def test_the_header_describes_the_run(model_dirs, gsm8k_files):
    from cli.launch.plan import Request, make_plan
    from cli.launch.plan_text import render_plan
    plan = make_plan(Request(preset=load_preset("qwen3-0.6b-grpo"), strategy="fsdp", gpus_per_node=8,
                             model=str(model_dirs["Qwen2.5-0.5B-Instruct"]), train_files=str(gsm8k_files[0]),
                             val_files=str(gsm8k_files[1]), check_verl=False,
                             overrides=["actor_rollout_ref.rollout.tensor_model_parallel_size=1"]))
    assert render_plan(plan).splitlines()[0] == ("Plan: Qwen2.5-0.5B-Instruct GRPO on openai/gsm8k, FSDP on 8 GPU(s) "
                                                 "(from preset qwen3-0.6b-grpo)")


def test_a_run_of_other_data_is_named_for_itself_and_dumps_beside_its_name(model_dirs, tmp_path):
    data = tmp_path / "dapo"
    data.mkdir()
    verl_rows(8).to_parquet(data / "train.parquet")
    verl_rows(4).to_parquet(data / "test.parquet")
    plan = plan_for("qwen3-0.6b-grpo", model_dirs=model_dirs, data=(data / "train.parquet", data / "test.parquet"),
                    check_verl=False)
    name = plan.cfg.trainer.experiment_name
    assert name == "qwen3_0.6b_base_grpo_dapo"
    assert plan.cfg.trainer.rollout_data_dir.endswith(f"runs/{name}/rollouts")
    assert plan.cfg.trainer.validation_data_dir.endswith(f"runs/{name}/validation")
    assert name in checks(plan)["run-name"][0]


def test_two_experiments_from_one_preset_write_two_folders():
    dirs = []
    for name in ("lr_a", "lr_b"):
        plan = plan_for("qwen3-0.6b-grpo", f"trainer.experiment_name={name}", check_verl=False)
        assert plan.cfg.trainer.experiment_name == name
        dirs.append(plan.cfg.trainer.rollout_data_dir)
    assert dirs[0] != dirs[1] and dirs[0].endswith("runs/lr_a/rollouts")
    kept = plan_for("qwen3-0.6b-grpo", "trainer.experiment_name=lr_c", "trainer.rollout_data_dir=/data/mine",
                    check_verl=False)
    assert kept.cfg.trainer.rollout_data_dir == "/data/mine"
    same = plan_for("qwen3-0.6b-grpo", check_verl=False)
    assert same.cfg.trainer.experiment_name == "qwen3_0.6b_base_grpo_gsm8k" and "run-name" not in checks(same)


def test_few_responses_per_gpu_get_a_hint():
    plan = plan_for("qwen3-8b-grpo", nnodes=2, gpus_per_node=8, check_verl=False)
    [hint] = checks(plan)["step-size"]
    assert hint.startswith("64 responses a step (data.train_batch_size=8 x n=8) over 16 GPUs is 4 a GPU")
    assert "data.train_batch_size=16 gives 8 a GPU" in hint
    assert "step-size" not in checks(plan_for("qwen3-8b-grpo", check_verl=False))


def test_an_invalid_tp_does_not_hide_the_batch_check():
    plan = plan_for("qwen3-0.6b-grpo", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=3",
                    "data.train_batch_size=3", gpus_per_node=4, check_verl=False)
    found = checks(plan)
    assert "world-divides" in found
    assert any("is not a multiple of" in m for m in found["batch-divides"]), found


def test_the_plan_counts_warnings_as_validate_does(tmp_path, capsys):
    """29 repeated prompts are 29 warnings in the plan too (validate lists 20 and counts them all)."""
    from omegaconf import OmegaConf

    from cli.launch.data import check_data
    from cli.main import main
    from schemas.verl_row import make_row, write_parquet

    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": "q"}], ground_truth="4",
                     extra_info={"split": "train", "index": i}) for i in range(30)]
    write_parquet(rows, tmp_path / "train.parquet")
    write_parquet(rows[:1], tmp_path / "other.parquet")
    cfg = OmegaConf.create({"data": {"max_prompt_length": 512}})
    _, findings = check_data({"train": str(tmp_path / "train.parquet")}, cfg, None)
    [hint] = [f.message for f in findings if f.check == "data-warnings"]
    assert f"{tmp_path / 'train.parquet'} has 29 warning(s)" in hint
    main(["validate", str(tmp_path / "train.parquet"), "--json", "--no-gold-check"])
    assert json.loads(capsys.readouterr().out)["reports"][0]["stats"]["warning_count"] == 29


def test_held_out_prompts_in_training_data_are_their_own_finding(tmp_path):
    from omegaconf import OmegaConf

    from cli.launch.data import check_data
    from schemas.verl_row import make_row, write_parquet

    def rows(numbers, split):
        return [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q {i}"}],
                         ground_truth="4", extra_info={"split": split, "index": i}) for i in numbers]

    write_parquet(rows(range(30), "train"), tmp_path / "train.parquet")
    write_parquet(rows(range(25), "test"), tmp_path / "test.parquet")
    cfg = OmegaConf.create({"data": {"max_prompt_length": 512}})
    _, findings = check_data({"train": str(tmp_path / "train.parquet"), "val": str(tmp_path / "test.parquet")},
                             cfg, None)
    [line] = [f.message for f in findings if f.check == "data-contamination"]
    assert "25 prompts of held-out file" in line and "data-warnings" not in [f.check for f in findings]
    # the run's validation file is held out whatever its rows or name say
    write_parquet(rows(range(25), "train"), tmp_path / "math500.parquet")
    _, findings = check_data({"train": str(tmp_path / "train.parquet"), "val": str(tmp_path / "math500.parquet")},
                             cfg, None)
    [line] = [f.message for f in findings if f.check == "data-contamination"]
    assert f"25 prompts of held-out file {tmp_path / 'math500.parquet'}" in line
