"""`rewards report`: one HTML page about a rollout file's rewards (rewards/report.py draws it).

Input is either rows that already carry results (what `rewards score -o` writes, or a verl dump
made with our reward function: `score`, `verdict`, `acc`, `pred`), used as they are, or raw rows
(verl rollout dumps: `output`/`gts`, with `--data-source`), scored here exactly as `rewards score`
scores them. Which one is decided by the first row: it is "scored" when it has `score` and `verdict`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

from .errors import CommandError

UNLABELLED = "(no data_source)"


def register(sub) -> None:

    from .settings_flags import add_settings_flags

    p = sub.add_parser(
        "report", help="write an HTML report of a rollout file's rewards",
        description="Reward and verdict distributions per data_source, the share of GRPO groups with "
                    "zero reward variance, accuracy by response length and the most common wrong answers, "
                    "as one self-contained HTML page with embedded charts. Reads the rows `rewards score -o` "
                    "writes, or scores raw rows (verl rollout dumps need --data-source).")
    p.add_argument("file", help="input JSONL (scored rows, or raw rows to score)")
    p.add_argument("-o", "--output", help="HTML file to write (default: FILE with .report.html)")
    p.add_argument("--data-source", help="data_source for rows that have none (verl rollout dumps)")
    p.add_argument("--rescore", action="store_true",
                   help="score every row even when the file already carries results")
    p.add_argument("--title", help="page title (default: the input file's name)")
    p.add_argument("--json", action="store_true", help="also print the report's numbers as JSON")
    add_settings_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rewards.report import Report, render_html
    from rewards.settings import SettingsError

    source = Path(args.file)
    if not source.is_file():
        raise CommandError(f"cannot open {args.file}: no such file")
    output = Path(args.output) if args.output else source.with_suffix(".report.html")
    scored = not args.rescore and _first_row_scored(source)
    report = Report()
    try:
        for row in (_scored_rows(source, args.data_source) if scored else _score_rows(source, args)):
            report.add(row)
    except SettingsError as exc:
        raise CommandError(str(exc)) from None
    if not report.total:
        raise CommandError(f"{args.file}: no rows")
    how = "results read from the file" if scored else "scored with `rewards score`'s reader and scorers"
    notes = [f"{report.total} rows from {source.name}; {how}."]
    try:
        output.write_text(render_html(report, args.title or f"Reward report: {source.name}", notes),
                          encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {output}: {exc.strerror}") from None
    for name, stats in report.sources.items():
        g = stats.group_stats()
        groups = f", zero-variance groups {g.zero_variance}/{g.groups}" if g.groups else ""
        print(f"{name}: {stats.count} rows, mean score {stats.mean_score:.3f}, acc {stats.accuracy:.3f}{groups}")
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, default=str))
    print(f"wrote {output}", file=sys.stderr)
    return 0


def _first_row_scored(path: Path) -> bool:
    with open(path, encoding="utf-8") as lines:
        for text in lines:
            if text.strip():
                try:
                    row = json.loads(text)
                except json.JSONDecodeError:
                    return False
                return isinstance(row, dict) and "score" in row and "verdict" in row
    return False


def _scored_rows(path: Path, data_source: str | None) -> Iterator[Any]:
    """Rows that carry their results; a line that does not is reported as an `error` row."""
    from rewards.report import make_row

    with open(path, encoding="utf-8") as lines:
        for line_no, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                yield _error_row(data_source, f"line {line_no}: invalid JSON ({exc.msg} at column {exc.colno})")
                continue
            if not isinstance(row, dict) or "score" not in row or "verdict" not in row:
                yield _error_row(_label(row, data_source),
                                 f"line {line_no}: no `score`/`verdict` (rerun with --rescore to score all rows)")
                continue
            yield make_row(_label(row, data_source), row, _response(row, data_source), row)


def _score_rows(path: Path, args) -> Iterator[Any]:
    """Every line scored by `rewards score`'s own reader (cli/score.py: score_lines)."""
    from rewards.report import make_row

    from .score import score_lines
    from .settings_flags import settings_from

    with open(path, encoding="utf-8") as lines:
        for _, row, result in score_lines(lines, args.data_source, settings_from(args)):
            record = row if isinstance(row, dict) else None
            yield make_row(_label(row, args.data_source), result, _response(record, args.data_source), record)


def _response(row: Any, data_source: str | None) -> str | None:
    """The response text, found the way `rewards score` finds it (schemas/rollouts.py)."""
    from schemas.rollouts import RecordError, read_record

    if not isinstance(row, dict):
        return None
    try:
        _, response, _, _ = read_record(row, data_source or UNLABELLED)
    except RecordError:
        return None
    return response if isinstance(response, str) else None


def _label(row: Any, data_source: str | None) -> str:
    source = row.get("data_source") if isinstance(row, dict) else None
    return str(source or data_source or UNLABELLED)


def _error_row(data_source: str | None, message: str):
    from rewards.report import make_row

    return make_row(data_source or UNLABELLED, {"score": 0.0, "acc": 0.0, "verdict": "error", "error": message})
