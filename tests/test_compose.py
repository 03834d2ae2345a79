"""Composition: score = (1 - w) * acc + w * format + shaping, with one key set per run."""

import pytest
from hypothesis import given, strategies as st

from rewards import Sample, compute_score, score_batch
from rewards.result import RESULT_KEYS
from rewards.compose import combine, compose
from rewards.result import Result, Verdict, correct, failed, wrong
from rewards.settings import Settings

R1 = "<think>2 plus 2 is 4</think><answer>#### 4</answer>"
SHAPING = dict(overlong_buffer_len=8, max_resp_len=64, length_penalty=0.1, repetition_penalty=0.3,
               length_unit="chars")
SHAPING_KEYS = {"overlong_penalty", "length_penalty", "repetition_penalty"}


def test_defaults_pay_accuracy_only():
    for response, gold in (("#### 4", "4"), ("#### 5", "4"), (R1, "4"), ("", "4")):
        out = compute_score("openai/gsm8k", response, gold)
        assert set(out) == set(RESULT_KEYS)
        assert out["score"] == out["acc"] and out["format"] == 1.0


def test_default_settings_leave_the_result_untouched():
    result = correct("4")
    assert compose(result, "anything", None, Settings()) is result


def test_a_weight_without_a_rule_pays_nothing_extra():
    """A weight meant for one data_source in a mixed run must not pay GSM8K rows a free w."""
    out = compute_score("openai/gsm8k", "#### 5", "4", format_weight=0.3)
    assert out["score"] == 0.0 and out["format"] == 1.0


def test_format_weight_composition():
    out = compute_score("openai/gsm8k", R1, "4", format_rule="think_answer", format_weight=0.1)
    assert (out["score"], out["acc"], out["format"]) == (1.0, 1.0, 1.0)
    out = compute_score("openai/gsm8k", "#### 4", "4", format_rule="think_answer", format_weight=0.1)
    assert (out["score"], out["acc"], out["format"]) == (pytest.approx(0.9), 1.0, 0.0)
    out = compute_score("openai/gsm8k", "<think>hmm</think><answer>#### 5</answer>", "4",
                        format_rule="think_answer", format_weight=0.1)
    assert (out["score"], out["acc"], out["format"]) == (pytest.approx(0.1), 0.0, 1.0)


def test_format_reported_but_not_paid_at_weight_zero():
    out = compute_score("openai/gsm8k", "#### 4", "4", format_rule="think_answer")
    assert (out["score"], out["format"]) == (1.0, 0.0)


def test_composition_returns_a_new_result_and_keeps_the_scorer_fields():
    base = Result(Verdict.WRONG, "5", reason="5 != 4")
    out = compose(base, "no tags", None, Settings(format_rule="think_boxed", format_weight=0.2))
    assert base.format == 1.0 and base.score == base.acc      # frozen original untouched
    assert (out.verdict, out.pred, out.format, out.score) == (Verdict.WRONG, "5", 0.0, 0.0)
    assert out.reason.startswith("5 != 4; format: ")


def test_shaping_keys_for_every_sample_of_a_run():
    """verl builds its key list from the first sample: every verdict must carry the same keys."""
    samples = [Sample("openai/gsm8k", R1, "4"), Sample("openai/gsm8k", "#### 5", "4"),
               Sample("openai/gsm8k", "no answer here", "4"), Sample("openai/gsm8k", "#### 4", "not a number"),
               Sample("openai/gsm8k", None, "4"),  # not text: an error verdict
               Sample("openai/gsm8k", "<think>cut off", "4")]
    results = score_batch(samples, format_rule="think_answer", format_weight=0.1, **SHAPING)
    verdicts = {r.verdict for r in results}
    assert {Verdict.CORRECT, Verdict.WRONG, Verdict.NO_ANSWER, Verdict.UNPARSABLE_GOLD, Verdict.ERROR} <= verdicts
    key_sets = {tuple(r.to_dict()) for r in results}
    assert len(key_sets) == 1
    assert set(next(iter(key_sets))) == set(RESULT_KEYS) | SHAPING_KEYS


def test_score_includes_the_shaping_terms():
    long_loop = "<think>" + "wait " * 40 + "</think><answer>#### 4</answer>"
    out = compute_score("openai/gsm8k", long_loop, "4", format_rule="think_answer", format_weight=0.1, **SHAPING)
    base = combine(out["acc"], out["format"], 0.1)
    assert out["overlong_penalty"] == -1.0                  # > max_resp_len characters
    assert out["length_penalty"] == pytest.approx(-0.1)
    assert out["repetition_penalty"] < -0.25
    assert out["score"] == pytest.approx(base + out["overlong_penalty"] + out["length_penalty"]
                                         + out["repetition_penalty"])


def test_reward_kwargs_reach_compute_score_as_verl_passes_them():
    """verl merges `reward_kwargs` into the call's keywords; booleans arrive from Hydra as bool."""
    out = compute_score(data_source="openai/gsm8k", solution_str="adding</think><answer>#### 4</answer>",
                        ground_truth="4", extra_info={"index": 0, "num_turns": None},
                        format_rule="think_answer", format_weight=0.1, think_prefilled=True)
    assert out["format"] == 1.0 and out["score"] == 1.0


VERDICT = st.sampled_from(list(Verdict))
WEIGHT = st.floats(0, 0.5)
TEXT = st.sampled_from(["<think>a</think><answer>4</answer>", "<answer>4</answer>", "", "a</think>\\boxed{4}",
                        "<think>a</think>\\boxed{4}", "<think></think><answer>4</answer> tail"])


@given(VERDICT, WEIGHT, TEXT, st.sampled_from(["think_answer", "think_boxed"]), st.sampled_from(["strict", "lenient"]))
def test_score_equals_the_documented_formula(verdict, weight, text, rule, mode):
    settings = Settings(format_rule=rule, format_weight=weight, format_mode=mode)
    out = compose(Result(verdict, "4" if verdict in (Verdict.CORRECT, Verdict.WRONG) else ""), text, None, settings)
    assert out.format in (0.0, 1.0)
    assert out.score == pytest.approx((1 - weight) * out.acc + weight * out.format)
    assert 0.0 <= out.score <= 1.0


@given(st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1.0]), WEIGHT)
def test_combine_for_any_acc_format_pair(acc, fmt, weight):
    assert combine(acc, fmt, weight) == pytest.approx((1 - weight) * acc + weight * fmt)
    assert 0.0 <= combine(acc, fmt, weight) <= 1.0
    assert combine(1.0, 0.0, weight) >= combine(0.0, 1.0, weight)   # format never outranks accuracy


@given(VERDICT, TEXT, WEIGHT, st.floats(0, 3), st.floats(0, 1), st.floats(0, 1))
def test_score_range_with_shaping(verdict, text, weight, factor, lp, rp):
    settings = Settings(format_rule="think_answer", format_weight=weight, max_resp_len=10, overlong_buffer_len=5,
                        overlong_penalty_factor=factor, length_penalty=lp, repetition_penalty=rp,
                        repetition_ngram=1, length_unit="chars")
    out = compose(Result(verdict), text, None, settings)
    assert -(factor + lp + rp) - 1e-9 <= out.score <= 1.0
    assert all(v <= 0.0 for v in out.extras.values())
    enabled = {"overlong_penalty"} | ({"length_penalty"} if lp else set()) | ({"repetition_penalty"} if rp else set())
    assert set(out.extras) == enabled  # a zero coefficient turns its term (and key) off


def test_failed_helper_results_compose_too():
    out = compose(failed(Verdict.TIMEOUT, "deadline"), "<think>a</think><answer>4</answer>", None,
                  Settings(format_rule="think_answer", format_weight=0.1))
    assert (out.acc, out.format, out.score) == (0.0, 1.0, pytest.approx(0.1))
    assert wrong("5").score == 0.0


# --- per-data_source defaults ------------------------------------------------------------------

def test_geometry3k_uses_easyr1_think_and_box_at_weight_point_one():
    good = compute_score("hiyouga/geometry3k", "<think>The angles sum to 180.</think> So $\\boxed{30}$.", "30")
    assert (good["score"], good["acc"], good["format"]) == (1.0, 1.0, 1.0)
    bare = compute_score("hiyouga/geometry3k", "So $\\boxed{30}$.", "30")
    assert (bare["score"], bare["acc"], bare["format"]) == (pytest.approx(0.9), 1.0, 0.0)
    formatted_wrong = compute_score("hiyouga/geometry3k", "<think>Guess.</think> \\boxed{31}", "30")
    assert (formatted_wrong["score"], formatted_wrong["format"]) == (pytest.approx(0.1), 1.0)
    assert set(good) == set(RESULT_KEYS)
    # the caller's reward_kwargs override the registered default
    assert compute_score("hiyouga/geometry3k", "So $\\boxed{30}$.", "30", format_weight=0.0)["score"] == 1.0


def test_math_pays_accuracy_only_by_default():
    for response in ("So $\\boxed{30}$.", "<think>x</think>\\boxed{30}"):
        out = compute_score("lighteval/MATH", response, "30")
        assert (out["score"], out["format"]) == (1.0, 1.0)
