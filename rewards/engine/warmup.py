"""Warm-up calls a new worker makes before it says `ready` (listed in the preload setting as
`module:function`).

sympy does a lot of one-time work on its first simplifications (lazy imports, caches): in a fresh
worker the first few symbolic checks take 3-10x their usual time. Doing a few representative
checks at start-up moves that cost out of the first training step's deadlines.
"""

from __future__ import annotations

# One of each answer shape that usually reaches sympy: radicals, rationalised fractions, pi
# multiples, factored polynomials, complex numbers, equations, trigonometric values and identities,
# binomials. The zygote runs these once and every worker forked from it inherits the warm caches
# (the first trigonometric check in a cold process takes ~1 s, later ones 20-170 ms).
_SAMPLES = (
    ("\\sqrt{50}", "5\\sqrt{2}"), ("\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt{2}}{2}"),
    ("\\frac{3}{4}\\pi", "\\frac{3\\pi}{4}"), ("(x+1)(x-4)", "x^2-3x-4"), ("1i+2", "2+1i"),
    ("y=2x+1", "2x+1=y"), ("2\\cos\\frac{\\pi}{3}", "1"), ("\\tan\\frac{\\pi}{4}", "1"),
    ("\\sin^2 x+\\cos^2 x", "1"), ("\\binom{7}{2}", "21"),
)


def symbolic() -> None:
    """Run the MATH scorer's symbolic check on a few typical pairs (errors are irrelevant here)."""
    from rewards.math.symbolic import symbolic_verdict

    for pred, gold in _SAMPLES:
        try:
            symbolic_verdict(pred, gold)
        except Exception:
            pass
