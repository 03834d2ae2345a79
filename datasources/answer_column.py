"""Sets whose rows carry the final answer in their own column next to a worked solution:
DeepScaleR (`agentica-org/DeepScaleR-Preview-Dataset`) and OpenR1-Math-220k (`open-r1/OpenR1-Math-220k`).

The gold is the `answer` column (the solution's last `\\boxed{}` when it is empty); rows whose answer
is not checkable (OpenR1's `proof` questions and `notfound` answers) are skipped with that reason.
DeepScaleR's columns (problem, answer, solution) are also X-R1-750's, so a local file is recognised
as DeepScaleR by its hub file name (`deepscaler.json`) or its hub path, never by its columns alone.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, SkipRow, text_field

UNCHECKABLE = {"proof", "notfound", "none", "n/a"}
OPENR1_COLUMNS = ("problem", "solution", "answer", "problem_type", "question_type", "source", "uuid",
                  "is_reasoning_complete", "generations", "correctness_math_verify", "correctness_llama",
                  "finish_reasons", "correctness_count", "messages")


def answer_gold(raw: Mapping[str, Any]) -> tuple[str, str | None]:
    """The `answer` column, else the solution's box (with `boxed_gold`'s flag); SkipRow when neither
    is a checkable answer."""
    from .hendrycks_math import boxed_gold

    answer = raw.get("answer")
    text = str(answer).strip() if answer is not None else ""
    if text.lower() in UNCHECKABLE or raw.get("question_type") == "proof":
        raise SkipRow(f"no checkable answer (answer {text[:40]!r}, question_type {raw.get('question_type')!r})")
    if text:
        return text, None
    return boxed_gold(raw)


def extract(raw: Mapping[str, Any]) -> Extracted:
    question = text_field(raw, "problem")
    extra = {"question": question, "solution": str(raw.get("solution") or "")}
    for key in ("problem_type", "question_type", "source", "uuid"):
        if raw.get(key) is not None:
            extra[key] = str(raw[key])
    gold, flag = answer_gold(raw)
    return Extracted(question, gold, extra, flag=flag)


DEEPSCALER = Family(
    name="deepscaler",
    hub_ids=("agentica-org/DeepScaleR-Preview-Dataset",),
    columns=frozenset({"problem", "solution"}),
    shapes=(frozenset({"problem", "answer", "solution"}),),  # X-R1-750's too: named by file, not columns
    names=("deepscaler",),
    extract=extract,
    default_template="boxed",
    answer_format="boxed",
    splits=("train",),
    description="agentica-org/DeepScaleR-Preview-Dataset (deepscaler.json): gold is the answer column",
)

OPENR1_MATH = Family(
    name="openr1_math",
    hub_ids=("open-r1/OpenR1-Math-220k",),
    columns=frozenset({"problem", "solution", "answer", "problem_type", "question_type"}),
    shapes=(frozenset(OPENR1_COLUMNS),),
    names=("openr1-math-220k",),
    extract=extract,
    default_template="boxed",
    answer_format="boxed",
    default_config="default",
    splits=("train",),
    description="open-r1/OpenR1-Math-220k: gold is the answer column; proof questions skipped",
)
