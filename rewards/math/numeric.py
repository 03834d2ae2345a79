"""A float reading of simple LaTeX, used only to prove two answers *different* without sympy.

Wrong answers are the common case in a GRPO group, and most of them differ from the gold by a
visible amount: `\\frac{3}{2}` against `\\frac{\\sqrt{3}}{2}`, `a+b` against `c+b`. Evaluating both
at the same probe values (for variables) in floating point shows that in microseconds. It never
proves equality: values that agree are left to sympy, so `\\pi` against `3.14159` cannot pass.

The grammar is deliberately small (numbers, `+ - * /`, `\\cdot`, `\\times`, `\\frac`, `\\sqrt`,
powers, `!`, parentheses, `\\pi`, `e`, single-letter and Greek variables with subscripts, basic
trig and `\\ln`/`\\log_b`) and follows latex2sympy's reading of it; anything else is refused (None).
"""

from __future__ import annotations

import cmath
import math
import re
from functools import lru_cache

_TOKEN = re.compile(r"\s*(\\[a-zA-Z]+|\d+\.?\d*|\.\d+|[a-zA-Z]|[-+*/^_!(){}\[\]])")
_GREEK = frozenset("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu "
                   "nu xi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi "
                   "Sigma Phi Psi Omega".split())
_FUNCS = {"\\sin": cmath.sin, "\\cos": cmath.cos, "\\tan": cmath.tan, "\\ln": cmath.log,
          "\\exp": cmath.exp, "\\sinh": cmath.sinh, "\\cosh": cmath.cosh}
_MULT = frozenset({"\\cdot", "\\times", "*"})
_PROBES = (0.5772156649, 1.3247179572, 2.7182818285 / 2.1, 0.8862269255)
MAX_TOKENS = 200
REL_GAP = 1e-9   # far above double rounding (1e-16) of the short expressions read here
ABS_GAP = 1e-12  # so `0` against `\sin(\pi)` (1.2e-16 in floats) is never called different


class _Refuse(Exception):
    """The text is outside the small grammar: no verdict."""


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


def numerically_different(a: str, b: str) -> bool:
    """True when both texts evaluate and differ clearly at some probe point; False otherwise."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return False
    names = sorted(_variables(ta) | _variables(tb))
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


def evaluate(toks: tuple[str, ...], point: dict[str, float]) -> complex | None:
    """The value of a token sequence with variables set from `point`, or None when refused."""
    try:
        parser = _Parser(toks, point)
        value = parser.expr()
        if parser.i != len(toks):
            return None
    except (_Refuse, ArithmeticError, ValueError, TypeError, RecursionError):  # 200 `(`: too deep
        return None
    if not (cmath.isfinite(value)):
        return None
    return value


def _variables(toks: tuple[str, ...]) -> set[str]:
    names = set()
    for k, t in enumerate(toks):
        if (len(t) == 1 and t.isalpha() and t not in "ei") or (t.startswith("\\") and t[1:] in _GREEK):
            names.add(t)
            if toks[k + 1:k + 2] == ("_",):
                sub = toks[k + 3] if toks[k + 2:k + 3] == ("{",) and k + 3 < len(toks) else "".join(toks[k + 2:k + 3])
                names.add(f"{t}_{sub}")
    return names


class _Parser:
    def __init__(self, toks: tuple[str, ...], point: dict[str, float]):
        self.t = toks
        self.i = 0
        self.point = point

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise _Refuse
        self.i += 1
        return tok

    def expr(self) -> complex:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self) -> complex:
        value = self.signed()
        while True:
            tok = self.peek()
            if tok in _MULT:
                self.take()
                value *= self.signed()
            elif tok == "/":
                self.take()
                value /= self.signed()
                if self._implicit_next():
                    raise _Refuse  # `2/3x`: is it (2/3)x or 2/(3x)? leave it to sympy
            elif self._implicit_next():
                value *= self.power()  # implicit product: `2\sqrt{3}`, `\pi r^2`
            else:
                return value

    def _implicit_next(self) -> bool:
        tok = self.peek()
        return tok is not None and tok not in ("+", "-", ")", "}", "]", "^", "_", "!", "/") and tok not in _MULT

    def signed(self) -> complex:
        if self.peek() in ("+", "-"):
            return -self.signed() if self.take() == "-" else self.signed()
        return self.power()

    def power(self) -> complex:
        base = self.atom()
        while self.peek() == "!":
            self.take()
            if base.imag or base.real != int(base.real) or not 0 <= base.real <= 20:
                raise _Refuse
            base = complex(math.factorial(int(base.real)))
        if self.peek() == "^":
            self.take()
            exponent = self.argument()
            if abs(exponent) > 400 or abs(base) > 1e50:
                raise _Refuse
            if base == 0 and exponent.real <= 0:
                raise _Refuse
            if base.imag == 0 and base.real < 0 and exponent.imag == 0 and exponent.real != int(exponent.real):
                raise _Refuse  # sympy's principal branch of a negative base: leave it to sympy
            return base ** exponent
        return base

    def argument(self) -> complex:
        """A `{...}` group, or the single token LaTeX takes as an argument (`^2`, `\\sqrt3`)."""
        tok = self.peek()
        if tok == "{":
            self.take()
            value = self.expr()
            self.take("}")
            return value
        if tok is not None and re.fullmatch(r"\d", tok):
            self.take()
            return complex(int(tok))
        if tok is not None and re.fullmatch(r"\d+", tok):  # `x^23` is x^2 * 3 in LaTeX
            raise _Refuse
        return self.atom()

    def atom(self) -> complex:
        tok = self.take()
        if tok[0].isdigit() or tok[0] == ".":
            if self.peek() == "\\frac":   # `2\frac{1}{2}`: a mixed number to latex2sympy
                raise _Refuse
            return complex(float(tok))
        if tok in ("(", "{", "["):
            value = self.expr()
            self.take({"(": ")", "{": "}", "[": "]"}[tok])
            return value
        if tok == "\\frac":
            num = self.argument()
            den = self.argument()
            return num / den
        if tok == "\\sqrt":
            if self.peek() == "[":
                self.take()
                index = self.expr()
                self.take("]")
                radicand = self.argument()
                if radicand.imag or radicand.real < 0:
                    raise _Refuse
                return radicand ** (1 / index)
            radicand = self.argument()
            if radicand.imag or radicand.real < 0:
                raise _Refuse
            return cmath.sqrt(radicand)
        if tok == "\\pi":
            return complex(math.pi)
        if tok == "e":
            return complex(math.e)
        if tok == "i":
            return 1j  # the imaginary unit, as the sympy check reads it
        if tok in _FUNCS:
            if self.peek() == "^":
                raise _Refuse  # `\sin^2 x`: leave it to sympy
            return _FUNCS[tok](self.function_argument())
        if tok == "\\log":
            if self.peek() != "_":
                raise _Refuse  # base 10 or e? readers differ: leave it to sympy
            self.take()
            base = self.argument()
            value = self.function_argument()
            return cmath.log(value) / cmath.log(base)
        if len(tok) == 1 and tok.isalpha() or (tok.startswith("\\") and tok[1:] in _GREEK):
            name = tok
            if self.peek() == "_":
                self.take()
                sub = self.take()
                if sub == "{":
                    sub = self.take()
                    self.take("}")
                name = f"{tok}_{sub}"
            if name not in self.point:
                raise _Refuse
            return complex(self.point[name])
        raise _Refuse

    def function_argument(self) -> complex:
        """`\\sin(x)`, `\\sin{x}` or a lone number (`\\log_2 8`); `\\sin 2x` is refused (readers differ)."""
        tok = self.peek()
        if tok in ("(", "{"):
            return self.atom()
        if tok is not None and tok[0].isdigit() and self.t[self.i + 1:self.i + 2] in ((), ("+",), ("-",), (")",), ("}",)):
            return self.atom()
        raise _Refuse
