"""GSM8K (`openai/gsm8k`, config `main`): grade-school word problems, gold after `#### `.

The answer column is a worked solution ending in `#### 72`; the gold is that number, normalised
exactly as the GSM8K scorer reads numbers (`1,080` → `1080`), so a gold the scorer cannot read never
reaches a training file. The full solution stays in `extra_info.answer`.
"""

from __future__ import annotations

from typing import Any, Mapping

from rewards.number_text import format_number, parse_number
from rewards.scorers.gsm8k import MARKER, gold_text

from .base import Extracted, Family, SkipRow, text_field


def gold_from_solution(solution: str) -> str:
    """The canonical number after the last `####` of a GSM8K solution."""
    if MARKER not in solution:
        raise SkipRow("answer has no `####` line")
    tail = gold_text(solution)
    value = parse_number(tail)
    if value is None:
        raise SkipRow(f"the text after `####` is not a number: {tail[:60]!r}")
    return format_number(value)


def extract(raw: Mapping[str, Any]) -> Extracted:
    question = text_field(raw, "question")
    answer = text_field(raw, "answer")
    return Extracted(question, gold_from_solution(answer), {"question": question, "answer": answer})


FAMILY = Family(
    name="gsm8k",
    hub_ids=("openai/gsm8k",),
    columns=frozenset({"question", "answer"}),
    extract=extract,
    default_template="gsm8k",
    answer_format="gsm8k",
    default_config="main",
    description="openai/gsm8k (config main): gold is the number after ####",
)
