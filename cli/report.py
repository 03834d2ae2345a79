"""`rewards report`: one HTML page about a rollout file, or about a whole run folder step by step.

Input is read by schemas/reader.py: a JSONL, gzip JSONL or parquet file, or a folder of verl step
dumps (`trainer.rollout_data_dir` / `validation_data_dir`: `<step>.jsonl`, read in step order). A
file gets the one-file page (rewards/reporting/stats.py); a folder the run page, with per-step
trends and trouble flags (rewards/reporting/runs.py).

Each row is judged the first way that applies, and the page counts how many rows went each way:
- it carries our results (`score` and `verdict`: `rewards score -o` output, or a dump of a run that
  used `pkg://rewards.verl`): read as they are, unless `--rescore`;
- it has a data_source (its own, or `--data-source`): scored by the library, as `rewards score` does;
- it has only verl's `score`: reported from the reward alone (no verdicts, accuracy or format);
- anything else, and a line that cannot be read, is an `error` row with its message.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .errors import CommandError, NoRows

UNLABELLED = "(no data_source)"
FROM_FILE = "read from the file"
RESCORED = "re-scored by the library"
SCORE_ONLY = "score only (no data_source to re-score by)"
UNREADABLE = "could not be read or scored"


def register(sub) -> None:

    from .audit import add_audit_flags
    from .plugins import add_import_flag
    from .settings_flags import add_settings_flags

    p = sub.add_parser(
        "report", help="write an HTML report of a rollout file, or of a run folder step by step",
        description="For a file: reward and verdict distributions per data_source, the share of GRPO groups "
                    "with zero reward variance, accuracy by response length and the most common wrong answers. "
                    "For a folder of verl step dumps (trainer.rollout_data_dir / validation_data_dir): the same "
                    "per step, as trends, with flags for trouble patterns. One self-contained HTML page. Rows "
                    "without results are scored (verl dumps have no data_source column: pass --data-source).")
    p.add_argument("file", help="input file (JSONL, gzip JSONL, parquet) or folder of <step>.jsonl dumps")
    p.add_argument("-o", "--output", help="HTML file to write (default: FILE.report.html, beside the input)")
    p.add_argument("--data-source", help="data_source for rows that have none (verl rollout dumps)")
    p.add_argument("--metrics", metavar="JSONL",
                   help="verl's file-logger metrics of the run (trainer.logger=[console,file], written to "
                        "VERL_FILE_LOGGER_PATH): the page then gives the reward's share of each step's time")
    p.add_argument("--rescore", action="store_true",
                   help="score every row even when it already carries results")
    p.add_argument("--title", help="page title (default: the input's name)")
    p.add_argument("--json", action="store_true", help="print the report's numbers as JSON in place of the summary lines (the page is written too)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_settings_flags(p)
    add_audit_flags(p)
    add_import_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rewards.settings import SettingsError
    from schemas.reader import UnreadableFile, read_rows

    from .audit import Auditor, check_data_source, refuse_data_file, with_data_sources
    from .output import HTML, refuse_overwriting_input, write_output

    if args.file == "-" and not args.output:
        raise CommandError("reading standard input: name the page with -o")
    source = Path(args.file)
    folder = source.is_dir()
    output = args.output or str(source.parent / (
        f"{source.name}.report.html" if folder else source.with_suffix(".report.html").name))
    refuse_overwriting_input(args.file, output)
    length, unit = _length_counter(args)
    check_data_source(args.data_source)
    auditor = Auditor(args)
    try:
        items = with_data_sources(refuse_data_file(read_rows(args.file), args.file, "report"), args.file, "report")
        with ExitStack() as stack:
            judged = _judge(_with_progress(stack, items, source, folder, args), args, length, auditor)
            page, lines, numbers = (_run_page if folder else _file_page)(judged, source, args, unit, auditor.audit)
    except UnreadableFile as exc:
        raise CommandError(str(exc)) from None
    except SettingsError as exc:
        from .settings_flags import flag_words

        raise CommandError(flag_words(str(exc))) from None
    write_output(output, page, HTML, inputs=[args.file])  # renamed onto `output` only when complete
    summary = sys.stderr if output == "-" else sys.stdout  # `-o -`: stdout is the page alone
    if args.json:  # one JSON document, in place of the summary lines, so that it can be parsed
        print(json.dumps(numbers, ensure_ascii=False, default=str), file=summary)
    else:
        for line in lines:
            print(line, file=summary)
    if output != "-":
        print(f"wrote {output}", file=sys.stderr)
    return 0


def _file_page(judged, source: Path, args, unit: str, audit):
    from rewards.reporting.html import render_html
    from rewards.reporting.stats import Report, fixed

    report = Report()
    how: dict[str, int] = {}
    for _, row, way in judged:
        report.add(row)
        how[way] = how.get(way, 0) + 1
    if not report.total:
        raise NoRows(f"{args.file}: no rows")
    notes = [f"{report.total} rows from {source.name}: {_ways(how)}."]
    nonfinite = sum(sum(stats.nonfinite.values()) for stats in report.sources.values())
    if nonfinite:
        notes.append(f"{nonfinite} row(s) have a NaN or infinite reward: counted as 0 in the means, and their "
                     f"GRPO groups are not counted as zero-variance (their variance is not known).")
    page = render_html(report, args.title or f"Reward report: {source.name}", notes, audit)
    lines = []
    for name, stats in report.sources.items():
        g = stats.group_stats()
        groups = f", zero-variance groups {g.zero_variance}/{g.groups}" if g.groups else ""
        if g.nonfinite:
            groups += f" ({g.nonfinite} with a NaN or infinite reward, variance unknown)"
        if stats.nonfinite:
            groups += (", rewards not finite (counted as 0): "
                       + ", ".join(f"{n} {name}" for name, n in sorted(stats.nonfinite.items())))
        lines.append(f"{name}: {stats.count} rows, mean score {fixed(stats.mean_score)}, acc {fixed(stats.accuracy)}{groups}")
    return page, lines + _audit_lines(audit), report.to_dict() | _audit_numbers(audit)


def _run_page(judged, source: Path, args, unit: str, audit):
    from rewards.reporting.html import render_run_html
    from rewards.reporting.runs import RunStats
    from rewards.reporting.stats import fixed

    run = RunStats(max_length=args.max_resp_len, step_seconds=_step_seconds(args.metrics))
    for step, row, way in judged:
        run.add(step, row, way)
    run.close_step()
    if not run.total:
        raise NoRows(f"{args.file}: no rows")
    n_steps = len({s.step for steps in run.steps.values() for s in steps})
    notes = [f"{run.total} rows in {n_steps} steps of {source.name}; per data_source, rows "
             + "; ".join(f"{name}: {_ways(run.how[name])}" for name in run.steps) + ".",
             f"Response length in {unit}" + (f"; cut off means at least 99% of {args.max_resp_len} {unit}."
                                             if args.max_resp_len else "; pass --max-resp-len for the share cut off.")]
    page = render_run_html(run, args.title or f"Run report: {source.name}", notes, unit, audit)
    lines = []
    for name, steps in run.steps.items():
        acc = [s.acc for s in steps if s.acc is not None]
        trend = f", acc {fixed(acc[0])} -> {fixed(acc[-1])}" if acc else ", no verdicts (score only)"
        lines.append(f"{name}: {len(steps)} steps ({steps[0].step}-{steps[-1].step}), "
                     f"{sum(s.rows for s in steps)} rows{trend}{_commonest(steps)}")
    lines += _reward_time_lines(run.reward_time(), args.metrics)
    audited = audit if audit.rows or audit.unreadable else None
    lines += [f"flag {f.kind} ({f.data_source}): {f.message}" for f in run.flags(audited)]
    return page, lines + _audit_lines(audit), run.to_dict(audited) | _audit_numbers(audit)


def _commonest(steps) -> str:
    """The last step's commonest answer and its share, beside the commonest gold's share of prompts."""
    last = next((s for s in reversed(steps) if s.top_answer), None)
    if last is None:
        return ""
    answer, count, answered = last.top_answer
    gold = f" (commonest gold: {last.top_gold_share:.0%} of prompts)" if last.top_gold_share is not None else ""
    return f", commonest answer at step {last.step}: {answer!r}, {count / answered:.0%} of answers{gold}"


def _step_seconds(path: str | None) -> dict[int, float]:
    if not path:
        return {}
    from rewards.reporting.runs import step_times

    try:
        with open(path, encoding="utf-8") as f:
            return step_times(f)
    except (OSError, ValueError) as exc:
        raise CommandError(f"--metrics {path}: {exc}") from None


def _reward_time_lines(steps: list[dict[str, Any]], metrics: str | None) -> list[str]:
    """The reward's own time (the dump's `reward_ms`), per sample and as a share of the step."""
    if not steps:
        return []
    rows = sum(s["rows"] for s in steps)
    mean = sum(s["mean_ms"] * s["rows"] for s in steps) / rows
    line = (f"reward time: {mean:.2f} ms a sample on average, {max(s['max_ms'] for s in steps):.1f} ms the slowest, "
            f"{len(steps)} steps")
    shares = sorted(s["share"] for s in steps if s["share"] is not None)
    if shares:
        line += (f"; {shares[len(shares) // 2]:.1%} of a step's time (median of {len(shares)} steps, "
                 f"{shares[-1]:.1%} at most)")
    elif not metrics:
        line += "; pass --metrics (verl's file-logger JSONL) for its share of each step's time"
    return [line]


def _audit_lines(audit) -> list[str]:
    return audit.lines() if audit.rows or audit.unreadable else []


def _audit_numbers(audit) -> dict[str, Any]:
    return {"audit": audit.to_dict()} if audit.rows or audit.unreadable else {}


def _ways(how) -> str:
    return ", ".join(f"{n} {way}" for way, n in sorted(how.items(), key=lambda kv: -kv[1]))


def _judge(items: Iterable[Any], args, length: Callable[[Any, Any], int | None], auditor
           ) -> Iterator[tuple[Any, Any, str]]:
    """(step, report row, how it was judged) for every input row, in order, chunk by chunk; each
    row with a previous reward is compared by `auditor` (cli/audit.py), in input order."""
    from .score import CHUNK

    items = iter(items)
    while chunk := list(islice(items, CHUNK)):
        yield from _judge_chunk(chunk, args, length, auditor)


def _judge_chunk(chunk: list[Any], args, length, auditor) -> Iterator[tuple[Any, Any, str]]:
    from rewards.reporting.stats import make_row, score_only_row
    from schemas.rollouts import data_source_of

    from .score import score_rows
    from .settings_flags import settings_from

    out: list[tuple[Any, Any, str] | None] = []
    compared: list[tuple[Any, dict, bool] | None] = []  # per row: (record, our result, results in the record)
    to_score: list[tuple[int, Any]] = []
    for item in chunk:
        row = item.value
        compared.append(None)
        if item.problem is not None:
            out.append((item.step, _error_row(args.data_source, item.problem), UNREADABLE))
        elif not args.rescore and "score" in row and "verdict" in row:
            out.append((item.step, _row(make_row, row, row, args.data_source, length), FROM_FILE))
            compared[-1] = (row, row, True)
        elif data_source_of(row, args.data_source):
            out.append(None)
            to_score.append((len(out) - 1, item))
        elif "score" in row:
            out.append((item.step, _row(score_only_row, row, row.get("score"), None, length), SCORE_ONLY))
        else:
            out.append((item.step, _error_row(None, f"{item.where}: no `score`, and no data_source to score it "
                                                    "by (pass --data-source)"), UNREADABLE))
    scored = score_rows([item for _, item in to_score], args.data_source, settings_from(args))
    for (index, item), (_, row, result) in zip(to_score, scored):
        way = UNREADABLE if result.get("error") else RESCORED
        out[index] = (item.step, _row(make_row, row, result, args.data_source, length), way)
        compared[index] = (row, result, False)
    for item, row, seen in zip(chunk, out, compared):
        if seen is not None:
            auditor.observe(seen[0], seen[1], item.step, item.where, ours_in_row=seen[2])
        yield row  # type: ignore[misc]


def _row(build, record: dict, result: Any, data_source: str | None, length) -> Any:
    """A report row for `record`, with its response, gold and length found as `rewards score` finds them."""
    from schemas.rollouts import RecordError, data_source_of, read_record

    label = str(data_source_of(record, data_source) or UNLABELLED)
    try:
        _, response, gold, extra = read_record(record, label)
    except RecordError:
        response, gold, extra = None, None, None
    response = response if isinstance(response, str) else None
    return build(label, result, response, record, gold=gold,
                 length=length(response, extra) if response is not None else None)


def _error_row(data_source: str | None, message: str):
    from rewards.reporting.stats import make_row

    return make_row(data_source or UNLABELLED, {"score": 0.0, "acc": 0.0, "verdict": "error", "error": message})


def _length_counter(args) -> tuple[Callable[[Any, Any], int | None], str]:
    """How response length is counted: tokens with --length-tokenizer, else characters."""
    if args.length_tokenizer:
        from rewards.shaping import count_tokens

        from .settings_flags import load_length_tokenizer

        load_length_tokenizer(args.length_tokenizer)
        return (lambda response, extra: count_tokens(response, args.length_tokenizer)), "tokens"
    if args.max_resp_len and args.length_unit != "chars":
        raise CommandError("--max-resp-len is in tokens: pass --length-tokenizer (the policy's tokenizer) to "
                           "count them, or --length-unit chars to compare characters")
    return (lambda response, extra: len(response)), "chars"


def _with_progress(stack: ExitStack, items: Iterable[Any], source: Path, folder: bool, args) -> Iterable[Any]:
    """The input rows, with a progress bar on stderr (steps for a folder, rows for a file) for reports
    longer than a second. Off with --quiet, or when stderr is not a terminal (logs stay clean)."""
    if args.quiet or not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    from schemas.reader import STEP_FILE

    total = sum(1 for p in source.iterdir() if STEP_FILE.match(p.name)) if folder else None
    bar = stack.enter_context(tqdm(total=total, unit=" steps" if folder else " rows", delay=1.0,
                                   file=sys.stderr, desc="report", leave=False))
    if not folder:
        from .score import total_in_background

        total_in_background(bar, str(source))
    return _counted(items, bar, folder)


def _counted(items: Iterable[Any], bar, by_step: bool) -> Iterator[Any]:
    """Count finished steps (a folder) or rows, 256 at a time (a file)."""
    step, pending = None, 0
    for item in items:
        if by_step and item.step != step:
            bar.update(step is not None)
            step = item.step
        elif not by_step:
            pending += 1
            if pending == 256:
                bar.update(pending)
                pending = 0
        yield item
    bar.update(int(step is not None) if by_step else pending)
