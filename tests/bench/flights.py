"""A first burst of repeated sympy-bound answers, with and without merging identical checks in flight.

    python tests/bench/flights.py --distinct 216 --copies 3 --threads 32 --timeout 10 --runs 2

Each run is a fresh process (a cold pool, as at a training run's first step) that scores
`distinct` sound answers only the worker's symbolic check proves, each `copies` times in a row (a
GRPO group repeating its answer), from `threads` threads at `timeout` seconds. It prints the
verdicts that are not `correct`, the pool's counters (checks killed at their deadline, checks
re-run after their worker died, peak workers) and the wall time; `merge off` replaces the flight key so
every call runs on its own. Runs alternate between the two, so load on the machine hits both.
`PYTHONPATH=/other/checkout` measures that checkout's package.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The package from PYTHONPATH when given (to compare two checkouts), this checkout's tests beside it.
PACKAGE = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)


def sound(n: int) -> list[tuple[str, str, str]]:
    """Distinct sound answers only sympy proves: an integral plus an identity (~0.1 s in a warm worker)."""
    return [("lighteval/MATH", f"\\boxed{{\\int_0^{{{k}}} x^2 dx + \\sin^2(y)+\\cos^2(y)}}",
             f"\\frac{{{k ** 3 + 3}}}{{3}}") for k in range(1, n + 1)]


def burst(distinct: int, copies: int, threads: int, timeout: float, merge: bool) -> dict:
    from concurrent.futures import ThreadPoolExecutor

    from rewards import engine
    from rewards.api import compute_score
    if not merge:
        engine.flight_key = lambda fn, args: None  # every call runs on its own
    rows = [row for row in sound(distinct) for _ in range(copies)]
    start = time.monotonic()
    with ThreadPoolExecutor(threads) as ex:
        verdicts = list(ex.map(lambda row: compute_score(*row, timeout=timeout)["verdict"], rows))
    wall = time.monotonic() - start
    stats = engine.stats()
    import rewards

    return {"package": str(Path(rewards.__file__).parents[1]), "merge": merge, "samples": len(rows), "not_correct": dict(Counter(v for v in verdicts if v != "correct")),
            "worker_calls": stats.calls, "killed_at_budget": stats.timeouts, "rerun_after_a_crash": stats.retried,
            "peak_workers": stats.peak_workers, "wall_s": round(wall, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--distinct", type=int, default=216)
    p.add_argument("--copies", type=int, default=3)
    p.add_argument("--threads", type=int, default=32)
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--runs", type=int, default=2, help="runs of each mode, alternating")
    p.add_argument("--one", choices=("on", "off"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(burst(args.distinct, args.copies, args.threads, args.timeout, args.one == "on")))
        return
    print(f"{os.cpu_count()} cores; {args.distinct} answers x {args.copies} copies, {args.threads} threads, "
          f"timeout {args.timeout:g} s")
    for _ in range(args.runs):
        for mode in ("on", "off"):
            out = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--one", mode], cwd=ROOT,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": PACKAGE})
            print(out.stdout.strip() or out.stderr.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
