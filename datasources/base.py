"""What every dataset family shares: the family record and the raw-row → verl-row conversion.

A family knows how to read one raw row (question, gold answer, metadata, images) and which
data_source and template suit it. Rows whose gold answer cannot be extracted are skipped with a
reason naming the source row, never silently kept with an empty gold and never fatal to the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from schemas.verl_row import json_string_literal, make_row

from .templates import Template, build_prompt


class SkipRow(ValueError):
    """This raw row cannot become a training row; the message says why."""


@dataclass(frozen=True)
class Extracted:
    question: str
    gold: str
    extra: dict[str, Any] = field(default_factory=dict)
    images: list[dict[str, Any]] | None = None
    prompt: list[dict[str, str]] | None = None
    """A prompt the row already has (sets published in verl's format); no template is applied."""
    data_source: str | None = None
    """The row's own data_source (verl-format sets), kept unless --data-source relabels the rows."""
    flag: str | None = None
    """Why this row's gold deserves a look (it is kept): listed in the manifest's `flagged_rows`."""


@dataclass(frozen=True)
class Family:
    name: str
    hub_ids: tuple[str, ...]
    """Hub ids this family reads; each is also the data_source its rows get by default."""
    columns: frozenset[str]
    """Raw columns that identify the family when a local file does not say which it is."""
    extract: Callable[[Mapping[str, Any]], Extracted]
    default_template: str
    answer_format: str
    """`gsm8k` or `boxed`: where the data_source's scorer looks for the answer."""
    default_config: str | None = None
    splits: tuple[str, ...] = ("train", "test")
    """Source splits written by default: the first to train.parquet, the rest (first found) to test."""
    description: str = ""
    image_columns: tuple[str, ...] = ()
    shapes: tuple[frozenset[str], ...] = ()
    """The complete column sets of the hub datasets (default: `columns`). A local file whose
    columns are exactly one family's shape is that family's data set; a looser match only says how
    to read its rows (see `datasources.identify`)."""
    keeps_data_source: bool = False
    """Rows carry their own data_source (sets published in verl's format)."""
    names: tuple[str, ...] = ()
    """File or folder names (lower case, `_` read as `-`) that are this data set's, e.g. `deepscaler`
    for DeepScaleR's `deepscaler.json`; the hub id's own name always counts."""

    @property
    def data_source(self) -> str:
        return self.hub_ids[0] if self.hub_ids else ""

    def hub_id_for(self, source: str) -> str | None:
        """The hub id a source names or mirrors (a local folder `.../openai/gsm8k` counts), or None."""
        clean = source.rstrip("/")
        return next((h for h in self.hub_ids if clean == h or clean.endswith("/" + h)), None)

    def data_source_for(self, source: str) -> str:
        """The hub id a source names or mirrors, else the family's default data_source."""
        return self.hub_id_for(source) or self.data_source

    def named_by(self, source: str) -> bool:
        """Whether a local path's file or folder names say it is this data set (`deepscaler.json`)."""
        known = {n.lower() for n in self.names} | {h.rsplit("/", 1)[-1].lower() for h in self.hub_ids}
        parts = source.replace("\\", "/").rstrip("/").split("/")[-3:]
        stems = {p.lower().replace("_", "-").split(".")[0] for p in parts}
        return bool(known & stems)

    def full_shapes(self) -> tuple[frozenset[str], ...]:
        return self.shapes or (self.columns,)


@dataclass
class Converted:
    rows: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    """`{"source_index", "reason"}` for every raw row that produced no training row."""
    flagged: list[dict[str, Any]] = field(default_factory=list)
    """`{"source_index", "index", "reason"}` for every row kept with a flag (`Extracted.flag`)."""


def convert(dataset: Iterable[Mapping[str, Any]], family: Family, *, data_source: str, template: Template,
            split: str, source_indices: list[int], system: str | None = None,
            ability: str = "math", progress: Callable[[int], None] | None = None,
            relabel: bool = True) -> Converted:
    """Turn raw rows into verl rows; `index` counts output rows, `source_index` points back.

    A row that carries its own data_source (verl-format sets) keeps it unless `relabel`."""
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    for raw, source_index in zip(_raw_rows(dataset), source_indices):
        if progress is not None:
            progress(1)
        try:
            item = family.extract(raw)
            _check_gold(item.gold, family.answer_format)
        except SkipRow as exc:
            skipped.append({"split": split, "source_index": source_index, "reason": str(exc)})
            continue
        prompt = item.prompt or build_prompt(template, item.question, answer_format=family.answer_format,
                                             system=system)
        if item.flag:
            flagged.append({"split": split, "source_index": source_index, "index": len(rows), "reason": item.flag})
        extra = {"split": split, "index": len(rows), "source_index": source_index, **item.extra}
        source = data_source if relabel or not item.data_source else item.data_source
        rows.append(make_row(data_source=source, prompt=prompt, ground_truth=item.gold,
                             extra_info=extra, ability=ability, images=item.images))
    return Converted(rows, skipped, flagged)


def _check_gold(gold: str, answer_format: str) -> None:
    """A gold no answer can match (`\\frac{1}{}`) is skipped here, by the rule `rewards validate`
    and `rewards train` refuse it by, so prepare never writes a file they refuse."""
    from rewards.math.wellformed import gold_defect

    defect = gold_defect(gold) if answer_format == "boxed" else None
    if defect:
        raise SkipRow(f"gold {gold[:80]!r} can never be matched: {defect}")


def _raw_rows(dataset: Iterable[Mapping[str, Any]]) -> Iterable[Mapping[str, Any]]:
    """Rows as plain dicts; a `datasets.Dataset` is read in arrow batches, which is several times
    faster than its row iterator and leaves image columns as their stored `{bytes, path}`. Columns
    `datasets` stored as JSON text (a JSON column of mixed types) are read back (`json_text_value`)."""
    if not hasattr(dataset, "with_format"):
        yield from dataset
        return
    features = {name: f for name, f in (dataset.features or {}).items() if _holds_json(f)}
    for batch in dataset.with_format("arrow").iter(batch_size=2048):
        for row in batch.to_pylist():
            for name, feature in features.items():
                row[name] = _decode_json(row.get(name), feature)
            yield row


def json_text_value(text: str | None) -> Any:
    """A value of a mixed-type JSON column as the file spelt it. `datasets` keeps such a column as
    JSON text: a string is stored quoted (`"\\\\frac34"`), while a number, and a string that is
    itself valid JSON (`"6"`, `"0.50"`), is stored as its text. So a quoted string is read back as
    the string, and anything else stays text: `10` and `"10"` both read `"10"`, `"0.50"` stays
    `"0.50"`, never the float 0.5."""
    if not isinstance(text, str):
        return text
    value = json_string_literal(text)
    return text if value is None else value


def _holds_json(feature: Any) -> bool:
    json_type = _json_feature_type()
    if json_type is None:
        return False
    if isinstance(feature, json_type):
        return True
    if isinstance(feature, dict):
        return any(_holds_json(f) for f in feature.values())
    inner = getattr(feature, "feature", None)
    return inner is not None and _holds_json(inner)


def _decode_json(value: Any, feature: Any) -> Any:
    if isinstance(feature, _json_feature_type()):
        return json_text_value(value)
    if isinstance(feature, dict) and isinstance(value, dict):
        return {k: _decode_json(v, feature[k]) if k in feature else v for k, v in value.items()}
    inner = getattr(feature, "feature", None)
    if inner is not None and isinstance(value, list):
        return [_decode_json(v, inner) for v in value]
    return value


def _json_feature_type() -> type | None:
    """`datasets.Json` (datasets 4.1+: the type of a mixed-type JSON column), or None before it."""
    from datasets import features

    return getattr(features, "Json", None)


def text_field(raw: Mapping[str, Any], name: str) -> str:
    """A required non-empty text column of a raw row."""
    value = raw.get(name)
    if value is None:
        raise SkipRow(f"field {name!r} is missing")
    if not isinstance(value, str):
        value = str(value)
    if not value.strip():
        raise SkipRow(f"field {name!r} is empty")
    return value
