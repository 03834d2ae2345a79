"""rewards.verl inside the real verl 0.9.1 on CPU: its loader, its Hydra config, its reward managers.

Everything verl does on the way from a rollout to a reward runs for real here: Hydra composes
verl's own `ppo_trainer` config with the overrides users type, `get_custom_reward_fn` imports
`pkg://rewards.verl`, and the reward loop's managers decode one-row DataProtos made with a real
tokenizer. Only the GPUs are missing, and no reward code needs them.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import shlex
import time

import pytest

pytest.importorskip("verl")

import numpy as np  # noqa: E402

import rewards.verl as rv  # noqa: E402
from rewards.result import TIMING_KEY, VERL_KEYS  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.helpers.verl_rows import Row, make_batch, untimed  # noqa: E402

pytestmark = pytest.mark.verl

DEADLINE = 2.0  # seconds: the `timeout` setting these tests pass through reward_kwargs
PKG = "pkg://rewards.verl"


def compose(*overrides: str):
    """verl's real trainer config, composed by Hydra exactly as `python -m verl.trainer.main_ppo` does."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module

    with initialize_config_module(config_module="verl.trainer.config", version_base=None):
        return hydra_compose("ppo_trainer", overrides=list(overrides))


def reward_overrides(tokenizer_dir, name: str = "compute_score", *extra: str) -> list[str]:
    return [
        f"reward.custom_reward_function.path={PKG}",
        f"reward.custom_reward_function.name={name}",
        "+reward.custom_reward_function.reward_kwargs.gsm8k_mode=flexible",
        f"+reward.custom_reward_function.reward_kwargs.timeout={DEADLINE}",
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        *extra,
    ]


@pytest.fixture(scope="module")
def configs(tokenizer_dir):
    """One composed config per entry-point name (composing costs about a second each)."""
    return {name: compose(*reward_overrides(tokenizer_dir, name))
            for name in ("compute_score", "compute_score_async", "compute_score_batch")}


@pytest.fixture(scope="module")
def warm_engine():
    """Start the worker pool before anything is timed (a cold start is not the reward loop's cost)."""
    rv.compute_score(data_source="lighteval/MATH", solution_str=r"\boxed{\frac{x^2-1}{x-1}}",
                     ground_truth="x+1", timeout=30)


def loaded(config):
    from verl.trainer.ppo.reward import get_custom_reward_fn

    return get_custom_reward_fn(config)


# --- verl's loader and Hydra config ------------------------------------------------------------

def test_loader_imports_the_package_path_with_reward_kwargs(configs):
    config = configs["compute_score"]
    assert config.reward.custom_reward_function.reward_kwargs == {"gsm8k_mode": "flexible", "timeout": DEADLINE}
    fn = loaded(config)
    assert fn.args[0] is rv.compute_score  # verl wraps it in a partial with the reward_kwargs
    out = fn(data_source="openai/gsm8k", solution_str="So the total is 42 apples.", ground_truth="#### 42",
             extra_info={"index": 0})
    assert untimed(out) == {"score": 1.0, "acc": 1.0, "format": 1.0, "pred": "42", "verdict": "correct"}
    # verl gives reward_kwargs precedence over call-time keywords: the config's flexible mode wins.
    assert fn(data_source="openai/gsm8k", solution_str="It is 42.", ground_truth="42",
              gsm8k_mode="strict")["verdict"] == "correct"


def test_loader_finds_the_async_and_batch_variants(configs):
    afn = loaded(configs["compute_score_async"])
    assert inspect.iscoroutinefunction(afn)  # what verl's reward managers check before awaiting
    out = asyncio.run(afn(data_source="openai/gsm8k", solution_str="It is 42.", ground_truth="42", extra_info={}))
    assert out["verdict"] == "correct"
    bfn = loaded(configs["compute_score_batch"])
    assert not inspect.iscoroutinefunction(bfn)
    outs = bfn(data_sources=["openai/gsm8k"] * 2, solution_strs=["It is 42.", "It is 41."],
               ground_truths=["42", "42"], extra_infos=[{}, {}])
    assert [o["verdict"] for o in outs] == ["correct", "wrong"]


def documented_overrides(kind: str) -> list[str]:
    """The Hydra overrides in docs/verl.md's `kind` launch block, with shell variables filled in."""
    text = (ROOT / "docs" / "verl.md").read_text()
    block = re.search(rf"<!-- launch: {kind} -->\s*```bash\n(.*?)```", text, re.S)
    assert block, f"docs/verl.md has no launch block for {kind}"
    command = re.sub(r"\$\{?\w+\}?", "/tmp/x", block.group(1))  # shell variables
    tokens = shlex.split(command)  # the shell's quoting, as a user's terminal applies it
    return [t for t in tokens if re.match(r"^\+?[A-Za-z_][\w.]*=", t)]


@pytest.mark.parametrize("kind", ["fsdp", "megatron"])
def test_documented_launch_overrides_compose(kind, tokenizer_dir):
    """Every override users copy from docs/verl.md is accepted by verl's real config and loads us."""
    overrides = documented_overrides(kind)
    assert any(o.startswith("reward.custom_reward_function.path=") for o in overrides)
    config = compose(*overrides)
    assert config.actor_rollout_ref.actor.strategy == ("megatron" if kind == "megatron" else "fsdp")
    fn = loaded(config)
    assert fn.args[0] is rv.compute_score
    assert fn(data_source="openai/gsm8k", solution_str="#### 3", ground_truth="3")["acc"] == 1.0


def test_bad_setting_is_loud_at_the_first_sample(tokenizer_dir):
    from rewards import SettingsError

    config = compose(*reward_overrides(tokenizer_dir, "compute_score",
                                       "+reward.custom_reward_function.reward_kwargs.format_weight=2"))
    with pytest.raises(SettingsError, match="format_weight"):
        loaded(config)(data_source="openai/gsm8k", solution_str="#### 3", ground_truth="3")


# --- the reward loop: NaiveRewardManager and RewardLoopWorker ----------------------------------

GSM8K_ROWS = [
    Row("openai/gsm8k", "She sold 48 + 24 = 72 clips. #### 72", "Natalia sold 48/2 = 24 clips in May. #### 72"),
    Row("openai/gsm8k", "<think>48/2 is 24</think> Altogether 72 clips.", "#### 72"),  # flexible mode
    Row("openai/gsm8k", "#### 71", "#### 72"),
]
MATH_ROWS = [
    Row("lighteval/MATH", r"<think>x = 1/2</think> The answer is $\boxed{\frac{1}{2}}$.", r"\frac12"),
    Row("lighteval/MATH", r"So we get \boxed{\dfrac{\sqrt{3}}{2}}.", r"\frac{\sqrt{3}}{2}"),
    Row("lighteval/MATH", r"Thus \boxed{(2,3)}.", r"(3,2)"),
]


def run_single(config, tokenizer, row: Row, manager: str = "naive") -> dict:
    """One row through a reward-loop manager registered in verl (`reward.reward_manager.name`)."""
    from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls

    async def go():
        instance = get_reward_manager_cls(manager)(config, tokenizer, loaded(config))
        return await instance.run_single(make_batch(tokenizer, [row]))

    return asyncio.run(go())


@pytest.mark.parametrize("manager", ["naive", "dapo"])
@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_reward_managers_score_gsm8k_rows(configs, tokenizer, name, manager):
    outs = [run_single(configs[name], tokenizer, row, manager) for row in GSM8K_ROWS]
    assert [o["reward_score"] for o in outs] == [1.0, 1.0, 0.0]
    assert [o["reward_extra_info"]["pred"] for o in outs] == ["72", "72", "71"]
    assert all(tuple(o["reward_extra_info"]) == VERL_KEYS for o in outs)


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_naive_manager_scores_math_rows(configs, tokenizer, name, warm_engine):
    outs = [run_single(configs[name], tokenizer, row) for row in MATH_ROWS]
    assert [o["reward_extra_info"]["verdict"] for o in outs] == ["correct", "correct", "wrong"]
    assert [o["reward_score"] for o in outs] == [1.0, 1.0, 0.0]
    assert all(tuple(o["reward_extra_info"]) == VERL_KEYS for o in outs)


def test_decoding_drops_special_tokens(configs, tokenizer):
    """The response reaches us as verl decodes it: EOS and pad tokens are gone."""
    row = Row("openai/gsm8k", "#### 72<|im_end|>", "72")
    out = run_single(configs["compute_score"], tokenizer, row)
    assert out["reward_extra_info"]["verdict"] == "correct"


MIXED_ROWS = [
    GSM8K_ROWS[0],
    MATH_ROWS[0],
    Row("searchR1_nq", "<answer>Paris</answer>", {"target": ["Paris"]}),  # delegated to verl
    GSM8K_ROWS[2],
    Row("searchR1_nq", "no tags at all", {"target": ["Paris"]}),
    MATH_ROWS[2],
]


def reward_loop_batch(config, rows, tokenizer) -> list[dict]:
    """What one RewardLoopWorker actor returns for a chunk of the batch."""
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    async def go():
        worker = RewardLoopWorker(config)
        return await worker.compute_score_batch(make_batch(tokenizer, rows))

    return asyncio.run(go())


def assemble(outputs):
    """The reward_extra_info arrays as verl's RewardLoopManager builds them (keys from sample 0)."""
    infos = [o["reward_extra_info"] for o in outputs]
    keys = list(infos[0])
    return {k: np.array([info[k] for info in infos]) for k in keys}


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_mixed_batch_has_identical_key_sets(configs, tokenizer, name, warm_engine):
    outs = reward_loop_batch(configs[name], MIXED_ROWS, tokenizer)
    assert [set(o["reward_extra_info"]) for o in outs] == [set(VERL_KEYS)] * len(MIXED_ROWS)
    arrays = assemble(outs)
    assert list(arrays["verdict"]) == ["correct", "correct", "correct", "wrong", "wrong", "wrong"]
    assert list(arrays["acc"]) == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert [o["reward_score"] for o in outs] == list(arrays["score"])


def test_mixed_batch_with_shaping_keeps_one_key_set(tokenizer_dir, tokenizer, warm_engine):
    """Enabled shaping adds its key to every sample, delegated ones included."""
    config = compose(*reward_overrides(tokenizer_dir, "compute_score",
                                       "+reward.custom_reward_function.reward_kwargs.repetition_penalty=0.5"))
    rows = [*MIXED_ROWS, Row("searchR1_nq", "<answer>Paris</answer> " + "la la la " * 20, {"target": ["Paris"]})]
    outs = reward_loop_batch(config, rows, tokenizer)
    keys = {frozenset(o["reward_extra_info"]) for o in outs}
    assert keys == {frozenset([*VERL_KEYS, "repetition_penalty"])}
    looped = outs[-1]["reward_extra_info"]
    assert looped["repetition_penalty"] < 0 and looped["score"] == pytest.approx(1.0 + looped["repetition_penalty"])


def test_legacy_batch_manager(configs, tokenizer, warm_engine):
    """verl's BatchRewardManager calls compute_score_batch once per batch and places each reward."""
    from verl.workers.reward_manager import BatchRewardManager

    data = make_batch(tokenizer, MIXED_ROWS)
    manager = BatchRewardManager(tokenizer, num_examine=0, compute_score=loaded(configs["compute_score_batch"]))
    out = manager(data, return_dict=True)
    prompt_len = data.batch["prompts"].shape[-1]
    last = data.batch["attention_mask"][:, prompt_len:].sum(-1) - 1
    rewards = out["reward_tensor"][range(len(MIXED_ROWS)), last].tolist()
    assert rewards == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert out["reward_tensor"].sum().item() == 3.0  # nothing anywhere else
    info = out["reward_extra_info"]
    assert set(info) == set(VERL_KEYS) and all(len(v) == len(MIXED_ROWS) for v in info.values())


def test_unknown_data_source_stops_the_reward_loop(configs, tokenizer):
    """A row whose data_source nobody scores fails the step loudly instead of paying 0."""
    from rewards import UnknownDataSourceError

    with pytest.raises(UnknownDataSourceError, match="openai/gsm8k"):
        run_single(configs["compute_score"], tokenizer, Row("openai/gsm8k_local", "#### 1", "1"))


def test_every_registered_data_source_returns_the_same_keys_by_default():
    """Registered defaults must not add keys, or a batch mixing data_sources would disagree."""
    from rewards.registry import list_scorers

    for entry in list_scorers():
        for name in (entry.name, *entry.aliases):
            source = name[:-1] + "2024" if name.endswith("*") else name
            out = rv.compute_score(data_source=source, solution_str="no answer here", ground_truth="1")
            assert tuple(out) == VERL_KEYS, source


# --- the reward's own time on verl's dashboard ------------------------------------------------------

def test_reward_time_reaches_verls_validation_metrics(configs, tokenizer_dir, tokenizer, warm_engine):
    """Every sample carries `reward_ms` (its wall time in the adapter), verl's reward loop passes it
    on, and verl's own validation metrics average it per data_source; `timing_key=false` drops it."""
    from verl.trainer.ppo.metric_utils import process_validation_metrics

    from tests.helpers.verl_rows import verl_trainer_function

    rows = [*MIXED_ROWS, PATHOLOGICAL]  # ours, verl's own (delegated), and one held to the deadline
    outs = reward_loop_batch(configs["compute_score"], rows, tokenizer)
    times = [o["reward_extra_info"][TIMING_KEY] for o in outs]
    assert all(isinstance(t, float) and t > 0 for t in times)
    assert times[-1] >= 0.8 * DEADLINE * 1000 > max(times[:-1])  # the slow sample shows as slow
    infos = {"reward": [o["reward_score"] for o in outs]} | assemble(outs)
    metrics_update = verl_trainer_function("_val_metrics_update", np=np,
                                           process_validation_metrics=process_validation_metrics)
    sources = np.array([r.data_source for r in rows], dtype=object)
    metrics = metrics_update(None, sources, [f"uid-{i}" for i in range(len(rows))], infos, [])
    math_times = [t for t, r in zip(times, rows) if r.data_source == "lighteval/MATH"]
    assert metrics["val-aux/lighteval/MATH/reward_ms/mean@1"] == pytest.approx(sum(math_times) / len(math_times))
    assert "val-aux/searchR1_nq/reward_ms/mean@1" in metrics and "val-aux/openai/gsm8k/reward_ms/mean@1" in metrics

    config = compose(*reward_overrides(tokenizer_dir, "compute_score",
                                       "+reward.custom_reward_function.reward_kwargs.timing_key=false"))
    small = reward_loop_batch(config, MIXED_ROWS, tokenizer)
    assert [tuple(o["reward_extra_info"]) for o in small] == [VERL_KEYS[:-1]] * len(MIXED_ROWS)


# --- deadlines under the reward loop ------------------------------------------------------------

# Not refused by the cost rule (rewards/math/cost.py), so it really holds a worker to its deadline.
PATHOLOGICAL = Row("lighteval/MATH", r"The answer is \boxed{\sum_{k=1}^{9000} k^{k}}.",
                   r"\frac{\sqrt{2}}{2}+\pi")
FAST_ROWS = [GSM8K_ROWS[0], MATH_ROWS[0], GSM8K_ROWS[2], MATH_ROWS[1], GSM8K_ROWS[1]]


def timed_batch(config, rows, tokenizer) -> list[tuple[dict, float]]:
    """Like RewardLoopWorker.compute_score_batch (one task per sample, gathered), with finish times."""
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    async def go():
        worker = RewardLoopWorker(config)
        data = make_batch(tokenizer, rows)
        start = time.monotonic()

        async def one(i):
            out = await worker.compute_score(data[i:i + 1])
            return out, time.monotonic() - start

        return await asyncio.gather(*(one(i) for i in range(len(rows))))

    return asyncio.run(go())


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_pathological_answer_times_out_without_delaying_the_batch(configs, tokenizer, name, warm_engine):
    rows = [PATHOLOGICAL, *FAST_ROWS]
    results = timed_batch(configs[name], rows, tokenizer)
    (slow, slow_at), *fast = results
    assert slow["reward_extra_info"]["verdict"] == "timeout"
    assert slow["reward_score"] == 0.0
    assert DEADLINE * 0.9 <= slow_at <= DEADLINE + 3.0  # killed at the deadline, plus scheduling slack
    for out, at in fast:
        assert at < DEADLINE, "a normal sample waited for the pathological one"
    assert [o["reward_extra_info"]["verdict"] for o, _ in fast] == ["correct", "correct", "wrong", "correct",
                                                                    "correct"]


# --- replaying verl's own rollout dump ---------------------------------------------------------

def test_rollout_dump_replays_through_rewards_score(configs, tokenizer, tmp_path, capsys, warm_engine):
    """verl's dump writer (trainer.rollout_data_dir) output, scored again by `rewards score`."""
    import json

    from cli.main import main
    from tests.helpers.verl_rows import verl_dump_writer

    rows = [*MATH_ROWS, Row("lighteval/MATH", "I cannot tell.", "4")]
    outs = reward_loop_batch(configs["compute_score"], rows, tokenizer)
    extra = {k: v.tolist() for k, v in assemble(outs).items()}
    verl_dump_writer()(
        inputs=[r.question for r in rows], outputs=[r.response for r in rows],
        gts=[r.ground_truth for r in rows], scores=[o["reward_score"] for o in outs],
        reward_extra_infos_dict=extra, dump_path=str(tmp_path / "rollouts"), global_steps=7)
    dump = tmp_path / "rollouts" / "7.jsonl"
    assert main(["score", str(dump), "--data-source", "lighteval/MATH", "-o", str(tmp_path / "re.jsonl")]) == 0
    replayed = [json.loads(line) for line in (tmp_path / "re.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in replayed] == [r["prev_verdict"] for r in replayed] == extra["verdict"]
    assert extra["verdict"] == ["correct", "correct", "wrong", "no_answer"]
    assert "lighteval/MATH" in capsys.readouterr().out


# --- one key set, whatever the settings --------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

run_settings = st.fixed_dictionaries({
    "format_rule": st.sampled_from(["none", "think_boxed", "think_answer"]),
    "format_weight": st.sampled_from([0.0, 0.1, 0.5]),
    "repetition_penalty": st.sampled_from([0.0, 0.5]),
    "overlong_buffer_len": st.sampled_from([0, 20]),
    "length_penalty": st.sampled_from([0.0, 0.1]),
    "max_resp_len": st.just(100),
    "length_unit": st.just("chars"),
})


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kwargs=run_settings, response=st.text(max_size=150))
def test_ours_and_delegated_share_keys_for_any_settings(kwargs, response):
    ours = rv.compute_score(data_source="openai/gsm8k", solution_str=response, ground_truth="3", **kwargs)
    theirs = rv.compute_score(data_source="searchR1_nq", solution_str=response,
                              ground_truth={"target": ["Paris"]}, **kwargs)
    assert list(ours) == list(theirs)
    assert all(isinstance(theirs[k], float) for k in theirs if k not in ("pred", "verdict"))


# --- issue 13: the mix through verl's own reward loop --------------------------------------------

@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_the_mix_through_the_reward_loop_keeps_sound_samples_in_time(configs, tokenizer, name, warm_engine):
    """The 128-sample mix (tests/helpers/mix.py), gathered by verl's RewardLoopWorker: only the
    towers and factorials get `timeout`, and every sample is done within the deadline + 0.5 s."""
    from tests.helpers.mix import mix

    rows = [Row(*row) for row in mix()]
    results = timed_batch(configs[name], rows, tokenizer)
    verdicts = [out["reward_extra_info"]["verdict"] for out, _ in results]
    towers = [i for i, row in enumerate(rows) if row.response.startswith("The value is")]
    assert [i for i, v in enumerate(verdicts) if v == "timeout"] == towers
    assert verdicts.count("correct") == 96
    assert max(at for _, at in results) <= DEADLINE + 0.5
