"""Our MATH benchmark timing for two checkouts of the scorer, interleaved in one run.

    python tests/bench/compare_trees.py OLD_TREE NEW_TREE               # 4 rounds, 2,048 rows a set
    python tests/bench/compare_trees.py OLD_TREE NEW_TREE --rounds 6 -n 1024 --json out.json

The rows are built once, by this checkout, from the sets of tests/bench/math_vs_mathverify.py
(the fidelity suite, the MATH corpus in GRPO groups of 8, the cache-free equal-spellings corpus)
and written to a file, so both trees judge the same rows. Each round starts one fresh process in
each tree (the order alternates: old then new, new then old, ...) for each measure: the process
imports that tree's `rewards`, starts its engine workers on the set's warm-up rows (other golds for
the cache-free set), then times `score_batch` on the set (the training path), or `compute_score`
one response at a time on the MATH corpus (verl's call).
Reported: the median seconds per set and tree over the rounds, and new / old, both wall-clock and
the process's CPU time (the fast path runs in the process; on a machine other jobs load, CPU time
is the steadier figure; it leaves out the engine workers' sympy time). Only our scorer is timed;
Math-Verify's figures are math_vs_mathverify.py's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from math_vs_mathverify import corpus_cases, equal_spellings_cases, fidelity_cases  # noqa: E402

# Run in a fresh process inside one tree: that tree's `rewards`, the shared rows.
TIMER = r"""
import json, sys, time
sys.path.insert(0, '.')
from rewards import Sample, compute_score, score_batch
sets, (how, name) = json.load(open(sys.argv[1])), sys.argv[2].split(":")
def samples(rows):
    return [Sample(r["data_source"], r["response"], r["gold"]) for r in rows]
score_batch(samples(sets["warm"][name]))
rows = sets["timed"][name]
start, cpu = time.perf_counter(), time.process_time()
if how == "batch":
    score_batch(samples(rows))
else:
    for r in rows:
        compute_score(r["data_source"], r["response"], r["gold"])
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def build_sets(n: int) -> dict:
    keep = ("data_source", "response", "gold")
    equal, equal_warm = equal_spellings_cases(n)
    fidelity, corpus = fidelity_cases(), corpus_cases(n)
    timed = {"fidelity": fidelity, "math_corpus": corpus, "equal_spellings": equal}
    warm = {"fidelity": fidelity[:64], "math_corpus": corpus[:64], "equal_spellings": equal_warm}
    strip = lambda rows: [{k: r[k] for k in keep} for r in rows]  # noqa: E731
    return {"timed": {k: strip(v) for k, v in timed.items()}, "warm": {k: strip(v) for k, v in warm.items()}}


MEASURES = ("batch:fidelity", "batch:math_corpus", "batch:equal_spellings", "one_by_one:math_corpus")


def time_tree(tree: Path, sets_file: str, python: str) -> dict[str, float]:
    """Wall and CPU seconds for each measure, each in a fresh process (no cache filled by another
    measure). CPU is this process's threads only: the engine workers' sympy time is not in it."""
    seconds = {}
    for measure in MEASURES:
        done = subprocess.run([python, "-c", TIMER, sets_file, measure], cwd=tree, capture_output=True,
                              text=True, check=True)
        wall, cpu = done.stdout.strip().splitlines()[-1].split()
        seconds[f"{measure} wall"], seconds[f"{measure} cpu"] = float(wall), float(cpu)
    return seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="the checkout measured as before")
    ap.add_argument("new", type=Path, help="the checkout measured as after")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("-n", type=int, default=2048, help="rows of each corpus (default 2048)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter both trees run under")
    ap.add_argument("--json", help="write every round's seconds to this file")
    args = ap.parse_args(argv)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        sets = build_sets(args.n)
        json.dump(sets, f)
    sizes = {k: len(v) for k, v in sets["timed"].items()}
    rounds: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for i in range(args.rounds):
        order = ("old", "new") if i % 2 == 0 else ("new", "old")
        for which in order:
            seconds = time_tree(getattr(args, which), f.name, args.python)
            rounds[which].append(seconds)
            print(f"round {i + 1} {which}: " + ", ".join(f"{k} {v:.3f}s" for k, v in seconds.items()), flush=True)
    Path(f.name).unlink()
    print(f"\nmedian seconds over {args.rounds} rounds (rows: {sizes})")
    print(f"{'measure':30} {'old':>9} {'new':>9} {'new/old':>8}")
    medians = {}
    for key in rounds["old"][0]:
        old, new = (statistics.median(r[key] for r in rounds[w]) for w in ("old", "new"))
        medians[key] = {"old": old, "new": new, "ratio": new / old}
        print(f"{key:30} {old:9.3f} {new:9.3f} {new / old:8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"sizes": sizes, "rounds": rounds, "medians": medians}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
