"""Sound answers on a busy machine: 40 distinct integrals from 1, 3, 8 and 32 threads beside a CPU
burner on every core, and the first call of a fresh process.

    python tests/bench/engine_load.py                      # 1 3 8 32 threads, timeout 5, one burner per core
    python tests/bench/engine_load.py --threads 1 8 --burners 0

Each thread count runs in a fresh process with the default pool (`warm_up()` first, as verl's
reward worker does): 40 distinct right answers that only the worker's symbolic check proves
(integrals of four shapes, 0.2-0.6 s each in a warm worker on a loaded 2-core machine), scored with
`compute_score` from that many threads. Every row should be paid at every count, and more threads
should never be slower than one. `first call` is a fresh process with no warm-up whose very first
call is a slow sound check (the first of its shape: the worker's own warm-up of that shape is paid
inside the check). The burners are plain `while True` processes at this process's priority, one
per core (`--burners`), running for the whole measurement; the machine's load average is printed
before and after. `PYTHONPATH=/other/checkout` measures that checkout's package.
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
PACKAGE = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)
MATH = "lighteval/MATH"


def integrals(n: int = 40) -> list[tuple[str, str, str]]:
    """`n` distinct right answers to integrals, four shapes in turn; each needs the symbolic check."""
    rows = []
    for i in range(n):
        k, shape = 3 + i // 4, i % 4
        if shape == 0:
            rows.append((MATH, f"\\boxed{{\\int_0^{{{k}}} x^2 dx + \\sin^2(y)+\\cos^2(y)}}", f"\\frac{{{k ** 3 + 3}}}{{3}}"))
        elif shape == 1:
            rows.append((MATH, f"\\boxed{{\\int_0^{{{k}}} x e^{{x}} dx}}", f"{k - 1}e^{{{k}}}+1"))
        elif shape == 2:
            rows.append((MATH, f"\\boxed{{\\int_0^{{{k}}} x^2 e^{{x}} dx + \\sin^2(y)+\\cos^2(y)}}",
                         f"({k * k - 2 * k + 2})e^{{{k}}}-1"))
        else:
            rows.append((MATH, f"\\boxed{{\\int_1^{{{k}}} x\\ln(x) dx}}", f"\\frac{{{k * k}\\ln {k}}}{{2}}-\\frac{{{k * k - 1}}}{{4}}"))
    return rows


def run_threads(threads: int, timeout: float) -> dict:
    from concurrent.futures import ThreadPoolExecutor

    from rewards import engine
    from rewards.api import compute_score
    from rewards.registry import list_scorers

    list_scorers()
    engine.warm_up()
    rows = integrals()
    start = time.monotonic()
    with ThreadPoolExecutor(threads) as ex:
        verdicts = list(ex.map(lambda row: compute_score(*row, timeout=timeout)["verdict"], rows))
    wall = time.monotonic() - start
    stats = engine.stats()
    return {"threads": threads, "paid": verdicts.count("correct"), "of": len(rows),
            "not_paid": dict(Counter(v for v in verdicts if v != "correct")), "wall_s": round(wall, 1),
            "killed_at_budget": stats.timeouts, "restarts": stats.restarts, "peak_workers": stats.peak_workers}


def first_call(timeout: float) -> dict:
    from rewards.api import compute_score

    row = (MATH, "\\boxed{\\int_0^{5} x^2 e^{x} dx + \\sin^2(y)+\\cos^2(y)}", "(17)e^{5}-1")
    start = time.monotonic()
    verdict = compute_score(*row, timeout=timeout)["verdict"]
    return {"first_call": verdict, "wall_s": round(time.monotonic() - start, 1)}


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 3, 8, 32])
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--burners", type=int, default=os.cpu_count() or 1, help="CPU burners (default: one per core)")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--first", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(run_threads(args.one, args.timeout)))
        return
    if args.first:
        print(json.dumps(first_call(args.timeout)))
        return
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]
    try:
        time.sleep(2)
        print(f"{os.cpu_count()} cores, {args.burners} CPU burner(s) at nice {os.nice(0)}; load average {load()}; "
              f"timeout {args.timeout:g} s", flush=True)
        results = []
        for flag in [["--one", str(n)] for n in args.threads] + [["--first"]]:
            out = subprocess.run([sys.executable, __file__, "--timeout", str(args.timeout), *flag], cwd=ROOT,
                                 capture_output=True, text=True, env={**os.environ, "PYTHONPATH": PACKAGE})
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr.strip()[-500:]
            print(line, flush=True)
            results.append(json.loads(line) if out.stdout.strip() else {})
        print(f"load average after: {load()}")
    finally:
        for b in burners:
            b.kill()
            b.wait()
    rows = [r for r in results if "threads" in r]
    base = next((r for r in rows if r["threads"] == 1), None)
    print("\n| threads | paid | wall (s) | wall / 1 thread's | killed at budget | restarts | peak workers |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        ratio = f"{r['wall_s'] / base['wall_s']:.2f}" if base and base["wall_s"] else "-"
        print(f"| {r['threads']} | {r['paid']}/{r['of']} | {r['wall_s']} | {ratio} | {r['killed_at_budget']} "
              f"| {r['restarts']} | {r['peak_workers']} |")
    first = next((r for r in results if "first_call" in r), None)
    if first:
        print(f"\nfirst call of a fresh process (no warm-up), a slow sound check: {first['first_call']} "
              f"in {first['wall_s']} s")


if __name__ == "__main__":
    main()
