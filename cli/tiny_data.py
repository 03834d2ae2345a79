"""`rewards tiny-data`: write synthetic problems to rehearse a run with: GSM8K-shaped arithmetic (JSON
lines), or with `--images` geometry3k-shaped diagrams (parquet, as the hub stores them).

`rewards prepare` reads the first as GSM8K (data_source `openai/gsm8k`, see `datasources/arithmetic.py`)
and the second as geometry3k (data_source `hiyouga/geometry3k`, see `datasources/diagrams.py`).
"""

from __future__ import annotations

import json
import os
import re
from contextlib import ExitStack
from pathlib import Path

from .errors import CommandError

_RANGE = re.compile(r"\s*([1-9])\s*(?:-\s*([1-9])\s*)?")


def register(sub) -> None:
    from datasources.arithmetic import Difficulty

    d = Difficulty()
    p = sub.add_parser(
        "tiny-data", help="write synthetic GSM8K-shaped word problems (JSON lines) or geometry3k-shaped "
                          "diagrams (--images, parquet)",
        description="Write N arithmetic word problems with GSM8K's columns (question; answer = a short "
                    "worked solution ending `#### N`) to FILE.jsonl, or with --images N labelled diagrams "
                    "with geometry3k's columns (images, problem starting `<image>`, answer) to FILE.parquet. "
                    "`rewards prepare FILE -o DIR --test-size 256` turns either into verl parquet "
                    "(labelled openai/gsm8k or hiyouga/geometry3k).")
    p.add_argument("output", metavar="FILE", help="the file to write, .jsonl (.parquet with --images); "
                                                  "replaced when it exists")
    p.add_argument("-n", "--rows", type=int, default=5000, help="how many problems (default 5000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--images", action="store_true",
                   help="geometry3k-shaped rows: a 224-pixel diagram each (right triangles, triangles, circles, "
                        "rectangles with their measures drawn), a question about it and its answer")
    p.add_argument("--max-number", type=int,
                   help=f"arithmetic: amounts are drawn from 1..N (default {d.max_number})")
    p.add_argument("--operations", metavar="K or A-B",
                   help=f"arithmetic: operations per problem, 1 to 3 (default {d.min_operations}-{d.max_operations})")
    p.set_defaults(func=run)


def run(args) -> int:
    return _diagrams(args) if args.images else _arithmetic(args)


def _arithmetic(args) -> int:
    from datasources.arithmetic import Difficulty, DifficultyError, make_problems

    from .output import open_output

    if Path(args.output).suffix.lower() not in (".jsonl", ".json"):
        raise CommandError(f"{args.output}: name the file .jsonl (JSON lines, as `rewards prepare` reads them)")
    d = Difficulty()
    max_number = d.max_number if args.max_number is None else args.max_number
    found = _RANGE.fullmatch(args.operations or f"{d.min_operations}-{d.max_operations}")
    if found is None:
        raise CommandError(f"--operations {args.operations!r}: give a count (2) or a range (1-3)")
    low, high = int(found.group(1)), int(found.group(2) or found.group(1))
    try:
        rows = make_problems(args.rows, seed=args.seed,
                             difficulty=Difficulty(max_number=max_number, min_operations=low, max_operations=high))
    except DifficultyError as exc:
        raise CommandError(str(exc)) from None
    with ExitStack() as stack:
        handle = open_output(stack, args.output, flag="FILE")
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{args.output}: {len(rows)} problems (seed {args.seed}, numbers 1-{max_number}, "
          f"{low}-{high} operations)")
    return 0


def _diagrams(args) -> int:
    """Rows in the hub's own features (a list of images), written whole or not at all."""
    from datasources.diagrams import DiagramError, make_problems

    target = Path(args.output).expanduser()
    if target.suffix.lower() != ".parquet":
        raise CommandError(f"{args.output}: name the file .parquet (the images are stored as PNG bytes, as "
                           f"hiyouga/geometry3k stores them)")
    for value, flag in ((args.max_number, "--max-number"), (args.operations, "--operations")):
        if value is not None:
            raise CommandError(f"{flag} sets the arithmetic problems; --images draws diagrams and takes only "
                               f"-n and --seed")
    if target.is_dir() or not target.parent.is_dir():
        raise CommandError(f"{args.output}: " + ("is a folder; name a file" if target.is_dir()
                                                 else f"the folder {target.parent} does not exist"))
    try:
        rows = make_problems(args.rows, seed=args.seed)
    except DiagramError as exc:
        raise CommandError(str(exc)) from None
    import datasets

    image_list = datasets.List(datasets.Image()) if hasattr(datasets, "List") else datasets.Sequence(datasets.Image())
    features = datasets.Features({"images": image_list, "problem": datasets.Value("string"),
                                  "answer": datasets.Value("string")})
    table = {name: [row[name] for row in rows] for name in ("images", "problem", "answer")}
    partial = target.with_name(f".{target.name}.tmp")
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()   # one line says what was written
    try:
        datasets.Dataset.from_dict(table, features=features).to_parquet(str(partial))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
        if bars:
            datasets.enable_progress_bars()
    print(f"{args.output}: {len(rows)} diagram problems (seed {args.seed}, geometry3k's columns)")
    return 0
