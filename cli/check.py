"""`rewards check`: the properties every reward must keep, checked against one scorer within a budget.

Runs `rewards.testing.check_scorer` on a registered data_source (built-in, an installed plugin's, or
one a module registers: `--import MODULE`) or on a scorer function (`module:function`). Prints one
line: what passed, or the shrunk counterexample. Exit status 1 on a finding, so it can gate CI.
"""

from __future__ import annotations

import json
import math
from importlib import import_module

from .errors import EXIT_FAILED, CommandError

DEFAULT_BUDGET = 60.0
DEFAULT_EXAMPLES = 2000


def register(sub) -> None:
    from .plugins import add_import_flag

    p = sub.add_parser(
        "check", help="property-test a scorer: right answers paid, wrong and hidden ones not, any input survived",
        description="Check a scorer against the properties every reward must keep (docs/custom-scorers.md, "
                    "\"Property tests\"): right answers placed as models write them are paid, with their "
                    "respellings; a meaning-changing mutation is never paid; an answer only inside the "
                    "thinking, cut off, or among candidates is not paid; no input raises; same keys, "
                    "same verdict twice, bounded time. Exit status 1 with the shrunk counterexample on "
                    "one line when a property fails.")
    p.add_argument("scorer", metavar="SCORER_OR_DATA_SOURCE",
                   help="a registered data_source (lighteval/MATH, openai/gsm8k, yours with --import) or "
                        "a scorer function as module:function")
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET, metavar="SECONDS",
                   help=f"time for the whole check, shared by the properties (default {DEFAULT_BUDGET:g})")
    p.add_argument("--examples", type=int, default=DEFAULT_EXAMPLES, metavar="N",
                   help=f"cases drawn per property at most (default {DEFAULT_EXAMPLES}; the budget usually ends first)")
    p.add_argument("--answer-format", metavar="FORMAT",
                   help="how a response states the answer: boxed, gsm8k, or a template with {answer} "
                        "(\"Answer: ({answer})\"); default: the scorer's registration")
    p.add_argument("--golds", metavar="FAMILIES",
                   help="comma-separated gold families (rewards.testing.golds.FAMILIES, or `choice letters`); "
                        "default: those of the answer format")
    p.add_argument("--no-respellings", dest="respellings", action="store_false",
                   help="the scorer pays the gold as written only: do not ask it to pay respellings")
    p.add_argument("--all-wrappers", action="store_true",
                   help="also place answers in the shapes the built-in scorers do not all meet yet")
    p.add_argument("--search", action="store_true",
                   help="draw fresh random examples (a search) instead of the fixed, reproducible ones")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_import_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        from rewards.testing import ScorerCheckFailed, check_scorer
        from rewards.testing import wrappers
    except ImportError as exc:
        raise CommandError(str(exc)) from None
    from rewards import UnknownDataSourceError

    if not (math.isfinite(args.budget) and args.budget > 0):
        raise CommandError(f"--budget must be a positive number of seconds, not {args.budget}")
    if args.examples < 1:
        raise CommandError("--examples must be at least 1")
    scorer = _scorer(args.scorer)
    try:
        gold = _golds(args.golds) if args.golds else None
        report = check_scorer(scorer, gold=gold, answer_format=args.answer_format, respellings=args.respellings,
                              wrappers=wrappers.ALL if args.all_wrappers else wrappers.SETTLED,
                              max_examples=args.examples, seconds=args.budget, derandomize=not args.search)
    except ScorerCheckFailed as exc:
        if args.json:
            print(json.dumps({"passed": False, "scorer": args.scorer, "finding": str(exc)}, ensure_ascii=False))
        else:
            print(f"FAIL {exc}")
        return EXIT_FAILED
    except UnknownDataSourceError as exc:
        raise CommandError(str(exc)) from None
    except (ValueError, TypeError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps({"passed": True, "scorer": args.scorer, "cases": report.cases,
                          "seconds": round(report.seconds, 1)}))
    else:
        print(f"PASS {report}")
    return 0


def _scorer(text: str):
    """A data_source name, or the function `module:function` names."""
    if ":" not in text or "/" in text.split(":", 1)[0]:
        return text
    module, _, name = text.partition(":")
    try:
        obj = import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise CommandError(f"{text}: {type(exc).__name__}: {exc}") from None
    if not callable(obj):
        raise CommandError(f"{text} is a {type(obj).__name__}, not a scorer function")
    return obj


def _golds(names: str):
    from hypothesis import strategies as st

    from rewards.testing import golds

    wanted = [n.strip() for n in names.split(",") if n.strip()]
    extra = {"choice letters": golds.choice_letters()}
    unknown = [n for n in wanted if n not in golds.FAMILIES and n not in extra]
    if unknown:
        raise CommandError(f"--golds: unknown families {', '.join(map(repr, unknown))}; known: "
                           + ", ".join(sorted([*golds.FAMILIES, *extra])))
    return st.one_of(*(golds.FAMILIES[n] if n in golds.FAMILIES else extra[n] for n in wanted))
