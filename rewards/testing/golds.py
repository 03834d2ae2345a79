"""Golds of every shape the scorers accept, each with its mutations (hypothesis strategies).

A `Gold` carries the mutations drawn for it: `paid=False` ones change the meaning by construction
(the value provably differs: a digit changed to another digit, a sign flipped on a nonzero value,
two unequal items swapped; guards drop a mutation where it could keep the value), `paid=True` ones
respell the gold in a way docs/scoring-policy.md says is the same answer.

Each mutation keeps the answer it states (`Mutation.answer`), so that it can be written in any answer
format (rewards/testing/wrappers.py), and the whole response the built-in scorers read (`response`,
in the gold's `data_source` format). A mutation that is a whole response (prose around the answer,
a later second answer) has no `answer`: it is written in the gold's own `answer_format` only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

MATH = "lighteval/MATH"
GSM8K = "openai/gsm8k"


@dataclass(frozen=True)
class Mutation:
    name: str
    response: str
    paid: bool  # True: a respelling the policy pays; False: a different answer, never paid
    answer: str | None = None
    """The answer the response states, to be written in another format; None for a whole response."""


@dataclass(frozen=True)
class Gold:
    family: str
    data_source: str
    gold: str
    mutations: tuple[Mutation, ...]
    answer_format: str = "boxed"
    """The format the whole-response mutations are written in (`boxed` or `gsm8k`)."""


DAPO = "math_dapo"
# (data_source, how a response states the answer): a box, a stated answer, `\fbox`, DAPO's `Answer:` line.
WRAPPERS = ((MATH, "So the answer is $\\boxed{{{}}}$."), (MATH, "\\boxed{{{}}}"),
            (MATH, "Therefore, the final answer is $\\boxed{{{}}}$. I hope it is correct."),
            (MATH, "The final answer is ${}$."), (MATH, "Thus $\\fbox{{{}}}$ is the answer."),
            (DAPO, "Let me compute.\nAnswer: {}"), (DAPO, "Answer: $\\boxed{{{}}}$"))


class _Builder:
    """Collects one gold's mutations, each response wrapped the way the drawn wrapper says."""

    def __init__(self, wrapper: str, source: str = MATH):
        self.wrapper = wrapper
        self.source = source
        self.items: list[Mutation] = []

    def wrong(self, name: str, answer: str, when: bool = True) -> None:
        if when:
            self.items.append(Mutation(name, self.wrapper.format(answer), False, answer))

    def right(self, name: str, answer: str, when: bool = True) -> None:
        if when:
            self.items.append(Mutation(name, self.wrapper.format(answer), True, answer))

    def wrong_text(self, name: str, response: str, when: bool = True) -> None:
        """A whole response (prose around the answer), not wrapped."""
        if when:
            self.items.append(Mutation(name, response, False))

    def right_text(self, name: str, response: str, when: bool = True) -> None:
        if when:
            self.items.append(Mutation(name, response, True))


def _builder(draw) -> _Builder:
    source, wrapper = draw(st.sampled_from(WRAPPERS))
    return _Builder(wrapper, source)


def _other_digit(draw, digit: str, nonzero: bool = False) -> str:
    choices = [d for d in "0123456789" if d != digit and not (nonzero and d == "0")]
    return draw(st.sampled_from(choices))


def _change_digit(draw, digits: str) -> str:
    """`digits` (no sign, no point) with one digit replaced by another: a different number."""
    i = draw(st.integers(0, len(digits) - 1))
    new = _other_digit(draw, digits[i], nonzero=(i == 0 and len(digits) > 1))
    return digits[:i] + new + digits[i + 1:]


def _frac(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    return f"{sign}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def _squarefree(n: int) -> bool:
    return n >= 2 and all(n % (p * p) for p in range(2, math.isqrt(n) + 1))


SQUAREFREE = [n for n in range(2, 60) if _squarefree(n)]
VULGAR = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (2, 5): "⅖",
          (3, 5): "⅗", (4, 5): "⅘", (1, 6): "⅙", (5, 6): "⅚", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝",
          (7, 8): "⅞"}


@st.composite
def integers(draw) -> Gold:
    n = draw(st.one_of(st.integers(-99, 99), st.integers(-10**7, 10**7)))
    m = draw(st.integers(-99, 99).filter(lambda m: m != n))
    b = _builder(draw)
    digits = str(abs(n))
    sign = "-" if n < 0 else ""
    b.wrong("flip sign", str(-n), n != 0)
    b.wrong("drop minus", digits, n < 0)
    b.wrong("change digit", sign + str(int(_change_digit(draw, digits))))
    b.wrong("drop digit", sign + str(int(digits[1:] or "0")), len(digits) > 1)
    b.wrong("append digit", str(10 * n + draw(st.integers(1, 9)) * (-1 if n < 0 else 1)))
    b.wrong("move decimal point", f"{sign}{digits[:-1] or '0'}.{digits[-1]}", n % 10 != 0)
    b.wrong("scale word", f"{n}\\text{{ {draw(st.sampled_from(['thousand', 'million', 'hundred']))}}}", n != 0)
    b.wrong("extra item", f"{n}, {m}")
    b.wrong("extra item after approximation", f"{n} \\approx {n}.0, {m}")
    b.wrong("equation with a false left side", f"{m}={n}")
    b.wrong("unicode square", f"{n}^²", n not in (0, 1, -1))  # `-1^²` is -(1²) = -1
    b.wrong("unicode square, glued", f"{n}²", n not in (0, 1) and n > 0)
    b.wrong("inner box", f"{sign}{digits[:1]}\\boxed{{{digits[1:]}}}", len(digits) > 1 and digits[1] != "0")
    factor = next((f for f in range(2, 100) if n > 3 and n % f == 0 and n // f > 1), None)
    if factor:
        spacer = draw(st.sampled_from(["\\quad", "\\qquad", "\\ ", "~", "\\;"]))
        b.wrong("numbers joined by spacing", f"{factor} {spacer} {n // factor}")
    b.wrong_text("negated claim", f"I don't think the answer is ${n}$.")
    b.wrong_text("claim with another value", f"The final answer is ${n}$, which is ${m}$.")
    b.wrong_text("two values claimed", f"The final answer is ${n}$ or ${m}$.")
    b.wrong("factorial", f"{n}!", n > 2)
    b.wrong("plus or minus", f"\\pm {n}", n != 0)
    b.wrong("not equal", f"x \\neq {n}")
    b.wrong("subscript base", f"{n}_{{{draw(st.integers(2, 9))}}}", n > 1)
    b.wrong("unicode minus", f"−{n}", n > 0)
    b.wrong("unicode superscript digit", f"{n}{draw(st.sampled_from('³⁴⁵'))}", n > 1)
    b.wrong("unicode inverse", f"{n}⁻¹", n not in (1, -1, 0))
    b.wrong("leading decimal point", f".{digits}", n > 0)
    b.wrong("square root of it", f"\\sqrt{{{n}}}", n > 1)
    b.wrong("reciprocal", f"{n}^{{-1}}", n not in (1, -1, 0))
    b.wrong("ellipsis", f"{n} \\ldots")
    b.wrong("plain ellipsis", f"{n}...")
    b.wrong("prime", f"{n}'")
    b.wrong("times a power of ten", f"{n} \\times 10^{{{draw(st.integers(1, 4))}}}", n != 0)
    if n >= 10 and int(digits[1:]) != 0:
        op = draw(st.sampled_from(["\\cdot", "\\times", "·", "×", "*"]))
        b.wrong("digits joined by a product", f"{digits[0]} {op} {int(digits[1:])}")
    # Each way to put the box inside an expression, with the values of n it leaves unchanged.
    same = {"-\\boxed{{{}}}": {0}, "\\boxed{{{}}}^2": {0, 1}, "\\boxed{{{}}} \\times 10^3": {0}, "\\boxed{{{}}}!": {1, 2},
            "\\frac{{\\boxed{{{}}}}}{{7}}": {0}, "\\sqrt{{\\boxed{{{}}}}}": {0, 1}, "\\boxed{{{}}}0": {0},
            "\\boxed{{{}}}.5": set(), "\\boxed{{{}}}\\,000": {0}, "\\boxed{{{}}},000": {0}, "\\boxed{{{}}}x": {0},
            "\\boxed{{{}}}\\text{{k}}": {0}, "\\boxed{{{}}}\\,\\pi": {0}, "\\boxed{{{}}}\\ln 2": {0}, "\\boxed{{{}}}½": {0},
            "(\\boxed{{{}}})^2": {0, 1}, "x > \\boxed{{{}}}": set(), "x \\neq \\boxed{{{}}}": set(),
            "\\boxed{{{}}}\\text{{ million}}": {0}}
    around = draw(st.sampled_from(sorted(same)))
    b.wrong_text("box inside a larger expression", f"So $x = {around.format(n)}$.", n not in same[around])
    b.wrong_text("digit glued before the box", f"So $x = 1\\boxed{{{n}}}$.", n >= 0)
    b.wrong_text("absolute value around the box", f"So $x = |\\boxed{{{n}}}|$.", n < 0)
    qualifier = draw(st.sampled_from(["\\text{{at least }}{}", "\\text{{more than }}{}", "\\text{{less than }}{}",
                                      "{}\\text{{ at most}}", "{}\\text{{ or more}}", "{}\\text{{ billion}}",
                                      "{}\\text{{ dozen}}", "\\text{{not }}{}", "{}\\text{{ (not)}}"]))
    b.wrong("qualified value", qualifier.format(n), n != 0 or not any(w in qualifier for w in ("billion", "dozen")))
    b.wrong_text("qualified claim", f"The final answer is {draw(st.sampled_from(['at least', 'more than', 'less than', 'not', 'never']))} ${n}$.")
    b.wrong_text("scale word after the box", f"So $\\boxed{{{n}}}$ {draw(st.sampled_from(['thousand', 'million', 'dozen']))}.", n != 0)
    b.wrong("label chain to another value", f"x = {n} = {m}")
    b.wrong("two labelled values", f"x = {n}, y = {m}")
    b.wrong_text("retraction after the box", f"So $\\boxed{{{n}}}$. " + draw(st.sampled_from(
        ["Wait, that is wrong: the answer is ${}$.", "Actually, it is ${}$.", "Hmm, no. It should be ${}$.",
         "Correction: ${}$."])).format(m))
    b.right("one-element set", f"\\{{{n}\\}}")
    b.right("trailing full stop", f"{n}.")
    b.right("unicode minus", f"−{abs(n)}", n < 0)
    b.right("dfrac", f"\\dfrac{{{2 * n}}}{{2}}")
    b.right("trailing zero decimal", f"{n}.0")
    b.right("label", f"x = {n}")
    b.right("box in box", f"\\boxed{{{n}}}")
    b.right("unit on one side", f"{n}\\text{{ cm}}")
    b.right("percent on one side", f"{n}\\%")
    if abs(n) >= 1000:
        grouped = f"{abs(n):,}"
        sep = draw(st.sampled_from(["{,}", "\\,", ","]))
        b.right("thousands separator", sign + grouped.replace(",", sep))
    return Gold("integer", b.source, str(n), tuple(b.items))


@st.composite
def decimals(draw) -> Gold:
    whole = draw(st.integers(0, 999))
    places = draw(st.integers(1, 3))
    frac = draw(st.integers(1, 10**places - 1).filter(lambda f: f % 10 != 0))
    neg = draw(st.booleans())
    body = f"{whole}.{frac:0{places}d}"
    sign = "-" if neg else ""
    value = Fraction(body) * (-1 if neg else 1)
    b = _builder(draw)
    digits = body.replace(".", "")
    point = body.index(".")
    changed = _change_digit(draw, digits)
    b.wrong("flip sign", f"{'' if neg else '-'}{body}")
    b.wrong("change digit", f"{sign}{changed[:point]}.{changed[point:]}",
            Fraction(f"{changed[:point]}.{changed[point:]}") != abs(value))
    b.wrong("drop decimal point", f"{sign}{int(digits)}")
    b.wrong("drop last digit", f"{sign}{body[:-1]}".rstrip("."))
    b.wrong("decimal comma", f"{sign}{body.replace('.', ',')}")
    b.wrong("extra item", f"{sign}{body}, {whole + 1}")
    b.wrong("more digits to come", f"{sign}{body}...")
    b.wrong("repeating last digit", f"{sign}{body[:-1]}\\overline{{{body[-1]}}}")
    b.right("trailing zero", f"{sign}{body}0")
    b.right("fraction", _frac(value))
    return Gold("decimal", b.source, f"{sign}{body}", tuple(b.items))


@st.composite
def fractions(draw) -> Gold:
    q = draw(st.integers(2, 60))
    p = draw(st.integers(-200, 200).filter(lambda p: p != 0 and math.gcd(p, q) == 1))
    value = Fraction(p, q)
    gold = draw(st.sampled_from([_frac(value), f"{p}/{q}", f"\\frac{{{p}}}{{{q}}}"]))
    b = _builder(draw)
    num = _change_digit(draw, str(abs(p)))
    den = _change_digit(draw, str(q))
    b.wrong("flip sign", _frac(-value))
    b.wrong("invert", _frac(1 / value))
    b.wrong("change numerator digit", f"\\frac{{{'-' if p < 0 else ''}{num}}}{{{q}}}",
            Fraction(int(num) * (-1 if p < 0 else 1), q) != value)
    b.wrong("change denominator digit", f"\\frac{{{p}}}{{{int(den)}}}",
            int(den) != 0 and Fraction(p, int(den)) != value)
    b.wrong("rounded decimal", f"{float(value):.3f}", Fraction(f"{float(value):.3f}") != value)
    b.wrong("numerator only", str(p))
    b.wrong("extra item", f"{_frac(value)}, {_frac(value + 1)}")
    b.wrong("extra item after approximation", f"{_frac(value)} \\approx {float(value):.2f}, {p}")
    b.wrong("ratio for a quotient", f"{p}:{q}", p > 0)
    b.wrong("squared", f"\\left({_frac(value)}\\right)^2", abs(value) != 1)
    b.wrong("inverse power", f"\\left({_frac(value)}\\right)^{{-1}}")
    b.wrong("one minus it", f"1-{_frac(value)}", value != Fraction(1, 2))
    b.right("dfrac", f"\\dfrac{{{p}}}{{{q}}}")
    b.right("tfrac", f"\\tfrac{{{p}}}{{{q}}}")
    b.right("slash", f"{p}/{q}")
    b.right("unreduced", f"\\frac{{{2 * p}}}{{{2 * q}}}")
    b.right("sign in the numerator", f"\\frac{{{p}}}{{{q}}}", p < 0)
    b.right("sign in front", f"-\\frac{{{-p}}}{{{q}}}", p < 0)
    terminating = all(f in (2, 5) for f in _prime_factors(q))
    if terminating:
        b.right("exact decimal", _decimal(value))
    if p > q:
        whole, rest = divmod(p, q)
        b.right("mixed number", f"{whole}\\frac{{{rest}}}{{{q}}}")
    return Gold("fraction", b.source, gold, tuple(b.items))


def _prime_factors(n: int) -> list[int]:
    out, f = [], 2
    while n > 1:
        while n % f == 0:
            out.append(f)
            n //= f
        f += 1
    return out


def _decimal(v: Fraction) -> str:
    """The exact decimal of a fraction whose denominator has only the factors 2 and 5."""
    sign = "-" if v < 0 else ""
    v = abs(v)
    places = 0
    while (v * 10**places).denominator != 1:
        places += 1
    scaled = str((v * 10**places).numerator).rjust(places + 1, "0")
    return f"{sign}{scaled[:-places]}.{scaled[-places:]}" if places else sign + scaled


@st.composite
def mixed_unicode(draw) -> Gold:
    """`3½` is three and a half: never 31/2 (a gold whose digits it shares)."""
    (num, den), glyph = draw(st.sampled_from(sorted(VULGAR.items())))
    whole = draw(st.integers(1, 9).filter(lambda w: den != 10))
    b = _builder(draw)
    b.wrong("vulgar fraction read as digits", f"{whole}{glyph}")
    return Gold("mixed number", b.source, f"\\frac{{{10 * whole + num}}}{{{den}}}", tuple(b.items))


@st.composite
def surds(draw) -> Gold:
    n = draw(st.sampled_from(SQUAREFREE))
    k = draw(st.integers(1, 12))
    neg = draw(st.booleans())
    sign = "-" if neg else ""
    coeff = "" if k == 1 else str(k)
    gold = f"{sign}{coeff}\\sqrt{{{n}}}"
    b = _builder(draw)
    other = draw(st.sampled_from([s for s in SQUAREFREE if s != n]))
    b.wrong("flip sign", f"{'' if neg else '-'}{coeff}\\sqrt{{{n}}}")
    b.wrong("change radicand", f"{sign}{coeff}\\sqrt{{{other}}}")
    b.wrong("change coefficient", f"{sign}{k + 1}\\sqrt{{{n}}}")
    b.wrong("drop root", f"{sign}{k * n}")
    b.wrong("cube root", f"{sign}{coeff}\\sqrt[3]{{{n}}}")
    b.wrong("coefficient under the root", f"{sign}\\sqrt{{{k * n}}}", k > 1)
    b.wrong("radicand and digit under one root", f"{sign}√{n}{k}",
            k < 10 and 10 * n + k != k * k * n)
    b.right("square under the root", f"{sign}\\sqrt{{{k * k * n}}}")
    b.right("cdot", f"{sign}{k} \\cdot \\sqrt{{{n}}}")
    b.right("short argument", f"{sign}{coeff}\\sqrt{n}", n < 10)
    b.right("plain text", f"{sign}{k}*sqrt({n})")
    return Gold("surd", b.source, gold, tuple(b.items))


@st.composite
def pi_forms(draw) -> Gold:
    m = draw(st.integers(1, 12))
    k = draw(st.integers(1, 24).filter(lambda k: math.gcd(k, m) == 1))
    coeff = "" if k == 1 else str(k)
    gold = f"{coeff}\\pi" if m == 1 else f"\\frac{{{coeff}\\pi}}{{{m}}}"
    b = _builder(draw)
    over = (lambda top: top if m == 1 else f"\\frac{{{top}}}{{{m}}}")
    b.wrong("drop pi", over(str(k)))
    b.wrong("change coefficient", over(f"{k + 1}\\pi"))
    b.wrong("change denominator", f"\\frac{{{coeff}\\pi}}{{{m + 1}}}")
    b.wrong("flip sign", "-" + gold)
    b.wrong("decimal approximation", f"{k * math.pi / m:.4f}")
    b.wrong("pi squared", over(f"{coeff}\\pi^2"))
    b.wrong("in degrees", _frac(Fraction(180 * k, m)))
    b.wrong("degree sign on radians", f"{gold}^\\circ")
    b.wrong("varpi for pi", gold.replace("\\pi", "\\varpi"))
    b.wrong("capital pi", gold.replace("\\pi", "\\Pi"))
    b.right("coefficient outside", f"\\frac{{{k}}}{{{m}}}\\pi" if m > 1 else f"{k}\\pi")
    b.right("dfrac", f"\\dfrac{{{k}\\pi}}{{{m}}}")
    b.right("plain text", f"{k}*pi/{m}")
    return Gold("pi", b.source, gold, tuple(b.items))


def _poly(coeffs: dict[int, int], var: str = "x", order: list[int] | None = None) -> str:
    """A polynomial from {power: coefficient}, highest power first unless `order` says."""
    out = ""
    for p in order or sorted(coeffs, reverse=True):
        c = coeffs[p]
        if c == 0:
            continue
        mono = "" if p == 0 else var if p == 1 else f"{var}^{{{p}}}"
        body = str(abs(c)) if (abs(c) != 1 or p == 0) else ""
        out += ("-" if c < 0 else ("+" if out else "")) + body + mono
    return out or "0"


@st.composite
def polynomials(draw) -> Gold:
    r1, r2 = draw(st.integers(-9, 9)), draw(st.integers(-9, 9))
    lead = draw(st.sampled_from([1, 2, 3, -1]))
    coeffs = {2: lead, 1: -lead * (r1 + r2), 0: lead * r1 * r2}
    gold = _poly(coeffs)
    b = _builder(draw)
    nonzero = [p for p, c in coeffs.items() if c]
    p = draw(st.sampled_from(nonzero))
    b.wrong("flip a coefficient's sign", _poly({**coeffs, p: -coeffs[p]}))
    b.wrong("change the constant", _poly({**coeffs, 0: coeffs[0] + draw(st.sampled_from([-1, 1, 2]))}))
    b.wrong("raise a power", _poly({q: c for q, c in coeffs.items() if q != 2} | {3: lead}))
    b.wrong("rename the variable", _poly(coeffs, draw(st.sampled_from(["t", "y", "n"]))))
    b.wrong("capital variable", _poly(coeffs, "X"))
    b.wrong("equation", f"{gold}=0")
    b.wrong("drop a term", _poly({**coeffs, p: 0}), len(nonzero) > 1)
    b.wrong("extra item", f"{gold}, {_poly({**coeffs, 0: coeffs[0] + 1})}")
    order = draw(st.permutations(sorted(coeffs)))
    b.right("reorder terms", _poly(coeffs, order=list(order)))
    factors = f"{'' if lead == 1 else '-' if lead == -1 else lead}(x{-r1:+d})(x{-r2:+d})"
    b.right("factored", factors.replace("+0", "").replace("-0", ""))
    return Gold("polynomial", b.source, gold, tuple(b.items))


_OPEN, _CLOSE = {"(": "[", "[": "("}, {")": "]", "]": ")"}


@st.composite
def intervals(draw) -> Gold:
    a = draw(st.integers(-20, 20))
    b_ = draw(st.integers(a + 1, a + 30))
    lo, hi = draw(st.sampled_from("([")), draw(st.sampled_from(")]"))
    gold = f"{lo}{a},{b_}{hi}"
    b = _builder(draw)
    b.wrong("flip the left bracket", f"{_OPEN[lo]}{a},{b_}{hi}")
    b.wrong("flip the right bracket", f"{lo}{a},{b_}{_CLOSE[hi]}")
    b.wrong("change an endpoint", f"{lo}{a},{b_ + 1}{hi}")
    b.wrong("swap endpoints", f"{lo}{b_},{a}{hi}")
    mirror_lo, mirror_hi = ("[" if hi == "]" else "("), ("]" if lo == "[" else ")")
    b.wrong("negate", f"{mirror_lo}{-b_},{-a}{mirror_hi}", a != -b_ or (mirror_lo, mirror_hi) != (lo, hi))
    b.wrong("unbounded", f"{lo}{a},\\infty)")
    b.wrong("union with another piece", f"{gold}\\cup({b_ + 5},{b_ + 9})")
    # No mutation renames the variable of an interval gold: the interval names none (`0 < t < 1` answers
    # `(0,1)` when the question is in t).
    b.wrong("not in it", f"x \\notin {gold}")
    b.wrong("complement", f"\\mathbb{{R}} \\setminus {gold}")
    b.right("left right", f"\\left{lo}{a}, {b_}\\right{hi}")
    b.right("membership", f"x \\in {gold}")
    b.right("inequality", f"{a} {'<' if lo == '(' else chr(92) + 'le'} x {'<' if hi == ')' else chr(92) + 'le'} {b_}")
    return Gold("interval", b.source, gold, tuple(b.items))


@st.composite
def unions(draw) -> Gold:
    a = draw(st.integers(-20, 10))
    b_ = draw(st.integers(a + 1, a + 5))
    c = draw(st.integers(b_ + 1, b_ + 5))
    d = draw(st.integers(c + 1, c + 5))
    first, second = f"({a},{b_}]", f"[{c},{d})"
    gold = f"{first}\\cup{second}"
    b = _builder(draw)
    b.wrong("drop a piece", first)
    b.wrong("intersection", f"{first}\\cap{second}")
    b.wrong("change an endpoint", f"({a},{b_}]\\cup[{c},{d + 1})")
    b.wrong("flip a bracket", f"({a},{b_})\\cup{second}")
    b.right("reorder", f"{second}\\cup{first}")
    return Gold("union", b.source, gold, tuple(b.items))


_FLIP = {">": "<", "<": ">", "\\ge": "\\le", "\\le": "\\ge"}
_STRICT = {">": "\\ge", "\\ge": ">", "<": "\\le", "\\le": "<"}


@st.composite
def inequalities(draw) -> Gold:
    rel = draw(st.sampled_from(sorted(_FLIP)))
    c = draw(st.integers(-50, 50))
    gold = f"x {rel} {c}"
    b = _builder(draw)
    b.wrong("rename the variable", f"{draw(st.sampled_from(['t', 'y', 'n', 'a']))} {rel} {c}")
    b.wrong("flip the direction", f"x {_FLIP[rel]} {c}")
    b.wrong("strict or not", f"x {_STRICT[rel]} {c}")
    b.wrong("change the bound", f"x {rel} {c + 1}")
    b.wrong("equation", f"x = {c}")
    b.wrong("flip the bound's sign", f"x {rel} {-c}", c != 0)
    b.right("reversed", f"{c} {_FLIP[rel]} x")
    inf = rel in (">", "\\ge")
    bracket = "(" if rel in (">", "<") else "["
    closing = ")" if rel in (">", "<") else "]"
    b.right("interval", f"{bracket}{c},\\infty)" if inf else f"(-\\infty,{c}{closing}")
    return Gold("inequality", b.source, gold, tuple(b.items))


@st.composite
def sets(draw) -> Gold:
    items = draw(st.lists(st.integers(-30, 30), min_size=2, max_size=4, unique=True))
    gold = "\\{" + ",".join(map(str, items)) + "\\}"
    b = _builder(draw)
    new = draw(st.integers(-30, 30).filter(lambda v: v not in items))
    i = draw(st.integers(0, len(items) - 1))
    b.wrong("drop an item", "\\{" + ",".join(map(str, items[:i] + items[i + 1:])) + "\\}")
    b.wrong("sequence goes on", ", ".join(map(str, items)) + ", ...")
    b.wrong("add an item", "\\{" + ",".join(map(str, items + [new])) + "\\}")
    b.wrong("change an item", "\\{" + ",".join(map(str, items[:i] + [new] + items[i + 1:])) + "\\}")
    b.wrong("flip an item's sign", "\\{" + ",".join(map(str, items[:i] + [-items[i]] + items[i + 1:])) + "\\}",
            items[i] != 0 and -items[i] not in items)
    b.wrong("tuple for a set", "(" + ",".join(map(str, items)) + ")")
    b.wrong("extra item after approximation", ", ".join(map(str, items[:-1])) + f", {items[-1]} \\approx {items[-1]}.0, {new}")
    shuffled = draw(st.permutations(items))
    b.right("reorder", "\\{" + ",".join(map(str, shuffled)) + "\\}")
    b.right("bare list", ", ".join(map(str, shuffled)))
    return Gold("set", b.source, gold, tuple(b.items))


@st.composite
def tuples(draw) -> Gold:
    items = draw(st.lists(st.integers(-30, 30), min_size=2, max_size=3).filter(lambda xs: len(set(xs)) > 1))
    gold = "(" + ",".join(map(str, items)) + ")"
    b = _builder(draw)
    i, j = next((i, j) for i in range(len(items)) for j in range(i + 1, len(items)) if items[i] != items[j])
    swapped = list(items)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    new = draw(st.integers(-30, 30).filter(lambda v: v != items[0]))
    b.wrong("swap ordered items", "(" + ",".join(map(str, swapped)) + ")")
    b.wrong("change an item", "(" + ",".join(map(str, [new] + items[1:])) + ")")
    b.wrong("drop an item", "(" + ",".join(map(str, items[:-1])) + ")")
    b.wrong("set for a tuple", "\\{" + ",".join(map(str, items)) + "\\}")
    b.wrong("flip an item's sign", "(" + ",".join(map(str, [-items[0]] + items[1:])) + ")", items[0] != 0)
    b.wrong("scalar multiple", "2(" + ",".join(map(str, items)) + ")", any(items))
    b.wrong("negated tuple", "-(" + ",".join(map(str, items)) + ")", any(items))
    b.wrong("squared tuple", "(" + ",".join(map(str, items)) + ")^2")
    b.wrong("norm", "\\|(" + ",".join(map(str, items)) + ")\\|")
    b.right("transposed row", "(" + ",".join(map(str, items)) + ")^T")
    b.right("left right", "\\left(" + ", ".join(map(str, items)) + "\\right)")
    b.right("column vector", "\\begin{pmatrix}" + "\\\\".join(map(str, items)) + "\\end{pmatrix}")
    return Gold("tuple", b.source, gold, tuple(b.items))


LABELS = [("x", "y"), ("a", "b"), ("p", "q"), ("m", "n"), ("b_1", "b_2"), ("a_{1}", "a_{2}"), ("AB", "CD")]


@st.composite
def labelled(draw) -> Gold:
    l1, l2 = draw(st.sampled_from(LABELS))
    u = draw(st.integers(-20, 20))
    v = draw(st.integers(-20, 20).filter(lambda v: v != u))
    gold = f"{l1}={u}, {l2}={v}"
    b = _builder(draw)
    stranger = draw(st.sampled_from(["z", "k", "c_1", "EF"]))
    b.wrong("swap the values", f"{l1}={v}, {l2}={u}")
    b.wrong("rename a label", f"{l1}={u}, {stranger}={v}")
    b.wrong("labels reordered in a tuple", f"({l2},{l1})=({u},{v})")
    b.wrong("change a value", f"{l1}={u}, {l2}={v + 1 if v + 1 != u else v + 2}")
    b.wrong("drop a pair", f"{l1}={u}")
    b.wrong("values in the other order", f"{v}, {u}")
    b.right("reorder the pairs", f"{l2}={v}, {l1}={u}")
    b.right("values in order", f"{u}, {v}")
    return Gold("labelled system", b.source, gold, tuple(b.items))


def _matrix(rows: list[list[int]], env: str = "pmatrix") -> str:
    return f"\\begin{{{env}}}" + "\\\\".join("&".join(map(str, r)) for r in rows) + f"\\end{{{env}}}"


@st.composite
def matrices(draw) -> Gold:
    rows = draw(st.lists(st.lists(st.integers(-9, 9), min_size=2, max_size=2), min_size=2, max_size=2))
    gold = _matrix(rows)
    b = _builder(draw)
    (a, c_), (d, e) = rows
    det = a * e - c_ * d
    r, col = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    changed = [list(x) for x in rows]
    changed[r][col] += draw(st.sampled_from([-1, 1, 10]))
    b.wrong("change an entry", _matrix(changed))
    b.wrong("transpose", _matrix([[a, d], [c_, e]]), c_ != d)
    b.wrong("swap rows", _matrix([rows[1], rows[0]]), rows[0] != rows[1])
    b.wrong("negate", _matrix([[-x for x in row] for row in rows]), any(x for row in rows for x in row))
    b.wrong("determinant bars", _matrix(rows, "vmatrix"))
    b.wrong("det of it", "\\det" + gold)
    b.wrong("its determinant", str(det))
    b.wrong("transpose mark", gold + "^T", c_ != d)
    b.wrong("inverse mark", gold + "^{-1}")
    b.wrong("scalar multiple", "2" + gold, any(x for row in rows for x in row))
    b.wrong("negated", "-" + gold, any(x for row in rows for x in row))
    b.right("brackets", _matrix(rows, "bmatrix"))
    return Gold("matrix", b.source, gold, tuple(b.items))


@st.composite
def determinants(draw) -> Gold:
    """A gold that is a number; the matrix whose determinant it is is not that number."""
    rows = draw(st.lists(st.lists(st.integers(-9, 9), min_size=2, max_size=2), min_size=2, max_size=2))
    det = rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0]
    b = _builder(draw)
    b.wrong("matrix for its determinant", _matrix(rows))
    return Gold("determinant", b.source, str(det), tuple(b.items))


UNITS = [("cm", "centimeters", "m"), ("kg", "kilograms", "g"), ("m", "meters", "km"),
         ("hours", "hour", "minutes"), ("seconds", "second", "hours")]


@st.composite
def units(draw) -> Gold:
    unit, spelt, other = draw(st.sampled_from(UNITS))
    n = draw(st.integers(1, 5000))
    gold = f"{n}\\text{{ {unit}}}"
    b = _builder(draw)
    b.wrong("another unit", f"{n}\\text{{ {other}}}")
    b.wrong("a power of the unit", f"{n}\\text{{ {unit}}}^2", unit in ("cm", "m"))
    b.wrong("change a digit", f"{int(_change_digit(draw, str(n)))}\\text{{ {unit}}}")
    b.wrong("scale word", f"{n}\\text{{ thousand {unit}}}")
    b.wrong("unit per second", f"{n}\\text{{ {unit}/s}}", unit != "seconds")
    b.wrong("unit's case changed", f"{n}\\text{{ {unit.upper()}}}", unit in ("m", "cm"))
    b.right("unit spelt out", f"{n}\\text{{ {spelt}}}")
    b.right("unit in mathrm", f"{n}\\mathrm{{{unit}}}", unit in ("cm", "kg", "m"))
    b.right("no unit", str(n))
    return Gold("unit", b.source, gold, tuple(b.items))


@st.composite
def percentages(draw) -> Gold:
    n = draw(st.integers(1, 400))
    gold = f"{n}\\%"
    b = _builder(draw)
    b.wrong("as a fraction of one", _decimal(Fraction(n, 100)))
    b.wrong("change a digit", f"{int(_change_digit(draw, str(n)))}\\%")
    b.wrong("dollars for percent", f"\\${n}")
    b.right("no sign", str(n))
    b.right("percent word", f"{n} \\text{{ percent}}")
    return Gold("percentage", b.source, gold, tuple(b.items))


WORDS = ["odd", "even", "one", "east", "north", "yes", "none", "neither", "true", "false", "left",
         "increasing", "ten", "dog", "cat", "star"]


@st.composite
def words(draw) -> Gold:
    word = draw(st.sampled_from(WORDS))
    gold = f"\\text{{{word}}}"
    b = _builder(draw)
    anagram = "".join(draw(st.permutations(word)))
    other = draw(st.sampled_from([w for w in WORDS if w != word]))
    i = draw(st.integers(0, len(word) - 1))
    letter = draw(st.sampled_from([c for c in "abcdefghijklmnopqrstuvwxyz" if c != word[i]]))
    b.wrong("anagram", f"\\text{{{anagram}}}", anagram != word)
    b.wrong("another word", f"\\text{{{other}}}")
    b.wrong("change a letter", f"\\text{{{word[:i]}{letter}{word[i + 1:]}}}")
    b.wrong("negated", f"\\text{{not {word}}}")
    b.right("capitalised", f"\\text{{{word.capitalize()}}}")
    b.right("bold", f"\\textbf{{{word}}}")
    return Gold("word", b.source, gold, tuple(b.items))


@st.composite
def lines(draw) -> Gold:
    """`y = …`: the right side answers it; a function or another label does not."""
    n = draw(st.integers(-20, 20))
    k = draw(st.integers(2, 9))
    b = _builder(draw)
    gold = f"y = {n}"
    b.wrong("function of the variable for the variable", f"g(y) = {n}")
    b.wrong("another variable", f"z = {n}")
    b.wrong("change the value", f"y = {n + k}")
    b.right("right side", str(n))
    return Gold("line", b.source, gold, tuple(b.items))


@st.composite
def trig(draw) -> Gold:
    k = draw(st.integers(2, 9))
    fn = draw(st.sampled_from(["\\sin", "\\cos"]))
    other = "\\cos" if fn == "\\sin" else "\\sin"
    gold = f"{fn}({k}x)"
    b = _builder(draw)
    b.wrong("factor outside the function", f"{fn} x \\cdot {k}")
    b.wrong("coefficient in front", f"{k}{fn} x")
    b.wrong("the other function", f"{other}({k}x)")
    b.wrong("change the factor", f"{fn}({k + 1}x)")
    b.right("spaced", f"{fn} ({k} x)")
    b.right("left right", f"{fn}\\left({k}x\\right)")
    return Gold("trig", b.source, gold, tuple(b.items))


@st.composite
def plus_minus(draw) -> Gold:
    a = draw(st.integers(1, 20))
    n = draw(st.sampled_from(SQUAREFREE))
    b = _builder(draw)
    gold = f"{a}\\pm\\sqrt{{{n}}}"
    b.wrong("one of the two", f"{a}+\\sqrt{{{n}}}")
    b.wrong("second pm", f"{a}\\pm\\sqrt{{{n}}}\\pm 1")
    b.wrong("pm on the wrong term", f"-{a}\\pm\\sqrt{{{n}}}")
    b.right("both values listed", f"{a}+\\sqrt{{{n}}}, {a}-\\sqrt{{{n}}}")
    return Gold("plus-minus", b.source, gold, tuple(b.items))


@st.composite
def two_signs(draw) -> Gold:
    """`\\pm a \\pm b` has four values; the pair ±(a+b) is two of them."""
    a = draw(st.integers(1, 20))
    c = draw(st.integers(1, 20))
    b = _builder(draw)
    b.wrong("two pm signs", f"\\pm {a} \\pm {c}")
    return Gold("two signs", b.source, f"{a + c}, {-(a + c)}", tuple(b.items))


@st.composite
def gsm8k(draw) -> Gold:
    n = draw(st.one_of(st.integers(0, 999), st.integers(-999, 10**7)))
    m = draw(st.integers(0, 999).filter(lambda m: m != n))
    b = _Builder("Adding the parts gives the total.\n#### {}")
    digits = str(abs(n))
    sign = "-" if n < 0 else ""
    b.wrong("change digit", f"{sign}{int(_change_digit(draw, digits))}")
    b.wrong("flip sign", f"{-n}", n != 0)
    scale = draw(st.sampled_from(["k", "thousand", "million", "times four", "squared", "hundred", "x 3"]))
    b.wrong("word after the number", f"{n} {scale}", n not in (0, 1) if scale == "squared" else n != 0)
    retraction = draw(st.sampled_from(["Or maybe {m}", "No wait, it is {m}", "Actually it is {m}.",
                                       "Hmm, {m}?"]))
    b.wrong("retraction after the answer", f"{n}. {retraction.format(m=m)}")
    b.wrong("another value after the answer", f"{n}, which is {m}")
    b.wrong("two values", f"{n} or {m}")
    negation = draw(st.sampled_from(["I don't think the answer is", "The answer is not",
                                     "It is wrong to say", "It cannot be"]))
    b.wrong_text("negation before the marker", f"{negation} #### {n}.")
    b.wrong("power after the number", f"{n}^2", n not in (0, 1))
    b.wrong("leading decimal point", f".{digits}", n > 0)
    more = draw(st.sampled_from(["½", "and a half", "point 5", "bn", "dozen", "at most", "at least", "or more",
                                 "to 12", "remainder 3", "below zero", "less", "minus 2", "plus 3", "divided by 2"]))
    b.wrong("value-changing words after the number", f"{n} {more}", n != 0 or more not in ("bn", "dozen"))
    before = draw(st.sampled_from(["at least", "about", "over", "less than", "more than", "not", "~", "≈", ">", "≥",
                                   "<", "approximately", "under", "nearly", "almost", "minus", "negative"]))
    b.wrong("qualifier before the number", f"{before} {n}", n != 0 or before not in ("minus", "negative"))
    b.wrong("comma inside the digits", f"{sign}{digits[0]},{digits[1:]}", 1 < len(digits) < 4)
    b.wrong("space inside the digits", f"{sign}{digits[:-3]} {digits[-3:]}", len(digits) > 3)
    b.wrong("e-notation", f"{n}e3", n != 0)
    b.wrong("unicode minus", f"−{n}", n > 0)
    b.wrong("mixed number", f"{n} 1/2")
    b.wrong("fraction", f"{n}/{draw(st.integers(2, 9))}", n != 0)
    b.wrong("unicode superscript", f"{n}²", n > 1)
    b.wrong("first digits only", f"{sign}{digits[:-1]}", len(digits) > 1)
    b.wrong_text("a later boxed answer", b.wrapper.format(f"{n}\n\nSo the final answer is $\\boxed{{{m}}}$."))
    b.wrong_text("a later bare box", b.wrapper.format(f"{n}\n\n$\\boxed{{{m}}}$"))
    b.right_text("the same value boxed later", b.wrapper.format(f"{n}\n\n$\\boxed{{{n}}}$"))
    b.right("dollar", f"${n}", n >= 0)
    b.right("bold", f"**{n}**")
    b.right("trailing full stop", f"{n}.")
    b.right("trailing zero decimal", f"{n}.0")
    b.right("unit word", f"{n} dollars")
    b.right("box", f"\\boxed{{{n}}}")
    b.right_text("prose on later lines", b.wrapper.format(f"{n}\n\nThis follows from adding the parts. It took {m} steps."))
    if abs(n) >= 1000:
        b.right("thousands separator", f"{sign}{abs(n):,}")
    return Gold("gsm8k", GSM8K, str(n), tuple(b.items), "gsm8k")


@st.composite
def powers(draw) -> Gold:
    a = draw(st.integers(2, 12))
    e = draw(st.integers(2, 9).filter(lambda e: e != a and a**e != e**a))
    b = _builder(draw)
    b.wrong("swap base and exponent", f"{e}^{{{a}}}")
    b.wrong("digits run together", f"{a}{e}")
    b.wrong("product", f"{a} \\cdot {e}")
    b.wrong("exponent plus one", f"{a}^{{{e + 1}}}")
    b.wrong("value off by one", str(a**e + 1))
    b.right("its value", str(a**e))
    b.right("plain text", f"{a}**{e}")
    return Gold("power", b.source, f"{a}^{{{e}}}", tuple(b.items))


@st.composite
def complex_numbers(draw) -> Gold:
    re_ = draw(st.integers(-20, 20))
    im = draw(st.integers(-20, 20).filter(lambda v: v != 0))
    unit = lambda v: ("" if v == 1 else "-" if v == -1 else str(v)) + "i"  # noqa: E731
    gold = f"{re_}{'+' if im > 0 else ''}{unit(im)}" if re_ else unit(im)
    b = _builder(draw)
    b.wrong("conjugate", f"{re_}{'+' if -im > 0 else ''}{unit(-im)}")
    b.wrong("drop the i", str(re_ + im))
    b.wrong("real part only", str(re_))
    b.wrong("j for i", gold.replace("i", "j"))
    b.wrong("swap the parts", f"{im}{'+' if re_ >= 0 else ''}{re_}i", re_ != im)
    b.wrong("capital I", gold.replace("i", "I"))
    b.wrong("as a pair", f"({re_},{im})")
    b.right("imaginary part first", f"{unit(im)}{'+' if re_ >= 0 else ''}{re_}")
    return Gold("complex", b.source, gold, tuple(b.items))


@st.composite
def based_numbers(draw) -> Gold:
    base = draw(st.integers(2, 9))
    digits = draw(st.lists(st.integers(0, base - 1), min_size=2, max_size=5).filter(lambda d: d[0] != 0))
    text = "".join(map(str, digits))
    gold = f"{text}_{{{base}}}"
    b = _builder(draw)
    b.wrong("drop the base", text)
    b.wrong("its value in the wrong base", f"{text}_{{{base + 1}}}")
    b.right("same spelling", f"{text}_{{{base}}}")
    return Gold("based number", b.source, gold, tuple(b.items))


@st.composite
def degrees(draw) -> Gold:
    d = draw(st.sampled_from([15, 30, 36, 45, 60, 72, 90, 120, 135, 150, 180, 270]))
    gold = f"{d}^\\circ"
    b = _builder(draw)
    b.wrong("in radians", _frac(Fraction(d, 180)).replace("\\frac{", "\\frac{\\pi ", 1) if d % 180 else f"{d // 180}\\pi")
    b.wrong("another angle", f"{d + 1}^\\circ")
    b.wrong("radians word", f"{d}\\text{{ radians}}")
    b.wrong("temperature", f"{d}^\\circ C")
    b.wrong("arcminutes", f"{d}'")
    b.wrong("negative angle", f"-{d}^\\circ")
    b.right("degree word", f"{d}\\text{{ degrees}}")
    b.right("no mark", str(d))
    return Gold("degrees", b.source, gold, tuple(b.items))


@st.composite
def ratios(draw) -> Gold:
    p = draw(st.integers(1, 12))
    q = draw(st.integers(1, 12).filter(lambda q: q != p))
    gold = f"{p}:{q}"
    b = _builder(draw)
    b.wrong("reversed", f"{q}:{p}")
    b.wrong("as a quotient", _frac(Fraction(p, q)))
    b.wrong("digits run together", f"{p}{q}")
    b.wrong("scaled", f"{2 * p}:{2 * q}")
    b.right("spaced", f"{p} : {q}")
    return Gold("ratio", b.source, gold, tuple(b.items))


@st.composite
def reals(draw) -> Gold:
    b = _builder(draw)
    gold = draw(st.sampled_from(["\\mathbb{R}", "(-\\infty,\\infty)"]))
    for name, answer in [("positive reals", "\\mathbb{R}^+"), ("positive reals, subscript", "\\mathbb{R}_{>0}"),
                         ("integers", "\\mathbb{Z}"), ("naturals", "\\mathbb{N}"), ("plane", "\\mathbb{R}^2"),
                         ("reals but zero", "\\mathbb{R} \\setminus \\{0\\}"), ("half line", "(0,\\infty)"),
                         ("complex numbers", "\\mathbb{C}"), ("empty set", "\\emptyset")]:
        b.wrong(name, answer)
    b.right("the other spelling", "(-\\infty,\\infty)" if gold.startswith("\\mathbb") else "\\mathbb{R}")
    return Gold("reals", b.source, gold, tuple(b.items))


@st.composite
def choices(draw) -> Gold:
    letter = draw(st.sampled_from("ABCDE"))
    other = draw(st.sampled_from([c for c in "ABCDE" if c != letter]))
    b = _builder(draw)
    b.wrong("another letter", f"\\text{{({other})}}")
    b.wrong("lower case", letter.lower())
    b.wrong("two letters", f"\\text{{({letter}) and ({other})}}")
    b.wrong("letter or another", f"\\text{{{letter} or {other}}}")
    b.wrong("not the letter", f"\\text{{not {letter}}}")
    b.right("parenthesised", f"\\text{{({letter})}}")
    b.right("bold", f"\\textbf{{{letter}}}")
    return Gold("choice", b.source, letter, tuple(b.items))


@st.composite
def choice_letters(draw, options: str = "ABCD") -> Gold:
    """A multiple-choice gold, one letter of `options`: another letter, two letters or the letter
    denied are different answers; the letter in parentheses is the same one."""
    if len(set(options)) < 2:
        raise ValueError(f"choice_letters needs two options or more, not {options!r}")
    letter = draw(st.sampled_from(options))
    others = draw(st.permutations([c for c in dict.fromkeys(options) if c != letter]))
    other = others[0]
    b = _builder(draw)
    b.wrong("another letter", other)
    b.wrong("yet another letter", others[-1], len(others) > 1)
    b.wrong("two letters", f"{letter} and {other}")
    b.wrong("letter or another", f"{letter} or {other}")
    b.wrong("letters listed", f"{other}, {letter}")
    b.wrong("not the letter", f"not {letter}")
    b.right("parenthesised", f"({letter})")
    return Gold("choice letter", b.source, letter, tuple(b.items))


FAMILIES = {
    "integer": integers(), "decimal": decimals(), "fraction": fractions(),
    "mixed number": mixed_unicode(), "surd": surds(), "pi": pi_forms(), "polynomial": polynomials(),
    "interval": intervals(), "union": unions(), "inequality": inequalities(), "set": sets(),
    "tuple": tuples(), "labelled system": labelled(), "matrix": matrices(),
    "determinant": determinants(), "unit": units(), "percentage": percentages(), "word": words(),
    "line": lines(), "trig": trig(), "plus-minus": plus_minus(), "two signs": two_signs(),
    "gsm8k": gsm8k(), "power": powers(), "complex": complex_numbers(), "based number": based_numbers(),
    "degrees": degrees(), "ratio": ratios(), "reals": reals(), "choice": choices(),
}


def golds(*families: str) -> st.SearchStrategy[Gold]:
    """A gold of the named families (default: every family but GSM8K's), with its mutations.

    >>> sorted(FAMILIES)[:3]
    ['based number', 'choice', 'complex']
    """
    names = families or tuple(name for name in FAMILIES if name != "gsm8k")
    unknown = [name for name in names if name not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown gold families {unknown}; known: {', '.join(sorted(FAMILIES))}")
    return st.one_of(*(FAMILIES[name] for name in names))


def gsm8k_amounts() -> st.SearchStrategy[Gold]:
    """A GSM8K gold (a whole amount), with mutations written after `####`."""
    return FAMILIES["gsm8k"]


def text_golds(texts: st.SearchStrategy[str]) -> st.SearchStrategy[Gold]:
    """Golds from a strategy of plain texts: each with two answers that are certainly not it (a
    number off by one either way, another choice letter, or the text plus and minus one)."""
    return texts.map(text_gold)


def text_gold(text: str) -> Gold:
    """A gold of any text, with two answers that are certainly not it."""
    from ..probe.attacks import wrong_answers

    wrong = tuple(Mutation(name, answer, False, answer)
                  for name, answer in zip(("another value", "yet another value"), wrong_answers(text)))
    return Gold("text", "", text, wrong)
