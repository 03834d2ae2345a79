"""Built-in gold answers for `rewards probe` when no data file is given.

Two small sets written for the probe, shaped like the datasets they stand for: GSM8K (a word
problem with verl's `####` instruction, a plain-number gold) and MATH (a problem with the boxed
instruction, a LaTeX gold of every common shape: fraction, radical, interval, polynomial, choice
letter, integer, ordered pair, multiple of pi, complex number, decimal). No gold is 10, so the
`10^{10^{...}}` bombs never contain a gold by accident.
"""

from __future__ import annotations

from .attacks import Target

GSM8K_INSTRUCTION = 'Let\'s think step by step and output the final answer after "####".'
MATH_INSTRUCTION = "Let's think step by step and output the final answer within \\boxed{}."

GSM8K = (
    ("A baker makes 24 muffins in the morning and 18 in the afternoon. She sells 30 of them. "
     "How many muffins are left?", "12"),
    ("Tom reads 15 pages a day for 6 days. How many pages does he read?", "90"),
    ("A bike costs $1,200 and is sold at 10% off. What is the sale price in dollars?", "1080"),
    ("Sara has 7 apples and gives all of them to friends. How many apples does she have left?", "0"),
    ("A rope 9 meters long is cut into 4 equal pieces. How long is each piece, in meters?", "2.25"),
    ("Each of 3 boxes holds 48 pencils. How many pencils are there in all?", "144"),
    ("A train travels at 60 miles per hour for 2.5 hours. How many miles does it travel?", "150"),
    ("Lena earns $14 an hour and works 35 hours. How many dollars does she earn?", "490"),
    ("A hall has 5 rows of 9 chairs and 17 chairs are taken. How many chairs are free?", "28"),
    ("A farmer has 250 sheep and sells 30% of them. How many sheep does he keep?", "175"),
    ("A pack of 12 eggs costs $3. How many dollars do 60 eggs cost?", "15"),
    ("Mia saves $25 a week. After how many weeks has she saved $1,000?", "40"),
)

MATH = (
    ("Simplify $\\frac{6}{12}$.", "\\frac{1}{2}"),
    ("Write $\\sqrt{18}$ in simplest radical form.", "3\\sqrt{2}"),
    ("Solve $2x - 1 \\le 3$. Give the answer in interval notation.", "(-\\infty, 2]"),
    ("Expand and simplify $(x+1)^2 - 2x$.", "x^2 + 1"),
    ("Which number is prime? (A) 21 (B) 27 (C) 29 (D) 33", "\\text{(C)}"),
    ("How many positive divisors does 60 have?", "12"),
    ("Where do the lines $y = 2x - 10$ and $y = -x - 1$ meet? Give the point $(x, y)$.", "(3, -4)"),
    ("Compute $\\frac{\\pi}{2} - \\frac{\\pi}{6}$.", "\\frac{\\pi}{3}"),
    ("Compute $(1 + 2i)(1 + i)$.", "-1 + 3i"),
    ("Compute $0.5 \\times 0.5$.", "0.25"),
)

SAMPLES = {"gsm8k": GSM8K, "math": MATH}


def sample_kind(data_source: str) -> str:
    """Which built-in set fits a data_source: GSM8K for GSM8K names, MATH (LaTeX golds) otherwise."""
    return "gsm8k" if "gsm8k" in data_source.lower() else "math"


def sample_targets(data_source: str, kind: str | None = None, limit: int | None = None) -> list[Target]:
    """The built-in golds as probe targets for a data_source, each with its verl-style prompt."""
    kind = kind or sample_kind(data_source)
    instruction = GSM8K_INSTRUCTION if kind == "gsm8k" else MATH_INSTRUCTION
    rows = SAMPLES[kind][:limit] if limit else SAMPLES[kind]
    return [Target(data_source, gold, prompt=f"{question} {instruction}",
                   extra_info={"split": "test", "index": i}, where=f"built-in {kind} sample {i}")
            for i, (question, gold) in enumerate(rows)]
