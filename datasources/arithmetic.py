"""Synthetic GSM8K-shaped word problems: short arithmetic stories with a worked solution.

Each row has GSM8K's hub columns, `question` and `answer`, the answer one line per operation
(`12+5=17`) and a last line `#### 17`, so `rewards prepare` reads a file of them as GSM8K
(data_source `openai/gsm8k`, its template, its scorer) with no flag. Problems are short on purpose:
a byte-level tokenizer spends one token per character, and a rehearsal run generates ~64-96 tokens.
The same seed and difficulty always give the same rows; every question in one call is distinct, so
a test split carved from them (`prepare --test-size`) shares no question with the training split.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rewards.scorers.gsm8k import MARKER

NAMES = (("Ava", "she"), ("Ben", "he"), ("Cleo", "she"), ("Dan", "he"), ("Eli", "he"), ("Fay", "she"),
         ("Gus", "he"), ("Ida", "she"), ("Jon", "he"), ("Kim", "she"), ("Leo", "he"), ("Mia", "she"),
         ("Ned", "he"), ("Oli", "he"), ("Pam", "she"), ("Ray", "he"), ("Sue", "she"), ("Tom", "he"))
THINGS = ("apples", "books", "cards", "coins", "eggs", "marbles", "pens", "shells", "stamps", "stickers")
FACTORS = (2, 3, 4, 5)
MAX_REPEATS = 2000


class DifficultyError(ValueError):
    """A difficulty that cannot produce problems (the message names the setting)."""


@dataclass(frozen=True)
class Difficulty:
    max_number: int = 20
    """Starting amounts and added or taken amounts are drawn from 1..max_number."""
    min_operations: int = 1
    max_operations: int = 2
    """Each problem has between min_operations and max_operations steps (at most 3)."""

    def check(self) -> None:
        if self.max_number < 2:
            raise DifficultyError(f"--max-number must be at least 2, got {self.max_number}")
        if not 1 <= self.min_operations <= self.max_operations <= 3:
            raise DifficultyError(f"operations must run from 1 to at most 3 (min <= max), got "
                                  f"{self.min_operations}-{self.max_operations}")

    @property
    def ceiling(self) -> int:
        """No amount in a story goes above this, so that products stay a few digits long."""
        return 5 * self.max_number


def make_problem(rng: random.Random, difficulty: Difficulty) -> dict[str, str]:
    """One problem: `{"question", "answer"}` in GSM8K's shape."""
    name, pronoun = rng.choice(NAMES)
    things = rng.choice(THINGS)
    value = rng.randint(1, difficulty.max_number)
    sentences = [f"{name} has {value} {things}."]
    lines = []
    for _ in range(rng.randint(difficulty.min_operations, difficulty.max_operations)):
        op, operand = _step(rng, value, difficulty)
        result = _apply(op, value, operand)
        sentences.append(_sentence(rng, op, operand, pronoun.capitalize(), things))
        lines.append(f"{value}{op}{operand}={result}")
        value = result
    sentences.append(f"How many {things} does {pronoun} have now?")
    return {"question": " ".join(sentences), "answer": "\n".join([*lines, f"{MARKER} {value}"])}


def make_problems(count: int, *, seed: int = 0, difficulty: Difficulty = Difficulty()) -> list[dict[str, str]]:
    """`count` problems with distinct questions, reproducibly from `seed`."""
    difficulty.check()
    if count < 1:
        raise DifficultyError(f"the number of rows must be at least 1, got {count}")
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    seen: set[str] = set()
    misses = 0  # repeats in a row: many means the difficulty has no more distinct problems
    while len(rows) < count:
        row = make_problem(rng, difficulty)
        if row["question"] in seen:
            misses += 1
            if misses > MAX_REPEATS:
                raise DifficultyError(f"only {len(rows)} distinct problems found at this difficulty; raise "
                                      f"--max-number or --operations, or ask for fewer rows")
            continue
        misses = 0
        seen.add(row["question"])
        rows.append(row)
    return rows


def _step(rng: random.Random, value: int, difficulty: Difficulty) -> tuple[str, int]:
    """An operation and its operand that keep the amount a whole number in 1..ceiling."""
    choices = []
    if value < difficulty.ceiling:
        choices.append(("+", rng.randint(1, min(difficulty.max_number, difficulty.ceiling - value))))
    if value > 1:
        choices.append(("-", rng.randint(1, min(difficulty.max_number, value - 1))))
    factors = [k for k in FACTORS if value * k <= difficulty.ceiling]
    if factors:
        choices.append(("*", rng.choice(factors)))
    divisors = [k for k in FACTORS if value % k == 0 and value > k]  # 3/3=1 would make "1" a good guess
    if divisors:
        choices.append(("/", rng.choice(divisors)))
    return rng.choice(choices)


def _apply(op: str, value: int, operand: int) -> int:
    return {"+": value + operand, "-": value - operand, "*": value * operand, "/": value // operand}[op]


def _sentence(rng: random.Random, op: str, operand: int, pronoun: str, things: str) -> str:
    if op == "+":
        return rng.choice((f"{pronoun} buys {operand} more.", f"{pronoun} finds {operand} more.",
                           f"{pronoun} gets {operand} more {things}."))
    if op == "-":
        return rng.choice((f"{pronoun} gives away {operand}.", f"{pronoun} loses {operand}.",
                           f"{pronoun} sells {operand} {things}."))
    if op == "*":
        return f"Then {pronoun.lower()} ends up with {operand} times as many."
    return f"{pronoun} splits them into {operand} equal piles and keeps one pile."
