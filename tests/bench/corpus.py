"""A deterministic benchmark corpus: a GRPO-shaped mix of GSM8K and MATH responses, labelled.

Real datasets cannot be downloaded here, so answers are generated from templates that cover the
answer shapes of GSM8K (integers, with `$`, thousands separators, trailing `.00`, text after the
answer) and MATH (integers, fractions, decimals, radicals, pi, polynomials, intervals, tuples,
root lists, complex numbers, equations, degrees, percent, choices, units). Each prompt has one gold
answer and `n` responses (a GRPO group), each either an equivalent spelling of the gold or a wrong
answer, a missing answer or a cut-off `<think>`. A correct MATH answer is spelt like the gold 70%
of the time and in one of the template's other equal spellings otherwise (`\\sqrt{80}` for
`4\\sqrt{5}`, a factored polynomial, `0.75` for `\\frac{3}{4}`): those spellings are what send
answers to sympy. Responses have realistic lengths (log-normal, MATH longer than GSM8K) of
reasoning text around the final answer.

`label` is the mathematical truth under docs/scoring-policy.md: True only when the final answer
is given in the data_source's format and equals the gold (GSM8K: strict `#### N`; MATH: the last
`\\boxed{}`). No label depends on a tolerance: approximations of irrational golds are wrong.

`pathological()` are the inputs that hang or exhaust naive checkers; all are labelled False.

    python tests/bench/corpus.py -n 8192 -o corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Callable, Iterator

GSM8K = "openai/gsm8k"
MATH = "lighteval/MATH"
GROUP = 8               # responses per prompt (actor_rollout_ref.rollout.n)
P_CORRECT = 0.55        # share of a group answering correctly (a policy mid-training)
P_CANONICAL = 0.7       # a correct MATH answer spelt exactly like the gold; else another equal spelling


@dataclass(frozen=True)
class Row:
    data_source: str
    response: str
    ground_truth: str
    label: bool
    kind: str    # gsm8k | math | pathological
    form: str    # which template / spelling produced it

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


# -- reasoning text of realistic length ---------------------------------------------------------

_OPENERS = [
    "Let's think step by step.", "We need to find the requested quantity.", "First, let us set up the problem.",
    "To solve this, we break it into parts.", "Let me work through this carefully.",
]
_STEPS = [
    "We have {a} + {b} = {s}.", "Multiplying, {a} \\times {b} = {p}.", "So the difference is {b} - {a} = {d}.",
    "Substituting $x = {a}$ gives ${a}^2 = {q}$.", "Dividing both sides by {a}, we get $x = \\frac{{{p}}}{{{a}}} = {b}$.",
    "Note that {s} is the total so far, and we still need to account for the remaining part.",
    "This means each group contributes {a} items, and there are {b} groups.",
    "Checking: {a} \\cdot {b} = {p}, which is consistent with the setup.",
    "Now consider the case where the variable is at least {a}; then the inequality still holds.",
    "By the Pythagorean theorem, $c^2 = {a}^2 + {b}^2 = {r}$.",
    "Let me double-check the arithmetic: {s} - {b} = {a}. Good.",
    "The key observation is that the expression factors nicely.",
    "We can rewrite the equation as $({a}x - {b})(x + 1) = 0$.",
]


def reasoning(rng: random.Random, length: int) -> str:
    """Plausible step-by-step prose of about `length` characters (numbers vary, never the answer line)."""
    parts = [rng.choice(_OPENERS)]
    size = len(parts[0])
    while size < length:
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        step = rng.choice(_STEPS).format(a=a, b=b, s=a + b, p=a * b, d=b - a, q=a * a, r=a * a + b * b)
        parts.append(step)
        size += len(step) + 1
        if rng.random() < 0.15:
            parts.append("\n\n")
    return " ".join(parts)


def _length(rng: random.Random, median: int, low: int, high: int) -> int:
    return int(min(high, max(low, rng.lognormvariate(math.log(median), 0.6))))


# -- MATH answer templates: (gold, [equal spellings], [different answers]) ----------------------

Template = Callable[[random.Random], tuple[str, list[str], list[str]]]


def _nonzero(rng: random.Random, lo: int, hi: int) -> int:
    return rng.choice([k for k in range(lo, hi + 1) if k != 0])


def t_integer(rng):
    n = rng.choice([rng.randint(0, 30), rng.randint(31, 999), rng.randint(1000, 99999), -rng.randint(1, 60)])
    same = [str(n), f"{n}.0"] + ([f"{n:,}", f"{n:,}".replace(",", "{,}")] if abs(n) >= 1000 else [])
    return str(n), same, [str(n + 1), str(n - 1), str(2 * n + 3), str(-n - 1)]


def t_fraction(rng):
    while True:
        a, b = rng.randint(1, 40), rng.randint(2, 48)
        if math.gcd(a, b) == 1:
            break
    k = rng.randint(2, 5)
    same = [f"\\frac{{{a}}}{{{b}}}", f"\\dfrac{{{a}}}{{{b}}}", f"{a}/{b}", f"\\frac{{{k * a}}}{{{k * b}}}"]
    value = Fraction(a, b)
    if 10 ** 6 % b == 0:  # terminating decimal: an exact spelling
        same.append(format(a / b, "f").rstrip("0"))
    wrong = [f"\\frac{{{a + 1}}}{{{b}}}", f"\\frac{{{a}}}{{{b + 1}}}"]
    if a != b and Fraction(b, a) != value:
        wrong.append(f"\\frac{{{b}}}{{{a}}}")
    if 10 ** 6 % b != 0:
        wrong.append(f"{float(value):.3f}")  # a rounded decimal is not the fraction
    return f"\\frac{{{a}}}{{{b}}}", same, wrong


def t_negative_fraction(rng):
    while True:
        a, b = rng.randint(1, 20), rng.randint(2, 20)
        if math.gcd(a, b) == 1:
            break
    gold = f"-\\frac{{{a}}}{{{b}}}"
    return gold, [gold, f"\\frac{{-{a}}}{{{b}}}", f"-{a}/{b}"], [f"\\frac{{{a}}}{{{b}}}", f"-\\frac{{{b}}}{{{a}}}" if a != 1 else f"-{a + b}"]


def t_decimal(rng):
    value = Fraction(rng.randint(1, 399), rng.choice([2, 4, 5, 8, 10, 20, 25]))
    if value.denominator == 1:
        value += Fraction(1, 2)
    text = format(float(value), "f").rstrip("0")
    frac = f"\\frac{{{value.numerator}}}{{{value.denominator}}}"
    return text, [text, frac, text + "0"], [format(float(value) + 0.1, "f").rstrip("0"), str(math.floor(value))]


_SQUAREFREE = [2, 3, 5, 6, 7, 10, 11, 13, 14, 15]


def t_radical(rng):
    k, m = rng.randint(2, 9), rng.choice(_SQUAREFREE)
    gold = f"{k}\\sqrt{{{m}}}"
    return gold, [gold, f"{k} \\sqrt{{{m}}}", f"\\sqrt{{{k * k * m}}}"], [f"{k + 1}\\sqrt{{{m}}}", f"{k}\\sqrt{{{m + 1 if m + 1 not in (4, 9, 16) else m + 2}}}", f"{k * k * m}"]


def t_rationalised(rng):
    m = rng.choice(_SQUAREFREE)
    gold = f"\\frac{{\\sqrt{{{m}}}}}{{{m}}}"
    return gold, [gold, f"\\frac{{1}}{{\\sqrt{{{m}}}}}", f"\\dfrac{{\\sqrt{{{m}}}}}{{{m}}}"], [f"\\sqrt{{{m}}}", f"\\frac{{\\sqrt{{{m}}}}}{{{2 * m}}}"]


def t_pi(rng):
    k = rng.randint(2, 24)
    d = rng.choice([1, 2, 3, 4, 6])
    if d == 1:
        gold = f"{k}\\pi"
        same = [gold, f"{k} \\pi", f"\\pi \\cdot {k}"]
    else:
        f = Fraction(k, d)
        if f.denominator == 1:
            gold = f"{f.numerator}\\pi"
            same = [gold, f"\\frac{{{k}\\pi}}{{{d}}}"]
        else:
            gold = f"\\frac{{{f.numerator}\\pi}}{{{f.denominator}}}"
            same = [gold, f"\\frac{{{f.numerator}}}{{{f.denominator}}}\\pi"]
    approx = f"{float(Fraction(k, d)) * math.pi:.2f}"
    return gold, same, [approx, f"{k + 1}\\pi", str(k)]


def t_polynomial(rng):
    p, q = _nonzero(rng, -9, 9), _nonzero(rng, -9, 9)
    b, c = p + q, p * q

    def term(coef, var):
        if coef == 0:
            return ""
        sign = "+" if coef > 0 else "-"
        mag = "" if abs(coef) == 1 and var else str(abs(coef))
        return f"{sign}{mag}{var}"
    gold = "x^2" + term(b, "x") + term(c, "")
    factored = f"(x{term(p, '')})(x{term(q, '')})"
    shifted = "x^2" + term(b, "x") + term(c + 1, "")
    return gold, [gold, gold.replace("+", " + "), factored], [shifted, "x^2" + term(-b if b else 1, "x") + term(c, "")]


def t_interval(rng):
    a = rng.randint(-20, 20)
    b = a + rng.randint(1, 15)
    shape = rng.choice(["left-inf", "closed-open", "open"])
    if shape == "left-inf":
        gold = f"(-\\infty, {a}]"
        return gold, [gold, f"(-\\infty,{a}]", f"\\left(-\\infty, {a}\\right]"], [f"(-\\infty, {a})", f"[{a}, \\infty)"]
    if shape == "closed-open":
        gold = f"[{a}, {b})"
        return gold, [gold, f"[{a},{b})", f"\\left[{a}, {b}\\right)"], [f"({a}, {b})", f"[{a}, {b}]"]
    gold = f"({a}, {b})"
    return gold, [gold, f"\\left({a},{b}\\right)"], [f"[{a}, {b}]", f"({a}, {b + 1})"]


def t_tuple(rng):
    a, b = rng.randint(-9, 12), rng.randint(-9, 12)
    if a == b:
        b += 1
    gold = f"({a}, {b})"
    return gold, [gold, f"({a},{b})", f"\\left( {a}, {b} \\right)"], [f"({b}, {a})", f"({a}, {b + 2})"]


def t_roots(rng):
    a, b = sorted(rng.sample(range(-12, 13), 2))
    gold = f"{a}, {b}"
    return gold, [gold, f"{a},{b}", f"{b}, {a}"], [f"{a}", f"{a}, {b + 1}"]


def t_complex(rng):
    a, b = rng.sample(range(1, 10), 2)
    gold = f"{a}+{b}i"
    return gold, [gold, f"{a} + {b}i", f"{b}i+{a}"], [f"{a}-{b}i", f"{b}+{a}i"]


def t_equation(rng):
    m, c = rng.randint(2, 9), rng.randint(1, 20)
    gold = f"y={m}x+{c}"
    return gold, [gold, f"y = {m}x + {c}"], [f"y={m}x-{c}", f"y={m + 1}x+{c}"]


def t_degrees(rng):
    k = rng.choice([15, 30, 36, 45, 60, 72, 75, 90, 105, 120, 135, 150])
    gold = f"{k}^\\circ"
    return gold, [gold, f"{k}^{{\\circ}}", str(k)], [f"{k + 15}^\\circ", str(180 - k) if k != 90 else "45"]


def t_percent(rng):
    k = rng.randint(1, 99)
    gold = f"{k}\\%"
    return gold, [gold, str(k), f"{k}\\%"], [f"{k + 5}\\%", str(k + 1)]


def t_choice(rng):
    letter = rng.choice("ABCDE")
    other = rng.choice([c for c in "ABCDE" if c != letter])
    gold = f"\\text{{({letter})}}"
    return gold, [gold, f"({letter})"], [f"\\text{{({other})}}", f"({other})"]


def t_units(rng):
    n = rng.randint(2, 500)
    unit = rng.choice(["cm", "inches", "square units", "meters", "dollars"])
    return str(n), [str(n), f"{n}\\text{{ {unit}}}"], [f"{n + 2}\\text{{ {unit}}}", str(n * 2)]


def t_power(rng):
    base, exp = rng.choice([(2, 10), (3, 5), (2, 8), (5, 3), (7, 2), (2, 12)])
    gold = str(base ** exp)
    return gold, [gold, f"{base}^{{{exp}}}"], [f"{base}^{{{exp + 1}}}", str(base ** exp + 1)]


MATH_TEMPLATES: list[tuple[str, Template, float]] = [
    ("integer", t_integer, 0.34), ("fraction", t_fraction, 0.14), ("negative_fraction", t_negative_fraction, 0.04),
    ("decimal", t_decimal, 0.04), ("radical", t_radical, 0.07), ("rationalised", t_rationalised, 0.03),
    ("pi", t_pi, 0.05), ("polynomial", t_polynomial, 0.04), ("interval", t_interval, 0.04),
    ("tuple", t_tuple, 0.04), ("roots", t_roots, 0.03), ("complex", t_complex, 0.02),
    ("equation", t_equation, 0.02), ("degrees", t_degrees, 0.03), ("percent", t_percent, 0.02),
    ("choice", t_choice, 0.02), ("units", t_units, 0.02), ("power", t_power, 0.01),
]


def _math_response(rng: random.Random, answer: str | None, wrong_first: str | None) -> tuple[str, str]:
    """A MATH-style response ending in `answer` (None: cut off before any answer)."""
    body = reasoning(rng, _length(rng, 1400, 200, 9000))
    style = rng.random()
    if answer is None:
        if rng.random() < 0.5:
            return "<think>\n" + body, "cut_off_think"
        return body + " Continuing, we", "no_answer"
    if wrong_first is not None and style < 0.08:  # self-correction: the last box wins
        tail = reasoning(rng, 200)
        return (f"{body} So the answer is $\\boxed{{{wrong_first}}}$. Wait, let me recheck. {tail} "
                f"Therefore the answer is $\\boxed{{{answer}}}$."), "self_corrected"
    if style < 0.20:
        return f"<think>\n{body}\n</think>\n\nThe final answer is $\\boxed{{{answer}}}$.", "think_then_box"
    if style < 0.30:
        return f"{body}\n\n$$\\boxed{{{answer}}}$$", "display_box"
    return f"{body} Therefore, the final answer is $\\boxed{{{answer}}}$.", "box"


def math_group(rng: random.Random, size: int = GROUP) -> list[Row]:
    names, templates, weights = zip(*MATH_TEMPLATES)
    k = rng.choices(range(len(templates)), weights=weights)[0]
    gold, same, different = templates[k](rng)
    rows = []
    for _ in range(size):
        roll = rng.random()
        if roll < 0.05:
            response, style = _math_response(rng, None, None)
            rows.append(Row(MATH, response, gold, False, "math", f"{names[k]}:{style}"))
            continue
        ok = roll < 0.05 + P_CORRECT
        if ok:  # the gold's own spelling most of the time, as trained models write it
            answer = same[0] if rng.random() < P_CANONICAL else rng.choice(same[1:])
        else:
            answer = rng.choice(different)
        response, style = _math_response(rng, answer, rng.choice(different) if ok else rng.choice(same))
        rows.append(Row(MATH, response, gold, ok, "math", f"{names[k]}:{style}"))
    return rows


# -- GSM8K ---------------------------------------------------------------------------------------

def gsm8k_group(rng: random.Random, size: int = GROUP) -> list[Row]:
    gold = rng.choice([rng.randint(1, 100), rng.randint(100, 2000), rng.randint(2000, 250000)])
    rows = []
    for _ in range(size):
        body = reasoning(rng, _length(rng, 650, 120, 4000))
        roll = rng.random()
        if roll < 0.04:  # a cut-off or format-less answer: strict mode pays nothing
            rows.append(Row(GSM8K, f"{body} So the answer is {gold}.", str(gold), False, "gsm8k", "no_hashes"))
            continue
        ok = roll < 0.04 + P_CORRECT
        value = gold if ok else gold + rng.choice([-10, -2, -1, 1, 2, 5, 100, gold])
        spelling = rng.random()
        if spelling < 0.55:
            text, form = str(value), "plain"
        elif spelling < 0.75:
            text, form = f"{value:,}", "thousands"
        elif spelling < 0.85:
            text, form = f"${value}", "dollar"
        elif spelling < 0.93:
            text, form = f"{value}.00", "trailing_zeros"
        else:
            text, form = f"{value}.", "trailing_period"
        response = f"{body}\n#### {text}"
        if rng.random() < 0.05:  # a chatty ending after the answer line, longer than 300 characters
            response += "\n\n" + reasoning(rng, 400)
            form += "+long_tail"
        rows.append(Row(GSM8K, response, str(gold), ok, "gsm8k", form))
    return rows


def corpus(n: int, seed: int = 0, math_share: float = 0.5) -> Iterator[Row]:
    """`n` rows in GRPO groups of 8, GSM8K and MATH prompts interleaved; same seed, same rows."""
    rng = random.Random(seed)
    made = 0
    while made < n:
        group = math_group(rng) if rng.random() < math_share else gsm8k_group(rng)
        for row in group[: n - made]:
            yield row
        made += len(group)


# -- pathological inputs -------------------------------------------------------------------------

def pathological() -> list[Row]:
    """Answers that hang or blow up naive checkers (sympy evaluates integer towers eagerly)."""
    deep = "\\frac{1}{" * 200 + "2" + "}" * 200
    cases = [
        ("power_tower", "\\boxed{10^{10^{10^{10}}}}", "1"),
        ("huge_factorial", "\\boxed{9999999!}", "1"),
        ("factorial_of_power", "\\boxed{(10^{100})!}", "1"),
        ("two_tower", "\\boxed{2^{2^{2^{2^{2^{2}}}}}}", "1"),
        ("symbol_tower", "\\boxed{x^{x^{x^{x^{x^{x^{x}}}}}}}", "x"),
        ("huge_sum", "\\boxed{\\sum_{k=1}^{10^{12}} k^{k}}", "1"),
        ("deep_fraction", f"\\boxed{{{deep}}}", "2"),
        ("long_answer", "\\boxed{" + "+".join(["1"] * 20000) + "}", "1"),
        ("unclosed_box", "\\boxed{" * 5000 + "1", "1"),
        ("huge_response", "Let me think. " * 40000 + "\\boxed{2}", "1"),
        ("big_exponent_vs_number", "\\boxed{2^{100000000}}", "4"),
        ("nested_radicals", "\\boxed{" + "\\sqrt{" * 35 + "2" + "}" * 35 + "}", "3"),
    ]
    return [Row(MATH, f"We compute the value. {answer}", gold, False, "pathological", name)
            for name, answer, gold in cases]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=8192, help="rows (default 8192: 1,024 prompts x 8)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pathological", action="store_true", help="append the pathological rows")
    p.add_argument("-o", "--output", default="-")
    args = p.parse_args(argv)
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    with out:
        for row in corpus(args.n, args.seed):
            out.write(row.to_json() + "\n")
        if args.pathological:
            for row in pathological():
                out.write(row.to_json() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
