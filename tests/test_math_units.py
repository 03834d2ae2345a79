"""Units: normalisation reads the unit it strips, in one spelling, and two answers whose units
contradict are wrong whatever their numbers (issue 25). The labelled pairs are in
tests/fixtures/math_fidelity_units.jsonl; these tests pin the mechanism."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from rewards import compute_score
from rewards.math.normalize import read_answer
from rewards.math.units import contradict, fold


@pytest.mark.parametrize("raw, value, unit", [
    (r"5\text{ cm}", "5", "cm"),
    (r"5 \mathrm{cm}", "5", "cm"),
    ("5 centimeters", "5", "cm"),
    (r"5\text{ cm}^2", "5", "cm^2"),
    (r"5 \text{ square centimeters}", "5", "cm^2"),
    (r"5 \text{ cubic feet}", "5", "ft^3"),
    (r"5\text{ m}/\text{s}", "5", "m/s"),
    (r"\$5", "5", "$"),
    ("5 dollars", "5", "$"),
    ("\u20ac5", "5", "euro"),
    (r"5\%", "5", "%"),
    (r"5 \text{ percent}", "5", "%"),
    (r"30^\circ", "30", "deg"),
    ("30 degrees", "30", "deg"),
    (r"12^\circ 30'", "12.5", "deg"),
    (r"45^\circ C", "45", "degC"),
    (r"45 \text{ degrees Celsius}", "45", "degC"),
    (r"45^{\circ}\text{F}", "45", "degF"),
    ("12days", "12", "day"),
    (r"3\pi cm", r"3\pi", "cm"),
    (r"6\pi h^2", r"6\pi h^2", None),  # one letter after \pi is a factor (LaTeX needs the space)
    (r"\frac{\sqrt{3}}{4} s^2", r"\frac{\sqrt{3}}{4}s^2", None),  # one letter after an expression, squared: a factor
    ("5 m", "5", "m"),
    ("9 (apples)", "9", "apple"),
    ("5", "5", None),
    (r"\frac{1}{2}", r"\frac{1}{2}", None),
    (r"\cos(90^\circ - x)", r"\cos(\frac{90\pi}{180}-x)", None),  # an angle, not the answer's unit
    ("2m", "2m", None),                                            # glued letter: a variable, kept
    ("x m", "x m", None),                                          # no constant before it: kept
    (r"5\text{ thousand}", "5thousand", None),                     # a value word is never a unit
])
def test_read_answer_names_the_unit_it_strips(raw, value, unit):
    assert read_answer(raw) == (value, unit)


def test_fold_keeps_symbol_case_and_folds_words():
    assert fold("mm") != fold("Mm")
    assert fold("Hours") == fold("hrs") == fold("h") == "h"
    assert fold("apples") == fold("apple") == "apple"


def test_contradict_needs_two_different_units():
    assert contradict("m", "km")
    assert not contradict("m", "m")
    assert not contradict("m", None) and not contradict(None, "m") and not contradict(None, None)


NEAR_MISSES = [(r"\boxed{5\text{ m}}", r"5\text{ km}"), (r"\boxed{5 \text{ hours}}", r"5\text{ minutes}"),
               (r"\boxed{5 \text{ cm}^2}", r"5 \text{ cm}"), (r"\boxed{\$5}", r"5\%"),
               (r"\boxed{45^\circ C}", r"45^\circ F"), (r"\boxed{30^\circ}", r"30\text{ radians}")]
PAID = [(r"\boxed{5\text{ cm}}", "5"), (r"\boxed{5 \text{ centimeters}}", r"5\mathrm{cm}"), (r"\boxed{12days}", "12")]


def test_contradicting_units_are_wrong_from_many_threads():
    """The verdicts hold from 16 threads at once, with pathological answers mixed in."""
    cases = [(r, g, "wrong") for r, g in NEAR_MISSES] + [(r, g, "correct") for r, g in PAID]
    cases += [("\\boxed{" + "5\\text{ m}" * 200 + "}", r"5\text{ m}", "unparsable_pred"),
              ("\\boxed{" + "5\\text{ m}" * 50 + "}", r"5\text{ m}", "wrong"),
              ("\\boxed{" + "{" * 60 + "5" + "}" * 60 + "}", r"5\text{ km}", "unparsable_pred")]
    with ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda c: compute_score("lighteval/MATH", c[0], c[1])["verdict"], cases * 8))
    assert got == [expected for _, _, expected in cases] * 8
