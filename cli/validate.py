"""`rewards validate`: check verl data files before a launch; non-zero exit when any has errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .errors import CommandError
from .plugins import add_import_flag

EXIT_ERRORS = 1
UNCHECKED_WHY = ("its scorer reads a format of its own and registers no gold_response to write a gold in it; "
                 "see docs/custom-scorers.md")


def register(sub) -> None:
    p = sub.add_parser(
        "validate", help="check verl parquet files before training",
        description="Check each FILE (parquet, json or jsonl in verl's row format): schema, registered "
                    "data_sources, every gold answer scoring correct against itself, prompt token "
                    "lengths under a tokenizer's chat template, duplicate prompts, and prompts shared "
                    "between the files given (train/test overlap). A folder means its train.parquet and "
                    "test.parquet. Exit status 1 when any file has errors.")
    p.add_argument("files", nargs="+", metavar="FILE", help="verl data file(s) or a `rewards prepare` folder")
    p.add_argument("--tokenizer", help="local tokenizer folder (its chat template is used for lengths)")
    p.add_argument("--max-prompt-length", type=int, help="longest allowed prompt in tokens (verl's data.max_prompt_length)")
    p.add_argument("--overlong", choices=("error", "warn"), default="error",
                   help="how to treat prompts over --max-prompt-length (default: error)")
    p.add_argument("--against", nargs="*", default=[], metavar="OTHER",
                   help="more files whose prompts must not reappear (e.g. the validation set)")
    p.add_argument("--no-gold-check", action="store_true", help="skip scoring each gold against itself")
    p.add_argument("--json", action="store_true", help="print the reports as JSON, every finding listed")
    add_import_flag(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def expand(paths: list[str]) -> list[str]:
    """Files as given; a folder stands for its train.parquet and test.parquet."""
    out = []
    for path in paths:
        if not path.strip():  # Path("") is the current folder
            raise CommandError("an input file name is empty")
        p = Path(path)
        if p.is_dir():
            found = [str(p / name) for name in ("train.parquet", "test.parquet") if (p / name).exists()]
            if not found:
                raise CommandError(f"{path} is a folder without train.parquet or test.parquet")
            out.extend(found)
        elif not p.exists():
            raise CommandError(f"{path}: no such file")
        else:
            out.append(path)
    return out


def run(args) -> int:
    from rewards.tokenizer import TokenizerError, load_tokenizer
    from schemas.validate import MAX_LISTED, validate_file

    files, against = expand(args.files), expand(args.against)  # a missing --against file is a usage error too
    if args.max_prompt_length is not None and args.max_prompt_length < 1:
        raise CommandError(f"--max-prompt-length must be a positive number of tokens, not {args.max_prompt_length}")
    tokenizer = None
    if args.tokenizer:
        try:
            tokenizer = load_tokenizer(args.tokenizer, chat_template=True)
        except TokenizerError as exc:
            raise CommandError(str(exc)) from exc
    reports = []
    for path in files:
        others = [f for f in files if f != path] + against
        reports.append(validate_file(path, tokenizer=tokenizer, max_prompt_length=args.max_prompt_length,
                                     against=others, check_gold=not args.no_gold_check,
                                     overlong=args.overlong, listed=None if args.json else MAX_LISTED,
                                     progress=None if args.quiet or not sys.stderr.isatty() else _bar(path)))
    if args.json:
        print(json.dumps({"ok": all(r.ok for r in reports), "reports": [r.to_dict() for r in reports]},
                         indent=2, ensure_ascii=False))
    else:
        for report in reports:
            print_report(report, sys.stdout)
    return 0 if all(r.ok for r in reports) else EXIT_ERRORS


def _bar(path: str):
    """A `progress(total, desc)` drawing a tqdm bar on stderr that shows after a second."""
    def progress(total: int, desc: str):
        from tqdm import tqdm

        bar = tqdm(total=total, desc=f"{Path(path).name}: {desc}", unit=" rows", delay=1.0,
                   file=sys.stderr, leave=False)

        def update(n: int) -> None:
            bar.update(n)
            if bar.n >= total:
                bar.close()

        return update

    return progress


def print_report(report, out) -> None:
    stats = report.stats
    sources = ", ".join(f"{name} ({n})" for name, n in stats.get("data_sources", {}).items()) or "none"
    print(f"{report.file}: {stats.get('rows', 0)} rows; data_sources: {sources}", file=out)
    if stats.get("gold"):  # empty when no row had a gold to check
        print("  gold self-check: " + ", ".join(f"{n} {v}" for v, n in sorted(stats["gold"].items())), file=out)
    for source, n in stats.get("gold_unchecked", {}).items():
        print(f"  ({n} {source} gold(s) not self-checked: {UNCHECKED_WHY})", file=out)
    tokens = stats.get("prompt_tokens")
    if tokens:
        line = f"  prompt tokens: p50 {tokens['p50']}, p95 {tokens['p95']}, max {tokens['max']}"
        if "max_prompt_length" in tokens:
            line += f"; {tokens['overlong']} over {tokens['max_prompt_length']}"
        print(line, file=out)
        if "note" in tokens:
            print(f"  ({tokens['note']})", file=out)
    if stats.get("duplicates"):
        print(f"  duplicate prompts: {stats['duplicates']}", file=out)
    for other, n in stats.get("overlap", {}).items():
        if n:
            print(f"  prompts also in {other}: {n}", file=out)
    unlisted = stats.get("unlisted", [])
    for title, severity, items in (("errors", "error", report.errors), ("warnings", "warning", report.warnings),
                                   ("contamination", "contamination", report.contamination)):
        if items:
            print(f"  {title} ({stats.get(f'{severity}_count', len(items))}):", file=out)
            for item in items:
                print(f"    {_location(item)}{item.message}", file=out)
            for kind in unlisted:
                if kind["severity"] == severity:
                    print(f"    ... and {kind['count']} more {kind['check']} {title} (`--json` lists every one)",
                          file=out)
    print("  OK" if report.ok else "  FAILED", file=out)


def _location(item) -> str:
    parts = ([f"row {item.row}"] if item.row is not None else []) + ([item.field] if item.field else [])
    return ": ".join(parts) + ": " if parts else ""
