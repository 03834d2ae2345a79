"""The reward-loop mix of issue 13: 72 fast-path samples, 48 correct answers that need a worker
(spelt differently from their golds), 8 power towers and huge factorials. Shared by the tests and
tests/bench/reward_loop.py, so the benchmark measures what the tests assert."""

from __future__ import annotations

MATH = "lighteval/MATH"
GSM8K = "openai/gsm8k"


def fast(n: int = 72) -> list[tuple[str, str, str]]:
    rows = []
    for k in range(n):
        if k % 3 == 0:
            rows.append((GSM8K, f"She has {k} apples and buys {k + 1} more. #### {2 * k + 1}", f"#### {2 * k + 1}"))
        elif k % 3 == 1:
            rows.append((MATH, f"So the answer is $\\boxed{{\\frac{{{k}}}{{{k + 1}}}}}$.", f"\\frac{{{k}}}{{{k + 1}}}"))
        else:
            rows.append((MATH, f"Thus \\boxed{{{k + 3}}}.", f"{k + 2}"))  # wrong, settled exactly
    return rows


def symbolic(n: int = 48) -> list[tuple[str, str, str]]:
    """Correct answers whose spelling only the worker's symbolic check relates to the gold's
    (binomials and finite sums; trigonometric values at known angles are settled in process now):
    each pair distinct, so no verdict cache helps."""
    rows = []
    for k in range(2, 2 + n):
        kind = k % 4
        if kind == 0:
            rows.append((MATH, f"We get $\\boxed{{\\binom{{{k + 3}}}{{2}}}}$.", str((k + 3) * (k + 2) // 2)))
        elif kind == 1:
            rows.append((MATH, f"Hence \\boxed{{\\binom{{{k + 3}}}{{3}}}}.", str((k + 3) * (k + 2) * (k + 1) // 6)))
        elif kind == 2:
            rows.append((MATH, f"\\boxed{{\\sum_{{i=1}}^{{{k}}} i}}", str(k * (k + 1) // 2)))
        else:
            rows.append((MATH, f"\\boxed{{\\sum_{{i=1}}^{{{k}}} 2i}}", str(k * (k + 1))))
    return rows


def pathological(n: int = 8) -> list[tuple[str, str, str]]:
    answers = ["10^{10^{10^{10}}}", "9999999!", "(10^{100})!", "2^{2^{2^{2^{2^{2}}}}}",
               "3^{3^{3^{3}}}", "10^{10^{9}}+1", "(10^{10})!-1", "7^{7^{7^{7}}}"]
    return [(MATH, f"The value is \\boxed{{{answers[k % len(answers)]}}}.", f"{k + 2}\\sqrt{{5}}")
            for k in range(n)]


def mix() -> list[tuple[str, str, str]]:
    """The 128 samples, interleaved so every kind arrives throughout."""
    groups = [fast(), symbolic(), pathological()]
    rows = []
    while any(groups):
        for g in groups:
            take = max(1, len(g) // 8) if g else 0
            rows.extend(g[:take])
            del g[:take]
    return rows


SLOW_ADMITTED = (MATH, "\\boxed{\\sum_{k=1}^{9000} k^{k}}", "7")
"""An answer the cost rule admits that still holds a worker until its deadline."""


def held(rounds: int = 3) -> list[tuple[str, str, str, bool]]:
    """Issue 23's section-5 mix, per round: 12 sound answers that need the symbolic check (an
    integral plus a trigonometric identity, about 0.1 s in a warm worker) and 4 hopeless ones: two
    in the issue's shape (a 9,000-term power sum times a 40-factor product), refused from the text,
    and two 9,000-term sums of k^k, which the cost rule admits and which hold a worker to the
    deadline; (source, response, gold, sound)."""
    rows = []
    for r in range(rounds):
        for k in range(12):
            n = 12 * r + k + 1
            rows.append((MATH, f"\\boxed{{\\int_0^{{{n}}} x^2 dx + \\sin^2(y)+\\cos^2(y)}}",
                         f"\\frac{{{n ** 3 + 3}}}{{3}}", True))
            if k % 6 == 2:  # the shape: refused from its text since issue 23
                rows.append((MATH, f"\\boxed{{\\sum_{{k=1}}^{{{9000 + n}}} k^{{7}} \\cdot "
                                   f"\\prod_{{j=1}}^{{40}} (x+j)}}", "5", False))
            elif k % 6 == 5:  # admitted by the cost rule: holds a worker to its deadline
                rows.append((MATH, f"\\boxed{{\\sum_{{k=1}}^{{{9000 + n}}} k^{{k}}}}", "7", False))
    return rows
