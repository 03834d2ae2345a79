"""`rewards probe`: what does the configured reward pay for responses that deserve nothing?

Scores the attack responses of rewards/probe/ against gold answers (from a verl parquet file or
the built-in samples) through `rewards.verl.compute_score`, the function verl itself calls, with
the same keyword settings a run passes as `reward_kwargs`. Prints a scoreboard per data_source and
exits 1 when any attack's mean reward exceeds `--max-reward`, so it can gate CI.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from .errors import CommandError, NoRows

DEFAULT_LIMIT = 50


def register(sub) -> None:
    from rewards.probe.attacks import ATTACK_NAMES, BOMB_GOLDS

    from .plugins import add_import_flag
    from .settings_flags import add_settings_flags

    p = sub.add_parser(
        "probe", help="score known reward-hacking responses and fail if any earns reward",
        description="For each gold answer (from FILE, or a built-in sample per data_source), build "
                    "responses that deserve no reward (empty, every choice listed, several boxes, the "
                    "answer only inside <think>, the prompt echoed, a bare number, duplicated tags, a "
                    "retracted correct answer, sympy bombs, a tool observation holding the answer), score "
                    "them as verl would, and print a scoreboard. Exit status 1 when an attack's mean "
                    "reward exceeds --max-reward. Attacks: " + ", ".join(ATTACK_NAMES) + ".")
    p.add_argument("--data-source", action="append", metavar="NAME",
                   help="data_source to probe (repeatable); default: every registered scorer, or every "
                        "data_source in FILE")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="verl parquet (or JSONL of verl rows) whose golds and prompts to attack")
    p.add_argument("--file", dest="file_flag", metavar="FILE", help=argparse.SUPPRESS)  # the older spelling
    p.add_argument("--sample", choices=("gsm8k", "math"),
                   help="built-in gold set to use without FILE (default: gsm8k for GSM8K names, else math)")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                   help=f"golds per data_source taken from FILE (default {DEFAULT_LIMIT}; 0: all)")
    p.add_argument("--bomb-golds", type=int, default=BOMB_GOLDS,
                   help=f"golds per data_source the sympy bombs run against (default {BOMB_GOLDS}; each "
                        "bomb may take up to the scoring deadline)")
    p.add_argument("--max-reward", type=float, default=0.0,
                   help="the bound: fail when an attack's mean reward exceeds it (default 0)")
    p.add_argument("--answer-format", metavar="FORMAT",
                   help="how the scorer wants an answer written, when it reads a format of its own: a template "
                        "with {answer} (\"Answer: ({answer})\"); default: the registration's gold_response")
    p.add_argument("--attacks", help="comma-separated attacks to run (default: all)")
    p.add_argument("--skip", help="comma-separated attacks to leave out")
    add_import_flag(p)
    p.add_argument("--json", action="store_true", help="print the scoreboards as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_settings_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rewards import UnknownDataSourceError
    from rewards.probe.attacks import select_attacks
    from rewards.probe.scoreboard import format_scoreboard, probe
    from rewards.settings import SettingsError, make_settings

    from .settings_flags import settings_from

    if args.file_flag:
        if args.file and args.file != args.file_flag:
            raise CommandError(f"two files given ({args.file} and --file {args.file_flag}); give one")
        args.file = args.file_flag
    try:
        attacks = select_attacks(_names(args.attacks), _names(args.skip) or ())
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if not attacks:
        raise CommandError("--attacks/--skip left no attack to run")
    if args.limit < 0:
        raise CommandError("--limit must be 0 (all) or a positive number of golds")
    if not math.isfinite(args.max_reward):  # nan compares false to every reward: the gate would never fail
        raise CommandError(f"--max-reward must be a finite number, not {args.max_reward}")
    if args.bomb_golds < 1:
        raise CommandError("--bomb-golds must be at least 1 (use --skip sympy_bomb to leave the bombs out)")
    reward_kwargs = {k: v for k, v in settings_from(args).items() if v is not None}
    try:
        make_settings({}, reward_kwargs)  # a bad setting is a one-line error, before any scoring
    except SettingsError as exc:
        from .settings_flags import flag_words

        raise CommandError(flag_words(str(exc))) from None
    if args.answer_format is not None:
        from rewards.probe.attacks import answer_writer

        try:
            answer_writer("", args.answer_format)
        except ValueError as exc:
            raise CommandError(f"--answer-format: {exc}") from None
    targets, notes = load_targets(args)
    try:
        with _progress(args.quiet) as score_fn:
            boards = probe(targets, attacks=attacks, bound=args.max_reward, reward_kwargs=reward_kwargs,
                           bomb_golds=args.bomb_golds, score_fn=score_fn, answer_format=args.answer_format)
    except UnknownDataSourceError as exc:
        raise CommandError(str(exc)) from None
    for board in boards:
        board.notes[:0] = notes
    if args.json:
        print(json.dumps({"passed": all(b.passed for b in boards), "settings": reward_kwargs,
                          "scoreboards": [b.to_dict() for b in boards]}, ensure_ascii=False, default=str))
    else:
        if reward_kwargs:
            print("settings: " + ", ".join(f"{k}={v}" for k, v in sorted(reward_kwargs.items())))
        print("\n\n".join(format_scoreboard(b) for b in boards))
    return 0 if all(b.passed for b in boards) else 1


def load_targets(args) -> tuple[list[Any], list[str]]:
    """The golds to attack, and notes about rows that were left out."""
    from rewards.registry import list_scorers
    from rewards.probe.samples import sample_targets

    if args.file is None:
        sources = args.data_source or [_concrete(e.name) for e in list_scorers()]
        targets = [t for s in sources for t in sample_targets(s, args.sample)]
        return targets, []
    targets, notes = read_targets(args.file, args.data_source, args.limit)
    if not targets:
        wanted = f" with data_source {', '.join(args.data_source)}" if args.data_source else ""
        empty = not notes and not args.data_source  # the file holds no row at all
        raise (NoRows if empty else CommandError)(f"{args.file}: no usable rows{wanted}" + (f" ({notes[0]})" if notes else ""))
    return targets, notes


def read_targets(path: str, data_sources: list[str] | None, limit: int) -> tuple[list[Any], list[str]]:
    """Targets from a verl parquet or JSONL file (read by schemas/reader.py): at most `limit` per
    data_source (0: all). A row that cannot be read or lacks a gold is left out with a note naming
    it; the others are still probed.
    """
    from rewards.probe.attacks import target_from_row
    from schemas.reader import UnreadableFile, read_rows
    from schemas.rollouts import gold_of

    targets, skipped = [], []
    per_source: dict[str, int] = {}
    default = data_sources[0] if data_sources and len(data_sources) == 1 else None
    try:
        for item in read_rows(path):
            if item.problem is not None:
                skipped.append(item.problem)
                continue
            try:
                target = target_from_row(item.value, item.where, default, gold_of(item.value))
            except ValueError as exc:
                skipped.append(str(exc))
                continue
            if data_sources and target.data_source not in data_sources:
                continue
            if limit and per_source.get(target.data_source, 0) >= limit:
                continue
            per_source[target.data_source] = per_source.get(target.data_source, 0) + 1
            targets.append(target)
    except UnreadableFile as exc:
        raise CommandError(str(exc)) from None
    notes = []
    if skipped:
        notes.append(f"{len(skipped)} row(s) of {path} left out: " + "; ".join(skipped[:3])
                     + (" ..." if len(skipped) > 3 else ""))
    return targets, notes


def _concrete(name: str) -> str:
    """A data_source that reaches a registered name (`aime*` → `aime`)."""
    return name[:-1] if name.endswith("*") and len(name) > 1 else name


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


@contextmanager
def _progress(quiet: bool) -> Iterator[Any]:
    """verl's compute_score, counting responses on a stderr bar when stderr is a terminal (a probe
    scores thousands of responses; the sympy bombs alone can take tens of seconds)."""
    from rewards.probe.scoreboard import default_score_fn

    score_fn = default_score_fn()
    if quiet or not sys.stderr.isatty():
        yield score_fn
        return
    from tqdm import tqdm

    with tqdm(unit=" responses", delay=1.0, file=sys.stderr, desc="probing", leave=False) as bar:
        def counted(**kwargs: Any) -> Any:
            try:
                return score_fn(**kwargs)
            finally:
                bar.update(1)

        yield counted
