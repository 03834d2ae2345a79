"""The soak: a long realistic mix scored single-threaded, then from 8 and 32 threads and as asyncio
tasks, as verl's reward worker calls us; every verdict must equal the single-threaded run's.

    python tests/bench/soak.py --calls 300000                # the full soak (hours on 2 cores)
    python tests/bench/soak.py --calls 8192                  # a scaled one

The mix, per round of 256 calls: 208 answers the in-process fast path settles (GSM8K and MATH,
right and wrong, new every round), 32 copies of 4 sympy-bound answers repeated as a GRPO group
repeats them (binomials, sums; new every round for 100 rounds), 8 integrals that only the symbolic
check proves (0.2-0.6 s each; 40 distinct, a round's 8 come back five rounds later, when the
verdict cache may answer them), 7 towers and factorials refused from their text, and, every 8th
round, one answer that holds a worker for its whole budget. Each mode runs in
a fresh process with the default pool after `warm_up()`; asyncio gathers windows of 1,024 tasks.
It prints each mode's wall time, verdict counts and pool counters, then the flips: rows whose
verdict differs from the single-threaded run's (should be 0), and how many of them changed the
reward (a `wrong` that became `timeout` is 0 either way).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
PACKAGE = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)

from tests.bench.engine_load import integrals  # noqa: E402
from tests.helpers.mix import GSM8K, MATH, pathological  # noqa: E402

ROUND = 256


def one_round(r: int) -> list[tuple[str, str, str]]:
    rows = []
    for k in range(208):
        n = r * 1000 + k
        if k % 4 == 0:
            rows.append((GSM8K, f"She has {n} apples and buys {n + 1} more. #### {2 * n + 1}", f"#### {2 * n + 1}"))
        elif k % 4 == 1:
            rows.append((GSM8K, f"So the total is #### {n}", f"#### {n + 1}"))
        elif k % 4 == 2:
            rows.append((MATH, f"So the answer is $\\boxed{{\\frac{{{n}}}{{{n + 1}}}}}$.", f"\\frac{{{n}}}{{{n + 1}}}"))
        else:
            rows.append((MATH, f"Thus \\boxed{{{n + 3}}}.", f"{n + 2}"))
    group = []
    for j in range(4):
        m = 5 + (r * 4 + j) % 400
        group.append((MATH, f"We get $\\boxed{{\\binom{{{m}}}{{2}}}}$.", str(m * (m - 1) // 2)) if j % 2 == 0 else
                     (MATH, f"\\boxed{{\\sum_{{i=1}}^{{{m}}} i}}", str(m * (m + 1) // 2)))
    rows += group * 8
    rows += integrals()[8 * (r % 5):8 * (r % 5) + 8]
    rows += pathological(7)
    rows.append((MATH, f"\\boxed{{\\sum_{{k=1}}^{{{9000 + r}}} k^{{k}}}}", "7") if r % 8 == 0 else
                (GSM8K, "#### 1", "1"))
    return rows


def mix(calls: int) -> list[tuple[str, str, str]]:
    rows = []
    r = 0
    while len(rows) < calls:
        rows += one_round(r)
        r += 1
    return rows[:calls]


def run(mode: str, calls: int, timeout: float) -> dict:
    from rewards import engine
    from rewards.api import compute_score, compute_score_async
    from rewards.registry import list_scorers

    list_scorers()
    engine.warm_up()
    rows = mix(calls)
    start = time.monotonic()
    if mode == "single":
        verdicts = [compute_score(*row, timeout=timeout)["verdict"] for row in rows]
    elif mode == "asyncio":
        async def go():
            out = []
            for i in range(0, len(rows), 1024):
                outs = await asyncio.gather(*(compute_score_async(*row, timeout=timeout) for row in rows[i:i + 1024]))
                out += [o["verdict"] for o in outs]
            return out
        verdicts = asyncio.run(go())
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(int(mode)) as ex:
            verdicts = list(ex.map(lambda row: compute_score(*row, timeout=timeout)["verdict"], rows))
    stats = engine.stats()
    return {"mode": mode, "calls": len(rows), "wall_s": round(time.monotonic() - start, 1),
            "verdicts": dict(Counter(verdicts)), "worker_calls": stats.calls, "killed_at_budget": stats.timeouts,
            "rerun_after_a_crash": stats.retried, "restarts": stats.restarts, "peak_workers": stats.peak_workers,
            "_all": verdicts}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=300_000)
    p.add_argument("--modes", nargs="+", default=["8", "32", "asyncio"])
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        Path(args.out).write_text(json.dumps(run(args.one, args.calls, args.timeout)))
        return
    rows = mix(args.calls)
    print(f"{os.cpu_count()} cores; {args.calls} calls ({sum('k^{k}' in r[1] for r in rows)} held), "
          f"timeout {args.timeout:g} s", flush=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ["single", *args.modes]:
            out = Path(tmp) / f"{mode}.json"
            done = subprocess.run([sys.executable, __file__, "--calls", str(args.calls), "--timeout", str(args.timeout),
                                   "--one", mode, "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": PACKAGE})
            if not out.exists():
                print(mode, "failed:", done.stderr[-1000:])
                continue
            results[mode] = json.loads(out.read_text())
            print(json.dumps({k: v for k, v in results[mode].items() if k != "_all"}), flush=True)
    reference = results.get("single", {}).get("_all")
    for mode, result in results.items():
        if mode == "single" or reference is None:
            continue
        flips = [(i, a, b) for i, (a, b) in enumerate(zip(reference, result["_all"])) if a != b]
        paid = sum("correct" in (a, b) for _, a, b in flips)
        print(f"{mode}: {len(flips)} flip(s) against the single-threaded run, {paid} of them changing the reward"
              + "".join(f"\n  row {i}: {a} -> {b}  {rows[i][1][:70]!r}" for i, a, b in flips[:10]))


if __name__ == "__main__":
    main()
