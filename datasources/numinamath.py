"""NuminaMath-CoT (`AI-MO/NuminaMath-CoT`): 860k problems with chain-of-thought solutions.

Columns: source, problem, solution, messages. The gold is the solution's last `\\boxed{}` (rows
without one are skipped); the row's `source` (olympiads, cn_k12, amc_aime, ...) is kept in extra_info.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, text_field
from .hendrycks_math import boxed_gold


def extract(raw: Mapping[str, Any]) -> Extracted:
    question = text_field(raw, "problem")
    gold, flag = boxed_gold({"solution": raw.get("solution")})
    return Extracted(question, gold, {"question": question, "solution": str(raw.get("solution") or ""),
                                      "source": str(raw.get("source") or "")}, flag=flag)


FAMILY = Family(
    name="numinamath",
    hub_ids=("AI-MO/NuminaMath-CoT",),
    columns=frozenset({"source", "problem", "solution", "messages"}),
    names=("numinamath-cot",),
    extract=extract,
    default_template="boxed",
    answer_format="boxed",
    description="AI-MO/NuminaMath-CoT: gold is the solution's last \\boxed{}",
)
