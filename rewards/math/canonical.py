"""An exact canonical form for the common equal spellings, so they are equal without sympy.

A tree from `numeric.read` becomes a sum of monomials with exact rational coefficients, each a
product of atoms to integer powers: variables, `\\pi`, `e`, `i` (with i^2 = -1), square roots of
squarefree integers, one per monomial (`\\sqrt{98}` is 7 times the atom sqrt 2, `\\sqrt{2}\\sqrt{6}` is
2 sqrt 3, `\\frac{1}{\\sqrt{7}}` is sqrt 7 / 7),
and, for anything else, an opaque atom named by the canonical form of its arguments (`\\sqrt{P}`,
`1/P`, `P^Q`, `\\sin(P)`). Products are expanded and like terms collected, so factored and expanded
polynomials, reordered sums (`7i+4`, `15+2\\sqrt{33}` inside a root), `\\frac{p}{q}\\pi` and
`\\frac{p\\pi}{q}` all meet in one form; a denominator `a + b\\sqrt{m}` or `a + bi` is rationalised.

Every rewrite is an identity of complex numbers (principal branches, no sign assumptions:
`\\sqrt{x^2}` stays an opaque atom, never `x`), so equal forms prove equal values. Unequal forms
prove nothing (the form is not complete: `e^{i\\pi}` is not -1 here); such pairs go
to the numeric identity test. Size is bounded (terms, exponents, digits), so a form costs
microseconds and a refusal costs nothing.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from functools import lru_cache
from math import isqrt

from .numeric import Refuse, Tree, read

MAX_TERMS = 48          # terms of any intermediate sum
MAX_EXPONENT = 12       # integer powers that are expanded
MAX_BITS = 2048         # digits of any coefficient (about 600 decimal digits)
MAX_SURD = 10 ** 18     # square roots of larger integers are left opaque
MAX_PRODUCTS = 1024     # monomial products for one form (10-40 ms); see below
"""Terms and exponents bound each step, not their number: `(((1+\\sqrt{2})(1+\\sqrt{3})(1+\\sqrt{5})
(1+\\sqrt{7})(1+\\sqrt{11}))^{12})^{12}` (75 characters) stays at 32 terms through 24 products of
32 by 32 terms: 0.26 s holding the GIL (issue 23). Counting monomial products bounds the whole
form; past the count the form is refused (None: not a disproof), the same at every load."""

Mono = tuple            # ((atom, exponent), ...), sorted by atom
Poly = dict             # {Mono: Fraction}, no zero coefficients

_ONE: Mono = ()


_work = threading.local()
"""Monomial products left for the form being built in this thread (MAX_PRODUCTS)."""


@lru_cache(maxsize=16384)
def canonical(text: str) -> str | None:
    """The canonical form of `text` as a string, or None when it is outside what is handled."""
    tree = read(text)
    if tree is None:
        return None
    _work.left = MAX_PRODUCTS
    try:
        return key(_form(tree))
    except (Refuse, ZeroDivisionError, RecursionError, OverflowError, ValueError):
        return None


@lru_cache(maxsize=16384)
def canonical_equation(lhs: str, rhs: str) -> str | None:
    """The canonical form of the equation `lhs = rhs`: lhs - rhs divided by its first coefficient,
    so equations equal up to a nonzero constant factor (`2x-y+3=0`, `y=2x+3`) have one form."""
    a, b = read(lhs), read(rhs)
    if a is None or b is None:
        return None
    _work.left = MAX_PRODUCTS
    try:
        d = _add(_form(a), {m: -c for m, c in _form(b).items()})
    except (Refuse, ZeroDivisionError, RecursionError, OverflowError, ValueError):
        return None
    if not d:
        return "0"
    lead = d[min(d)]
    return key({m: c / lead for m, c in d.items()})


def canonical_equal(a: str, b: str) -> bool | None:
    """True when both texts have the same canonical form; None otherwise (never a disproof)."""
    ca = canonical(a)
    return True if ca is not None and ca == canonical(b) else None


def key(p: Poly) -> str:
    """A unique text for a form: terms in sorted order."""
    if not p:
        return "0"
    return "+".join(f"{c}*{'*'.join(f'{a}^{e}' for a, e in m)}" for m, c in sorted(p.items()))


def _form(t: Tree) -> Poly:
    op = t[0]
    if op == "n":
        return _const(t[1])
    if op == "v":
        return {(("v:" + t[1], 1),): Fraction(1)}
    if op in ("pi", "e"):
        return {((op, 1),): Fraction(1)}
    if op == "i":
        return {(("i", 1),): Fraction(1)}
    if op == "neg":
        return {m: -c for m, c in _form(t[1]).items()}
    if op == "+":
        return _add(_form(t[1]), _form(t[2]))
    if op == "-":
        return _add(_form(t[1]), {m: -c for m, c in _form(t[2]).items()})
    if op == "*":
        return _mul(_form(t[1]), _form(t[2]))
    if op == "/":
        return _mul(_form(t[1]), _reciprocal(_form(t[2])))
    if op == "^":
        return _power(_form(t[1]), _form(t[2]))
    if op == "sqrt":
        return _sqrt(_form(t[1]))
    if op == "!":
        n = _rational(_form(t[1]))
        if n is not None and n.denominator == 1 and 0 <= n <= 20:
            return _const(Fraction(_factorial(int(n))))
        return _atom("fact", _form(t[1]))
    if op == "root":
        index = _rational(_form(t[1]))
        if index == 2:
            return _sqrt(_form(t[2]))
        return _atom("root", _form(t[1]), _form(t[2]))
    if op == "fn":
        return _atom("fn" + t[1], _form(t[2]))
    if op == "log":
        return _atom("log", _form(t[1]), _form(t[2]))
    raise Refuse


def _const(c: Fraction) -> Poly:
    return {_ONE: Fraction(c)} if c else {}


def _atom(name: str, *args: Poly) -> Poly:
    return {((f"{name}({';'.join(key(a) for a in args)})", 1),): Fraction(1)}


def _rational(p: Poly) -> Fraction | None:
    if not p:
        return Fraction(0)
    if len(p) == 1 and _ONE in p:
        return p[_ONE]
    return None


def _check(c: Fraction) -> Fraction:
    if c.numerator.bit_length() > MAX_BITS or c.denominator.bit_length() > MAX_BITS:
        raise Refuse
    return c


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        s = out.get(m, 0) + c
        if s:
            out[m] = s
        else:
            out.pop(m, None)
    if len(out) > MAX_TERMS:
        raise Refuse
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    if len(a) * len(b) > MAX_TERMS * MAX_TERMS:
        raise Refuse
    _work.left = getattr(_work, "left", MAX_PRODUCTS) - len(a) * len(b)
    if _work.left < 0:
        raise Refuse
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            coef, mono = _mono_product(ma, mb)
            c = out.get(mono, 0) + _check(ca * cb * coef)
            if c:
                out[mono] = c
            else:
                out.pop(mono, None)
    if len(out) > MAX_TERMS:
        raise Refuse
    return out


def _mono_product(a: Mono, b: Mono) -> tuple[Fraction, Mono]:
    """The product of two monomials: exponents add; i^2 = -1 and (sqrt m)^2 = m reduce."""
    exps = dict(a)
    for atom, e in b:
        exps[atom] = exps.get(atom, 0) + e
    coef = Fraction(1)
    out = []
    surd = 1
    for atom, e in exps.items():
        if atom == "i":
            coef *= (1, 1, -1, -1)[e % 4]
            e %= 2
        elif atom.startswith("s:"):  # sqrt a sqrt b = sqrt ab for positive integers
            m = int(atom[2:])
            coef *= Fraction(m) ** (e // 2)
            surd *= m ** (e % 2)
            continue
        if e:
            out.append((atom, e))
    if surd > 1:
        if surd > MAX_SURD:
            raise Refuse
        square, free = _square_part(surd)
        coef *= square
        if free > 1:
            out.append((f"s:{free}", 1))
    return coef, tuple(sorted(out))


def _reciprocal(p: Poly) -> Poly:
    """1/p: a monomial inverts; `a + b\\sqrt{m}` and `a + bi` are rationalised by their conjugate;
    any other sum becomes an opaque atom of its primitive form (content taken out)."""
    if not p:
        raise ZeroDivisionError
    if len(p) == 1:
        (mono, c), = p.items()
        coef, inv = _mono_product((), tuple((a, -e) for a, e in mono))
        # (sqrt m)^-1 = sqrt m / m and i^-1 = -i: the product above reduced them to exponent 1
        return {inv: _check(coef / c)}
    conj = _conjugate(p)
    if conj is not None:
        norm = _rational(_mul(p, conj))
        if norm:
            return {m: c / norm for m, c in conj.items()}
    lead = p[min(p)]
    primitive = {m: c / lead for m, c in p.items()}
    return {((f"rec({key(primitive)})", 1),): 1 / lead}


def _conjugate(p: Poly) -> Poly | None:
    """For a constant `a + b X` with X = sqrt m or i (X^2 rational), `a - b X`; else None."""
    if len(p) != 2 or _ONE not in p:
        return None
    other = next(m for m in p if m != _ONE)
    if len(other) != 1 or other[0][1] != 1 or not (other[0][0] == "i" or other[0][0].startswith("s:")):
        return None
    return {_ONE: p[_ONE], other: -p[other]}


def _power(base: Poly, exponent: Poly) -> Poly:
    n = _rational(exponent)
    q = _rational(base)
    if q and n is not None and n.denominator == 1 and abs(n) * max(
            q.numerator.bit_length(), q.denominator.bit_length()) <= MAX_BITS:
        return _const(q ** int(n))  # `2^{99}`: exact
    if n is not None and n.denominator == 1 and abs(n) <= MAX_EXPONENT:
        if not base and n <= 0:
            raise Refuse
        result = _const(Fraction(1))
        for _ in range(abs(int(n))):
            result = _mul(result, base)
        return result if n >= 0 else _reciprocal(result)
    if n == Fraction(1, 2):
        return _sqrt(base)
    if n == Fraction(-1, 2):
        return _reciprocal(_sqrt(base))
    return _atom("pow", base, exponent)


def _sqrt(p: Poly) -> Poly:
    """Principal square root: of a rational, exactly (`\\sqrt{98}` = 7 sqrt 2, `\\sqrt{-4}` = 2i);
    of anything else, a positive rational content comes out and the rest stays opaque."""
    q = _rational(p)
    if q is not None:
        if q == 0:
            return {}
        root = _rational_sqrt(abs(q))
        return _mul(root, {(("i", 1),): Fraction(1)}) if q < 0 else root
    lead = p[min(p)]
    content = abs(lead)
    inner = {m: c / content for m, c in p.items()}
    return _mul(_rational_sqrt(content), {((f"sqrt({key(inner)})", 1),): Fraction(1)})


def _rational_sqrt(q: Fraction) -> Poly:
    """sqrt(a/b) = sqrt(ab)/b, with the square part of ab taken out of the root."""
    n = q.numerator * q.denominator
    if n > MAX_SURD:
        raise Refuse
    square, free = _square_part(n)
    coef = Fraction(square, q.denominator)
    return {_ONE: coef} if free == 1 else {((f"s:{free}", 1),): coef}


def _square_part(n: int) -> tuple[int, int]:
    """(s, m) with n = s^2 m; m squarefree when n's prime factors above 1000 are distinct."""
    s = 1
    for p in _PRIMES:
        if p * p > n:
            break
        while n % (p * p) == 0:
            n //= p * p
            s *= p
    r = isqrt(n)
    if r * r == n:
        return s * r, 1
    return s, n


def _factorial(n: int) -> int:
    out = 1
    for k in range(2, n + 1):
        out *= k
    return out


_PRIMES = [p for p in range(2, 1001) if all(p % d for d in range(2, isqrt(p) + 1))]
