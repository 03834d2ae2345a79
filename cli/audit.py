"""The reward audit in `rewards score` and `rewards report`: which reward each row is compared with.

A row's previous reward is, the first that applies: the other grader's score (`--against NAME`,
rewards/reporting/graders.py); the column `--previous-reward` names; the other grader's score a
`score --against` output carries (`against_score`); the row's `prev_score`; its own
`score` when the row's results are not ours (a verl dump's). A row with none is not compared and
nothing about it changes. Each compared row goes to rewards/reporting/audit.py, and `score -o`
writes beside our keys the other grader's `against_score` and the row's `disagreement` (the
direction and cause, or null where the rewards agree); a dump's own reward is already there as
`prev_score`.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Iterable, Iterator

from rewards.reporting.audit import Audit, Comparison
from rewards.reporting.graders import GraderError, GraderFailed, get_grader, grade
from rewards.reporting.stats import group_key
from schemas.rollouts import PREVIOUS_PREFIX, RecordError, read_record

from .errors import CommandError

PREVIOUS = PREVIOUS_PREFIX + "score"
AGAINST_KEY = "against_score"
AGAINST_ERROR = "against_error"


def add_audit_flags(parser) -> None:
    g = parser.add_argument_group("reward audit (see docs/probe-and-report.md)")
    g.add_argument("--previous-reward", metavar="COLUMN",
                   help="the column (dotted for nested keys) holding the reward each row was trained with "
                        f"(default: {PREVIOUS}, else the input's own score)")
    g.add_argument("--against", metavar="NAME",
                   help="compare with another grader's reward on the same rows: verl (0.9.1's "
                        "default_compute_score), math-verify, or MODULE:FUNCTION with verl's reward signature")


class Auditor:
    """Finds each row's previous reward and hands the comparison to an `Audit`."""

    def __init__(self, args, *, graded: bool = False) -> None:
        """`graded`: the rows' results already carry `against_score` (scored in Ray tasks)."""
        self.column = getattr(args, "previous_reward", None)
        self.against = getattr(args, "against", None)
        self.data_source = args.data_source
        if self.against and self.column:
            raise CommandError("--against and --previous-reward name two references: give one")
        self.grader = None
        if self.against and not graded:
            try:
                self.grader = get_grader(self.against)
            except GraderError as exc:
                raise CommandError(str(exc)) from None
        elif self.against:
            check_grader(self.against)
        reference = self.against or self.column or f"the input's reward ({PREVIOUS}, else score)"
        self.audit = Audit(reference)
        self._named = bool(self.against or self.column)

    def observe(self, row: Any, result: dict[str, Any], step: int | None, where: str,
                ours_in_row: bool = False) -> dict[str, Any]:
        """Compare one row (in input order); the keys to add to its output row (none when the row
        has no previous reward or could not be scored)."""
        if not isinstance(row, dict) or result.get("error"):  # not read, or not scored: no new reward
            return {}
        try:
            source, response, gold, extra = read_record(row, self.data_source)
        except RecordError:
            return {}
        added: dict[str, Any] = {}
        if self.against:
            previous, added = self._graded(source, response, gold, extra, result)
        else:
            previous = self._previous(row, ours_in_row)
        if previous is None:
            return added
        try:
            value, ours = _number(previous, "previous reward"), _number(result.get("score"), "our score")
        except ValueError as exc:
            self.audit.skip(f"{where}: {exc}")
            return added
        step = step if step is not None else row.get("step")
        group = group_key(row)
        comparison = Comparison(
            data_source=source, previous=value, score=ours,
            verdict=str(result.get("verdict")), step=step,
            group=None if group is None else (step, *group[1:]), pred=str(result.get("pred") or ""),
            response=response, gold=gold, answer_format=_answer_format(source), where=where)
        cause = self.audit.add(comparison)
        added["disagreement"] = None if cause is None else "{}: {}, {}".format(*cause)
        return added

    def _previous(self, row: dict[str, Any], ours_in_row: bool) -> Any:
        if self.column:
            value: Any = row
            for part in self.column.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            return _Missing(f"no column {self.column!r}") if value is None else value
        if AGAINST_KEY in row or AGAINST_ERROR in row:   # a `score --against` output: that grader's reward
            if not self._named:
                self.audit.reference, self._named = f"the other grader's reward in the input ({AGAINST_KEY})", True
            if row.get(AGAINST_KEY) is None:
                return _Missing(f"the other grader failed: {row.get(AGAINST_ERROR)}")
            return row[AGAINST_KEY]
        if PREVIOUS in row:
            return row[PREVIOUS]
        if "score" in row and not ours_in_row:
            return _Missing("previous reward null is not a number") if row["score"] is None else row["score"]
        return None

    def _graded(self, source, response, gold, extra, result) -> tuple[Any, dict[str, Any]]:
        if self.grader is None:  # graded in a Ray task
            if AGAINST_ERROR in result:
                return _Missing(f"{self.against} failed: {result[AGAINST_ERROR]}"), {}
            return result.get(AGAINST_KEY), {}
        try:
            score = grade(self.grader, source, response, gold, extra)
        except GraderFailed as exc:
            return _Missing(f"{self.against} failed: {exc}"), {AGAINST_ERROR: str(exc)}
        return score, {AGAINST_KEY: score}


class _Missing(str):
    """A previous reward that is there to compare but cannot be read; its text says why."""


def _number(value: Any, what: str) -> float:
    """A reward as a float; ValueError naming `what` it is when it is no finite number."""
    if isinstance(value, _Missing):
        raise ValueError(str(value))
    if isinstance(value, (str, bytes)) or value is None:
        raise ValueError(f"{what} {str(value)[:40]!r} is not a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} of type {type(value).__name__} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} {number} is not finite")
    return number


def _answer_format(source: str) -> str:
    from rewards import UnknownDataSourceError
    from rewards.registry import get_scorer

    try:
        return get_scorer(source).answer_format or "boxed"  # a format of its own: read as the common one
    except UnknownDataSourceError:
        return "boxed"


def check_grader(name: str) -> None:
    """A usage error now, not in every Ray task, for a grader name that cannot be loaded here."""
    try:
        get_grader(name)
    except GraderError as exc:
        raise CommandError(str(exc)) from None


def audited(scored: Iterable[tuple[Any, Any, dict[str, Any]]], auditor: Auditor
            ) -> Iterator[tuple[Any, Any, dict[str, Any]]]:
    """`rewards score`'s (input row, row, result) stream, each compared; the result gets the audit's keys."""
    for item, row, result in scored:
        result.update(auditor.observe(row, result, item.step, item.where))
        yield item, row, result


def score_chunk_against(chunk, score_chunk, data_source, settings, against: str):
    """A Ray task: one chunk scored by us (`score_chunk`: cli.score's, passed in because cli.score
    imports this module) and graded by `against` beside it, in the task's main thread (where
    Math-Verify's timeouts hold)."""
    grader = get_grader(against)
    out = []
    for item, row, result in score_chunk(chunk, data_source, settings):
        if isinstance(row, dict) and not result.get("error"):
            try:
                source, response, gold, extra = read_record(row, data_source)
                result[AGAINST_KEY] = grade(grader, source, response, gold, extra)
            except GraderFailed as exc:
                result[AGAINST_ERROR] = str(exc)
            except RecordError:
                pass
        out.append((item, row, result))
    return out



def check_data_source(name: str | None) -> None:
    """An unknown `--data-source` is one usage error before any row is read: every row would fail on it."""
    if name is None:
        return
    from rewards.registry import UnknownDataSourceError, get_scorer

    try:
        get_scorer(name)
    except UnknownDataSourceError as exc:
        raise CommandError(f"--data-source: {str(exc).splitlines()[0]}") from None


def refuse_data_file(rows: Iterable[Any], file: str, command: str) -> Iterator[Any]:
    """The rows as read, unless the first is a verl data row (a prompt and a gold, no response): a data
    file holds no responses, and every row would fail alike, so it is one usage error instead."""
    from itertools import chain

    from schemas.rollouts import RESPONSE_KEYS, gold_of

    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return iter(())
    row = first.value if first.problem is None else None
    if (isinstance(row, dict) and "prompt" in row and gold_of(row) is not None
            and not any(row.get(key) is not None for key in RESPONSE_KEYS)):
        raise CommandError(f"{file} is a data file (prompts and golds, no responses): {command} needs responses; "
                           f"generate them (verl's trainer.rollout_data_dir / validation_data_dir dumps hold them) "
                           f"and {command} those")
    return chain([first], rows)


def with_data_sources(rows: Iterable[Any], file: str, command: str) -> Iterable[Any]:
    """The rows of a folder of verl dumps, each without a data_source labelled from the run's record of
    its training files (verl's V1 training dumps have none: schemas/dump_sources.py); other input as is."""
    from pathlib import Path

    from schemas.dump_sources import RecordProblem, labelled, load_index

    if file == "-" or not Path(file).is_dir():
        return rows
    try:
        index = load_index(file)
    except RecordProblem as exc:
        print(f"rewards {command}: {exc}; rows without a data_source need --data-source", file=sys.stderr)
        return rows
    return labelled(rows, index) if index is not None else rows
