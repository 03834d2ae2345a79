"""The JSONL record shapes that `rewards score` reads and writes.

Accepted inputs, so that files from every common source score without conversion:
- our own / generic rows: `data_source`, `response` or `solution_str`, `ground_truth`;
- verl training rows with a response added: `reward_model.ground_truth`;
- verl rollout and validation dumps (`trainer.rollout_data_dir`): `output` and `gts`, and no
  `data_source` column at all, so the caller supplies one.
"""

from __future__ import annotations

from typing import Any, Mapping

from rewards.result import RESULT_KEYS

RESPONSE_KEYS = ("response", "solution_str", "output")
GOLD_KEYS = ("ground_truth", "reward_model.ground_truth", "gts")
PREVIOUS_PREFIX = "prev_"  # an input's own `score`/`acc`/... are kept under prev_score, ...
WRITTEN_KEYS = (*RESULT_KEYS, "reason", "error")
"""What `rewards score -o` adds to a row: the result keys, the verdict's reason, and the message of
a row that could not be scored."""


class RecordError(ValueError):
    """A record lacks a field we need; the message names the field and what was looked for."""


def _lookup(row: Mapping[str, Any], dotted: str) -> Any:
    value: Any = row
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _first(row: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = _lookup(row, key)
        if value is not None:
            return value
    return None


def gold_of(row: Mapping[str, Any]) -> Any:
    """The row's gold answer under the first of GOLD_KEYS it has (None when it has none)."""
    return _first(row, GOLD_KEYS)


def read_record(row: Any, data_source: str | None = None) -> tuple[str, Any, Any, Mapping | None]:
    """(data_source, response, ground_truth, extra_info) from one input row.

    The row's own `data_source` wins; `data_source` fills it in for rows that lack one (verl dumps).
    """
    if not isinstance(row, Mapping):  # the commands' rows are checked by the reader (InputRow.problem)
        raise RecordError(f"a record is a mapping, got {type(row).__name__}")
    source = row.get("data_source") or data_source
    if not source:
        raise RecordError("field `data_source` is missing (verl dumps have none: pass --data-source)")
    response = _first(row, RESPONSE_KEYS)
    if response is None:
        raise RecordError(f"no response field: expected one of {', '.join(RESPONSE_KEYS)}")
    gold = gold_of(row)
    if gold is None:
        raise RecordError(f"no gold answer field: expected one of {', '.join(GOLD_KEYS)}")
    extra = row.get("extra_info")
    return source, response, gold, extra if isinstance(extra, Mapping) else None


def write_record(row: Any, result: Mapping[str, Any]) -> dict[str, Any]:
    """The input row with the result keys added; input values those keys (WRITTEN_KEYS) would hide,
    or leave stale, move to prev_*."""
    out = dict(row) if isinstance(row, Mapping) else {"input": row}
    for key in WRITTEN_KEYS:
        if key in out:
            out[PREVIOUS_PREFIX + key] = out.pop(key)
    out.update(result)
    return out
