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


# --- the box as an operand of its formula --------------------------------------------------------------

OPERANDS = [   # (response, the box's content as gold): each formula states another value than the box
    ("Putting it together, $x = -\\,\\boxed{5}$.", "5"),
    ("Putting it together, $x = -\\;\\boxed{5}$.", "5"),
    ("Hence the root is $-(\\boxed{5})$.", "5"),
    ("Hence the root is $-\\left(\\boxed{5}\\right)$.", "5"),
    ("The slope is negative $\\boxed{5}$.", "5"),
    ("The answer is the reciprocal of $\\boxed{5}$.", "5"),
    ("So the ratio is $\\frac 1{\\boxed{5}}$.", "5"),
    ("So the ratio is $\\dfrac{1}{\\boxed{5}}$.", "5"),
    ("So the ratio is $\\frac{\\boxed{5}}{7}$.", "5"),
    ("The area is $\\boxed{5}$ $\\times 10^3$ square meters.", "5"),
    ("The area is $\\boxed{5}$\n$\\times 10^3$ square meters.", "5"),
    ("The area is $\\boxed{5}\\,\\cdot 10^3$.", "5"),
    ("The polynomial is $\\boxed{3} x + 2$.", "3"),
    ("The quotient is $\\boxed{5}/x$.", "5"),
    ("The length is $\\boxed{5}\\sqrt{2}$.", "5"),
    ("The length is $\\boxed{5}\\,\\sqrt{2}$.", "5"),
    ("The value is $\\sqrt{\\boxed{5}}$.", "5"),
    ("The value is $2^{\\boxed{5}}$.", "5"),
    ("The value is $\\left|\\boxed{-5}\\right|$.", "-5"),
    ("The value is $\\boxed{5}^{2}$.", "5"),
    ("The value is $(\\boxed{5})^2$.", "5"),
    ("The value is $\\boxed{5}!$.", "5"),
    ("The pair is $(\\boxed{5}, 3)$.", "5"),
    ("The total is $\\boxed{5}\\;\\text{ thousand}$ dollars.", "5"),
    ("The total is $\\boxed{5}\\mbox{ thousand}$ dollars.", "5"),
    ("The total is $\\boxed{5}\\,\\text{k}$.", "5"),
    ("The total is $\\boxed{5}$ thousand dollars.", "5"),
    ("The total is $\\boxed{5}$ million.", "5"),
    ("We get $\\boxed{5}\\text{ or } 6$.", "5"),
    ("We get $\\boxed{21}.5$.", "21"),
    ("The count is $\\boxed{7},000$.", "7"),
    ("So $x < \\boxed{5}$.", "5"),
    ("so the answer is -$\\boxed{5}$.", "5"),
    ("The answer is \\boxed{5}^2.", "5"),
    ("The answer is -\\boxed{5}.", "5"),
    ("The answer is \\frac{1}{\\boxed{5}}.", "5"),
]


@pytest.mark.parametrize("response,gold", OPERANDS, ids=[r for r, _ in OPERANDS])
def test_a_box_that_is_an_operand_of_its_formula_is_not_the_answer(response, gold):
    assert not paid(response, gold)


ANSWERS = [   # the box is the answer: a label, working before `=`, presentation around it
    ("Therefore $x = \\boxed{5}$.", "5"),
    ("This leaves $10-7 = \\boxed{3}$.", "3"),
    ("So $f(2) = 4 + 1 = \\boxed{5}$.", "5"),
    ("The answer is $\\boxed{5}.$", "5"),
    ("Thus\n\\[\\boxed{81}.\\]", "81"),
    ("She paid $\\$\\boxed{10}$.", "10"),
    ("She has $\\$\\boxed{10}$ more than Susan.", "10"),
    ("The angle is $\\boxed{30^\\circ}$.", "30"),
    ("The angle is $\\boxed{30}^\\circ$.", "30"),
    ("The angle is $\\boxed{30}^{\\circ}$.", "30"),
    ("The rate is $\\boxed{25}\\%$.", "25"),
    ("The side is $\\boxed{10}\\text{ cm}$.", "10"),
    ("The area is $\\boxed{10}\\,\\text{cm}^2$.", "10"),
    ("The answer is $(\\boxed{5})$.", "5"),
    ("The answer is $\\mathbf{\\boxed{5}}$.", "5"),
    ("The answer is $\\textcolor{blue}{\\boxed{5}}$.", "5"),
    ("Hence $129^{34} \\equiv \\boxed{9} \\pmod{11}$.", "9"),
    ("So $x \\in \\boxed{[0, 7)}$.", "[0,7)"),
    ("So $x \\approx \\boxed{2.5}$.", "2.5"),
    ("The answer is $\\boxed{9}$, which occurs at the vertex.", "9"),
    ("We need at least $\\boxed{5}$ colors.", "5"),
    ("A total of $\\boxed{18}$ ways.", "18"),
    ("\\begin{align*}\nx &= 2 + 3 \\\\\n&= \\boxed{5}\n\\end{align*}", "5"),
    ("$$\n\\boxed{5}\n$$", "5"),
    ("**Final Answer:** \\boxed{5}", "5"),
    ("- \\boxed{5}", "5"),
    ("<answer>\\boxed{5}</answer>", "5"),
    ("The answer is \\boxed{5}.", "5"),
    ("The answer is \\boxed{5}. I checked it twice.", "5"),
    ("x = \\boxed{5}, as required.", "5"),
]


@pytest.mark.parametrize("response,gold", ANSWERS, ids=[r for r, _ in ANSWERS])
def test_a_box_its_formula_states_is_the_answer(response, gold):
    assert paid(response, gold)


def test_a_full_stop_inside_the_math_ends_the_answers_sentence():
    # The next sentence opens on its own: words in it are not read as the answer's own clause.
    for response in ["The answer is $\\boxed{5}.$ No other value of $x$ satisfies both equations.",
                     "Thus\n\\[\\boxed{81}.\\]\nNone of the other cases gives a larger value.",
                     "So $x = \\boxed{5}.$ This is not surprising, since the function is increasing."]:
        assert paid(response, "5" if "81" not in response else "81"), response


# --- words after the number inside the slot ------------------------------------------------------------

UNREAD_WORDS = [   # a word the reader does not know, or one that changes the value, is never dropped
    ("\\boxed{5\\text{ thousand}}", "5"), ("\\boxed{5\\;\\text{thousand}}", "5"),
    ("\\boxed{5 \\text{ feet two inches}}", "5"), ("\\boxed{5\\text{ point five}}", "5"),
    ("\\boxed{5\\text{ Millionen}}", "5"), ("\\boxed{5\\text{ millones}}", "5"),
    ("\\boxed{5\\text{ twelfths}}", "5"), ("\\boxed{5\\text{ thirds}}", "5"), ("\\boxed{5\\text{ hundredths}}", "5"),
    ("\\boxed{0.3\\text{ repeating}}", "0.3"), ("\\boxed{5\\text{ septillion}}", "5"),
    ("\\boxed{5\\text{ twenties}}", "5"), ("\\boxed{5\\text{ dozen}}", "5"), ("\\boxed{5 \\text{ squared}}", "5"),
    ("\\boxed{5\\mbox{ thousand}}", "5"), ("\\boxed{5\\text{ trn}}", "5"),
    ("\\boxed{5 \\approx 6}", "5"), ("\\boxed{5 \\sim 6}", "5"), ("\\boxed{5 \\approx 6}", "6"),
    ("\\boxed{12.5 \\approx 14}", "12.5"), ("\\boxed{\\frac{1}{3} \\approx 0.9}", "\\frac{1}{3}"),
]


@pytest.mark.parametrize("box,gold", UNREAD_WORDS, ids=[b for b, _ in UNREAD_WORDS])
def test_words_inside_the_slot_that_may_change_the_value_are_not_dropped(box, gold):
    assert not paid(f"The answer is ${box}$.", gold)


COUNTED = [   # units and counted nouns, as Qwen2.5-Instruct writes them: paid
    ("\\boxed{10\\text{ inches}}", "10"), ("\\boxed{18 \\text{ ways}}", "18"),
    ("\\boxed{6 \\text{ square units}}", "6"), ("\\boxed{4 \\text{ possible numbers}}", "4"),
    ("\\boxed{12\\text{ red balls}}", "12"), ("\\boxed{60\\text{ miles per hour}}", "60"),
    ("\\boxed{15 \\text{ people}}", "15"), ("\\boxed{3\\text{ feet}}", "3"), ("\\boxed{1\\text{ way}}", "1"),
    ("\\boxed{42\\text{ handshakes}}", "42"), ("\\boxed{36 \\text{ cm}^2}", "36"),
    ("\\boxed{7\\text{ apple}}", "7 (apples)"), ("\\boxed{2.5\\text{ hours}}", "2.5"),
    ("\\boxed{12.5 \\approx 13}", "12.5"), ("\\boxed{\\frac{1}{3} \\approx 0.333}", "\\frac13"),
    ("\\boxed{12 \\text{ positive integers}}", "12"), ("\\boxed{4\\text{ prime numbers}}", "4"),
    ("\\boxed{3\\text{ real roots}}", "3"),
]


@pytest.mark.parametrize("box,gold", COUNTED, ids=[b for b, _ in COUNTED])
def test_units_and_counted_nouns_after_the_number_keep_being_paid(box, gold):
    assert paid(f"The answer is ${box}$.", gold)


# --- labels and boxes side by side ----------------------------------------------------------------------

def test_a_label_inside_the_box_names_the_value():
    assert paid("So $\\boxed{f^{-1}(x) = \\frac{x-3}{2}}$.", "\\frac{x-3}{2}")
    assert paid("Thus $\\boxed{g^{-1}(x) = 2x+1}$.", "2x+1")
    assert not paid("Thus $\\boxed{g^{-1}(x) = 2x+1}$.", "2x-1")


@pytest.mark.parametrize("response", [
    "The answer is $\\boxed{15\\frac{39}{40}},$ or $\\boxed{\\frac{639}{40}}$.",
    "The answer is $\\boxed{0.5}$ or $\\boxed{\\frac{1}{2}}$.",
    "The answer is $\\boxed{\\frac{1}{4}}$, i.e. $\\boxed{0.25}$.",
])
def test_equal_boxes_offered_together_are_one_answer(response):
    gold = "\\frac{639}{40}" if "639" in response else ("0.5" if "0.5" in response else "0.25")
    assert paid(response, gold)


@pytest.mark.parametrize("response", [
    "The answer is $\\boxed{15},$ or $\\boxed{16}$.",
    "The answer is $\\boxed{0.5}$ or $\\boxed{\\frac{1}{3}}$.",
    "So $\\boxed{5} \\quad \\text{and} \\quad \\boxed{6}$.",
])
def test_different_boxes_offered_together_are_not_paid(response):
    assert not paid(response, "15" if "15" in response else ("0.5" if "0.5" in response else "5"))


@pytest.mark.parametrize("response", [
    "The event happens $\\boxed{5}$ times in total.", "She has $\\boxed{5}$ quarters left.",
    "The answer is $\\boxed{5}$ if we count the corners.", "It took over $\\boxed{5}$ days.",
    "There are $\\boxed{5}$ cm of ribbon left.",
])
def test_ordinary_words_after_the_formula_keep_the_answer(response):
    assert paid(response, "5")


@pytest.mark.parametrize("response,gold", [
    ("So there are \\(\\boxed{6}\\) - 1 = 5 values once the trivial one is excluded.", "6"),
    ("The shaded part is $\\boxed{\\frac{1}{3}}$ of $\\frac{1}{2}$ of the square.", "\\frac13"),
    ("The total is $\\boxed{5}$ $\\times$ $10^3$ dollars.", "5"),
    ("$x = -\\quad\\boxed{5}$", "5"),
    ("The angle measures $\\boxed{45}$ radians.", "45^\\circ"),
    ("The side is $\\boxed{12}$ cm long.", "12\\text{ m}"),
])
def test_what_follows_the_formula_can_make_the_box_another_value(response, gold):
    assert not paid(response, gold)


@pytest.mark.parametrize("response,gold", [
    ("There are $10 \\times 10 \\times 10 = \\boxed{1{,}000}$ three-digit codes.", "1000"),
    ("So there are $\\boxed{9}$ two-digit numbers whose digits add up to 10.", "9"),
    ("The angle measures $\\boxed{45}$ degrees.", "45^\\circ"),
    ("The side is $\\boxed{12}$ cm long.", "12\\text{ cm}"),
    ("It is $\\boxed{12}$ in total.", "12\\text{ cm}"),
])
def test_ordinary_text_after_the_formula_keeps_the_answer(response, gold):
    assert paid(response, gold)


@pytest.mark.parametrize("tag,paid_expected", [
    ("<answer>\nThe probability is $\\frac{3}{5}$.\n</answer>", True),
    ("<answer>\nThe probability is not $\\frac{3}{5}$.\n</answer>", False),
    ("<answer>\nMaybe $\\frac{3}{5}$.\n</answer>", False),
])
def test_an_answer_tag_sentence_is_read_for_its_formula(tag, paid_expected):
    response = "<think>\nSix of ten balls are red.\n</think>\n" + tag
    assert compute_score("math_dapo", response, "\\frac{3}{5}", format_rule="think_answer")["acc"] == float(paid_expected)


@pytest.mark.parametrize("response", [
    "So $x = \\text{-}\\boxed{5}$.", "So $x = \\mathrm{-}\\,\\boxed{5}$.", "So $x = \\text{\u2212}\\boxed{5}$.",
    "So $x = \\text{minus }\\boxed{5}$.",
    "The area is $\\boxed{5}$ halved.", "So $\\boxed{5}\\text{ tripled}$.", "The count is $\\boxed{5}$ doubled.",
])
def test_a_sign_or_a_scaling_written_as_text_around_the_box_is_read(response):
    assert not paid(response, "5")


@pytest.mark.parametrize("response", [
    "So $\\text{Answer: }\\boxed{5}$.", "$\\text{so } \\boxed{5}$", "So $\\boxed{5}$ rounded to the nearest unit.",
])
def test_prose_written_as_text_before_the_box_is_no_sign(response):
    assert paid(response, "5")


@pytest.mark.parametrize("response,paid_expected", [
    ("We get\n$x+y=10$\n$\\boxed{5}$", True),           # formulas on lines of their own stay apart
    ("So $\\boxed{5}$\n$\\times 10^3$ in all.", False),   # an operator facing the line break joins them
    ("So $x = -$\n$\\boxed{5}$.", False),
    ("\\[ x = \\boxed{5} \\quad \\text{(since } x > 0) \\]", True),   # a remark in text ends the expression
    ("So $\\boxed{5}\\text{ apples} + 3$.", False),     # a unit is presentation; what follows still counts
])
def test_what_joins_the_boxs_formula_to_the_math_around_it(response, paid_expected):
    assert paid(response, "5") == paid_expected


@pytest.mark.parametrize("response,paid_expected", [
    ("So $\\boxed{5}~\\text{cm}$.", True), ("So $\\boxed{5}\\qquad\\blacksquare$", True), ("So $\\boxed{5}\\ \\checkmark$", True),
    ("It is **negative** $\\boxed{5}$.", False), ("It is _minus_ $\\boxed{5}$.", False),
    ("The answer is \\boxed{5} $\\times 10^3$.", False),
])
def test_marks_around_the_formula(response, paid_expected):
    assert paid(response, "5") == paid_expected


def test_a_formula_nested_past_any_answer_gets_a_verdict_not_an_error():
    response = "So $" + "{" * 1000 + "\\boxed{5}" + "}" * 1000 + "$."
    assert result(response, "5")["verdict"] == "unparsable_pred"
    assert paid("So $" + "{" * 30 + "\\boxed{5}" + "}" * 30 + "$.", "5")


@pytest.mark.parametrize("response,gold,paid_expected", [
    ("The area is $\\boxed{12}$ cm$^2$.", "12\\text{ cm}^2", True),
    ("The area is $\\boxed{12}$ cm\u00b2.", "12\\text{ cm}^2", True),
    ("The area is $\\boxed{12}$ square centimeters.", "12\\text{ cm}^2", True),
    ("The length is $\\boxed{12}$ cm.", "12\\text{ m}", False),
])
def test_a_unit_after_the_formula_is_read_with_its_power(response, gold, paid_expected):
    assert paid(response, gold) == paid_expected


@pytest.mark.parametrize("response,paid_expected", [
    ("The area is $\\boxed{5}$, halved.", False), ("The area is \\boxed{5}, squared.", False),
    ("The area is $\\boxed{5}$, as expected.", True), ("The area is \\boxed{5}, which is right.", True),
    ("The area is \\boxed{5}. I hope it is correct.", True),
])
def test_an_operation_set_off_by_a_comma_after_the_answer(response, paid_expected):
    assert paid(response, "5") == paid_expected


def test_equal_numbers_in_other_units_side_by_side_are_two_answers():
    """Boxes offered together are one answer only when they are one quantity: `1 m or 1 cm` is two."""
    from rewards import compute_score

    two_units = r"It is either $\boxed{1\text{ m}}$ or $\boxed{1\text{ cm}}$."
    assert compute_score("lighteval/MATH", two_units, r"1\text{ cm}")["verdict"] != "correct"
    same_unit = r"So the side is $\boxed{2\text{ cm}}$, or $\boxed{2 \text{cm}}$."
    assert compute_score("lighteval/MATH", same_unit, r"2\text{ cm}")["verdict"] == "correct"
