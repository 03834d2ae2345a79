"""Dataset families that turn raw rows into verl rows: one module per family.

`find_family` picks the family for a source: by name (`gsm8k`), by hub id (`openai/gsm8k`), by a
local path that mirrors a hub id (`.../openai/gsm8k`), or by the columns a local file has.
Importing this package is light; `datasets` is imported only when something is loaded.
"""

from __future__ import annotations

from typing import Iterable

from . import geometry3k, gsm8k, hendrycks_math, x_r1_750
from .base import Converted, Extracted, Family, SkipRow, convert
from .table import make_family as table_family

FAMILIES: dict[str, Family] = {f.name: f for f in (gsm8k.FAMILY, hendrycks_math.FAMILY,
                                                   x_r1_750.FAMILY, geometry3k.FAMILY)}


class FamilyError(ValueError):
    """The family of a source cannot be determined."""


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


__all__ = ["FAMILIES", "Family", "Extracted", "Converted", "SkipRow", "FamilyError", "convert",
           "family_for_source", "family_for_columns", "find_family", "table_family"]
