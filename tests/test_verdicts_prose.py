"""Prose around an answer never turns a wrong answer into a paid one (rewards/prose.py).

Each refused case was paid 1 before its rule: a word after the number that changes it, a retraction
after the answer, a denial before it, a second value beside it. Each kept case is a right answer
with ordinary prose around it, which must stay paid.
"""

import pytest

from rewards import compute_score

GSM8K, MATH, DAPO = "openai/gsm8k", "lighteval/MATH", "math_dapo"


def verdict(data_source, response, gold, **settings):
    return compute_score(data_source, response, gold, **settings)["verdict"]


# --- words after the number that change it -------------------------------------------------------

SCALED_AGAINST_7 = [
    "#### 7 k", "#### 7 M", "#### 7 bn", "#### 7 lac", "#### 7 myriad", "#### 7 dollars and twenty cents",
    "#### 7 feet two inches", "#### 7 times four", "#### 7\u0301",
    "#### 7 K", "#### 7 B", "#### 7 Cr", "#### 7 mn", "#### 7 Mio", "#### 7 mln", "#### 7 crore", "#### 7 lakhs",
    "#### 7 tausend", "#### 7 score", "#### 7 \u4e07", "#### 7 hours thirty minutes", "#### 7 point five",
    "#### 7 and a half", "#### 7 pounds and four ounces", "#### 7\u0308 apples", "#### 7 over two",
    "#### 7 by nine", "#### **7** grand", "#### $7 bn", "#### 7 dollars, twenty cents",
]


@pytest.mark.parametrize("response", SCALED_AGAINST_7)
def test_gsm8k_words_that_change_the_number_are_not_paid(response):
    assert verdict(GSM8K, response, "7") == "unparsable_pred"


@pytest.mark.parametrize("response", ["The answer is 7 thousand.", "She has 7 k apples.",
                                      "It comes to 7 million dollars.", "So it is 7 times four.",
                                      "The total is 7 feet two inches."])
def test_gsm8k_flexible_words_that_change_the_number_are_not_paid(response):
    assert verdict(GSM8K, response, "7", gsm8k_mode="flexible") == "unparsable_pred"


@pytest.mark.parametrize("response", [r"\boxed{4\text{ score}}", r"\boxed{4\text{ myriad}}",
                                      r"\boxed{4 \text{ lacs}}", r"\boxed{4\text{ mil}}"])
def test_math_scale_words_are_no_units(response):
    assert verdict(MATH, response, "4") != "correct"


@pytest.mark.parametrize("response", [
    "#### 7", "#### 7 apples", "#### 7 dollars", "#### $7 per day", "#### 7 apples in total", "#### 7 km/h",
    "#### 7 cm", "#### 7 m", "#### 7 square feet", "#### 7 hours.", "#### 7 (seven)", "#### 7 %",
    "#### 7 children's books", "#### 7\n\nI hope this helps!", "#### 7 dollars a week",
    "The answer is 7. I hope this helps.\n#### 7", "#### 7\nLet me double check: 3 + 4 = 7. Yes.",
    "#### 7\n\nSo she has 7 apples left.", "#### 5\nso 6 was wrong".replace("5", "7"),
])
def test_gsm8k_ordinary_words_still_pay(response):
    assert verdict(GSM8K, response, "7") == "correct"


@pytest.mark.parametrize("response", ["So she has 7 apples left.", "The answer is 7. I hope this helps.",
                                      "It is 9, no, 7 apples", "She didn't eat 3 of the 10 apples, so she has 7."])
def test_gsm8k_flexible_ordinary_words_still_pay(response):
    assert verdict(GSM8K, response, "7", gsm8k_mode="flexible") == "correct"


# --- a retraction after the last answer ----------------------------------------------------------

@pytest.mark.parametrize("data_source, response", [
    (GSM8K, "#### 7. Or maybe 8"), (GSM8K, "#### 7\nor 8"),
    (MATH, "The final answer is $7$. Actually no, it is $8$."),
    (MATH, r"$\boxed{7}$ is incorrect. The correct answer is 9."),
    (MATH, r"\boxed{7} is wrong; the answer is 8"), (MATH, r"\boxed{7}, or maybe 8"),
    (GSM8K, "#### 7\nWait, that's not right."), (GSM8K, "#### 7\n\nOops, I made a mistake: it should be 9."),
    (GSM8K, "#### 7\nThe correct answer is 9."), (GSM8K, "#### 7. But actually it is 8."),
    (GSM8K, "<think>3+4</think>\n#### 7\nor maybe eight"),
    (MATH, "\\boxed{7}\n\nHmm, this answer is wrong."), (MATH, r"\boxed{7}. No, scratch that."),
    (MATH, "The answer is $7$. Sorry, I made an error."), (MATH, r"\boxed{7} (incorrect)"),
    (MATH, "\\boxed{7}.\n\nThe answer is actually $8$."), (MATH, r"$\boxed{7}$, or perhaps $9$."),
    (MATH, "<think>x</think><answer>\\boxed{7} is wrong</answer>"),
    (MATH, "<think>x</think>\n<answer>\\boxed{7}</answer>\nWait, the answer is 9."),
    (MATH, "<think>x</think><answer>The answer is 7. Or maybe 9.</answer>"),
    (DAPO, "Answer: 7\nActually, no: the answer is 9."),
    (MATH, r"\boxed{7}. So the final answer is $8$ after all."),
    (GSM8K, "#### 7\n\n\\boxed{8}"), (GSM8K, "#### 7\nSo $\\fbox{8}$ apples."),
    (GSM8K, "#### 7. No wait, it is 8"), (GSM8K, "#### 7\nOh wait, 8"), (MATH, r"\boxed{7}. Um, actually it is $8$."),
])
def test_an_answer_taken_back_is_not_paid(data_source, response):
    assert verdict(data_source, response, "7") in ("unparsable_pred", "wrong", "no_answer")


@pytest.mark.parametrize("response, flexible", [("The answer is 7. Or maybe 8.", True),
                                                ("It is 7. Actually, no.", True)])
def test_gsm8k_flexible_answer_taken_back_is_not_paid(response, flexible):
    assert verdict(GSM8K, response, "7", gsm8k_mode="flexible") == "unparsable_pred"


@pytest.mark.parametrize("response", [
    r"\boxed{7}. I hope it is correct.", "The final answer is $7$. I hope it is correct.",
    "\\boxed{7}\n\nThis is the correct answer.", r"\boxed{7}. So the answer is $7$.",
    r"\boxed{7} since $3 + 4 = 7$.", r"\boxed{7}. I hope this helps.", "The answer is 7. I hope this helps.",
    "<think>x</think>\n<answer>\\boxed{7}</answer>", r"\boxed{7}, which is the smallest such prime.",
    r"\boxed{7}. No other value works.", r"\boxed{7}. Oh, and the units are apples.",
])
def test_math_ordinary_text_after_the_answer_still_pays(response):
    assert verdict(MATH, response, "7") == "correct"


def test_a_restated_answer_of_equal_value_still_pays():
    assert verdict(MATH, r"\boxed{\frac12}. The answer is $0.5$.", r"\frac12") == "correct"
    assert verdict(MATH, r"\boxed{\frac14}, which is 0.25.", r"\frac14") == "correct"


# --- a denial before the answer ------------------------------------------------------------------

@pytest.mark.parametrize("data_source, response", [
    (MATH, "I don't think the answer is 7."), (MATH, "A common mistake is to say the answer is 7."),
    (MATH, "It is false that the answer is 7."), (MATH, "I do not believe the answer is 7."),
    (MATH, "It would be wrong to claim that the answer is 7."), (MATH, "Nobody should conclude the answer is 7."),
    (MATH, "If the answer is 7, then x = 3."), (MATH, "Some might say the final answer is $7$."),
    (MATH, r"I doubt the answer is \boxed{7}."), (MATH, r"The answer is not \boxed{7}."),
    (MATH, r"It isn't $\boxed{7}$."), (DAPO, "It is a mistake to write Answer: 7"),
    (GSM8K, "I'm not sure, maybe #### 7"), (GSM8K, "It is wrong to say #### 7"),
])
def test_a_denied_answer_is_not_paid(data_source, response):
    assert verdict(data_source, response, "7") in ("unparsable_pred", "wrong", "no_answer")


@pytest.mark.parametrize("response", ["I don't think it is 7.", "It's a mistake to say 7.",
                                      "There are more than 7"])   # `no more than 7` is `at most 7`: a value
def test_gsm8k_flexible_denied_number_is_not_paid(response):
    assert verdict(GSM8K, response, "7", gsm8k_mode="flexible") == "unparsable_pred"


@pytest.mark.parametrize("response", ["So the answer is 7.", "Since x cannot be 0, the answer is 7.",
                                      "No, the answer is 7.", r"Therefore, the final answer is $\boxed{7}$.",
                                      r"Since $x \neq 0$, $x = \boxed{7}$.", "I think the answer is 7."])
def test_math_asserted_answer_still_pays(response):
    assert verdict(MATH, response, "7") == "correct"


# --- a second value beside a stated answer -------------------------------------------------------

@pytest.mark.parametrize("response", [
    r"The answer is $\frac14$, which is 20.", r"The answer is $\frac14$, i.e. 20.",
    r"The final answer is $\frac14$, which equals twenty.", r"The answer is $\frac14$ (which is 0.3).",
    r"\boxed{\frac14}, which is 20.", r"$\boxed{\frac14}$, i.e. $20$.",
])
def test_a_second_value_beside_the_answer_is_not_paid(response):
    assert verdict(MATH, response, r"\frac14") != "correct"


@pytest.mark.parametrize("response", [r"The answer is $\frac14$, which is the probability.",
                                      r"The answer is $\frac14$ because $1 - \frac34 = \frac14$."])
def test_a_stated_answer_with_a_reason_still_pays(response):
    assert verdict(MATH, response, r"\frac14") == "correct"


# --- an R1-style `<answer>` block read as the answer (format_rule think_answer) --------------------

@pytest.mark.parametrize("data_source, response", [
    (MATH, "<think>x</think><answer>7. Or maybe 9.</answer>"), (MATH, "<think>x</think><answer>$7$, or $9$</answer>"),
    (MATH, "<think>x</think><answer>7 is wrong</answer>"), (GSM8K, "<think>x</think><answer>7 thousand</answer>"),
    (GSM8K, "<think>x</think><answer>7. Actually, 9.</answer>"), (GSM8K, "<think>x</think><answer>7 k</answer>"),
])
def test_an_answer_block_obeys_the_same_prose_rules(data_source, response):
    assert verdict(data_source, response, "7", format_rule="think_answer") != "correct"


@pytest.mark.parametrize("data_source, response", [
    (MATH, "<think>x</think><answer>7</answer>"), (MATH, "<think>x</think><answer>The answer is $7$.</answer>"),
    (GSM8K, "<think>x</think><answer>7 apples</answer>"), (GSM8K, "<think>x</think><answer>The answer is 7.</answer>"),
])
def test_an_answer_block_with_ordinary_words_still_pays(data_source, response):
    assert verdict(data_source, response, "7", format_rule="think_answer") == "correct"
