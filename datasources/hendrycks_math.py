"""The MATH family (Hendrycks et al.'s MATH dataset; family name `math`): `lighteval/MATH`,
`DigitalLearningGmbH/MATH-lighteval`, `HuggingFaceH4/MATH-500`.

The gold is the content of the solution's last `\\boxed{}` (read by the MATH scorer's own
extractor, so the data and the reward agree on what a box is); a solution whose boxes hold
different answers is flagged in the manifest. MATH-500 also ships an `answer` column, used when a
solution has no box or boxes different answers. Level and type (MATH-500's `subject`) are kept in
`extra_info`, as `"Level 3"` and `"Algebra"` for every source.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, SkipRow, text_field


def boxed_gold(raw: Mapping[str, Any]) -> tuple[str, str | None]:
    """The answer `solution` boxes, else a non-empty `answer` column; with a flag when the
    solution's boxes hold different answers (see `the_box`) and no `answer` column settles it."""
    solution = text_field(raw, "solution")
    answer = raw.get("answer")
    answer = answer.strip() if isinstance(answer, str) else ""
    try:
        gold, flag = the_box(solution)
    except SkipRow:
        if answer:
            return answer, None
        raise
    return (answer, None) if flag and answer else (gold, flag)


def the_box(text: str) -> tuple[str, str | None]:
    """The answer of the last box of `text` (read by the MATH scorer's own box reader, so the data
    and the reward agree on what a box is), and a flag when earlier boxes hold other answers: a
    box may hold a step ("the roots are $\\boxed{2}$ and 3; the larger is $\\boxed{3}$"), or the
    answer may be two ("Either $\\boxed{1}$ or $\\boxed{2}$"), where the last box alone pays half
    the right responses nothing. SkipRow when the last box is missing, unclosed or empty."""
    from rewards.math.extract import last_box

    found, before = [], None
    while (box := last_box(text, before)) is not None:
        held = (box.content or "").strip()
        if not held and before is None:  # the last box is unclosed (a cut solution) or empty
            break
        if held:
            found.append(held)
        before = box.start
    answers = list(dict.fromkeys(reversed(found)))
    if not answers:
        raise SkipRow("no closed \\boxed{} answer")
    if len(answers) == 1:
        return answers[0], None
    shown = ", ".join(repr(a[:40]) for a in answers[:4])
    return found[0], f"{len(answers)} different boxed answers ({shown}); the gold is the last"


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
    gold, flag = boxed_gold(raw)
    return Extracted(question, gold, extra, flag=flag)


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
