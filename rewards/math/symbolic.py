"""The sympy check for answers the fast path could not settle.

Runs inside a killable worker process (`rewards.engine.call_bounded`): parsing model LaTeX and
simplifying can take unbounded time and memory, so nothing here is ever called in the training
process. Importing this module is the heavy part (sympy, the ANTLR LaTeX grammar, one warm-up
parse); the scorer refers to it by name so that only workers import it, before their first
deadline starts. Model text is parsed only with latex2sympy2_extended, never `eval`, `sympify` or
`parse_expr`. Equality must be proven (the difference simplifies to 0); a value that is merely
close (pi against 3.14159) is different. Parsed answers are cached per worker, since a GRPO group
repeats each gold n times.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import sympy
from latex2sympy2_extended import latex2sympy
from latex2sympy2_extended.latex2sympy2 import ConversionConfig
from latex2sympy2_extended.math_normalization import NormalizationConfig
from sympy.core.relational import Relational

from ..number_text import approximation_digits, parse_number
from ..result import Verdict
from .equivalence import compare, fast_value_eq, has_word, word_runs
from .structure import parse

CORRECT, WRONG = Verdict.CORRECT, Verdict.WRONG
UNPARSABLE_PRED, UNPARSABLE_GOLD = Verdict.UNPARSABLE_PRED, Verdict.UNPARSABLE_GOLD

_DECIMAL = re.compile(r"(?<![\d.])(\d*)\.(\d+)(?![\d.])")
_FAILED = object()
_ZERO_BELOW = 1e-20     # |a - b| above this (at 30 digits) proves two constants differ
_PROBES = ((7, 10), (13, 10), (29, 10))   # where symbolic differences are tried numerically
# Our normaliser already did units, boxes and malformed operators; the parser only reads LaTeX.
_NORMALIZATION = NormalizationConfig(basic_latex=True, units=False, malformed_operators=False,
                                     nits=False, boxed="none", equations=False)
# Case matters (`A` is not `a`); `2\frac{1}{2}` is a mixed number; `k=1` stays an equation.
_CONVERSION = ConversionConfig(lowercase_symbols=False, interpret_as_mixed_fractions=True,
                               interpret_simple_eq_as_assignment=False)
_IMAGINARY = sympy.Symbol("i")
_APPROXIMATION_DENOMINATOR = 10 ** 6
# Spellings the LaTeX parser reads as something else, so they are refused before it: `and`/`or`
# (`x \geq 2 or x \leq 5` and `... and ...` become one set), primes (`f'(2)` is read as `f(2)`, `12'`
# as 12), a subscript on a number (`5_{7}`, base 7, read as 5) and a double superscript (`2^3^2`,
# `2**3**2` in plain text, read as (2^3)^2 = 64); an ellipsis (`5 \ldots` is read as 5); a logarithm
# to base 0 (`\log_{0} 8`, `log(8, 0)` in plain text: undefined, but sympy makes it ln 8 / zoo = 0).
# Normalisation leaves these for no reader to read: a degree sign on a radian quantity
# (`\frac{\pi}{3}^{\circ}`, which the parser drops), numbers side by side (`3 4`, `3\quad 4`:
# the parser makes them 3 + 4, a mixed number; `3.4.5` it makes 3.4 * 0.5), wide spacing between
# operands (`2 \quad \sqrt{2}`, a product to the parser), a box inside other content (`4\boxed{5}`,
# which the parser makes 4 + 5), a function whose argument has no brackets (normalisation brackets
# every argument whose extent is clear: `\sin x \cdot 3` is `\sin(x)\cdot3`, which the parser made sin(3x)).
_PARSER_DROPS = re.compile(r"(?<![a-zA-Z\\])(?:and|or)(?![a-zA-Z])|'|\\prime(?![a-zA-Z])|\\circ(?![a-zA-Z])"
                           r"|\d\s+\.?\d|\.\d+\.\d|\\quad(?![a-zA-Z])|\\(?:boxed|fbox)(?![a-zA-Z])"
                           r"|\\(?:sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|arccot|arcsec|arccsc|sinh|cosh|tanh|coth"
                           r"|sech|csch|log|ln|lg|exp)(?![a-zA-Z])(?:\s*[\^_]\s*(?:\{[^{}]*\}|-?[A-Za-z0-9]))*\s*(?![\s({|^_])"
                           r"|\\[lc]?dots[bc]?(?![a-zA-Z])|\d\s*_|\\log_\s*(?:\{\s*0+(?:\.0*)?\s*\}|0(?![\d.]))"
                           r"|\^\s*(?:\{[^{}]*\}|\\[a-zA-Z]+|[A-Za-z0-9])\s*\^")


class _GoldUnparsable(Exception):
    pass


class _Tracker:
    """Whether any part of the prediction could not be parsed (unparsable_pred beats wrong)."""

    def __init__(self) -> None:
        self.pred_failed = False


def symbolic_verdict(pred: str, gold: str) -> Verdict:
    """`CORRECT`, `WRONG`, `UNPARSABLE_PRED` or `UNPARSABLE_GOLD` for two normalised answers.

    Top-level and picklable: the scorer runs it through `call_bounded` under a hard deadline.
    """
    tracker = _Tracker()

    def value_eq(p: str, g: str) -> bool:
        fast = fast_value_eq(p, g)
        if fast is True or (fast is False and approximation_digits(g) is None):
            return fast
        if word_runs(p) != word_runs(g):
            tracker.pred_failed = True  # words on one side only: never read as a product of letters
            return False
        gold_expr = to_sympy(g)
        if gold_expr is _FAILED:
            raise _GoldUnparsable(g)
        pred_expr = to_sympy(p)
        if pred_expr is _FAILED:
            tracker.pred_failed = True
            return False
        try:
            return (fast is None and sympy_equal(pred_expr, gold_expr)) or rounds_to_gold(pred_expr, p, g)
        except Exception:  # sympy refuses the pair (a matrix plus a power): different answers
            return False

    try:
        result = compare(parse(pred), parse(gold), value_eq)
    except _GoldUnparsable:
        return UNPARSABLE_GOLD
    if result:
        return CORRECT
    return UNPARSABLE_PRED if tracker.pred_failed else WRONG


def rounds_to_gold(pred: Any, pred_text: str, gold: str) -> bool:
    """A gold that is a decimal approximation (`4.123105625617661` for `\\sqrt{17}`, twelve or more
    significant digits and ten or more decimal places) is answered by an exact value within one unit of the gold's last digit and a
    double's rounding (a float's shortest repr, `10.770329614269007` for `\\sqrt{116}`, is off by
    more than half a unit).
    Decimal answers never use this rule (they compare exactly), nor do fractions with a denominator
    over a million (a decimal or a rational approximation in disguise), and exact golds never do."""
    digits = approximation_digits(gold)
    if digits is None or "." in pred_text or not isinstance(pred, sympy.Expr) or pred.free_symbols:
        return False
    if isinstance(pred, sympy.Rational) and pred.q > _APPROXIMATION_DENOMINATOR:
        return False  # `\\frac{80143857}{25510582}` is itself an approximation, not an exact answer
    value = parse_number(gold)
    gap = (pred - sympy.Rational(value.numerator, value.denominator)).evalf(digits[0] + 20)
    if not gap.is_real:
        return False
    # One unit of the last digit, plus a double's rounding of the gold (2^-52 of it) when the gold has
    # no more digits than a double's repr (17): a longer gold claims every digit it writes.
    tolerance = sympy.Rational(1, 10 ** digits[1])
    if digits[0] <= 17:
        tolerance += abs(sympy.Rational(value.numerator, value.denominator)) / 2 ** 52
    return bool(abs(gap) <= tolerance)


@lru_cache(maxsize=4096)
def to_sympy(latex: str) -> Any:
    """One expression (or equation, inequality, set) from LaTeX, or `_FAILED`. Decimals are read
    exactly (`0.1` is 1/10, not a binary float) and `i` is the imaginary unit."""
    number = parse_number(latex) if ("e" in latex or "E" in latex) else None
    if number is not None:  # e-notation: `3.3e-06` is a number, not 3.3e - 6
        return sympy.Rational(number.numerator, number.denominator)
    if _PARSER_DROPS.search(latex) or has_word(latex):
        return _FAILED  # what the parser would drop or misread (see _PARSER_DROPS), or words read as products
    text = _DECIMAL.sub(lambda m: f"(\\frac{{{m.group(1)}{m.group(2)}}}{{1{'0' * len(m.group(2))}}})", latex)
    try:
        expr = latex2sympy(text, normalization_config=_NORMALIZATION, conversion_config=_CONVERSION)
    except Exception:
        return _FAILED
    if expr is None or isinstance(expr, (str, list, tuple)):
        return _FAILED
    try:
        if isinstance(expr, sympy.Basic):
            if _IMAGINARY in expr.free_symbols:
                expr = expr.subs(_IMAGINARY, sympy.I)
            floats = expr.atoms(sympy.Float)
            if floats:
                expr = expr.xreplace({f: sympy.Rational(str(f)) for f in floats})
    except Exception:
        return _FAILED
    try:
        if isinstance(expr, sympy.Basic) and expr.has(sympy.zoo, sympy.nan):
            return _FAILED  # `1:00` read as 1/0: no value, never equal to another non-value
    except Exception:
        return _FAILED
    return expr


def sympy_equal(pred: Any, gold: Any) -> bool:
    """Proven equality of two parsed answers of the same kind."""
    if isinstance(pred, sympy.MatrixBase) or isinstance(gold, sympy.MatrixBase):
        return (isinstance(pred, sympy.MatrixBase) and isinstance(gold, sympy.MatrixBase)
                and pred.shape == gold.shape and all(expr_equal(p, g) for p, g in zip(pred, gold)))
    if isinstance(pred, Relational) or isinstance(gold, Relational):
        return isinstance(pred, Relational) and isinstance(gold, Relational) and relation_equal(pred, gold)
    if isinstance(pred, sympy.Set) or isinstance(gold, sympy.Set):
        return pred == gold
    if isinstance(pred, sympy.Expr) and isinstance(gold, sympy.Expr):
        return expr_equal(pred, gold)
    if isinstance(pred, sympy.logic.boolalg.And) and isinstance(gold, sympy.logic.boolalg.And):
        return len(pred.args) == len(gold.args) and all(
            any(sympy_equal(p, g) for g in gold.args) for p in pred.args)
    return pred == gold


def expr_equal(a: Any, b: Any) -> bool:
    """`a - b` is proven zero. Constants that differ numerically are rejected without simplifying."""
    if a == b:
        return True
    try:
        # The parser's unevaluated forms (`15+2\\sqrt{33}` vs `2\\sqrt{33}+15`, an integral, a sum) are
        # evaluated once; the rest works on the evaluated forms (a numeric probe of an unevaluated
        # integral is a 30-digit quadrature: 80 ms of the 0.2 s a check took).
        a, b = a.doit(), b.doit()
        if a == b:
            return True
        diff = a - b
        if diff == 0:
            return True
        if _numerically_different(diff):
            return False
        if sympy.expand(diff) == 0:
            return True
        return sympy.simplify(diff) == 0
    except Exception:
        return False


def relation_equal(pred: Any, gold: Any) -> bool:
    """Same relation: `x = 3` ~ `3 = x`, `2x = 6` ~ `x = 3`, `x > 3` ~ `3 < x`.

    Both sides are moved to one side (`lhs - rhs`); equations match when those differ by a nonzero
    constant factor, inequalities when the factor is positive (the direction is kept).
    """
    p_kind, p_diff = _one_sided(pred)
    g_kind, g_diff = _one_sided(gold)
    if p_kind is None or p_kind != g_kind:
        return False
    if expr_equal(p_diff, g_diff):
        return True
    if p_kind == "eq" and expr_equal(p_diff, -g_diff):
        return True
    try:
        ratio = sympy.simplify(p_diff / g_diff)
    except Exception:
        return False
    if not ratio.is_number or ratio == 0 or not ratio.is_finite:
        return False
    return bool(ratio.is_positive) if p_kind != "eq" else bool(ratio.is_nonzero)


def _one_sided(rel: Any) -> tuple[str | None, Any]:
    """(`eq`|`lt`|`le`|`ne`, expression) with `a < b` as `b - a > 0` in every spelling."""
    kinds = {sympy.Eq: "eq", sympy.Ne: "ne", sympy.StrictLessThan: "lt", sympy.LessThan: "le",
             sympy.StrictGreaterThan: "gt", sympy.GreaterThan: "ge"}
    kind = kinds.get(type(rel))
    if kind is None:
        return None, None
    if kind in ("gt", "ge"):
        return ("lt" if kind == "gt" else "le"), rel.lhs - rel.rhs
    if kind in ("lt", "le"):
        return kind, rel.rhs - rel.lhs
    return kind, rel.lhs - rel.rhs


def _numerically_different(diff: Any) -> bool:
    """Cheap disproof: the difference is clearly nonzero at 30 digits (at a few probe points when
    it has variables). Never proves equality; a tiny difference falls through to simplification."""
    symbols = sorted(diff.free_symbols, key=str)
    points = [{}] if not symbols else [
        {s: sympy.Rational(n + 3 * k, d) for k, s in enumerate(symbols)} for n, d in _PROBES]
    for point in points:
        try:
            value = complex(diff.xreplace(point).evalf(30)) if point else complex(diff.evalf(30))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if value != value or abs(value) == float("inf"):
            continue
        if abs(value) > _ZERO_BELOW:
            return True
    return False


to_sympy("x+1")  # loads the ANTLR grammar now, in the worker's start-up, not inside a deadline


# One of each answer shape that usually reaches sympy, spelt as normalisation leaves it: radicals, rationalised fractions, pi
# multiples, factored polynomials, complex numbers, equations, trigonometric values and identities,
# binomials, integrals, sums and limits. sympy does a lot of one-time work on its first
# simplifications (lazy imports, caches): in a fresh process the first few checks take 3-10x their
# usual time (the first trigonometric one ~1 s, later ones 20-170 ms; the first integral 0.5 s,
# later ones 0.1 s).
_WARM_UP = (
    ("\\sqrt{50}", "5\\sqrt{2}"), ("\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt{2}}{2}"),
    ("\\frac{3}{4}\\pi", "\\frac{3\\pi}{4}"), ("(x+1)(x-4)", "x^2-3x-4"), ("1i+2", "2+1i"),
    ("y=2x+1", "2x+1=y"), ("2\\cos(\\frac{\\pi}{3})", "1"), ("\\tan(\\frac{\\pi}{4})", "1"),
    ("\\sin^2(x)+\\cos^2(x)", "1"), ("\\binom{7}{2}", "21"), ("\\int_{0}^{2}t^3dt", "4"),
    ("\\sum_{k=1}^{4}k^2", "30"), ("\\lim_{x\\to0}\\frac{\\sin(x)}{x}", "1"),
    ("\\int_{0}^{1}xe^{x}dx", "1"), ("\\int_{1}^{e}\\ln(x)dx", "1"),  # integration by parts: 0.3-0.9 s the first time
)


def warm_up() -> None:
    """A few typical checks, run by each worker before it takes work (the MATH scorer declares it
    in its preload), so that cost is out of the first training step's deadlines. The zygote runs
    them once and every worker forked from it inherits the warm caches."""
    for pred, gold in _WARM_UP:
        try:
            symbolic_verdict(pred, gold)
        except Exception:  # errors are irrelevant here
            pass
