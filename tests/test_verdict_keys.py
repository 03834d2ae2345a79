"""The `verdict_keys` setting: one 0/1 key per failure verdict, identical on every sample, and
plotted by verl 0.9.1's own validation metric code (`process_validation_metrics`)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rewards.verl as rv
from rewards import SettingsError, compute_score
from rewards.result import RESULT_KEYS, TIMING_KEY, VERDICT_KEYS, VERDICTS

ALL_KEYS = (*RESULT_KEYS, *VERDICT_KEYS)


def test_off_by_default_and_one_hot_when_on():
    assert tuple(compute_score("openai/gsm8k", "#### 3", "3")) == RESULT_KEYS
    cases = {"correct": ("#### 3", "3"), "wrong": ("#### 4", "3"), "no_answer": ("I do not know", "3")}
    for verdict, (response, gold) in cases.items():
        out = compute_score("openai/gsm8k", response, gold, verdict_keys=True)
        assert tuple(out) == ALL_KEYS and out["verdict"] == verdict
        assert {k: v for k, v in out.items() if k in VERDICT_KEYS and v} == (
            {} if verdict == "correct" else {f"verdict_{verdict}": 1.0})
    gold = compute_score("lighteval/MATH", r"\boxed{3}", r"\frac{", verdict_keys="true")
    assert gold["verdict"] == "unparsable_gold" and gold["verdict_unparsable_gold"] == 1.0


def test_keys_name_every_verdict_but_correct():
    assert VERDICT_KEYS == tuple(f"verdict_{v}" for v in VERDICTS if v != "correct")


def test_bad_value_is_a_settings_error():
    with pytest.raises(SettingsError, match="verdict_keys"):
        compute_score("openai/gsm8k", "#### 3", "3", verdict_keys="sometimes")


@settings(max_examples=30, deadline=None)
@given(response=st.text(max_size=80), shaping=st.sampled_from([{}, {"repetition_penalty": 0.5}]),
       fmt=st.sampled_from([{}, {"format_rule": "think_boxed", "format_weight": 0.1}]))
def test_one_key_set_for_ours_delegated_and_failed_samples(response, shaping, fmt):
    kw = {"verdict_keys": True, **shaping, **fmt}
    outs = [rv.compute_score("openai/gsm8k", response, "3", **kw),
            rv.compute_score("lighteval/MATH", response, r"\frac12", **kw),
            rv.compute_score("searchR1_nq", response, {"target": ["Paris"]}, **kw),  # verl's own scorer
            rv.compute_score("openai/gsm8k", None, "3", **kw)]  # not text: an `error` verdict
    assert len({tuple(o) for o in outs}) == 1
    for out in outs:
        flags = [out[k] for k in VERDICT_KEYS]
        assert all(isinstance(v, float) for v in flags)
        assert sum(flags) == (0.0 if out["verdict"] == "correct" else 1.0)


def test_score_is_unchanged_by_the_keys():
    kw = {"format_rule": "think_boxed", "format_weight": 0.1, "repetition_penalty": 0.5}
    for response in ["<think>a</think> \\boxed{3}", "\\boxed{4} la la la la la la", ""]:
        plain = compute_score("lighteval/MATH", response, "3", **kw)
        keyed = compute_score("lighteval/MATH", response, "3", verdict_keys=True, **kw)
        assert {k: keyed[k] for k in plain} == plain


# --- verl's real reward loop and validation metrics ---------------------------------------------

def _verl_rows():
    from tests.helpers.verl_rows import Row

    pathological = r"The answer is \boxed{10^{10^{10^{10}}}-9999999!}."
    prompts = [  # two responses per prompt, as val_kwargs.n=2 produces
        ("lighteval/MATH", r"\frac12", [r"\boxed{\frac{1}{2}}", "I cannot tell."]),
        ("lighteval/MATH", r"\sqrt{2}", [pathological, r"\boxed{\sqrt{2}}"]),
        ("lighteval/MATH", r"\frac{", [r"\boxed{3}", r"\boxed{4}"]),  # a broken gold
        ("openai/gsm8k", "72", ["#### 72", "#### 71"]),
        ("searchR1_nq", {"target": ["Paris"]}, ["<answer>Paris</answer>", "no tags at all"]),  # delegated
    ]
    rows, uids = [], []
    for p, (source, gold, responses) in enumerate(prompts):
        for response in responses:
            rows.append(Row(source, response, gold, question=f"question {p}"))
            uids.append(f"uid-{p}")
    return rows, uids


@pytest.mark.verl
def test_verdict_rates_reach_verls_validation_metrics(tokenizer_dir, tokenizer):
    pytest.importorskip("verl")
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.metric_utils import process_validation_metrics

    from tests.helpers.verl_rows import make_batch, verl_trainer_function
    from tests.test_verl_loop import compose, reward_overrides

    config = compose(*reward_overrides(tokenizer_dir, "compute_score",
                                       "+reward.custom_reward_function.reward_kwargs.verdict_keys=true"))
    rows, uids = _verl_rows()
    rv.compute_score("lighteval/MATH", r"\boxed{x}", "x", timeout=30)  # the worker pool is up before the deadline counts

    async def score():
        return await RewardLoopWorker(config).compute_score_batch(make_batch(tokenizer, rows))

    outs = asyncio.run(score())
    assert {tuple(o["reward_extra_info"]) for o in outs} == {(*ALL_KEYS, TIMING_KEY)}
    # What RayPPOTrainer._validate collects: verl's own `reward`, then every reward_extra_info key.
    infos = {"reward": [o["reward_score"] for o in outs]}
    for key in ALL_KEYS:
        infos[key] = [o["reward_extra_info"][key] for o in outs]
    sources = np.array([r.data_source for r in rows], dtype=object)
    metrics_update = verl_trainer_function("_val_metrics_update", np=np,
                                           process_validation_metrics=process_validation_metrics)
    metrics = metrics_update(None, sources, uids, infos, [])

    assert metrics["val-core/lighteval/MATH/acc/mean@2"] == pytest.approx(1 / 3)
    math_rates = {k: metrics[f"val-aux/lighteval/MATH/{k}/mean@2"] for k in VERDICT_KEYS}
    assert math_rates == pytest.approx({"verdict_wrong": 0.0, "verdict_no_answer": 1 / 6,
                                        "verdict_unparsable_pred": 0.0, "verdict_unparsable_gold": 1 / 3,
                                        "verdict_timeout": 1 / 6, "verdict_error": 0.0})
    assert metrics["val-aux/openai/gsm8k/verdict_wrong/mean@2"] == 0.5
    assert metrics["val-aux/searchR1_nq/verdict_wrong/mean@2"] == 0.5  # delegated samples carry them too
    assert not any("/verdict/" in name for name in metrics)  # the string key stays off the dashboard
    for source in ("lighteval/MATH", "openai/gsm8k", "searchR1_nq"):
        assert all(f"val-aux/{source}/{k}/mean@2" in metrics for k in VERDICT_KEYS)
