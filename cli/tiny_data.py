"""`rewards tiny-data`: write synthetic GSM8K-shaped arithmetic problems as JSON lines.

`rewards prepare` reads the file as GSM8K (data_source `openai/gsm8k`); see `datasources/arithmetic.py`.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from pathlib import Path

from .errors import CommandError

_RANGE = re.compile(r"\s*([1-9])\s*(?:-\s*([1-9])\s*)?")


def register(sub) -> None:
    from datasources.arithmetic import Difficulty

    d = Difficulty()
    p = sub.add_parser(
        "tiny-data", help="write synthetic GSM8K-shaped arithmetic word problems (JSON lines)",
        description="Write N arithmetic word problems with GSM8K's columns (question; answer = a short "
                    "worked solution ending `#### N`) to FILE.jsonl. `rewards prepare FILE.jsonl -o DIR "
                    "--test-size 256` turns them into verl parquet labelled openai/gsm8k.")
    p.add_argument("output", metavar="FILE.jsonl", help="the file to write (replaced when it exists)")
    p.add_argument("-n", "--rows", type=int, default=5000, help="how many problems (default 5000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--max-number", type=int, default=d.max_number,
                   help=f"amounts are drawn from 1..N (default {d.max_number})")
    p.add_argument("--operations", default=f"{d.min_operations}-{d.max_operations}", metavar="K or A-B",
                   help=f"operations per problem, 1 to 3 (default {d.min_operations}-{d.max_operations})")
    p.set_defaults(func=run)


def run(args) -> int:
    from datasources.arithmetic import Difficulty, DifficultyError, make_problems

    from .output import open_output

    if Path(args.output).suffix.lower() not in (".jsonl", ".json"):
        raise CommandError(f"{args.output}: name the file .jsonl (JSON lines, as `rewards prepare` reads them)")
    found = _RANGE.fullmatch(args.operations)
    if found is None:
        raise CommandError(f"--operations {args.operations!r}: give a count (2) or a range (1-3)")
    low, high = int(found.group(1)), int(found.group(2) or found.group(1))
    try:
        rows = make_problems(args.rows, seed=args.seed,
                             difficulty=Difficulty(max_number=args.max_number, min_operations=low,
                                                   max_operations=high))
    except DifficultyError as exc:
        raise CommandError(str(exc)) from None
    with ExitStack() as stack:
        handle = open_output(stack, args.output, flag="FILE")
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{args.output}: {len(rows)} problems (seed {args.seed}, numbers 1-{args.max_number}, "
          f"{low}-{high} operations)")
    return 0
