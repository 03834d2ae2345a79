"""Degenerate policy outputs are judged in-process in bounded time (issue 13's must-show sizes).

RL policies do emit megabytes of repetition; the reward thread holds the GIL while it judges, so
every in-process stage must stay far below the deadline. The bound asserted here (0.5 s) is the
issue's; on a quiet machine these take 1-150 ms (docs/benchmarks.md). Each is the best of up to three
cold tries (tests/helpers/timing.py): the bound is on the work, not on a busy CI core.
"""

import pytest

from rewards.api import compute_score
from rewards.math.extract import boxed_answer, last_boxed
from rewards.format import check_format
from rewards.region import MAX_REGION_CHARS, MAX_RESPONSE_CHARS, answer_region
from rewards.result import Verdict
from rewards.shaping import repetition_fraction
from tests.helpers.timing import fastest

BOUND = 0.5

NESTED = "\\boxed{" * 100_000 + "1" + "}" * 100_000
JOINED = "\\boxed{5}, " * (10_000_000 // 11)
DIGITS = " ".join("\\boxed{" + "7" * 10_000 + "}" for _ in range(100))

SETTINGS = [{}, {"format_rule": "think_boxed", "format_weight": 0.1}]


@pytest.fixture(scope="module", autouse=True)
def imported():
    """The first call in a process imports the scorers' modules (~0.3 s); that is not per input."""
    for source in ("lighteval/MATH", "math_dapo", "openai/gsm8k"):
        compute_score(source, "\\boxed{1} #### 1", "1", format_rule="think_boxed", format_weight=0.1)


def timed(*args, **kwargs):
    return fastest(lambda: compute_score(*args, **kwargs), under=BOUND)


@pytest.mark.parametrize("kwargs", SETTINGS)
@pytest.mark.parametrize("source", ["lighteval/MATH", "math_dapo", "openai/gsm8k"])
@pytest.mark.parametrize("name, text, math_verdict", [
    ("nested boxes, depth 100,000", NESTED, "no_answer"),      # the judged tail holds only `}`
    ("10 MB of joined boxes", JOINED, "correct"),               # side-by-side equal boxes: one answer
    ("1 MB of digits in 100 boxes", DIGITS, "unparsable_pred"),  # 10,000 digits is no MATH answer
])
def test_degenerate_output_is_judged_quickly(name, text, math_verdict, source, kwargs):
    out, took = timed(source, text, "5", **kwargs)
    assert took < BOUND, f"{name}: {took:.2f} s"
    if source != "openai/gsm8k":
        assert out["verdict"] == math_verdict
    else:
        assert out["verdict"] in ("no_answer", "unparsable_pred")  # no `####` line in any of them


def test_flexible_gsm8k_reads_the_last_number_of_a_huge_response():
    out, took = timed("openai/gsm8k", JOINED, "5", gsm8k_mode="flexible")
    assert took < BOUND and out["verdict"] == "correct"


def test_the_judged_region_is_the_tail():
    text = "\\boxed{4} " + "x" * MAX_REGION_CHARS + " \\boxed{5}"
    assert answer_region(text).endswith("\\boxed{5}") and len(answer_region(text)) == MAX_REGION_CHARS
    assert compute_score("lighteval/MATH", text, "5")["verdict"] == "correct"
    # An answer followed by more than MAX_REGION_CHARS of text is outside the judged tail.
    late = "\\boxed{5} " + "x" * MAX_REGION_CHARS
    assert compute_score("lighteval/MATH", late, "5")["verdict"] == "no_answer"
    assert answer_region("<think>" + "y" * 10 + "</think>" + "z" * 5) == "zzzzz"


@pytest.mark.parametrize("depth", [1, 2, 40, 5_000, 12_000])
def test_nested_boxes_read_as_the_outer_box_in_linear_time(depth):
    text = "so \\boxed{" * depth + "1" + "}" * depth + " done"
    content, took = fastest(lambda: last_boxed(text), under=BOUND)
    assert took < BOUND
    assert content == "so \\boxed{" * (depth - 1) + "1" + "}" * (depth - 1)


def test_an_unclosed_outer_box_leaves_the_inner_one():
    text = "\\boxed{" * 20_000 + "\\boxed{1}"
    content, took = fastest(lambda: last_boxed(text), under=BOUND)
    assert content == "1" and took < BOUND


def test_a_bare_box_around_a_box_and_blank_runs():
    assert last_boxed("\\boxed \\boxed{1}") == "\\boxed{1}"
    assert last_boxed("\\boxed" + " " * 1_000_000 + "{3}") == "3"
    assert boxed_answer("\\boxed{1}" + " " * 1_000_000 + "\\boxed{2}") == ("1, 2", True)


# -- every stage a user can turn on: format rules, shaping, verdict keys, GSM8K modes ----------

def _repeated(unit: str, size: int = 10_000_000) -> str:
    return unit * (size // len(unit))


REPEATED = {unit: _repeated(unit) for unit in (
    "\\boxed{5}, ", "<think>", "</think>", "####", "<answer>", "$", "\\(", "{", "\\frac{", "\\sqrt{",
    "< ", "<|", "<|im_end|>", "< think >", "the cat sat ", "日本語🙂", "\x00", "\ud800")}
# Just under the size where a response counts as degenerate: the whole-response regexes still run.
AT_THE_LIMIT = {f"{unit!r} up to the limit": unit * ((MAX_RESPONSE_CHARS - 20) // len(unit))
                for unit in ("<think>", "< think >", "< ", "<|im_end|>", "<answer>")}
AT_THE_LIMIT["answer tags after a thought"] = "<think>x</think>" + "<answer>" * ((MAX_RESPONSE_CHARS - 20) // 8)
STAGES = {
    "think_boxed strict": {"format_rule": "think_boxed", "format_weight": 0.1},
    "think_boxed lenient": {"format_rule": "think_boxed", "format_weight": 0.1, "format_mode": "lenient"},
    "think_answer strict": {"format_rule": "think_answer", "format_weight": 0.1},
    "think_answer lenient": {"format_rule": "think_answer", "format_weight": 0.1, "format_mode": "lenient",
                             "verdict_keys": True},
    "shaping": {"max_resp_len": 4096, "overlong_buffer_len": 512, "length_penalty": 0.1,
                "repetition_penalty": 0.5, "length_unit": "chars"},
    "unigram repetition": {"repetition_penalty": 0.5, "repetition_ngram": 1, "gsm8k_mode": "flexible"},
}


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name, text", [(f"10 MB of {u!r}", t) for u, t in REPEATED.items()]
                         + list(AT_THE_LIMIT.items()), ids=lambda v: v if len(v) < 40 else None)
def test_every_stage_judges_degenerate_output_quickly(name, text, stage):
    for source in ("hiyouga/geometry3k", "openai/gsm8k"):  # MATH with its format default; GSM8K
        out, took = timed(source, text, "5", **STAGES[stage])
        assert took < BOUND, f"{name}, {stage}, {source}: {took:.2f} s"
        assert out["verdict"] in {v.value for v in Verdict}


def test_a_degenerate_response_fails_every_format_rule_and_keeps_its_answer():
    """Past MAX_RESPONSE_CHARS the format rule refuses before reading; the answer is still judged
    on the region's tail, cleaned of special tokens."""
    text = "<think>" + "a " * MAX_RESPONSE_CHARS + "</think> \\boxed{5}<|im_end|>"
    for mode in ("strict", "lenient"):
        out = compute_score("lighteval/MATH", text, "5", format_rule="think_boxed", format_weight=0.1,
                            format_mode=mode)
        assert (out["verdict"], out["format"]) == ("correct", 0.0)
    assert check_format(text[:1000] + text[-30:], "think_boxed").ok  # the same shape, shorter
    assert answer_region("<think>" + "a" * MAX_RESPONSE_CHARS) is None  # cut off: as for short ones


def test_repetition_of_a_degenerate_response_is_measured_on_its_tail():
    tail = "one two three four five six " * (MAX_RESPONSE_CHARS // 28)
    text = "fresh words " * 500_000 + tail
    assert repetition_fraction(text, 3) == repetition_fraction(text[-MAX_RESPONSE_CHARS:], 3) > 0.9


@pytest.mark.parametrize("unit", list(REPEATED))
def test_token_length_shaping_judges_degenerate_output_quickly(unit, tokenizer_dir):
    kwargs = {"max_resp_len": 4096, "overlong_buffer_len": 512, "length_penalty": 0.1,
              "length_tokenizer": str(tokenizer_dir)}
    timed("openai/gsm8k", "warm #### 5", "5", **kwargs)  # loads the tokenizer
    out, took = timed("openai/gsm8k", REPEATED[unit], "5", **kwargs)
    assert took < BOUND, f"10 MB of {unit!r}: {took:.2f} s"
    assert (out["overlong_penalty"], out["length_penalty"]) == (-1.0, -0.1)
