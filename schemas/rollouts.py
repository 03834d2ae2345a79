"""The JSONL record shapes that `rewards score` reads and writes.

Accepted inputs, so that files from every common source score without conversion:
- our own / generic rows: `data_source`, `response` or `solution_str`, `ground_truth`;
- verl training rows with a response added: `reward_model.ground_truth`;
- verl rollout and validation dumps (`trainer.rollout_data_dir`): `output` and `gts`, and no
  `data_source` column at all: the reward's `scored_data_source` when the run had the
  `data_source_key` setting (validation dumps), else the caller supplies one.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from typing import Any, Mapping

from rewards.result import DUMP_SOURCE_KEY, RESULT_KEYS

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


def data_source_of(row: Any, default: str | None = None) -> Any:
    """The row's own `data_source`; else, in a verl dump of a run with the `data_source_key`
    setting, the one `rewards.verl` wrote (DUMP_SOURCE_KEY); else `default` (`--data-source`)."""
    if not isinstance(row, Mapping):
        return default
    return row.get("data_source") or row.get(DUMP_SOURCE_KEY) or default


def read_record(row: Any, data_source: str | None = None) -> tuple[str, Any, Any, Mapping | None]:
    """(data_source, response, ground_truth, extra_info) from one input row.

    The row's own data_source wins (`data_source_of`); `data_source` fills it in for rows that lack
    one (verl dumps).
    """
    if not isinstance(row, Mapping):  # the commands' rows are checked by the reader (InputRow.problem)
        raise RecordError(f"a record is a mapping, got {type(row).__name__}")
    source = data_source_of(row, data_source)
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
    or leave stale, move to prev_*, unless the row already has that prev_* (a file scored before):
    the original reward is kept."""
    out = dict(row) if isinstance(row, Mapping) else {"input": row}
    for key in WRITTEN_KEYS:
        if key in out:
            out.setdefault(PREVIOUS_PREFIX + key, out.pop(key))
    out.update(result)
    return out


def json_line(row: Mapping[str, Any], ascii: bool = False) -> str:
    """`row` as one line of JSON (no newline). Values JSON has no type for (parquet's binary, date,
    time, timestamp, decimal, duration columns) take the forms docs/cli.md states: bytes as base64
    text, dates and times as ISO 8601 text, a decimal as its exact digits, a duration as seconds.
    A row too deep to write keeps its result keys; `ascii` escapes every non-ASCII character (for a
    row holding a lone surrogate, which UTF-8 cannot encode)."""
    try:
        return json.dumps(row, ensure_ascii=ascii, default=json_form)
    except (RecursionError, ValueError):  # a value json can read but not write back (deep nesting)
        return json.dumps({k: row[k] for k in RESULT_KEYS if k in row} | {"input": "(row too deep to write)"})


def json_form(value: Any) -> Any:
    """The stated JSON form of a value `json` cannot write (a `default=` hook for json.dumps)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar
        return value.item()
    if hasattr(value, "tolist") and callable(value.tolist):  # a numpy array
        return value.tolist()
    raise TypeError(f"{type(value).__name__} has no JSON form")
