"""docs/cli.md states the exit statuses and the input limits: they match the code."""

from __future__ import annotations

import re
from pathlib import Path

from cli import errors
from schemas import reader

DOC = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")


def table_after(heading: str) -> list[list[str]]:
    section = DOC.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def test_the_exit_table_is_the_code_s():
    documented = [int(row[0]) for row in table_after("Exit statuses")]
    assert documented == list(errors.EXIT_STATUSES)
    assert errors.CommandError.status == errors.EXIT_USAGE and errors.NoRows.status == errors.EXIT_FAILED


def test_the_limits_are_the_code_s():
    rows = {row[0]: row[1] for row in table_after("Input limits")}
    for name in ("MAX_LINE_BYTES", "MAX_ROW_BYTES"):
        stated = [value for value in rows.values() if f"`{name}`" in value]
        assert stated and all(re.match(rf"{getattr(reader, name) // 2**20} MB", v) for v in stated), name
    run = next(v for v in rows.values() if "`MAX_ERROR_RUN`" in v)
    assert run.startswith(f"{reader.MAX_ERROR_RUN:,}")
