"""Dataset families that turn raw rows into verl rows: one module per family.

`identify` picks the family of a source and the data_source its rows get, in this order:
1. a family name (`gsm8k`), a hub id (`openai/gsm8k`) or a local path that mirrors one
   (`.../openai/gsm8k`): that family, labelled with that hub id;
2. a local file or folder whose name is a data set's (`deepscaler.json`) and whose columns fit it;
3. a local file whose columns are exactly one data set's hub columns (OpenR1-Math-220k's fourteen);
4. columns that only fit a family loosely (`problem`, `solution`, `answer` are both X-R1-750's and
   DeepScaleR's): the rows are read that way, but labelled with the file's own name, never with
   another data set's.
Importing this package is light; `datasets` is imported only when something is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, NamedTuple

from . import answer_column, geometry3k, gsm8k, hendrycks_math, numinamath, verl_rows, x_r1_750
from .base import Converted, Extracted, Family, SkipRow, convert
from .table import make_family as table_family

FAMILIES: dict[str, Family] = {f.name: f for f in (
    gsm8k.FAMILY, hendrycks_math.FAMILY, x_r1_750.FAMILY, geometry3k.FAMILY, verl_rows.DAPO_MATH,
    answer_column.DEEPSCALER, answer_column.OPENR1_MATH, numinamath.FAMILY)}
IGNORED_COLUMNS = frozenset({"__index_level_0__"})  # pandas' index, saved by some uploads
SPLIT_WORDS = ("train", "test", "validation", "data")


class FamilyError(ValueError):
    """The family of a source cannot be determined."""


class Identified(NamedTuple):
    family: Family
    data_source: str
    """The default data_source of the rows (`--data-source` overrides it)."""
    by_name: bool
    """False when the label is the file's own name because its columns fit more than one data set."""


def family_for_source(source: str) -> Family | None:
    """The family a name, hub id or hub-mirroring path belongs to, or None."""
    if source in FAMILIES:
        return FAMILIES[source]
    return next((f for f in FAMILIES.values() if f.hub_id_for(source)), None)


def family_for_columns(columns: Iterable[str]) -> Family | None:
    """The family whose identifying columns a table has (the most specific match wins)."""
    have = set(columns)
    matches = [f for f in FAMILIES.values() if f.columns <= have]
    if not matches:
        return None
    return max(matches, key=lambda f: len(f.columns))


def find_family(source: str, columns: Iterable[str] | None = None) -> Family:
    family = family_for_source(source)
    if family is None and columns is not None:
        family = family_for_columns(columns)
    if family is None:
        raise FamilyError(
            f"cannot tell which dataset family {source!r} is; pass --family "
            f"({', '.join([*FAMILIES, 'table'])})")
    return family


def identify(source: str, columns: Iterable[str]) -> Identified:
    """The family of a source and its rows' default data_source (the order is in the module doc)."""
    have = set(columns) - IGNORED_COLUMNS
    family = family_for_source(source)
    if family is not None:
        return Identified(family, family.data_source_for(source), True)
    named = [f for f in FAMILIES.values() if f.named_by(source) and f.columns <= have]
    if len(named) == 1:
        return Identified(named[0], named[0].data_source, True)
    exact = [f for f in FAMILIES.values() if frozenset(have) in f.full_shapes()]
    if len(exact) == 1:
        return Identified(exact[0], exact[0].data_source, True)
    family = family_for_columns(have)
    if family is None:
        raise FamilyError(
            f"cannot tell which dataset family {source!r} is; pass --family "
            f"({', '.join([*FAMILIES, 'table'])})")
    return Identified(family, local_name(source), False)


def local_name(source: str) -> str:
    """A local source's own name: the file's stem, or its folder's name for split files such as
    `data/train-00000-of-00001.parquet`."""
    path = Path(source).expanduser().resolve()
    for part in [path.name, *(p.name for p in path.parents)]:
        stem = part.split(".")[0]
        if stem and not stem.lower().startswith(SPLIT_WORDS):
            return stem
    return path.stem or "local"


__all__ = ["FAMILIES", "Family", "Extracted", "Converted", "SkipRow", "FamilyError", "Identified", "convert",
           "family_for_source", "family_for_columns", "find_family", "identify", "local_name", "table_family"]
