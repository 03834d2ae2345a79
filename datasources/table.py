"""Any table (jsonl, csv, parquet, a `datasets` folder or hub id) with a field mapping.

You say which column holds the question and which the answer, how to read the gold out of the
answer column, and which data_source (scorer) the rows are for:

    rewards prepare problems.csv --family table --question-field q --answer-field a \\
        --answer-extractor boxed --data-source lighteval/MATH -o data/
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .base import Extracted, Family, SkipRow, text_field


def _raw(text: str) -> str:
    return text.strip()


def _boxed(text: str) -> tuple[str, str | None]:
    from .hendrycks_math import the_box

    return the_box(text)


def _gsm8k(text: str) -> str:
    from .gsm8k import gold_from_solution

    return gold_from_solution(text)


def _last_number(text: str) -> str:
    from rewards.number_text import format_number, last_number, number_value

    token = last_number(text)
    value = number_value(token) if token else None
    if value is None:
        raise SkipRow(f"no number in {text[:60]!r}")
    return format_number(value)


EXTRACTORS: dict[str, Callable[[str], str | tuple[str, str | None]]] = {
    "raw": _raw,            # the column is the answer itself
    "boxed": _boxed,        # the last \boxed{} of a worked solution
    "gsm8k": _gsm8k,        # the number after the last ####
    "last_number": _last_number,  # the last number anywhere in the text
}


def make_family(question_field: str, answer_field: str, *, extractor: str = "raw",
                keep: tuple[str, ...] = (), answer_format: str = "boxed",
                template: str = "boxed") -> Family:
    """A family for a table whose columns are named on the command line."""
    if extractor not in EXTRACTORS:
        raise ValueError(f"unknown answer extractor {extractor!r}; one of {', '.join(EXTRACTORS)}")
    read_gold = EXTRACTORS[extractor]

    def extract(raw: Mapping[str, Any]) -> Extracted:
        question = text_field(raw, question_field)
        answer = text_field(raw, answer_field)
        extra = {"question": question, "answer": answer}
        for name in keep:
            if name not in raw:
                raise SkipRow(f"field {name!r} (from --keep) is missing")
            extra[name] = raw[name]
        gold = read_gold(answer)
        gold, flag = gold if isinstance(gold, tuple) else (gold, None)
        return Extracted(question, gold, extra, flag=flag)

    return Family(
        name="table",
        hub_ids=(),
        columns=frozenset({question_field, answer_field}),
        extract=extract,
        default_template=template,
        answer_format=answer_format,
        description=f"a table: question from {question_field!r}, gold from {answer_field!r} ({extractor})",
    )
