"""The verl training row: what verl 0.9.1's `RLHFDataset` reads from a parquet file.

    data_source   string        chooses the reward function (must be registered)
    prompt        list<struct<role: string, content: string>>   the chat, template applied by verl
    ability       string        free label ("math")
    reward_model  struct<style: string, ground_truth: string>   style is "rule" for rule rewards
    extra_info    struct<split: string, index: int64, ...>      handed to the reward function
    images        list<struct<bytes: binary, path: string>>     only for multimodal rows; one per
                                                                `<image>` placeholder in the prompt

`content` must be a plain string: verl replaces `<image>` placeholders inside it and chat templates
fail on other shapes. `ground_truth` is stored as text for every family, so that train and
validation files of different families still share one type.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    import pyarrow as pa

REQUIRED_COLUMNS = ("data_source", "prompt", "reward_model")
RECOMMENDED_COLUMNS = ("ability", "extra_info")
IMAGE_COLUMN = "images"
IMAGE_PLACEHOLDER = "<image>"
ROLES = ("system", "user", "assistant", "tool")
JSON_SUFFIXES = (".json", ".jsonl")  # verl's RLHFDataset reads these as JSON lines; anything else as parquet


class RowFileError(ValueError):
    """A verl data file cannot be read as a table; the message names the file and the line."""


def __getattr__(name: str):
    """MESSAGE, REWARD_MODEL and IMAGE arrow types, built on first use: pyarrow costs ~0.25 s to
    import and the `rewards` command must start fast for the subcommands that never write parquet."""
    if name not in ("MESSAGE", "REWARD_MODEL", "IMAGE"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import pyarrow as pa

    types = {"MESSAGE": pa.struct([("role", pa.string()), ("content", pa.string())]),
             "REWARD_MODEL": pa.struct([("style", pa.string()), ("ground_truth", pa.string())]),
             "IMAGE": pa.struct([("bytes", pa.binary()), ("path", pa.string())])}
    return types[name]


def json_string_literal(text: str) -> str | None:
    """The string that `text` spells as a JSON string literal (`"\\\\frac34"` spells `\\frac34`),
    else None: how a JSON value written as text is told from the text itself (a mixed-type JSON
    column read by `datasets` keeps its strings so; `validate` refuses such a gold)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return None
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def row_schema(extra_info: pa.DataType | None = None, images: bool = False) -> pa.Schema:
    """The parquet schema of a verl row; `extra_info`'s struct type varies by family."""
    import pyarrow as pa

    MESSAGE, REWARD_MODEL, IMAGE = __getattr__("MESSAGE"), __getattr__("REWARD_MODEL"), __getattr__("IMAGE")
    fields = [
        pa.field("data_source", pa.string(), nullable=False),
        pa.field("prompt", pa.list_(MESSAGE), nullable=False),
        pa.field("ability", pa.string()),
        pa.field("reward_model", REWARD_MODEL, nullable=False),
        pa.field("extra_info", extra_info or pa.struct([("split", pa.string()), ("index", pa.int64())])),
    ]
    if images:
        fields.append(pa.field(IMAGE_COLUMN, pa.list_(IMAGE)))
    return pa.schema(fields)


def make_row(*, data_source: str, prompt: list[dict[str, str]], ground_truth: str,
             extra_info: Mapping[str, Any], ability: str = "math",
             images: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One verl row; `extra_info` must hold `split` and `index` (verl reads `index`)."""
    for key in ("split", "index"):
        if key not in extra_info:
            raise ValueError(f"extra_info needs {key!r}")
    row: dict[str, Any] = {
        "data_source": data_source,
        "prompt": prompt,
        "ability": ability,
        "reward_model": {"style": "rule", "ground_truth": ground_truth},
        "extra_info": dict(extra_info),
    }
    if images is not None:
        row[IMAGE_COLUMN] = [{"bytes": im.get("bytes"), "path": im.get("path")} for im in images]
    return row


def to_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Rows as an arrow table with the verl schema (extra_info's fields inferred from the rows)."""
    import pyarrow as pa

    rows = list(rows)
    extra = pa.array([r["extra_info"] for r in rows]).type if rows else None
    has_images = any(IMAGE_COLUMN in r for r in rows)
    schema = row_schema(extra, images=has_images)
    if has_images:
        rows = [r if IMAGE_COLUMN in r else {**r, IMAGE_COLUMN: []} for r in rows]
    return pa.Table.from_pylist(rows, schema=schema)


def write_parquet(rows: Iterable[Mapping[str, Any]], path: str | Path) -> int:
    """Write verl rows to a parquet file; returns the row count."""
    import pyarrow.parquet as pq

    table = to_table(rows)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, str(path))
    return table.num_rows


def read_table(path: str | Path) -> pa.Table:
    """The whole file as one arrow table (the checks of schemas/validate.py need columns and types).

    JSON lines go through the one reader first (schemas/reader.py), so a line that is not a JSON
    object (bytes that are not UTF-8, a truncated line) is named as every command names it, then
    are read by pyarrow, as verl reads them. Raises RowFileError or reader.UnreadableFile.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .reader import arrow_file, read_rows

    path = Path(path)
    if path.suffix.lower() not in JSON_SUFFIXES:
        with arrow_file(path) as handle:
            return pq.read_table(handle)
    import pyarrow.json as pj

    for item in read_rows(path):
        if item.problem is not None:
            raise RowFileError(item.problem)
    try:
        with arrow_file(path) as handle:
            return pj.read_json(handle)
    except pa.ArrowInvalid as exc:  # every line is an object: the rows disagree on a column's type
        raise RowFileError(f"{path}: {str(exc).splitlines()[0]}") from None
