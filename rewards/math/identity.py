"""Numeric identity testing at high precision: equal values without sympy, near misses kept wrong.

Both answers are read into the tree the float disproof uses (`numeric.read`) and evaluated with
mpmath (a dependency of sympy) at the same points: the constants alone, or, with variables, seven
rounds of complex points near the unit circle whose arguments start in all four quadrants (so
`x` against `\\sqrt{x^2}`, `x^3` against `\\sqrt{x^6}` and `\\sqrt{x}\\sqrt{y}` against `\\sqrt{xy}`
differ, as they do for sympy, which assumes no signs), a round near the real axis past pi/2 (so
`\\sqrt{\\cos^2 x}` against `\\cos x` differs: near the unit circle a cosine keeps a positive real
part), and a last round of modulus 3 to 6 with alternating arguments (so `\\ln(e^x)` against `x`
and `(x^a)^b` against `x^{ab}` differ too). At
each point:

- equal when the difference, relative to max(1, |a|, |b|), vanishes at 50 and at 120 digits
  (below 10^-35 and 10^-105) and every intermediate value is zero or within 10^-20..10^20, so a
  sum spans at most 40 digits and no term can hide below the working precision;
- different when the difference is clearly above one precision's rounding noise and the same
  (to 0.1%) at the next (50/120, else 120/250 digits): `\\frac{1}{2^{99}}` against
  `\\frac{1}{2^{98}}`, `\\pi - 10^{-60}` against `\\pi`, `e^{\\pi\\sqrt{163}}` against
  262537412640768744; rounding noise is never stable across precisions;
- otherwise None: sympy decides (`\\sin(\\pi)` against 0 is rounding noise, not a proof).

A point whose intermediates leave 10^-20..10^20 (`\\sin(128x)` at a complex x is near 10^70) is
evaluated with as many more digits as they reach, so the noise of a cancellation is never read as a
difference (`\\sin^2(500x)+\\cos^2(500x)` was "different" from 1); such a point can show a
difference, never equality. When that leaves the answer open, the arguments of the function calls
are replaced by new variables (one per distinct argument) and the test is run again: equal as
functions of those variables is equal for any value of them, so `\\sin^2(128x)+\\cos^2(128x)` is 1
at any coefficient, settled at points where every value is in range.

Bounded so a check costs well under a millisecond to a few: MAX_TOKENS tokens a side, literals of
at most 40 digits, exponents up to 1000, factorials of 0..20, values below 10^600 (a point past
10^20 costs as many more digits). Branches are
principal, as in sympy (`\\sqrt{-4}` is 2i); a negative real base under a fractional power and an
nth root of a negative number (`\\sqrt[3]{-8}`: -2 or the principal root?) are refused, as are the
spellings the float disproof refuses. The limit of the method: an answer engineered, within these
bounds, to agree with the gold beyond about 100 significant digits would be called equal.
"""

from __future__ import annotations

import cmath
from fractions import Fraction
from functools import lru_cache

from mpmath import MPContext

from ..forksafe import ForkSafeLock, after_fork
from .numeric import Refuse, Tree, read, tokens, variables

PRECISIONS = (50, 120, 250)  # working precisions, decimal digits: equality needs the first two
GUARD = 15                   # digits of rounding error allowed for at each precision
MAX_TOKENS = 80
MAX_LITERAL_BITS = 133       # 40 decimal digits
MAX_MAGNITUDE = 20
MAX_EXPONENT = 1000
POWER_COVERAGE = 60          # every power up to this leaves the right half-plane at some point
MAX_SPAN = 600               # values beyond 10^600 (or below 10^-600) are refused
SPAN_STEP = 40               # extra digits come in steps of this, so few contexts are ever made


def _points() -> tuple:
    """Points for variables, per round: exact rationals (the same number at every precision),
    complex, of modulus near 1 (polynomials stay in range), different for every variable; the
    arguments lie in the first, second and third quadrant by round, so principal branches are
    exercised (`\\sqrt{x}\\sqrt{y}` is not `\\sqrt{xy}` once both arguments pass pi/2)."""
    rounds = []
    # Four more rounds at other angles, chosen so that for every variable and every power k up to
    # POWER_COVERAGE some point puts x^k in the left half-plane (cos(k arg x) < -0.2): a root of a
    # power (`\\sqrt{x^{22}}` against `x^{11}`, `\\sqrt{x^6}` against `x^3`) cannot agree by chance.
    for base_angle, step in ((0.52, 0.131), (2.29, 0.117), (-2.41, -0.123), (1.03, 0.137), (-0.61, 0.109),
                             (-0.47, -0.126), (-0.21, -0.134)):
        row = []
        for k in range(12):
            z = cmath.rect(0.83 + 0.047 * k, base_angle + step * k)
            row.append((Fraction(z.real), Fraction(z.imag)))
        rounds.append(tuple(row))
    # A round near the real axis past pi/2 (modulus 2.2 to 3.2, arguments of 0.25 alternating in
    # sign): near the unit circle cosine keeps a positive real part, so `\\sqrt{\\cos^2 x}` passed
    # for `\\cos x`; here the cosine of every variable is negative.
    rounds.append(tuple((Fraction(z.real), Fraction(z.imag))
                        for z in (cmath.rect(2.2 + 0.09 * k, 0.25 * (-1) ** k) for k in range(12))))
    # A last round off the unit circle, the variables' arguments alternating in sign: imaginary
    # parts beyond pi and quotients past the branch cut, so `\\ln(e^x)` is not `x`, `(x^a)^b` not
    # `x^{ab}`, `\\sqrt{x/y}` not `\\sqrt{x}/\\sqrt{y}` (each was paid: equal near the unit circle).
    rounds.append(tuple((Fraction(z.real), Fraction(z.imag))
                        for z in (cmath.rect(3.3 + 0.2 * k, (1.7 + 0.13 * k) * (-1) ** k) for k in range(12))))
    return tuple(rounds)


_POINTS = _points()


class _Context:
    """An mpmath context at one precision with its threshold."""

    def __init__(self, digits: int, extra: int = 0):
        self.mp = MPContext()
        self.mp.dps = digits + extra  # the extra digits pay for intermediates beyond 10^-20..10^20
        self.zero = self.mp.mpf(10) ** (GUARD - digits)  # relative gaps below this: rounding noise


_contexts: dict[int, tuple[_Context, ...]] = {}
"""The contexts at PRECISIONS plus some extra digits, by those extra digits."""
_lock = ForkSafeLock()
"""mpmath changes a context's precision while it works, so one check uses the contexts at a time;
the work is pure Python under the GIL, so the lock costs no parallelism. Made on first use
(a few milliseconds), not at import. A forked child makes its own: a context copied mid-check
may be left at another precision."""
after_fork(_contexts.clear)


@lru_cache(maxsize=16384)
def identical(a: str, b: str) -> bool | None:
    """True: equal to the working precision at every point; False: proven different at a point;
    None: cannot tell here (outside the grammar or bounds, or unstable between precisions)."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb or len(ta) > MAX_TOKENS or len(tb) > MAX_TOKENS:
        return None
    xa, xb = read(a), read(b)
    if xa is None or xb is None:
        return None
    names = sorted(variables(xa) | variables(xb))
    if len(names) > len(_POINTS[0]):
        return None
    with _lock:
        verdict = _decide(xa, xb, names)
        if verdict is None:  # too large to evaluate (`\\sin(500x)`): equal as functions of the arguments?
            args: dict = {}
            ya, yb = _abstracted(xa, args), _abstracted(xb, args)
            names = sorted(variables(ya) | variables(yb))
            if args and len(names) <= len(_POINTS[0]) and _decide(ya, yb, names):
                return True
        return verdict


def _abstracted(t: Tree, args: dict) -> Tree:
    """`t` with the argument of each function call that holds a variable replaced by a new variable,
    one per distinct argument. Equal as functions of those variables means equal for any value of
    them, these arguments included; unequal proves nothing (`\\sin(2x)` is `2\\sin x\\cos x`)."""
    if t[0] == "fn" and t[2][0] != "v" and variables(t[2]):
        return ("fn", t[1], ("v", args.setdefault(t[2], f"#{len(args)}")))
    return (t[0],) + tuple(_abstracted(c, args) if isinstance(c, tuple) else c for c in t[1:])


def _contexts_for(extra: int) -> tuple[_Context, ...]:
    if extra not in _contexts:
        _contexts[extra] = tuple(_Context(d, extra) for d in PRECISIONS)
    return _contexts[extra]


def _decide(xa: Tree, xb: Tree, names: list[str]) -> bool | None:
    for points in (_POINTS if names else ((),)):
        point = dict(zip(names, points))
        first = _relative_gap(_contexts_for(0)[0], xa, xb, point)
        if first is None:
            return None
        # Out of range: as many more digits as the intermediates reach (rounded up), so the noise
        # of a cancellation is not read as a difference; such a point never shows equality.
        extra = -(-first[1] // SPAN_STEP) * SPAN_STEP
        ctxs = _contexts_for(extra)
        gaps = []
        for lower, ctx in zip((None,) + ctxs, ctxs):
            gap = first if ctx is ctxs[0] and extra == 0 else _relative_gap(ctx, xa, xb, point)
            if gap is None:
                return None
            gaps.append(gap)
            if len(gaps) >= 2:
                (low, low_reach), (high, high_reach) = gaps[-2:]
                if max(low_reach, high_reach) > extra:
                    return None  # the intermediates reach further than the digits paid for
                if len(gaps) == 2 and not extra and low <= ctxs[0].zero and high <= ctxs[1].zero:
                    break  # vanished at two precisions: equal at this point
                if high > lower.zero and abs(low - high) <= high / 1000:
                    return False  # clearly nonzero, the same at two precisions: different
        else:
            return None
    return True


def _relative_gap(ctx: _Context, xa: Tree, xb: Tree, point: dict) -> tuple | None:
    """(|a - b| / max(1, |a|, |b|), how many digits the intermediates reach from 1 when one leaves
    10^-20..10^20, else 0) at one point and precision; None when refused."""
    mp = ctx.mp
    flags = [0]
    try:
        values = {n: mp.mpc(mp.mpf(re.numerator) / re.denominator, mp.mpf(im.numerator) / im.denominator)
                  for n, (re, im) in point.items()}
        va, vb = _value(mp, xa, values, flags), _value(mp, xb, values, flags)
    except (Refuse, ArithmeticError, ValueError, TypeError, RecursionError):
        return None
    scale = max(1, abs(va), abs(vb))
    return abs(va - vb) / scale, max(flags)


_BIG, _SMALL = 10.0 ** MAX_MAGNITUDE, 10.0 ** -MAX_MAGNITUDE


def _value(ctx: MPContext, t: Tree, point: dict, flags: list):
    v = _node(ctx, t, point, flags)
    size = abs(v)
    if size and not _SMALL <= size <= _BIG:
        reach = int(abs(ctx.log10(size))) + 1
        if reach > MAX_SPAN:
            raise Refuse
        flags.append(reach)  # out of range: a near miss could hide in the digits it spans
    return v


def _node(ctx: MPContext, t: Tree, point: dict, flags: list):
    op = t[0]
    if op == "n":
        q = t[1]
        if q.numerator.bit_length() > MAX_LITERAL_BITS or q.denominator.bit_length() > MAX_LITERAL_BITS:
            raise Refuse
        return ctx.mpf(q.numerator) / q.denominator
    if op == "v":
        return point[t[1]]
    if op == "pi":
        return +ctx.pi
    if op == "e":
        return +ctx.e
    if op == "i":
        return ctx.mpc(0, 1)
    if op == "neg":
        return -_value(ctx, t[1], point, flags)
    if op in ("+", "-", "*", "/"):
        a, b = _value(ctx, t[1], point, flags), _value(ctx, t[2], point, flags)
        if op == "/" and b == 0:
            raise Refuse
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b
    if op == "^":
        base, exponent = _value(ctx, t[1], point, flags), _value(ctx, t[2], point, flags)
        if abs(exponent) > MAX_EXPONENT or (base == 0 and ctx.re(exponent) <= 0):
            raise Refuse
        if ctx.im(base) == 0 and ctx.re(base) < 0 and ctx.im(exponent) == 0 and not ctx.isint(ctx.re(exponent)):
            raise Refuse  # the principal branch of a negative base: readers differ
        if ctx.im(exponent) == 0 and ctx.isint(ctx.re(exponent)):
            exponent = int(ctx.re(exponent))  # exact integer powers
        return ctx.power(base, exponent)
    if op == "!":
        n = _value(ctx, t[1], point, flags)
        if ctx.im(n) != 0 or not ctx.isint(ctx.re(n)) or not 0 <= ctx.re(n) <= 20:
            raise Refuse
        return ctx.mpf(ctx.factorial(int(ctx.re(n))))
    if op == "sqrt":
        return ctx.sqrt(_value(ctx, t[1], point, flags))
    if op == "root":
        index, radicand = _value(ctx, t[1], point, flags), _value(ctx, t[2], point, flags)
        if ctx.im(index) != 0 or not ctx.isint(ctx.re(index)) or not 2 <= ctx.re(index) <= 64:
            raise Refuse
        if ctx.im(radicand) == 0 and ctx.re(radicand) < 0:
            raise Refuse
        return ctx.root(radicand, int(ctx.re(index)))
    if op == "fn":
        arg = _value(ctx, t[2], point, flags)
        if abs(arg) > 1000:
            raise Refuse
        return getattr(ctx, _MP_FUNCS[t[1]])(arg)
    if op == "log":
        base, arg = _value(ctx, t[1], point, flags), _value(ctx, t[2], point, flags)
        if base == 0 or arg == 0:
            raise Refuse
        den = ctx.ln(base)
        if den == 0:
            raise Refuse
        return ctx.ln(arg) / den
    raise Refuse


_MP_FUNCS = {"\\sin": "sin", "\\cos": "cos", "\\tan": "tan", "\\ln": "ln", "\\exp": "exp",
             "\\sinh": "sinh", "\\cosh": "cosh"}
