"""Verdicts under attack, normalisation and reading: a wrong answer that a rewrite turned into the
gold (or a crash) is never paid; a meaning-preserving respelling stays paid. Each case failed before
its rule (docs/scoring-policy.md states each rule with an example)."""

import pytest
from hypothesis import given, strategies as st

from rewards import compute_score
from rewards.math.normalize import normalize


def verdict(pred: str, gold: str) -> str:
    out = compute_score("lighteval/MATH", "\\boxed{%s}" % pred, gold)
    assert out["acc"] == (1.0 if out["verdict"] == "correct" else 0.0)
    return out["verdict"]


def assert_not_paid(pred: str, gold: str) -> None:
    assert verdict(pred, gold) in ("wrong", "unparsable_pred", "unparsable_gold"), (pred, gold)


# A Unicode superscript after `^` raised in the cost rule (verdict `error`); superscripts and
# subscripts are exponents and subscripts.
@pytest.mark.parametrize("pred, gold", [
    ("5^\u00b2", "25"), ("x\u00b2", "x^2"), ("5\u00b3", "125"), ("2\u207b\u00b9", "0.5"), ("5\\text{ cm}^\u00b2", "5"),
    ("x\u2081+x\u2082", "x_1+x_2"), ("(x+1)\u00b2", "x^2+2x+1"), ("10\u2076", "1000000"),
])
def test_unicode_scripts_are_read(pred, gold):
    assert verdict(pred, gold) == "correct"


@pytest.mark.parametrize("pred", [
    "5^\u00b2", "\\text{cm}^\u00b2", "x\u00b2", "5\u00b3", "2\u207b\u00b9", "^\u00b2", "\u00b2^\u00b3", "x^{\u00b2}",
    "\u00b3\u221a8", "2^\u00b9\u2070\u2070\u2070\u2070\u2070\u2070", "\u00b2!", "10^\u00b2^\u00b2", "x_\u2082^\u00b2",
])
def test_unicode_scripts_never_raise(pred):
    for gold in ("25", "5", "x^2"):
        assert verdict(pred, gold) != "error"


@pytest.mark.parametrize("pred, gold", [
    ("5^\u00b2", "52"), ("5\u00b3", "53"), ("2\u207b\u00b9", "2"), ("x\u00b2", "2x"), ("\u00b3\u221a8", "2"),
])
def test_unicode_scripts_are_not_other_numbers(pred, gold):
    assert_not_paid(pred, gold)


# A radical takes its whole digit run or group; a vulgar fraction after a whole number is a mixed number.
@pytest.mark.parametrize("pred, gold", [
    ("\u221a27", "\\sqrt{2}7"), ("\u221a27", "7\\sqrt{2}"), ("3\u00bd", "31/2"), ("3\u00bd", "\\frac{31}{2}"),
    ("\u221a12", "2\\sqrt{1}"), ("\u221a100", "10\\sqrt{1}0"), ("2\u00be", "\\frac{23}{4}"), ("1\u2153", "\\frac{13}{3}"),
    ("\u221b27", "\\sqrt{2}7"), ("\u221b27", "\\sqrt[3]{2}7"), ("\u221c16", "\\sqrt{16}"), ("\u221a2x", "\\sqrt{2x}"),
    ("\u221a2x", "\\sqrt{2}x"), ("\u221ax\u00b2", "x"), ("2.5\u00bd", "3"), ("-3\u00bd", "-2.5"),
])
def test_unicode_numbers_are_not_rewritten_into_others(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("\u221a27", "3\\sqrt{3}"), ("3\u00bd", "\\frac{7}{2}"), ("-3\u00bd", "-3.5"), ("\u00bd", "0.5"), ("2\u00be", "2.75"),
    ("\u2153", "\\frac13"), ("\u221b27", "3"), ("\u221c16", "2"), ("\u221a(2x)", "\\sqrt{2x}"), ("\u221a2 x", "\\sqrt{2}x"),
    ("\u221a\u221a16", "2"), ("\u221a(1+\u221a4)", "\\sqrt{3}"), ("\u00b1\u221a2", "\\pm\\sqrt{2}"), ("2\u221a3", "\\sqrt{12}"),
    ("\u221a3/2", "\\frac{\\sqrt{3}}{2}"), ("\u221a\u03c0", "\\sqrt{\\pi}"), ("3\u2213 1", "2, 4"), ("12\u00f74", "3"),
])
def test_unicode_math_is_read(pred, gold):
    assert verdict(pred, gold) == "correct"


# An approximation belongs to its own item: it never cuts the list after it.
@pytest.mark.parametrize("pred, gold", [
    ("\\sqrt{3} \\approx 1.73, -\\sqrt{3} \\approx -1.73", "\\sqrt{3}"),
    ("\\sqrt{3} \u2248 1.73, -\\sqrt{3} \u2248 -1.73", "\\sqrt{3}"),
    ("\\sqrt{3} \\sim 1.73, 5", "\\sqrt{3}"), ("\\sqrt{2} \\simeq 1.41; 7", "\\sqrt{2}"),
    ("\\frac{1}{3} \\approx 0.33, \\frac{2}{3}", "\\frac13"), ("(\\sqrt{3} \\approx 1.73, 2)", "\\sqrt{3}"),
    ("\\{\\pi \\approx 3.14, 4\\}", "\\pi"), ("x \\approx 5, y \\approx 3", "5"), ("\\pi \\approx 3", "3"),
    ("\\sqrt{2} \\thickapprox 1.41, 3", "\\sqrt{2}"), ("\\sqrt{2} \\approxeq 1.41, 3", "\\sqrt{2}"),
    ("\\sqrt{3} \\approx 1.73 \\text{ and } -\\sqrt{3}", "\\sqrt{3}"),
])
def test_an_approximation_keeps_the_list_after_it(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("\\sqrt{3} \\approx 1.73, -\\sqrt{3} \\approx -1.73", "\\pm\\sqrt{3}"),
    ("(\\sqrt{3} \\approx 1.73, 2)", "(\\sqrt{3}, 2)"), ("\\{\\sqrt{3} \\approx 1.73, 2\\}", "\\{2, \\sqrt3\\}"),
    ("x \\approx 5, y \\approx 3", "x=5, y=3"), ("\\frac12 \\approx 0.5", "\\frac12"), ("\\pi \\approx 3.14", "\\pi"),
    ("\\frac{\\sqrt{3}}{2} \\approx 0.866, \\frac{1}{2}", "\\frac{\\sqrt3}2, \\frac12"), ("\\theta \\approx 0.5", "0.5"),
])
def test_an_approximation_is_still_presentation(pred, gold):
    assert verdict(pred, gold) == "correct"


# Each `\pm` is its own choice of sign, unless a `\mp` ties them.
@pytest.mark.parametrize("pred, gold", [
    ("2+\\sqrt{5}, -2-\\sqrt{5}", "\\pm 2 \\pm \\sqrt{5}"), ("\\pm 2 \\pm \\sqrt{5}", "2+\\sqrt{5}, -2-\\sqrt{5}"),
    ("1+2+3, -1-2-3", "\\pm 1 \\pm 2 \\pm 3"), ("x = \\pm 1 \\pm i", "1+i, -1-i"),
    ("\\frac{1 \\pm \\sqrt{5}}{2} \\pm 1", "\\frac{3+\\sqrt{5}}{2}, \\frac{-1-\\sqrt{5}}{2}"),
    ("1+2+3, 1-2-3", "1 \\pm 2 \\mp 3"), ("0, 2, 4, -2", "1 \\pm 2 \\mp 3"), ("6, -4", "1 \\pm 2 \\mp 3"),
    ("1 \\pm 2 \\pm 3", "1 \\pm 2 \\mp 3"),
])
def test_independent_signs_are_not_tied(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("2+\\sqrt{5}, 2-\\sqrt{5}, -2+\\sqrt{5}, -2-\\sqrt{5}", "\\pm 2 \\pm \\sqrt{5}"),
    ("\\pm\\sqrt{5} \\pm 2", "\\pm 2 \\pm \\sqrt{5}"), ("1+2-3, 1-2+3", "1 \\pm 2 \\mp 3"), ("0, 2", "1 \\pm 2 \\mp 3"),
    ("1 \\mp 2 \\pm 3", "1 \\pm 2 \\mp 3"), ("\\pm 2", "2, -2"), ("1 \\pm \\sqrt{3}", "1+\\sqrt3, 1-\\sqrt3"),
    ("\\mp 2", "\\pm 2"), ("6, 0, 2, 4", "\\pm 1 \\pm 2 + 3 \\cdot 1"),
])
def test_signs_are_expanded(pred, gold):
    assert verdict(pred, gold) == "correct"


# A degree sign on a radian quantity is never dropped (and degrees are never converted to radians).
@pytest.mark.parametrize("pred, gold", [
    ("\\frac{\\pi}{3}^\\circ", "\\frac{\\pi}{3}"), ("\\frac{\\pi}{3}^{\\circ}", "60"), ("\\frac{\\pi}{3}\u00b0", "\\frac{\\pi}{3}"),
    ("\\pi^\\circ", "\\pi"), ("2\\pi^\\circ", "2\\pi"), ("\\frac{\\pi}{4}\\degree", "\\frac{\\pi}{4}"),
    ("(\\frac{\\pi}{2})^\\circ", "\\frac{\\pi}{2}"), ("\\sin(\\frac{\\pi}{6}^\\circ)", "\\frac12"),
    ("\\frac{\\pi}{3}^\\circ, \\frac{2\\pi}{3}^\\circ", "\\frac{\\pi}{3}, \\frac{2\\pi}{3}"),
    ("60^\\circ", "\\frac{\\pi}{3}"), ("\\frac{\\pi}{6}", "30^\\circ"), ("180^\\circ", "\\pi"),
])
def test_a_degree_sign_on_radians_is_not_dropped(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("60^\\circ", "60"), ("60\u00b0", "60^\\circ"), ("\\frac{\\pi}{3}^\\circ", "\\frac{\\pi}{3}^\\circ"),
    ("\\cos 60^\\circ", "\\frac12"), ("30^\\circ, 150^\\circ", "30, 150"),
])
def test_degrees_are_still_read(pred, gold):
    assert verdict(pred, gold) == "correct"


@pytest.mark.parametrize("pred, gold", [
    ("30^\\circ, 150^\\circ", "30150"), ("30^\\circ,150^\\circ", "30150"), ("1\\%,500\\%", "1500"),
    ("2\\text{ cm},500\\text{ cm}", "2500"),
])
def test_a_comma_is_thousands_only_between_digits_as_written(pred, gold):
    assert_not_paid(pred, gold)


# Numbers separated only by spacing are never a product (nor a sum, nor one number): unread.
SPACINGS = [" \\quad ", " \\qquad ", "\\;", "\\ ", "~", "\\,", " ", "\\:", "\\>", "\\enspace ", "\\hspace{1em}", "\\, \\, "]


@pytest.mark.parametrize("spacing", SPACINGS)
@pytest.mark.parametrize("left, right", [("3", "4"), ("12", "5"), ("-2", "7"), ("1.5", "2")])
def test_spaced_numbers_are_never_a_product(spacing, left, right):
    pred = f"{left}{spacing}{right}"
    a, b = float(left), float(right)
    for gold in {a * b, a + b, float(left + right.lstrip("-"))}:
        assert_not_paid(pred, repr(gold).removesuffix(".0"))


@pytest.mark.parametrize("pred, gold", [
    ("1234\\,567", "1234567"), ("12\\,34", "1234"), ("1\\,00", "100"), ("3.4.5", "1.7"), ("x^2 3", "3x^2"),
    ("1\\,000 \\quad 2", "2000"), ("2 \\quad \\sqrt{2}", "2\\sqrt{2}"),
])
def test_spacing_that_is_no_thousands_separator_is_not_read(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("1\\,000", "1000"), ("1\\,000\\,000", "1000000"), ("10{,}000", "10000"), ("1~000", "1000"), ("1\\ 000", "1000"),
    ("3.141\\,592\\,65", "3.14159265"), ("-12\\,345.5", "-12345.5"), ("1 000 000", "1000000"), ("2 3/4", "2.75"),
    ("2\\,\\sqrt{2}", "\\sqrt{8}"), ("\\log_2 8", "3"), ("3 \\quad 4", "3 \\quad 4"), ("x = 3 \\quad", "3"),
])
def test_spacing_is_still_presentation(pred, gold):
    assert verdict(pred, gold) == "correct"


@pytest.mark.parametrize("pred, gold", [
    ("2 \\quad \\sqrt{2}", "2\\sqrt{2}"), ("3 \\qquad \\pi", "3\\pi"),
    ("a \\quad b", "ab"), ("(x+1) \\quad (x-1)", "x^2-1"),
])
def test_wide_spacing_between_operands_is_no_product(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("x = 3, \\quad y = 4", "x=3, y=4"), ("3 \\quad \\text{and} \\quad 5", "3, 5"), ("\\quad 5 \\qquad", "5"),
    ("(1, \\quad 2)", "(1,2)"), ("5 \\quad \\text{cm}", "5"), ("2 \\quad \\cdot \\quad 3", "6"),
])
def test_wide_spacing_next_to_a_separator_is_presentation(pred, gold):
    assert verdict(pred, gold) == "correct"


# A box inside other content is never glued to it.
@pytest.mark.parametrize("pred, gold", [
    ("4\\boxed{5}", "45"), ("4\\boxed{5}", "20"), ("4\\boxed{5}", "9"), ("4\\fbox{5}", "45"), ("\\boxed{4}5", "45"),
    ("\\boxed{4}5", "9"), ("12 \\fbox{13}", "1213"), ("x\\boxed{2}", "2x"), ("1\\boxed{2}\\boxed{3}", "123"),
    ("2-\\boxed{3+4}", "5"), ("\\frac{1}{\\boxed{2}}", "\\frac12"), ("\\boxed{1}.\\boxed{5}", "1.5"),
])
def test_an_inner_box_is_not_glued_to_its_neighbours(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("\\boxed{12}", "12"), ("Final: \\fbox{12}", "12"), ("x = \\fbox{12}", "12"), ("-\\boxed{5}", "-5"),
    ("2-\\boxed{3+4}", "-5"), ("The answer is \\boxed{\\frac{1}{2}}", "0.5"),
])
def test_a_box_around_the_answer_is_presentation(pred, gold):
    assert verdict(pred, gold) == "correct"


# A function's argument without brackets is the factor right after it; where that is unclear, unread.
@pytest.mark.parametrize("pred, gold", [
    ("\\sin x \\cdot 3", "\\sin(3x)"), ("\\cos x \\times 2", "\\cos(2x)"), ("\\ln x \\cdot 2", "\\ln(2x)"),
    ("\\log_2 x \\cdot 8", "\\log_2(8x)"), ("\\sin x y", "\\sin(xy)"), ("\\sin x y", "y\\sin x"),
    ("\\sin \\pi/6", "\\frac12"), ("\\sin \\pi/6", "0"), ("\\log_2 x 3", "3\\log_2 x"), ("\\log_2 x 3", "\\log_2(3x)"),
    ("\\sin 2\\pi x", "\\sin(2\\pi x)"), ("\\sin x!", "\\sin(x!)"), ("\\tan x \\cdot \\pi", "\\tan(\\pi x)"),
    ("\\exp x \\cdot 2", "e^{2x}"), ("\\sin x/2", "\\sin(x/2)"),
])
def test_a_bare_function_argument_does_not_swallow_what_follows(pred, gold):
    assert_not_paid(pred, gold)


@pytest.mark.parametrize("pred, gold", [
    ("\\sin x \\cdot 3", "3\\sin x"), ("\\cos x \\times 2", "2\\cos(x)"), ("\\ln x \\cdot 2", "2\\ln x"),
    ("\\sin 2x", "2\\sin x\\cos x"), ("\\sin^2 x + \\cos^2 x", "1"), ("\\log_2 8", "3"), ("\\tan\\frac{\\pi}{4}", "1"),
    ("\\sin x \\cos x", "\\frac{\\sin(2x)}{2}"), ("\\sin\\theta", "\\sin(\\theta)"), ("x\\ln x - x", "x\\ln(x) - x"),
    ("\\cos 60^\\circ", "\\frac12"), ("\\sin x^2", "\\sin(x^2)"), ("\\ln 2 + 1", "1+\\ln 2"),
])
def test_a_bare_function_argument_is_still_read(pred, gold):
    assert verdict(pred, gold) == "correct"


SOUP = ["\\frac{", "}{", "}", "{", "\\sqrt{", "\\sqrt[", "]", "^", "_", "\\boxed{", "\\fbox{", "(", ")", "=", ",", "\\pi",
        "x", "-", "+", "/", "!", "^\\circ", "\\approx", "\\sim", "\\pm", "\\mp", "1", "12", ".", "\\quad", "\\,", "\\;", "\\ ",
        "~", " ", "{,}", "\\sin", "\\log_2", "\\tan^2", "\\cdot", "\u00b2", "\u207b", "\u2081", "\u221a", "\u221b", "\u00bd",
        "\u2153", "\u03c0", "\u00b1", "\u2248", "\u00b0", "\u00f7", "\u2070", "\u207f", "\u0663", "\\degree", "\\hspace{1em}"]


@given(st.lists(st.sampled_from(SOUP), min_size=1, max_size=16).map("".join),
       st.sampled_from(["5", "\\frac12", "\\pm 2", "\\sin x", "30^\\circ", "\\frac{\\pi}{3}", "1000"]))
def test_token_soup_of_these_rules_gets_a_verdict(body, gold):
    assert verdict(body, gold) != "error"
    assert isinstance(normalize(body), str)
