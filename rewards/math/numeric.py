"""Simple LaTeX read into a small expression tree, and a float reading of it used only to prove
two answers *different* without sympy.

Wrong answers are the common case in a GRPO group, and most of them differ from the gold by a
visible amount: `\\frac{3}{2}` against `\\frac{\\sqrt{3}}{2}`, `a+b` against `c+b`. Evaluating both
at the same probe values (for variables) in floating point shows that in microseconds. It never
proves equality: values that agree are left to the exact checks (`canonical`, `identity`) and to
sympy, so `\\pi` against `3.14159` cannot pass.

The grammar is deliberately small (numbers, `+ - * /`, `\\cdot`, `\\times`, `\\frac`, `\\sqrt`,
powers, `!`, parentheses, `\\pi`, `e`, `i`, single-letter and Greek variables with subscripts,
basic trig and `\\ln`/`\\log_b`) and follows latex2sympy's reading of it; anything else, or any
spelling readers disagree on (`2/3x`, `\\sin 2x`, `x^23`, `\\log 8`), is refused (None). The tree
(`read`) is shared by the float disproof here, the exact canonical form and the high-precision
identity test, so all three read a text the same way.

Tree nodes are tuples: `("n", Fraction)`, `("v", name)`, `("pi",)`, `("e",)`, `("i",)`,
`("+"|"-"|"*"|"/"|"^", a, b)`, `("neg", a)`, `("!", a)`, `("sqrt", a)`, `("root", index, a)`,
`("fn", name, a)`, `("log", base, a)`.
"""

from __future__ import annotations

import cmath
import math
import re
from fractions import Fraction
from functools import lru_cache

_TOKEN = re.compile(r"\s*(\\[a-zA-Z]+|\d+\.?\d*|\.\d+|[a-zA-Z]|[-+*/^_!(){}\[\]])")
_GREEK = frozenset("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu "
                   "nu xi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi "
                   "Sigma Phi Psi Omega".split())
_FUNCS = {"\\sin": cmath.sin, "\\cos": cmath.cos, "\\tan": cmath.tan, "\\ln": cmath.log,
          "\\exp": cmath.exp, "\\sinh": cmath.sinh, "\\cosh": cmath.cosh}
FUNCTIONS = frozenset(_FUNCS)
_MULT = frozenset({"\\cdot", "\\times", "*"})
_PROBES = (0.5772156649, 1.3247179572, 2.7182818285 / 2.1, 0.8862269255)
MAX_TOKENS = 200
REL_GAP = 1e-9   # far above double rounding (1e-16) of the short expressions read here
CANCELLED = 1e-6  # a sum far smaller than its terms lost that share of its 16 digits: refused
ABS_GAP = 1e-12  # so `0` against `\sin(\pi)` (1.2e-16 in floats) is never called different

Tree = tuple


class Refuse(Exception):
    """The text is outside the small grammar, or a value outside what a reader may decide: no verdict."""


@lru_cache(maxsize=16384)
def tokens(text: str) -> tuple[str, ...] | None:
    out: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            return None
        out.append(m.group(1))
        pos = m.end()
        if len(out) > MAX_TOKENS:
            return None
    return tuple(out)


@lru_cache(maxsize=16384)
def read(text: str) -> Tree | None:
    """The expression tree of `text`, or None when it is outside the grammar."""
    toks = tokens(text)
    if not toks or _applies_function(toks):
        return None
    try:
        parser = _Parser(toks)
        tree = parser.expr()
    except (Refuse, RecursionError):  # 200 `(`: too deep
        return None
    return tree if parser.i == len(toks) else None


_NOT_A_FUNCTION = frozenset({"+", "-", "*", "/", "(", "[", "{", "=", ",", "^", ")", "\\cdot", "\\times"}) | FUNCTIONS


def _applies_function(toks: tuple[str, ...]) -> bool:
    """`f(x)`, `a(2)`, `x_1(y)`, `x^2(y)`, `x^{2}(y)`: a name before a bracketed single symbol or
    integer is a function application to latex2sympy (`x(x+1)`, `3(x)`, `(x)(y)` are products):
    refused, never read as a product."""
    for k in range(1, len(toks) - 2):
        if toks[k] != "(" or toks[k + 2] not in (")", "_"):
            continue
        inner, before = toks[k + 1], toks[k - 1]
        if not (inner.isalnum() or (inner.startswith("\\") and inner != "\\frac")):
            continue
        if before in _NOT_A_FUNCTION or (before.isdigit() and toks[k - 2:k - 1] not in (("^",), ("_",))):
            continue
        if _ends_log_base_or_function_power(toks, k - 1):
            continue  # `\log_{2}(8)`, `\sin^2(x)`: the bracket is the function's argument
        return True
    return False


def _ends_log_base_or_function_power(toks: tuple[str, ...], end: int) -> bool:
    """Whether toks[end] ends the base of a `\\log_b` or `\\log_{...}`, or the power of a function
    name (`\\sin^2`, `\\cos^{2}`)."""
    start = end
    if toks[end] == "}":
        depth = 0
        for start in range(end, -1, -1):
            depth += (toks[start] == "}") - (toks[start] == "{")
            if depth == 0:
                break
    before = toks[start - 2:start] if start >= 2 else ()
    return before == ("\\log", "_") or (len(before) == 2 and before[0] in FUNCTIONS and before[1] == "^")


def variables(tree: Tree) -> frozenset[str]:
    """The variable names in a tree."""
    if tree[0] == "v":
        return frozenset((tree[1],))
    names: frozenset[str] = frozenset()
    for child in tree[1:]:
        if isinstance(child, tuple):
            names |= variables(child)
    return names


def numerically_different(a: str, b: str) -> bool:
    """True when both texts evaluate and differ clearly at some probe point; False otherwise."""
    ta, tb = read(a), read(b)
    if ta is None or tb is None:
        return False
    names = sorted(variables(ta) | variables(tb))
    for shift in range(2):
        point = {n: _PROBES[(k + shift) % len(_PROBES)] + k for k, n in enumerate(names)}
        va, vb = evaluate(ta, point), evaluate(tb, point)
        if va is None or vb is None:
            return False
        gap = abs(va - vb)
        if gap > REL_GAP * max(abs(va), abs(vb)) and gap > ABS_GAP:
            return True
        if not names:
            return False
    return False


def evaluate(tree: Tree, point: dict[str, float]) -> complex | None:
    """The float value of a tree with variables set from `point`, or None when refused."""
    try:
        value = _float(tree, point)
    except (Refuse, ArithmeticError, ValueError, TypeError, RecursionError):
        return None
    return value if cmath.isfinite(value) else None


def _float(t: Tree, point: dict[str, float]) -> complex:
    op = t[0]
    if op == "n":
        return complex(float(t[1]))
    if op == "v":
        if t[1] not in point:
            raise Refuse
        return complex(point[t[1]])
    if op == "pi":
        return complex(math.pi)
    if op == "e":
        return complex(math.e)
    if op == "i":
        return 1j  # the imaginary unit, as the sympy check reads it
    if op == "neg":  # 0 - v, not -v: -(1+0j) is -1-0j, on the far side of the log's branch cut
        return 0 - _float(t[1], point)
    if op in ("+", "-", "*", "/"):
        a, b = _float(t[1], point), _float(t[2], point)
        if op in ("+", "-"):
            total = a + b if op == "+" else a - b
            if abs(total) < CANCELLED * max(abs(a), abs(b)):
                raise Refuse  # too few digits left to prove a difference (`\cosh^2(32x)-\sinh^2(32x)`)
            return total
        return a * b if op == "*" else a / b
    if op == "^":
        base, exponent = _float(t[1], point), _float(t[2], point)
        if abs(exponent) > 400 or abs(base) > 1e50:
            raise Refuse
        if base == 0 and exponent.real <= 0:
            raise Refuse
        if base.imag == 0 and base.real < 0 and exponent.imag == 0 and exponent.real != int(exponent.real):
            raise Refuse  # sympy's principal branch of a negative base: leave it to sympy
        return base ** exponent
    if op == "!":
        base = _float(t[1], point)
        if base.imag or base.real != int(base.real) or not 0 <= base.real <= 20:
            raise Refuse
        return complex(math.factorial(int(base.real)))
    if op == "sqrt":
        radicand = _float(t[1], point)
        if radicand.imag or radicand.real < 0:
            raise Refuse
        return cmath.sqrt(radicand)
    if op == "root":
        index, radicand = _float(t[1], point), _float(t[2], point)
        if radicand.imag or radicand.real < 0:
            raise Refuse
        return radicand ** (1 / index)
    if op == "fn":
        return _FUNCS[t[1]](_float(t[2], point))
    if op == "log":
        return cmath.log(_float(t[2], point)) / cmath.log(_float(t[1], point))
    raise Refuse


def _is_number(tok: str | None) -> bool:
    return tok is not None and (tok[0].isdigit() or tok[0] == ".")


class _Parser:
    def __init__(self, toks: tuple[str, ...]):
        self.t = toks
        self.i = 0

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise Refuse
        self.i += 1
        return tok

    def expr(self) -> Tree:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            value = (op, value, self.term())
        return value

    def term(self) -> Tree:
        value = self.signed()
        while True:
            tok = self.peek()
            if tok in _MULT:
                self.take()
                value = ("*", value, self.signed())
            elif tok == "/":
                self.take()
                value = ("/", value, self.signed())
                if self._implicit_next():
                    raise Refuse  # `2/3x`: is it (2/3)x or 2/(3x)? leave it to sympy
            elif self._implicit_next():
                if _is_number(self.t[self.i - 1]) and _is_number(self.peek()):
                    raise Refuse  # `3 4`, `3.4.5`: numbers side by side are a list or a typo, never a product
                value = ("*", value, self.power())  # implicit product: `2\sqrt{3}`, `\pi r^2`
            else:
                return value

    def _implicit_next(self) -> bool:
        tok = self.peek()
        return tok is not None and tok not in ("+", "-", ")", "}", "]", "^", "_", "!", "/") and tok not in _MULT

    def signed(self) -> Tree:
        if self.peek() in ("+", "-"):
            return ("neg", self.signed()) if self.take() == "-" else self.signed()
        return self.power()

    def power(self) -> Tree:
        base = self.atom()
        while self.peek() == "!":
            self.take()
            base = ("!", base)
        if self.peek() == "^":
            self.take()
            return ("^", base, self.argument())
        return base

    def argument(self) -> Tree:
        """A `{...}` group, or the single token LaTeX takes as an argument (`^2`, `\\sqrt3`)."""
        tok = self.peek()
        if tok == "{":
            self.take()
            value = self.expr()
            self.take("}")
            return value
        if tok is not None and re.fullmatch(r"\d", tok):
            self.take()
            return ("n", Fraction(int(tok)))
        if tok is not None and re.fullmatch(r"\d+", tok):  # `x^23` is x^2 * 3 in LaTeX
            raise Refuse
        return self.atom()

    def atom(self) -> Tree:
        tok = self.take()
        if tok[0].isdigit() or tok[0] == ".":
            if self.peek() == "\\frac":   # `2\frac{1}{2}`: a mixed number to latex2sympy
                raise Refuse
            return ("n", Fraction(tok))
        if tok in ("(", "{", "["):
            value = self.expr()
            self.take({"(": ")", "{": "}", "[": "]"}[tok])
            return value
        if tok == "\\frac":
            num = self.argument()
            return ("/", num, self.argument())
        if tok == "\\sqrt":
            if self.peek() == "[":
                self.take()
                index = self.expr()
                self.take("]")
                return ("root", index, self.argument())
            return ("sqrt", self.argument())
        if tok == "\\pi":
            return ("pi",)
        if tok == "e":
            return ("e",)
        if tok == "i":
            return ("i",)
        if tok in _FUNCS:
            if self.peek() == "^":  # `\sin^2(x)` is (\sin(x))^2 to every reader; `\sin^{-1}` is arcsin
                self.take()
                exponent = self.argument()
                if exponent[0] != "n" or exponent[1].denominator != 1 or not 1 < exponent[1] <= 9:
                    raise Refuse
                call = ("fn", tok, self.function_argument())
                if self.peek() == "^":
                    raise Refuse  # `\sin^2(x)^2`: readers differ
                return ("^", call, exponent)
            return ("fn", tok, self.function_argument())
        if tok == "\\log":
            if self.peek() != "_":
                raise Refuse  # base 10 or e? readers differ: leave it to sympy
            self.take()
            base = self.argument()
            return ("log", base, self.function_argument())
        if len(tok) == 1 and tok.isalpha() or (tok.startswith("\\") and tok[1:] in _GREEK):
            name = tok
            if self.peek() == "_":
                self.take()
                sub = self.take()
                if sub == "{":
                    sub = self.take()
                    self.take("}")
                name = f"{tok}_{sub}"
            return ("v", name)
        raise Refuse

    def function_argument(self) -> Tree:
        """`\\sin(x)`, `\\sin{x}` or a lone number (`\\log_2 8`); `\\sin 2x` is refused (readers differ)."""
        tok = self.peek()
        if tok in ("(", "{"):
            return self.atom()
        if tok is not None and tok[0].isdigit() and self.t[self.i + 1:self.i + 2] in ((), ("+",), ("-",), (")",), ("}",)):
            return self.atom()
        raise Refuse
