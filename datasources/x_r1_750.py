"""X-R1-750 (`xiaodongguaAIGC/X-R1-750`): 750 competition problems with boxed solutions.

Rows get their own data_source, `xiaodongguaAIGC/X-R1-750`, which the MATH scorer is registered
under; published recipes relabel them `lighteval/MATH` only to reach verl's built-in scorer, which
`--data-source lighteval/MATH` still allows. Gold: the solution's last `\\boxed{}` (an `answer`
column, when present, is the fall-back).
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, text_field
from .hendrycks_math import boxed_gold


def extract(raw: Mapping[str, Any]) -> Extracted:
    question = text_field(raw, "problem")
    gold, flag = boxed_gold(raw)
    return Extracted(question, gold, {"question": question, "solution": raw.get("solution") or ""}, flag=flag)


FAMILY = Family(
    name="x_r1_750",
    hub_ids=("xiaodongguaAIGC/X-R1-750",),
    columns=frozenset({"problem", "solution"}),
    shapes=(frozenset({"problem", "solution", "answer"}),),
    extract=extract,
    default_template="boxed",
    answer_format="boxed",
    default_config="default",
    description="xiaodongguaAIGC/X-R1-750: gold is the solution's last \\boxed{}; its own data_source",
)
