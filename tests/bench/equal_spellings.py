"""A cache-free MATH corpus of equal spellings: every (answer, gold) pair is new.

The project corpus (corpus.py) repeats answers inside GRPO groups, as training does, so caches
help it. This one measures the equality check itself: every gold is distinct, every answer in a
group is distinct, and `warm_up_rows` come from goldens disjoint from the timed rows, so no cache
filled before the clock flatters the figure. A correct answer is spelt like the gold about 25% of
the time and in another equal spelling about 30% of the time (the spellings that used to need
sympy): surds (`\\sqrt{98}` for `7\\sqrt{2}`), factored vs expanded polynomials, rationalised
denominators (`\\frac{1}{\\sqrt{7}}`, `\\frac{1}{\\sqrt{m}+a}`), reordered complex numbers (`7i+4`),
`\\frac{p}{q}\\pi` for `\\frac{p\\pi}{q}`, and reorders nested in roots. Wrong answers include near
misses (`k\\sqrt{m}` against `\\sqrt{k^2 m + 1}`, a shifted constant term, a conjugate).

    python tests/bench/equal_spellings.py -n 2048 -o equal.jsonl
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from fractions import Fraction

from corpus import MATH, Row, _math_response, _nonzero

_SQUAREFREE = [m for m in range(2, 200) if all(m % (p * p) for p in range(2, 15))]


def _coef(c: int, var: str) -> str:
    """`c var` as a signed term: `+3x`, `-x`, `+7`."""
    sign = "+" if c > 0 else "-"
    mag = "" if abs(c) == 1 and var else str(abs(c))
    return f"{sign}{mag}{var}"


def _poly(coefs: list[int]) -> str:
    """Highest power first: [1, -3, 2] -> `x^2-3x+2`."""
    n = len(coefs) - 1
    terms = [_coef(c, "x" if n - k == 1 else f"x^{{{n - k}}}" if n - k > 1 else "") for k, c in enumerate(coefs) if c]
    text = "".join(terms)
    return text[1:] if text.startswith("+") else text


def s_surd(rng):
    k, m = rng.randint(2, 40), rng.choice(_SQUAREFREE)
    gold = f"{k}\\sqrt{{{m}}}"
    same = [f"\\sqrt{{{k * k * m}}}", f"\\sqrt{{{m}}}\\cdot {k}", f"{k // 2 if k % 2 == 0 else k}\\sqrt{{{4 * m if k % 2 == 0 else m}}}"]
    wrong = [f"\\sqrt{{{k * k * m + 1}}}", f"{k + 1}\\sqrt{{{m}}}", f"{k}\\sqrt{{{m + 1}}}"]
    return gold, same, wrong


def s_polynomial(rng):
    roots = [_nonzero(rng, -30, 30) for _ in range(rng.choice([2, 2, 3]))]
    lead = rng.choice([1, 1, 2, 3, -1])
    coefs = [lead]
    for r in roots:  # multiply by (x - r)
        coefs = [a - r * b for a, b in zip(coefs + [0], [0] + coefs)]
    gold = _poly(coefs)
    factors = [f"(x{_coef(-r, '')})" for r in roots]
    head = "" if lead == 1 else "-" if lead == -1 else str(lead)
    same = [head + "".join(factors), head + "".join(reversed(factors)), _poly(coefs).replace("+", " + ")]
    shifted = coefs[:-1] + [coefs[-1] + rng.choice([-1, 1])]
    wrong = [_poly(shifted)]
    if sorted(roots) != sorted(-r for r in roots):  # the roots negated, unless that is the same set
        wrong.append(head + "".join(f"(x{_coef(r, '')})" for r in roots))
    return gold, same, wrong


def s_rationalised(rng):
    m = rng.choice(_SQUAREFREE)
    a = rng.randint(1, 30)
    if rng.random() < 0.5:
        q = Fraction(a, m)
        num = f"{q.numerator}\\sqrt{{{m}}}" if q.numerator != 1 else f"\\sqrt{{{m}}}"
        gold = num if q.denominator == 1 else f"\\frac{{{num}}}{{{q.denominator}}}"
        same = [f"\\frac{{{a}}}{{\\sqrt{{{m}}}}}", f"\\frac{{{a}\\sqrt{{{m}}}}}{{{m}}}"]
        wrong = [f"\\frac{{{a}}}{{{m}}}", f"\\frac{{{a + 1}}}{{\\sqrt{{{m}}}}}"]
        return gold, same, wrong
    b = rng.randint(1, 12)
    while b * b == m:
        b += 1
    den = m - b * b  # 1/(sqrt m + b) = (sqrt m - b)/(m - b^2)
    gold = f"\\frac{{\\sqrt{{{m}}}-{b}}}{{{den}}}" if den > 0 else f"\\frac{{{b}-\\sqrt{{{m}}}}}{{{-den}}}"
    same = [f"\\frac{{1}}{{\\sqrt{{{m}}}+{b}}}", f"\\frac{{1}}{{{b}+\\sqrt{{{m}}}}}"]
    wrong = [f"\\frac{{1}}{{\\sqrt{{{m}}}-{b}}}", f"\\frac{{\\sqrt{{{m}}}+{b}}}{{{abs(den)}}}"]
    return gold, same, wrong


def s_complex(rng):
    a, b = _nonzero(rng, -99, 99), _nonzero(rng, -99, 99)
    if abs(a) == abs(b):
        b += 1 if b > 0 else -1
    bi = f"{b}i" if abs(b) != 1 else ("i" if b == 1 else "-i")
    gold = f"{a}{'+' if b > 0 else ''}{bi}"
    same = [f"{bi}{'+' if a > 0 else ''}{a}", f"\\frac{{{2 * a}{'+' if b > 0 else '-'}{2 * abs(b)}i}}{{2}}", f"{a}+({b})i"]
    wrong = [f"{a}{'-' if b > 0 else '+'}{abs(b)}i", f"{b}{'+' if a > 0 else '-'}{abs(a)}i"]
    return gold, same, wrong


def s_pi(rng):
    while True:
        p, q = rng.randint(1, 60), rng.randint(2, 24)
        if math.gcd(p, q) == 1:
            break
    gold = f"\\frac{{{p}\\pi}}{{{q}}}"
    same = [f"\\frac{{{p}}}{{{q}}}\\pi", f"\\pi\\cdot\\frac{{{p}}}{{{q}}}", f"\\frac{{{2 * p}\\pi}}{{{2 * q}}}"]
    wrong = [f"\\frac{{{p}}}{{{q}}}", f"\\frac{{{p + 1}\\pi}}{{{q}}}", f"{p / q * math.pi:.4f}"]
    return gold, same, wrong


def s_nested(rng):
    a, b, c = rng.randint(2, 40), rng.choice(_SQUAREFREE), rng.randint(2, 20)
    m = rng.choice(_SQUAREFREE)
    gold = f"\\frac{{\\sqrt{{{a}+\\sqrt{{{b}}}}}}}{{{c}+\\sqrt{{{m}}}}}"
    same = [f"\\frac{{\\sqrt{{\\sqrt{{{b}}}+{a}}}}}{{\\sqrt{{{m}}}+{c}}}", f"\\frac{{\\sqrt{{{a}+\\sqrt{{{b}}}}}}}{{\\sqrt{{{m}}}+{c}}}"]
    wrong = [f"\\frac{{\\sqrt{{{a}-\\sqrt{{{b}}}}}}}{{{c}+\\sqrt{{{m}}}}}", f"\\frac{{\\sqrt{{{a}+\\sqrt{{{b}}}}}}}{{{c}-\\sqrt{{{m}}}}}"]
    return gold, same, wrong


TEMPLATES = [("surd", s_surd, 0.22), ("polynomial", s_polynomial, 0.22), ("rationalised", s_rationalised, 0.16),
             ("complex", s_complex, 0.16), ("pi", s_pi, 0.14), ("nested", s_nested, 0.10)]
P_SAME, P_OTHER, P_WRONG = 0.25, 0.30, 0.40   # the rest: no answer


def rows(n: int, seed: int = 0, seen: set[str] | None = None) -> list[Row]:
    """`n` rows in groups of up to 8 distinct answers, each group with a gold not in `seen`
    (which is updated, so a second call gives disjoint golds)."""
    rng = random.Random(seed)
    seen = set() if seen is None else seen
    names, makers, weights = zip(*TEMPLATES)
    out: list[Row] = []
    while len(out) < n:
        k = rng.choices(range(len(makers)), weights=weights)[0]
        gold, same, wrong = makers[k](rng)
        if gold in seen:
            continue
        seen.add(gold)
        used: set[str] = set()
        for _ in range(8):
            roll = rng.random()
            if roll < P_SAME:
                answer, label, form = gold, True, "same"
            elif roll < P_SAME + P_OTHER:
                answer, label, form = rng.choice(same), True, "other_equal"
            elif roll < P_SAME + P_OTHER + P_WRONG:
                answer, label, form = rng.choice(wrong), False, "wrong"
            else:
                answer, label, form = None, False, "no_answer"
            if answer is not None and answer in used:
                continue
            used.add(answer)
            response, style = _math_response(rng, answer, None)
            out.append(Row(MATH, response, gold, label, "math", f"{names[k]}:{form}:{style}"))
            if len(out) == n:
                break
    return out


def corpus_and_warm_up(n: int, seed: int = 0, warm: int = 64) -> tuple[list[Row], list[Row]]:
    """The timed rows and warm-up rows whose golds (hence pairs) never occur among them."""
    seen: set[str] = set()
    timed = rows(n, seed, seen)
    return timed, rows(warm, seed + 1, seen)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=2048)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", default="-")
    args = p.parse_args(argv)
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    with out:
        for row in rows(args.n, args.seed):
            out.write(row.to_json() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
