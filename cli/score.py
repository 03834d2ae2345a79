"""`rewards score`: judge a file of responses (our rows, verl rows or verl rollout dumps).

Input is read by schemas/reader.py: JSONL, gzip JSONL, parquet, or a folder of verl step dumps.
Every input line yields exactly one output line, in order: a line that cannot be read or scored
becomes a row with verdict `error` and a message naming the file and line, so nothing is lost.
The output (JSON lines, or parquet by its extension: cli/output.py) is written to a temporary file
and renamed at the end; it may never be the input.

Exit status: 0 when at least one row was scored (failed rows are summarised on stderr), 1 when no
row could be scored, 2 for a usage error or a file that cannot be read or written.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from itertools import islice
from typing import Any, Iterable, Iterator

from rewards import Sample, UnknownDataSourceError, score_batch
from rewards.api import RECHECK_TIMEOUT, recheck_timeouts, timeouts
from rewards.registry import canonical_name, get_scorer
from rewards.result import Result, Verdict, failed
from schemas.reader import InputRow, UnreadableFile, parse_line, read_rows
from schemas.rollouts import RecordError, data_source_of, read_record, write_record

from .audit import (Auditor, add_audit_flags, audited, check_data_source, refuse_data_file,
                    score_chunk_against, with_data_sources)
from .errors import CommandError
from .output import open_rows, refuse_overwriting_input
from .plugins import add_import_flag
from .settings_flags import add_settings_flags, settings_from
from .summary import Summary

CHUNK = 2048
TIMEOUT = Verdict.TIMEOUT.value
MAX_LISTED_ERRORS = 10
NOTHING_SCORED = 1  # exit status when not one row could be scored (2 is a usage or file error)


def register(sub) -> None:
    p = sub.add_parser(
        "score", help="score a file of model responses",
        description="Score each row of a JSONL, gzip JSONL or parquet file, or of a folder of verl step "
                    "dumps (<step>.jsonl, in step order). A row needs a response (`response`, "
                    "`solution_str` or verl's dump key `output`) and a gold answer (`ground_truth`, "
                    "`reward_model.ground_truth` or `gts`). Prints a summary per data_source and verdict.",
        epilog="exit status: 0 at least one row scored (failures summarised on stderr); 1 no row could "
               "be scored; 2 usage error, or a file that cannot be read or written")
    p.add_argument("file", help="input file or folder of step dumps ('-' for standard input)")
    p.add_argument("-o", "--output", help="write every input row with the result keys added: JSON lines "
                                          "(.gz: gzip), or a .parquet table ('-' for stdout)")
    p.add_argument("--data-source", help="data_source for rows that have none (verl rollout dumps)")
    add_settings_flags(p)
    add_audit_flags(p)
    add_import_flag(p)
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
        from .settings_flags import flag_words

        raise CommandError(flag_words(str(exc))) from None


def _run(args) -> int:
    summary = Summary()
    errors: list[str] = []  # the first MAX_LISTED_ERRORS messages; n_errors counts them all
    n_errors = 0
    _configure_engine(args)
    refuse_overwriting_input(args.file, args.output)
    check_data_source(args.data_source)
    auditor = Auditor(args, graded=args.ray is not None)
    try:
        rows = with_data_sources(refuse_data_file(read_rows(args.file), args.file, "score"), args.file, "score")
    except UnreadableFile as exc:
        raise CommandError(str(exc)) from None
    with ExitStack() as stack:
        write = open_rows(stack, args.output, inputs=[args.file]) if args.output else None
        rows = _with_progress(stack, rows, args)
        if args.ray is not None:
            scored = score_rows_ray(rows, args.data_source, settings_from(args), args.ray, args.workers,
                                    against=args.against)
        else:
            scored = score_rows(rows, args.data_source, settings_from(args))
        try:
            for item, row, result in audited(scored, auditor):
                summary.add(_source_label(row, args.data_source), result)
                if result.get("error"):
                    n_errors += 1
                    if len(errors) < MAX_LISTED_ERRORS:
                        errors.append(result["error"])
                if write is not None:
                    write(_output_row(item, row, result, args.data_source))
        except UnreadableFile as exc:  # a gzip or parquet stream damaged part-way
            raise CommandError(str(exc)) from None
    report = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        audit = {"audit": auditor.audit.to_dict()} if auditor.audit.rows or auditor.audit.unreadable else {}
        print(json.dumps({"rows": summary.total, "errors": n_errors, "table": summary.rows(), **audit}), file=report)
    else:
        summary.print(report)
        if auditor.audit.rows or auditor.audit.unreadable:
            print("", *auditor.audit.lines(), sep="\n", file=report)
    _say_timeouts(summary, args.timeout)
    if n_errors:
        print(f"\n{n_errors} of {summary.total} row(s) could not be scored:", file=sys.stderr)
        for message in errors:
            print(f"  {message}", file=sys.stderr)
        if n_errors > len(errors):
            print(f"  ... and {n_errors - len(errors)} more (see `error` in the output rows)", file=sys.stderr)
    if n_errors == summary.total:
        reason = f"first: {errors[0]}" if errors else "the input has no lines"
        print(f"rewards score: no row could be scored ({reason})", file=sys.stderr)
        return NOTHING_SCORED
    return 0


def _say_timeouts(summary: Summary, timeout: float | None) -> None:
    """One stderr line with the same count of `timeout` rows as the table."""
    n = summary.count(TIMEOUT)
    if n:
        first = timeout or 5.0
        print(f"\n{n} of {summary.total} row(s) ended as `timeout`: their check ran past a {first:g} s budget "
              f"and again past {max(RECHECK_TIMEOUT, 6 * first):g} s on a re-check (raise --timeout to give "
              "them more)", file=sys.stderr)


def score_rows(rows: Iterable[InputRow], data_source: str | None, settings: dict[str, Any]
               ) -> Iterator[tuple[InputRow, Any, dict[str, Any]]]:
    """(input row, parsed value or raw text, result dict) for every input row, in order, chunk by chunk.
    A row at `timeout` is judged once more at the end of its chunk with a longer budget
    (`rewards.api.recheck_timeouts`); the periodic timeout log line, which counts first looks, is
    off: the command's own count is the one printed."""
    rows = iter(rows)
    with timeouts.muted():
        while chunk := list(islice(rows, CHUNK)):
            yield from _score_chunk(chunk, data_source, settings)


def score_lines(lines: Iterable[str], data_source: str | None, settings: dict[str, Any]
                ) -> Iterator[tuple[int, Any, dict[str, Any]]]:
    """`score_rows` over lines of text, numbered from 1 (for callers that read text themselves;
    new code reads files with schemas.reader.read_rows and calls score_rows)."""
    parsed = (parse_line(text.rstrip("\n").encode("utf-8", "surrogatepass"), f"line {n}")
              for n, text in enumerate(lines, start=1))
    for n, (_, row, result) in enumerate(score_rows(parsed, data_source, settings), start=1):
        yield n, row, result


def score_rows_ray(rows: Iterable[InputRow], data_source: str | None, settings: dict[str, Any],
                   address: str, workers: int | None = None, against: str | None = None
                   ) -> Iterator[tuple[InputRow, Any, dict[str, Any]]]:
    """`score_rows` with each chunk scored as a task on a Ray cluster; same rows, same order.
    `against`: each task also grades its rows with that grader (cli/audit.py)."""
    from rewards.engine.ray_map import ray_ordered_map

    rows = iter(rows)
    chunks = iter(lambda: list(islice(rows, CHUNK)), [])
    env = {"REWARDS_WORKERS": str(workers or 1)}  # one symbolic worker per Ray task unless asked
    try:
        task, task_args = ((score_chunk_against, (score_chunk, data_source, settings, against)) if against
                           else (score_chunk, (data_source, settings)))
        for results in ray_ordered_map(task, chunks, args=task_args, address=address or None, env=env):
            yield from results
    except (ConnectionError, RuntimeError) as exc:
        raise CommandError(f"cannot use the Ray cluster {address or '(default)'}: {exc}") from exc


def score_chunk(chunk: list[InputRow], data_source: str | None, settings: dict[str, Any]
                ) -> list[tuple[InputRow, Any, dict[str, Any]]]:
    """One chunk's rows as a list (a Ray task's return value)."""
    return list(_score_chunk(chunk, data_source, settings))


def _score_chunk(chunk: list[InputRow], data_source, settings):
    rows: list[Any] = []
    outcomes: list[dict[str, Any] | None] = []
    samples, pending = [], []
    for item in chunk:
        if item.error is not None:
            rows.append(item.text)
            outcomes.append(_error(item.error))
            continue
        row = item.value
        rows.append(row)
        if item.problem is not None:  # a JSON value that is not an object, worded by the reader
            outcomes.append(_error(item.problem))
            continue
        try:
            source, response, gold, extra = read_record(row, data_source)
            get_scorer(source)
        except (RecordError, UnknownDataSourceError) as exc:
            outcomes.append(_error(f"{item.where}: {exc}"))
            continue
        outcomes.append(None)
        pending.append(len(outcomes) - 1)
        samples.append(Sample(source, response, gold, extra))
    results = recheck_timeouts(samples, score_batch(samples, **settings), **settings)
    for index, result in zip(pending, results):
        outcomes[index] = _outcome(chunk[index].where, result)
    yield from zip(chunk, rows, outcomes)


def _outcome(where: str, result: Result) -> dict[str, Any]:
    """A scored row's result keys, with its `reason` when it has one; an `error` verdict (a response
    that is not text, a scorer that raised) also gets `error`, so it counts as not scored."""
    out = result.to_dict()
    if result.reason:
        out["reason"] = result.reason
    if result.verdict is Verdict.ERROR:
        out["error"] = f"{where}: {result.reason or 'the scorer gave no reason'}"
    return out


def _configure_engine(args) -> None:
    if args.workers is None:
        return
    if args.workers < 1:
        raise CommandError(f"--workers must be at least 1, got {args.workers}")
    from rewards import engine

    engine.configure(workers=args.workers)


def _with_progress(stack: ExitStack, rows: Iterable[InputRow], args) -> Iterable[InputRow]:
    """The input rows, with a row count on stderr for runs longer than a second.
    Off with --quiet, or when stderr is not a terminal (logs stay clean)."""
    if args.quiet or not sys.stderr.isatty():
        return rows
    from tqdm import tqdm

    bar = stack.enter_context(tqdm(unit=" rows", unit_scale=True, delay=1.0, file=sys.stderr,
                                   desc="scoring", leave=False))
    total_in_background(bar, args.file)
    return _counted(rows, bar)


def total_in_background(bar, path: str) -> None:
    """Give the bar its total (so it shows a percentage and the time left) once the rows are counted:
    at once for a file under 64 MB, else in a thread while scoring starts (2 GB is seconds of reading)."""
    import os
    import threading

    from schemas.reader import count_rows

    def count() -> None:
        total = count_rows(path)
        if total:
            bar.total = total
            bar.refresh()

    try:
        small = os.path.getsize(path) < 64 * 2**20
    except OSError:
        return
    if small:
        count()
    else:
        threading.Thread(target=count, name="rewards-count-rows", daemon=True).start()


def _counted(items: Iterable[Any], bar, every: int = 256) -> Iterator[Any]:
    pending = 0
    for item in items:
        pending += 1
        if pending == every:
            bar.update(pending)
            pending = 0
        yield item
    bar.update(pending)


def _error(message: str) -> dict[str, Any]:
    return {**failed(Verdict.ERROR, message).to_dict(), "reason": message, "error": message}


def _output_row(item: InputRow, row: Any, result: dict[str, Any], data_source: str | None) -> dict[str, Any]:
    """The input row with the results added, the data_source it was scored under and, for a row
    of a verl step dump read from a folder, its step; a line that was not JSON keeps its text."""
    if item.error is not None or not isinstance(row, dict):
        return {"input": row, **result}
    out = write_record(row, result)
    source = data_source_of(row, data_source)  # a dump's scored_data_source, else --data-source
    if not out.get("data_source") and source:
        out["data_source"] = source
    if item.step is not None:
        out.setdefault("step", item.step)
    return out


def _source_label(row: Any, default: str | None) -> str:
    """The summary's row for a data_source: its scorer's registered name, so that rows labelled
    with an alias (`gsm8k`) count with those of its name (`openai/gsm8k`)."""
    label = str(canonical_name(data_source_of(row, default)) or "(none)")
    return label.encode("utf-8", "backslashreplace").decode("utf-8")  # printable even with a lone surrogate
