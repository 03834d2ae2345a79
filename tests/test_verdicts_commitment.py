"""A response is paid for the answer it commits to (docs/scoring-policy.md, the principle at the top).

The answer is the final answer slot; the prose around it voids it only where the text's structure
shows the response does not commit to it: a different value put forward later as the answer or a
candidate, two values offered where one answer belongs, a denial of the answer itself, the answer
inside a question or struck through. Each group below is one cause: right answers written as models
write them (restated conditions, checks, remarks, restatements of the same value) must be paid, and
wrong-as-written ones must not.
"""

import pytest

from rewards import compute_score

GSM8K, MATH, DAPO, TAGS = "openai/gsm8k", "lighteval/MATH", "math_dapo", "xiaodongguaAIGC/X-R1-750"


def result(data_source, response, gold, **settings):
    return compute_score(data_source, response, gold, **settings)


def paid(data_source, response, gold, **settings):
    return result(data_source, response, gold, **settings)["acc"] == 1.0


# --- the clause before the answer: the statement's subject restates the problem --------------------

@pytest.mark.parametrize("response, gold", [
    (r"Therefore, the number of integers greater than 10 and less than 30 that are relatively prime with 28 "
     r"is \(\boxed{9}\).", "9"),
    (r"So the number of ways to stack the scoops such that the chocolate scoop is not on the bottom is "
     r"\(\boxed{18}\).", "18"),
    (r"Rick and Steve could be thinking of $\boxed{4}$ possible numbers.", "4"),
    (r"Hence the number of non-negative integer solutions is $\boxed{10}$.", "10"),
    (r"If we substitute $x = 2$ into the original equation we get $\boxed{5}$.", "5"),
    (r"The number of arrangements such that the red ball is not first is $\boxed{96}$.", "96"),
    (r"There is no solution other than $\boxed{7}$.", "7"),
    (r"Therefore, at most \(\boxed{8}\) bags can be filled, with 1 pound of rice left over.", "8"),
    (r"Since $x$ cannot be negative, $x = \boxed{3}$.", "3"),
    (r"Each student must receive no fewer than $\boxed{3}$ pencils.", "3"),
    (r"The value of $\pi$ to two decimal places is approximately $\boxed{3.14}$.", "3.14"),
])
def test_conditions_restated_before_the_answer_are_paid(response, gold):
    assert paid(MATH, response, gold)


@pytest.mark.parametrize("data_source, response", [
    (MATH, r"I don't think the answer is $\boxed{7}$."),
    (MATH, r"So the answer is not $\boxed{7}$."),
    (MATH, r"It isn't $\boxed{7}$, since the count excludes the endpoints."),
    (MATH, r"A common mistake is to say that the answer is $\boxed{7}$."),
    (MATH, r"If the total is $\boxed{7}$, then each share is 1."),
    (MATH, r"The answer might be $\boxed{7}$."),
    (MATH, r"Guess: $\boxed{7}$."),
    (MATH, r"There are more than $\boxed{7}$ ways."),
    (MATH, r"I'm not sure the answer is $\boxed{7}$."),
    (MATH, r"It is not true that the total is $\boxed{7}$."),
    (GSM8K, "She spends 2 of her 9 dollars, so I'm not sure, maybe\n#### 7"),
    (GSM8K, "The total isn't\n#### 7"),
])
def test_a_denial_or_hypothesis_that_governs_the_answer_is_not_paid(data_source, response):
    assert not paid(data_source, response, "7")


# --- after the answer: checks and remarks that state no other value -------------------------------

@pytest.mark.parametrize("data_source, response, gold", [
    (MATH, "The principal square root of $16$ is $\\boxed{4}$.\n\nWait, let me double-check: $4^2 = 16$. "
           "Yes, 4 is correct.", "4"),
    (MATH, "So the area is $\\boxed{12}$.\n\nHmm, that seems right.", "12"),
    (MATH, "Thus $x = \\boxed{5}$. I double-checked and found no errors.", "5"),
    (MATH, "The ratio is $\\boxed{\\frac{5}{2}}$. Alternatively, we can express this as a mixed number.", r"\frac52"),
    (MATH, "There are $\\boxed{16}$ squares in the grid. It is a common mistake to count the interior squares "
           "twice.", "16"),
    (MATH, "The final answer is $\\boxed{30}$.\n\nLet me verify: $5 \\times 6 = 30$. Correct.", "30"),
    (MATH, "**Final Answer**\n\\[\n\\boxed{2}\n\\]\n\nCheck: $\\log_2 2 + \\log_2 4 = 1 + 2 = 3$. Yes.", "2"),
    (MATH, "The answer is $\\boxed{7}$. Yet I should recheck this later.", "7"),
    (MATH, "The answer is $\\boxed{7}$. However, the problem does not say whether 0 counts.", "7"),
    (GSM8K, "Natalia sold 48 / 2 = <<48/2=24>>24 clips in May.\n#### 72\n\nI hope this helps!", "72"),
    (GSM8K, "#### 4\n\nWait, let me double-check: 2 + 2 = 4. Yes, 4 is correct.", "4"),
])
def test_checks_and_remarks_after_the_answer_are_paid(data_source, response, gold):
    assert paid(data_source, response, gold)


# --- after the answer: values about the problem are no candidates ---------------------------------

@pytest.mark.parametrize("response, gold", [
    (r"The minimum value is $\boxed{9}$, which occurs at $x = 3$.", "9"),
    (r"Only $\boxed{49}$ has a remainder of 1 when divided by 2, 3, 4, or 6.", "49"),
    (r"This leaves $10-7 = \boxed{3}$ with neither.", "3"),
    (r"Jane earns $\$\boxed{10}$ more than Susan.", "10"),
    ("The quadratic is $(x-3)^2$, so its only root is $x = \\boxed{3}$.\n\nSanity check: neither $x = 2$ nor "
     "$x = 4$ works, and $x = 3$ gives $0$.", "3"),
    ("The period is $\\boxed{2\\pi}$.\n\nHmm, could the period be smaller, like $\\pi$? No: shifting by $\\pi$ "
     "flips the sign, so $\\pi$ is not a period.", r"2\pi"),
    ("$$\\arcsin\\frac12 = \\boxed{\\frac{\\pi}{6}}.$$\n\nAlternatively, in degrees this is $30^\\circ$, which "
     "is the same angle.", r"\frac{\pi}{6}"),
    ("So there are $\\boxed{9}$ numbers greater than 10 and less than 100 whose digit sum is 10.", "9"),
    (r"The trip takes $\boxed{2.5}$ hours, or 150 minutes.", "2.5"),
    (r"Therefore, 10 is \(\boxed{20}\) percent of 50.", "20"),
    (r"The area is $\boxed{6}$. (The perimeter would be 12, but the question asks for the area.)", "6"),
    (r"The answer is $\boxed{6}$. Check: multiplying 6 by 2 gives 12.", "6"),
    ("So the answer is $\\boxed{12}$.\n\nHmm, I initially thought it was 14, but that double-counted the corners.", "12"),
    ("There are $\\boxed{20}$ diagonals.\n\nIn general, for $n$ sides the count is $n(n-3)/2$.", "20"),
    ("So the answer is $\\boxed{12}$.\n\nThe answer is 12 apples.", "12"),
    (r"The number of ways is $\boxed{12}$. For the smaller board the number of ways is 4.", "12"),
    (r"The area is $\boxed{12}$. The perimeter is 14.", "12"),
    ("So the total is $\\boxed{7}$. Wait, let me recount: there are 3 red and 4 blue, so 7 in all.", "7"),
])
def test_values_about_the_problem_after_the_answer_are_paid(response, gold):
    assert paid(MATH, response, gold)


@pytest.mark.parametrize("response", [
    "Total: 40 + 20 + 100 = <<40+20+100=160>>160 minutes.\n#### 160\n(That is 2 hours and 40 minutes.)",
    "#### 160\nThat's exactly 160 minutes, or 2 hours and 40 minutes.",
])
def test_gsm8k_the_same_quantity_in_other_units_is_paid(response):
    assert paid(GSM8K, response, "160")


def test_gsm8k_a_few_shot_continuation_is_another_exchange():
    """A base model often goes on to write the next few-shot question; its numbers are not this answer's."""
    assert paid(GSM8K, "#### 72\n\nQuestion: A store sells 3 shirts for $20. How many shirts can you buy with $60? "
                       "The answer is 9.", "72")
    assert not paid(GSM8K, "#### 72\nActually, it is 73.\n\nQuestion: What is 5 + 3?", "72")


# --- after the answer: a value equal to it confirms it --------------------------------------------

@pytest.mark.parametrize("response, gold", [
    (r"The probability is $\boxed{\frac{1}{4}}$, or $25\%$.", r"\frac14"),
    (r"The probability is $\boxed{\frac{1}{4}}$, which is $0.25$.", r"\frac14"),
    (r"The ratio is $\boxed{\frac{5}{2}}$. Alternatively, we can express this as $2.5$.", r"\frac52"),
    (r"The diagonal is $\boxed{2\sqrt{3}}$, which is $\sqrt{12}$.", r"2\sqrt3"),
    (r"The side is $\boxed{2\sqrt{3}}$. Alternatively one may leave it as $\frac{\sqrt{48}}{2}$, the same number.",
     r"2\sqrt3"),
    ("The principal square root of $16$ is $\\boxed{4}$.\n\nWait, could it be $-4$? The radical sign denotes "
     "the principal root, so no: $4$ it is.", "4"),
    (r"So the answer is $\boxed{6}$. The final answer is $\boxed{6}$.", "6"),
])
def test_a_later_value_equal_to_the_answer_confirms_it(response, gold):
    assert paid(MATH, response, gold)


# --- after the answer: a different value put forward as the answer --------------------------------

@pytest.mark.parametrize("data_source, response", [
    (MATH, r"So the count is $\boxed{6}$. Never mind, it's 5."),
    (MATH, "So the count is $\\boxed{6}$.\n\nEDIT: 5."),
    (MATH, r"So the count is $\boxed{6}$. The answer turns out to be 5."),
    (MATH, "So the count is $\\boxed{6}$.\n\nCorrection: I double-counted one case; the total is 5."),
    (MATH, r"That gives $\boxed{6}$. Oops, I meant 5."),
    (MATH, "Answer: $\\boxed{6}$\n\nRevised answer: $5$"),
    (MATH, r"So the result is $\boxed{6}$. Hold on, the last step should subtract 1, giving 5."),
    (MATH, r"So the count is $\boxed{6}$ — nope, 5."),
    (MATH, "$\\boxed{6}$\n\n**Corrected: 5**"),
    (MATH, "So far the count is $\\boxed{6}$. Adding the diagonal case, the total is 5."),
    (MATH, "There are $\\boxed{6}$ such multiples.\n\nHmm, actually the problem said \"less than 150\", so the "
           "count is 5."),
    (MATH, r"So there are \(\boxed{6}\) - 1 = 5 possible values."),
    (GSM8K, "Jen needs 6 more dollars.\n#### 6\nWait, I forgot the tax. She actually needs 5 dollars more."),
    (GSM8K, "#### 6\n\nCorrection: he sprints 4 times, so 5."),
    (GSM8K, "#### 6\nI retract this; 5."),
    (GSM8K, "#### 6\n\nFinal answer revised to 5."),
    (GSM8K, "#### 6. Or maybe 5"),
    (MATH, "So the count is $\\boxed{6}$.\n\nIgnore the above; we get 5."),
    (MATH, r"So $\boxed{6}$. Multiplying by $3! = 6$ gives 5, which is what the problem asks for."),
    (GSM8K, "#### 6\nSo, it's actually 5 apples in the basket."),
    (GSM8K, "#### 6. No wait, it is 5 pounds of meat"),
    (MATH, "So the answer is $\\boxed{6}$.\n\nActually, no: we should use 5."),
    (MATH, r"So the answer is $\boxed{6}$. Sorry, that was a typo for 5."),
    (MATH, r"So the answer is $\boxed{6}$. Halving it for the two halves, we get 5 as the final answer."),
    (MATH, r"So the answer is $\boxed{6}$. Multiplying by $2! = 2$ gives 5."),
    (MATH, "So the answer is $\\boxed{6}$.\n\nUpon re-examination, 5."),
    (MATH, "So the answer is $\\boxed{6}$.\n\nRecounting gives 5."),
    (MATH, "So the answer is $\\boxed{6}$.\n\nTherefore, there are five ways."),
    (MATH, "So the answer is $\\boxed{6}$.\n\n(Alternatively, 5 if we include the endpoint.)"),
    (MATH, r"So the total cost is $\boxed{6}$. Adding the tax, the total cost is 5."),
    (MATH, r"So the total is $\boxed{6}$. Doubling this gives the final count of 5."),
    (MATH, r"So one way gives $\boxed{6}$. Both directions count, so we double it to get 5."),
    (MATH, r"The answer is $\boxed{6}$. Actually, it is one."),
])
def test_a_different_value_put_forward_later_is_not_paid(data_source, response):
    assert not paid(data_source, response, "6")


def test_the_last_value_put_forward_decides():
    corrected_back = r"So the answer is $\boxed{6}$, or maybe 5. Checking again: 6 is correct."
    assert paid(MATH, corrected_back, "6")
    assert not paid(MATH, r"So the answer is $\boxed{6}$. Or is it 5?", "6")


# --- two values offered where one answer belongs ---------------------------------------------------

@pytest.mark.parametrize("data_source, response, gold", [
    (GSM8K, "#### 5\n\nBoth 5 and 6 work.", "5"),
    (GSM8K, "#### 5 or 6", "5"),
    (GSM8K, "#### 6 or #### 5", "5"),
    (MATH, r"The answer is $\boxed{5}$, or maybe 6.", "5"),
    (MATH, r"The answer is $\boxed{6}$ / $\boxed{5}$.", "5"),
    (MATH, r"The answer is $\boxed{5}$. However, 6 also works.", "5"),
    (DAPO, "Answer: 17 or 19", "17"),
    (MATH, r"The answer is $\boxed{6}$ (or $\boxed{5}$ if we count zero).", "5"),
])
def test_two_values_offered_together_are_not_paid(data_source, response, gold):
    assert not paid(data_source, response, gold)


# --- the answer itself denied, in a question, or struck through ------------------------------------

@pytest.mark.parametrize("data_source, response", [
    (MATH, r"So $\boxed{7}$ is wrong."),
    (MATH, r"The count is $\boxed{7}$ (incorrect)."),
    (MATH, "The count is $\\boxed{7}$.\n\nHmm, this answer is wrong."),
    (MATH, r"The count is $\boxed{7}$. However, it does not satisfy the second condition."),
    (MATH, r"The count is $\boxed{7}$. Actually, no."),
    (MATH, r"Is the answer $\boxed{7}$?"),
    (MATH, r"~~$\boxed{7}$~~"),
    (MATH, r"The answer is $\boxed{6}$. ~~Or rather $\boxed{7}$.~~"),
    (GSM8K, "#### 7?"),
    (GSM8K, "~~#### 7~~"),
])
def test_an_answer_denied_questioned_or_struck_through_is_not_paid(data_source, response):
    assert not paid(data_source, response, "7")


# --- GSM8K: the rest of the answer's line -----------------------------------------------------------

@pytest.mark.parametrize("response, gold", [
    ("#### 3 pounds of meat", "3"), ("#### 72 clips in April and May", "72"), ("#### 5 more dollars", "5"),
    ("#### 12 minutes to get to work", "12"), ("#### 6 cookies left over", "6"), ("#### 13 kids like neither", "13"),
    ("#### 104 weeks\nThat's exactly two years.", "104"), ("#### 17 (the smallest such prime)", "17"),
    ("#### 5 chocolate bars", "5"), ("#### 8 people", "8"), ("#### 20 square feet", "20"),
])
def test_gsm8k_a_noun_phrase_after_the_number_is_paid(response, gold):
    assert paid(GSM8K, response, gold)


@pytest.mark.parametrize("response", [
    "#### 5 twelfths", "#### 5 trn", "#### 5\u2030", "#### 5 septillion", "#### 5 millon", "#### 5 twenties",
    "#### 5. 6", "#### 5 \u00a2", "#### 5 cents", "#### 5 Millionen", "#### 5 tausend", "#### 5 mille",
    "#### 5 miliardi", "#### 5 hundredths", "#### 5 more", "#### 5 apples or so", "#### 5 at most",
])
def test_gsm8k_a_word_that_changes_the_value_is_not_paid(response):
    assert not paid(GSM8K, response, "5")


# --- DAPO's `Answer:` line and answer tags ------------------------------------------------------------

@pytest.mark.parametrize("response, gold", [
    ("The smallest prime that divides every such sum is 17.\n\nAnswer: 17 (the smallest such prime)", "17"),
    ("The number of segments is $\\binom52 = 10$.\n\nAnswer: 10 [segments]", "10"),
    ("Answer: 1001, which is not prime.", "1001"),
    ("Answer: 25 (since 25 = 5^2)", "25"),
    ("Answer: 6 (six)", "6"),
    ("The remainder cycles 2, 4.\n\nAnswer:\n4", "4"),
])
def test_dapo_a_remark_after_the_answer_line_is_paid(response, gold):
    assert paid(DAPO, response, gold)


@pytest.mark.parametrize("response", ["Answer: 17 (or 19)", "Answer: 17 (approximately)", "Answer: 17 (wrong)"])
def test_dapo_a_parenthesis_that_changes_the_answer_is_not_paid(response):
    assert not paid(DAPO, response, "17")


def test_an_answer_tag_and_the_text_after_it():
    assert paid(GSM8K, "<think>\n24 / 3 = 8\n</think>\n<answer>Each friend gets 8 cookies.</answer>", "8",
                format_rule="think_answer")
    assert not paid(TAGS, "<think>12</think><answer>12</answer>\nSorry, correct answer: 14.", "12",
                    format_rule="think_answer")
    assert not paid(GSM8K, "<think>x</think><answer>9</answer>\n#### 7", "7", format_rule="think_answer")
    assert paid(GSM8K, "<think>x</think><answer>7</answer>\nI hope this helps.", "7", format_rule="think_answer")


def test_a_leaked_special_token_ends_the_answer_line():
    """A base model's `<|endoftext|>` then the next few-shot turn: the token separates, it does not glue."""
    from rewards import compute_score

    for end in ("<|endoftext|>Human: next question", "<|im_end|>\n<|im_start|>user\nAnother one", "</s>Question: x"):
        response = "She has 70 + 2 = 72 now.\n#### 72" + end
        assert compute_score("openai/gsm8k", response, "72")["verdict"] == "correct", end
        assert compute_score("lighteval/MATH", "So the total is $\\boxed{72}$." + end, "72")["verdict"] == "correct", end


def test_a_remark_after_an_answer_line_names_no_bound_unless_it_says_at_least_or_at_most():
    """`least` in `the least prime of that form` describes the answer; `at least` bounds it."""
    from rewards import compute_score

    paid = ["Answer: 17 (the least prime of that form)", "Answer: 2 \u2014 it is the only possible value.",
            "Answer: 9 \u2013 the largest such digit"]
    refused = ["Answer: 17 (at least)", "Answer: 2 \u2014 or maybe 3", "Answer: 2 \u2014 at most",
               "Answer: 5 \u2014 thousand", "Answer: 2 \u2013 3"]
    for response in paid:
        gold = response.split()[1]
        assert compute_score("math_dapo", response, gold)["verdict"] == "correct", response
    for response in refused:
        gold = response.split()[1]
        assert compute_score("math_dapo", response, gold)["verdict"] != "correct", response
