"""`rewards score`: judge a JSONL file of responses (our rows, verl rows or verl rollout dumps).

Every input line yields exactly one output line, in order: a line that cannot be read or scored
becomes a row with verdict `error` and a message naming the line, so nothing is lost.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import ExitStack
from itertools import islice
from typing import Any, Iterable, Iterator, TextIO

from rewards import Sample, UnknownDataSourceError, score_batch
from rewards.registry import get_scorer
from rewards.result import Verdict, failed
from schemas.rollouts import RecordError, read_record, write_record

from .errors import CommandError
from .settings_flags import add_settings_flags, settings_from
from .summary import Summary

CHUNK = 2048
MAX_LISTED_ERRORS = 10


def register(sub) -> None:
    p = sub.add_parser(
        "score", help="score a JSONL file of model responses",
        description="Score each line of a JSONL file. A line needs a response (`response`, "
                    "`solution_str` or verl's dump key `output`) and a gold answer (`ground_truth`, "
                    "`reward_model.ground_truth` or `gts`). Prints a summary per data_source and verdict.")
    p.add_argument("file", help="input JSONL ('-' for standard input)")
    p.add_argument("-o", "--output", help="write every input row with the result keys added ('-' for stdout)")
    p.add_argument("--data-source", help="data_source for rows that have none (verl rollout dumps)")
    add_settings_flags(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_engine(p)
    p.set_defaults(func=run)


def _add_engine(p) -> None:
    g = p.add_argument_group("engine (see docs/benchmarks.md)")
    g.add_argument("--workers", type=int, metavar="N",
                   help="worker processes for symbolic checks (default: REWARDS_WORKERS or min(2, CPUs))")
    g.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="spread chunks over a Ray cluster: ADDRESS (e.g. ray://head:10001 or auto), "
                        "or RAY_ADDRESS / a local Ray when no address is given")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    from rewards.settings import SettingsError

    try:
        return _run(args)
    except SettingsError as exc:  # a bad flag value, or token lengths with no way to count them
        raise CommandError(str(exc)) from None


def _run(args) -> int:
    summary = Summary()
    errors: list[str] = []  # the first MAX_LISTED_ERRORS messages; n_errors counts them all
    n_errors = 0
    _configure_engine(args)
    with ExitStack() as stack:
        source = _open(stack, args.file, "r", sys.stdin)
        sink = _open(stack, args.output, "w", sys.stdout) if args.output else None
        lines = _with_progress(stack, source, args)
        if args.ray is not None:
            scored = score_lines_ray(lines, args.data_source, settings_from(args), args.ray, args.workers)
        else:
            scored = score_lines(lines, args.data_source, settings_from(args))
        for line_no, row, result in scored:
            summary.add(_source_label(row, args.data_source), result)
            if result.get("error"):
                n_errors += 1
                if len(errors) < MAX_LISTED_ERRORS:
                    errors.append(result["error"])
            if sink is not None:
                sink.write(json.dumps(_output_row(row, result), ensure_ascii=False) + "\n")
    report = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        print(json.dumps({"rows": summary.total, "errors": n_errors, "table": summary.rows()}), file=report)
    else:
        summary.print(report)
    if n_errors:
        print(f"\n{n_errors} row(s) could not be scored:", file=sys.stderr)
        for message in errors:
            print(f"  {message}", file=sys.stderr)
        if n_errors > len(errors):
            print(f"  ... and {n_errors - len(errors)} more (see `error` in the output rows)", file=sys.stderr)
    return 0


def score_lines(lines: TextIO, data_source: str | None, settings: dict[str, Any]
                ) -> Iterator[tuple[int, Any, dict[str, Any]]]:
    """(line number, parsed row or raw text, result dict) for every line, in order, chunk by chunk."""
    numbered = enumerate(lines, start=1)
    while chunk := list(islice(numbered, CHUNK)):
        yield from _score_chunk(chunk, data_source, settings)


def score_lines_ray(lines: Iterable[str], data_source: str | None, settings: dict[str, Any],
                    address: str, workers: int | None = None) -> Iterator[tuple[int, Any, dict[str, Any]]]:
    """`score_lines` with each chunk scored as a task on a Ray cluster; same rows, same order."""
    from rewards.engine.ray_map import ray_ordered_map

    numbered = enumerate(lines, start=1)
    chunks = iter(lambda: list(islice(numbered, CHUNK)), [])
    env = {"REWARDS_WORKERS": str(workers or 1)}  # one symbolic worker per Ray task unless asked
    try:
        for results in ray_ordered_map(score_chunk, chunks, args=(data_source, settings),
                                       address=address or None, env=env):
            yield from results
    except (ConnectionError, RuntimeError) as exc:
        raise CommandError(f"cannot use the Ray cluster {address or '(default)'}: {exc}") from exc


def score_chunk(chunk: list[tuple[int, str]], data_source: str | None, settings: dict[str, Any]
                ) -> list[tuple[int, Any, dict[str, Any]]]:
    """One chunk's rows as a list (a Ray task's return value)."""
    return list(_score_chunk(chunk, data_source, settings))


def _score_chunk(chunk, data_source, settings):
    rows: list[Any] = []
    outcomes: list[dict[str, Any] | None] = []
    samples, pending = [], []
    for line_no, text in chunk:
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            rows.append(text.rstrip("\n"))
            outcomes.append(_error(f"line {line_no}: invalid JSON ({exc.msg} at column {exc.colno})"))
            continue
        rows.append(row)
        try:
            source, response, gold, extra = read_record(row, data_source)
            get_scorer(source)
        except (RecordError, UnknownDataSourceError) as exc:
            outcomes.append(_error(f"line {line_no}: {exc}"))
            continue
        outcomes.append(None)
        pending.append(len(outcomes) - 1)
        samples.append(Sample(source, response, gold, extra))
    for index, result in zip(pending, score_batch(samples, **settings)):
        outcomes[index] = result.to_dict()
    for (line_no, _), row, outcome in zip(chunk, rows, outcomes):
        yield line_no, row, outcome


def _configure_engine(args) -> None:
    if args.workers is None:
        return
    if args.workers < 1:
        raise CommandError(f"--workers must be at least 1, got {args.workers}")
    from rewards import engine

    engine.configure(workers=args.workers)


def _with_progress(stack: ExitStack, source: TextIO, args) -> Iterable[str]:
    """The input lines, with a progress bar on stderr for runs longer than a second (by bytes
    when the size is known). Off with --quiet, or when stderr is not a terminal."""
    if args.quiet or not sys.stderr.isatty():
        return source
    from tqdm import tqdm

    try:
        total = os.fstat(source.fileno()).st_size if args.file != "-" else None
    except (OSError, ValueError):
        total = None
    bar = stack.enter_context(tqdm(total=total or None, unit="B", unit_scale=True, delay=1.0,
                                   file=sys.stderr, desc="scoring", leave=False))
    return _counted(source, bar)


def _counted(lines: Iterable[str], bar, every: int = 256) -> Iterator[str]:
    pending = 0
    for k, line in enumerate(lines, 1):
        pending += len(line.encode("utf-8", "surrogatepass"))
        if k % every == 0:
            bar.update(pending)
            pending = 0
        yield line
    bar.update(pending)


def _error(message: str) -> dict[str, Any]:
    out = failed(Verdict.ERROR, message).to_dict()
    out["error"] = message
    return out


def _output_row(row: Any, result: dict[str, Any]) -> dict[str, Any]:
    if isinstance(row, str):  # a line that was not JSON: keep its text
        return {"input": row, **result}
    return write_record(row, result)


def _source_label(row: Any, default: str | None) -> str:
    source = row.get("data_source") if isinstance(row, dict) else None
    return str(source or default or "(none)")


def _open(stack: ExitStack, path: str, mode: str, std: TextIO) -> TextIO:
    if path == "-":
        return std
    try:
        return stack.enter_context(open(path, mode, encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"cannot open {path}: {exc.strerror}") from exc
