"""The answer slot of a MATH response: what the final box commits to (docs/scoring-policy.md, MATH).

Each case is a cause, written as models write: an unfinished thought holds no answer; a box that is
an operand of the math around it (read with a LaTeX tokenizer over its whole math span) is not the
answer; a word after the number inside the slot that the reader does not know is not dropped; two
equal boxes offered together are one answer. Each refused case stands beside right answers of the
same shape that must stay paid.
"""

import pytest

from rewards import compute_score

MATH, GSM8K, GEOMETRY = "lighteval/MATH", "openai/gsm8k", "hiyouga/geometry3k"


def result(response, gold, data_source=MATH):
    return compute_score(data_source, response, gold)


def paid(response, gold, data_source=MATH):
    return result(response, gold, data_source)["acc"] == 1.0


# --- an unfinished thought -------------------------------------------------------------------------

OPEN_THOUGHTS = [
    "<think>plan</think>\n<think>Candidate: \\boxed{5}.",
    "<think>Let me plan.</think>\nSo far $\\boxed{5}$.\n<think>Now check whether $5$ works",
    "<think>a</think><think>b</think>\nThe answer is $\\boxed{5}$.\n<think>",
    "Pre-filled thought.</think>\nThe answer is \\boxed{5}.\n<think>Hmm, is it $\\boxed{5}$?",
    "<think>first</think>\n<think>second</think>\n<think>third: \\boxed{5} #### 5",
]


@pytest.mark.parametrize("response", OPEN_THOUGHTS)
@pytest.mark.parametrize("data_source", [MATH, GEOMETRY])
def test_a_thought_still_open_at_the_end_holds_no_answer(response, data_source):
    assert result(response, "5", data_source)["verdict"] == "no_answer"


def test_a_thought_reopened_and_left_open_holds_no_gsm8k_answer():
    assert result("<think>plan</think>\n<think>So 2+3 = 5.\n#### 5", "5", GSM8K)["verdict"] == "no_answer"


CLOSED_THOUGHTS = [
    "<think>plan</think>\n<think>Candidate: \\boxed{6}.</think>\nThe answer is $\\boxed{5}$.",
    "Pre-filled.</think>\nThe answer is $\\boxed{5}$.",
    "<think>a \\boxed{6}</think>\n<think>b \\boxed{7}</think>\n\\boxed{5}",
]


@pytest.mark.parametrize("response", CLOSED_THOUGHTS)
def test_only_the_text_after_every_closed_thought_is_judged(response):
    assert paid(response, "5")


def test_a_box_only_inside_a_closed_second_thought_is_no_answer():
    assert result("<think>plan</think>\n<think>So $\\boxed{5}$.</think>", "5")["verdict"] == "no_answer"


# --- internal markers never leak ---------------------------------------------------------------------

@pytest.mark.parametrize("control", ["\x00", "\x01", "\x1b", "\x7f"])
def test_a_control_character_in_a_box_never_comes_back_as_markup(control):
    pred = result(f"The answer is $\\boxed{{\\frac{{\\pi}}{{3}}{control}}}$.", "\\frac{\\pi}{3}")["pred"]
    assert "circ" not in pred and control not in pred
