"""The MATH family (Hendrycks et al.'s MATH dataset; family name `math`): `lighteval/MATH`,
`DigitalLearningGmbH/MATH-lighteval`, `HuggingFaceH4/MATH-500`.

The gold is the content of the solution's last `\\boxed{}` (read by the MATH scorer's own
extractor, so the data and the reward agree on what a box is). MATH-500 also ships an `answer`
column, used only when a solution has no box. Level and type (MATH-500's `subject`) are kept in
`extra_info`, as `"Level 3"` and `"Algebra"` for every source.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, SkipRow, text_field


def boxed_gold(raw: Mapping[str, Any]) -> str:
    """The last `\\boxed{}` of `solution`, else a non-empty `answer` column."""
    from rewards.math.extract import last_boxed

    solution = text_field(raw, "solution")
    gold = last_boxed(solution)
    if gold is None or not gold.strip():
        answer = raw.get("answer")
        if isinstance(answer, str) and answer.strip():
            return answer.strip()
        raise SkipRow("solution has no closed \\boxed{} answer")
    return gold.strip()


def _level(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return f"Level {value}"
    return str(value)


def extract(raw: Mapping[str, Any]) -> Extracted:
    question = text_field(raw, "problem")
    extra = {"question": question, "solution": raw.get("solution") or "",
             "level": _level(raw.get("level")), "type": str(raw.get("type") or raw.get("subject") or "")}
    if raw.get("unique_id"):
        extra["unique_id"] = str(raw["unique_id"])
    return Extracted(question, boxed_gold(raw), extra)


FAMILY = Family(
    name="math",
    hub_ids=("lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"),
    columns=frozenset({"problem", "solution", "level"}),
    shapes=(frozenset({"problem", "level", "type", "solution"}),
            frozenset({"problem", "solution", "answer", "subject", "level", "unique_id"})),
    extract=extract,
    default_template="boxed",
    answer_format="boxed",
    description="MATH (lighteval, DigitalLearningGmbH, MATH-500): gold is the solution's last \\boxed{}",
)
