"""The cost rule: hopeless answers are refused from their text, before any worker is involved."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewards.api import compute_score
from rewards.math.cost import MAX_DIGITS, MAX_SYMBOLIC_EXPONENT, too_costly
from tests.helpers.timing import fastest


@pytest.mark.parametrize("text", [
    "10^{10^{10^{10}}}", "9999999!", "(10^{100})!", "2^{2^{2^{2^{2^{2}}}}}", "3^{3^{3^{3}}}",
    "2^{100000000}", "10^{10^{9}}", "\\sum_{k=1}^{10^{12}} k^{k}", "x^{100000}", "(x+1)^{10^{6}}",
    "10^{10^{10^{10}}}-9999999!", "\\frac{1}{2^{10^{10}}}",
])
def test_hopeless_answers_are_refused(text):
    assert too_costly(text)


@pytest.mark.parametrize("text", [
    "2^{1000000}", "50000!", "x^2+1", "\\frac{1}{2}", "2^{10}", "10^{-5}", "e^{i\\pi}", "90^\\circ",
    "2^{2^{2^{2^{2}}}}", "1^{10^{100}}", "0.5^{10^{9}}", "10!", "x^{x^{x^{x}}}", "x^{2023}", "",
    "\\sum_{k=1}^{100} k", "(1,2)", "\\{1,2\\}", "2^{", "^^!!}{)(",
])
def test_ordinary_answers_pass(text):
    assert too_costly(text) is None


def test_the_bounds_are_the_documented_ones():
    assert too_costly(f"10^{{{MAX_DIGITS - 1}}}") is None and too_costly(f"10^{{{MAX_DIGITS + 1}}}")
    assert too_costly(f"x^{{{MAX_SYMBOLIC_EXPONENT}}}") is None
    assert too_costly(f"x^{{{MAX_SYMBOLIC_EXPONENT + 1}}}")


def test_a_refused_answer_is_a_timeout_verdict_at_once():
    out, took = fastest(lambda: compute_score("lighteval/MATH", r"\boxed{10^{10^{10^{10}}}}", "7", timeout=5), under=0.5)
    assert took < 0.5
    assert out["verdict"] == "timeout" and out["acc"] == 0.0
    # An answer spelt exactly like its (hopeless) gold is settled on the fast path first.
    assert compute_score("lighteval/MATH", r"\boxed{2^{10^{10}}}", "2^{10^{10}}")["verdict"] == "correct"


@given(st.text(alphabet="0123456789^{}()!x\\+-., ", max_size=60))
def test_the_rule_is_total_and_fast(text):
    result, took = fastest(lambda: too_costly(text), under=0.05)
    assert result is None or isinstance(result, str)
    assert took < 0.05
