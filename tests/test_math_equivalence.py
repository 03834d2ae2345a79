"""Answer shapes, the fast path's three-way verdicts, the float disproof and the sympy check,
each called directly (the scorer runs the sympy check in a worker; here it runs in-process)."""

from fractions import Fraction

import pytest

from rewards.math.equivalence import exact_value, fast_equal
from rewards.math.normalize import normalize
from rewards.math.numeric import numerically_different
from rewards.math.structure import Group, Leaf, parse


def test_shapes():
    assert parse("3,5") == Group("list", (Leaf("3"), Leaf("5")))
    assert parse(r"\{3,5\}") == Group("list", (Leaf("3"), Leaf("5")), "{}")  # a set: never a vector
    assert parse("(3,5)") == Group("tuple", (Leaf("3"), Leaf("5")), "()")
    assert parse("[3,5)") == Group("bracketed", (Leaf("3"), Leaf("5")), "[)")
    assert parse("(3)") == Leaf("(3)")
    assert parse("x>3") == Group("tuple", (Leaf("3"), Leaf(r"\infty")), "()")
    assert parse(r"-1\leq x<2") == Group("bracketed", (Leaf("-1"), Leaf("2")), "[)")
    assert parse(r"1\pm\sqrt{2}") == Group("list", (Leaf(r"1+\sqrt{2}"), Leaf(r"1-\sqrt{2}")))
    assert parse(r"x\in[0,1]") == Group("bracketed", (Leaf("0"), Leaf("1")), "[]")
    assert parse(r"(x,y)=(1,2)") == Group("tuple", (Leaf("1"), Leaf("2")), "()")
    assert parse(r"\begin{pmatrix}1\\2\end{pmatrix}") == Group("tuple", (Leaf("1"), Leaf("2")), "()")
    assert parse(r"(1,2)\cup(3,4)").kind == "union"
    assert parse(r"f(1,2)") == Leaf("f(1,2)")
    assert parse("t>3").names == ("t",) and parse(r"y\in(1,2)").names == ("y",)
    assert parse("(b,a)=(3,4)").names == ("b", "a")
    assert parse(r"\begin{vmatrix}1&2\\3&4\end{vmatrix}") == Leaf(r"\begin{vmatrix}1&2\\3&4\end{vmatrix}")


@pytest.mark.parametrize("text, value", [
    ("3", 3), ("-2.50", Fraction(-5, 2)), ("7/4", Fraction(7, 4)), (r"\frac{-1}{2}", Fraction(-1, 2)),
    (r"-\frac{3}{4}", Fraction(-3, 4)), (r"2\frac{1}{2}", Fraction(5, 2)), (r"0.\overline{3}", Fraction(1, 3)),
    (r"0.1\overline{6}", Fraction(1, 6)), (r"\frac{1}{0}", None), ("3!", None), ("x", None), (r"\sqrt{2}", None),
])
def test_exact_value(text, value):
    assert exact_value(text) == value


@pytest.mark.parametrize("pred, gold, verdict", [
    ("0.5", r"\frac{1}{2}", True),
    ("300", "3", False),
    ("3,5", "3", False),
    ("5,3", "3,5", True),
    ("(5,3)", "(3,5)", False),
    (r"(-\infty,2]", r"(-\infty,2)", False),
    ("x=3", "3", True),
    ("a+b", "c+b", False),                       # decided by the float disproof, no sympy
    (r"\frac{3}{2}", r"\frac{\sqrt{3}}{2}", False),
    (r"\pi", "3.14159", False),
    (r"\frac{1}{2}\sqrt{3}", r"\frac{\sqrt{3}}{2}", True),   # equal canonical forms
    ("x^2+2x+1", "(x+1)^2", True),
    (r"\sin^2 x", r"1-\cos^2 x", True),            # a function power is read: numeric identity settles it
    (r"\arcsin x", r"\sin^{-1} x", None),           # outside the fast grammar: sympy decides
    (r"\text{odd}", r"\text{even}", False),
    ("B", "(B)", True),
])
def test_fast_equal(pred, gold, verdict):
    assert fast_equal(normalize(pred), normalize(gold)) is verdict


@pytest.mark.parametrize("a, b, different", [
    ("a+b", "c+b", True), ("a+b", "b+a", False), (r"\sin(\pi)", "0", False), ("2^{-99}", "2^{-98}", False),
    ("i^2", "-1", False), (r"\log_2 8", "3", False), (r"\log 8", "3", False), (r"\sin 2x", "2", False),
    ("2/3x", "1", False), (r"2\frac{1}{2}", "1", False), ("2^{10^{10}}", "2", False), ("x^23", "1", False),
])
def test_numerically_different_only_when_sure(a, b, different):
    assert numerically_different(a, b) is different


symbolic = pytest.importorskip("rewards.math.symbolic")


@pytest.mark.parametrize("pred, gold, verdict", [
    (r"\frac{1}{2}\sqrt{3}", r"\frac{\sqrt{3}}{2}", "correct"),
    ("0.866", r"\frac{\sqrt{3}}{2}", "wrong"),
    ("3.141592653589793238462643383279", r"\pi", "wrong"),   # close is not equal
    ("x^2+2x+1", "(x+1)^2", "correct"),
    (r"\frac{1}{1+i}", r"\frac{1-i}{2}", "correct"),
    ("2x-y+3=0", "y=2x+3", "correct"),
    ("2x-y-3=0", "y=2x+3", "wrong"),
    ("x^2+y^2-25=0", "x^2+y^2=25", "correct"),
    (r"\frac{}{}{}", r"2\sqrt{2}", "unparsable_pred"),
    ("3", r"\sqrt{}", "unparsable_gold"),
    (r"\sqrt{x^2}", "x", "wrong"),
    ("0.1", r"\frac{1}{10}", "correct"),
])
def test_symbolic_verdict(pred, gold, verdict):
    assert symbolic.symbolic_verdict(normalize(pred), normalize(gold)) == verdict


def symbolic_equal(pred, gold):
    """True/False for two normalised answers; None when either side cannot be parsed."""
    return {symbolic.CORRECT: True, symbolic.WRONG: False}.get(symbolic.symbolic_verdict(pred, gold))


def test_symbolic_equal_is_three_way():
    assert symbolic_equal(r"\sqrt{8}", r"2\sqrt{2}") is True
    assert symbolic_equal(r"\sqrt{8}", r"3\sqrt{2}") is False
    assert symbolic_equal("1", r"\sqrt{}") is None


def test_gold_parse_is_cached():
    symbolic.to_sympy.cache_clear()
    for _ in range(8):
        symbolic.symbolic_verdict(r"\binom{4}{2}", r"\frac{12}{\binom{3}{1}+1}")  # outside the fast path
    info = symbolic.to_sympy.cache_info()
    assert info.misses == 2 and info.hits == 14


@pytest.mark.parametrize("opener", ["(", "{", "["])
def test_numerically_different_never_raises_on_deep_nesting(opener):
    # MAX_TOKENS allows 200 tokens; 199 openers nest the recursive parser past Python's limit.
    assert numerically_different(opener * 199 + "1", "2") is False


def test_an_integral_is_evaluated_once_and_never_integrated_numerically(monkeypatch):
    """The check probes and simplifies the evaluated forms: a 30-digit numeric probe of an
    unevaluated integral is a quadrature per probe point (80 ms of a 0.2 s check; issue 23, where
    36 such sound answers beside held ones came back `timeout` on 2 cores)."""
    from sympy import Integral
    from sympy.core import evalf

    evalf._create_evalf_table()
    quadratures = []
    real = evalf.evalf_table[Integral]
    monkeypatch.setitem(evalf.evalf_table, Integral, lambda *a, **k: quadratures.append(1) or real(*a, **k))
    pred = normalize(r"\int_0^{5} x^2 dx + \sin^2(y)+\cos^2(y)")
    assert symbolic.symbolic_verdict(pred, normalize(r"\frac{128}{3}")) == symbolic.CORRECT
    assert symbolic.symbolic_verdict(pred, normalize(r"\frac{127}{3}")) == symbolic.WRONG
    assert quadratures == []


def test_the_warm_up_exercises_each_shape_it_names():
    """Workers are forked from a process that ran these checks, so a shape's one-time sympy cost
    (a first integral took 0.5 s, later ones 0.1 s) is paid once; a pair the check did not prove
    equal would have warmed nothing."""
    for pred, gold in symbolic._WARM_UP:
        assert symbolic.symbolic_verdict(pred, gold) == symbolic.CORRECT, (pred, gold)
