"""Our scorer, Math-Verify and verl's default_compute_score on one corpus, side by side.

    python tests/bench/run.py                 # 8,192 rows (1,024 prompts x 8), 2 workers
    python tests/bench/run.py -n 2048 --quick # a shorter run (no Math-Verify on GSM8K rows)

Every measurement runs in a fresh Python process, so no scorer profits from caches filled by an
earlier one (ours parses each distinct gold once; that is measured, not inherited). Prints, per
scorer and corpus part: throughput, p50/p99/max latency per sample, and agreement with the labels
(`acc == label`); then ours as a batch (`score_batch`, the training path), the pathological inputs
against each scorer (each run in a killable worker with a memory cap, so a hang cannot take the
machine down), and where our time goes (the slowest answer forms). `--json FILE` keeps all numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import corpus as corpus_mod  # noqa: E402


# -- measurements (each runs in its own process: `run.py --measure NAME ...`) ------------------

def _load(path: str, kind: str | None = None) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r for r in rows if kind is None or r["kind"] == kind]


def measure_sequential(path: str, scorer: str, kind: str | None, timeout: float, workers: int) -> dict:
    """One sample at a time, as verl's reward loop calls a reward function; latency per sample."""
    rows = _load(path, kind)
    if scorer == "ours":
        from rewards import compute_score, engine
        engine.configure(workers=workers)
        engine.warm_up()

        def score(r):
            out = compute_score(r["data_source"], r["response"], r["ground_truth"], timeout=timeout)
            return out["acc"], out["verdict"]
    elif scorer == "math_verify":
        from baselines import math_verify_score
        math_verify_score("\\boxed{1}", "1")  # imports outside the timed loop

        def score(r):
            return math_verify_score(r["response"], r["ground_truth"]), ""
    elif scorer == "verl":
        from baselines import verl_score
        verl_score("openai/gsm8k", "#### 1", "1"), verl_score("lighteval/MATH", "\\boxed{1}", "1")

        def score(r):
            return verl_score(r["data_source"], r["response"], r["ground_truth"]), ""
    else:
        raise SystemExit(f"unknown scorer {scorer}")
    latencies, accs, verdicts = [], [], []
    start = time.perf_counter()
    for r in rows:
        t = time.perf_counter()
        acc, verdict = score(r)
        latencies.append(time.perf_counter() - t)
        accs.append(float(acc))
        verdicts.append(verdict)
    wall = time.perf_counter() - start
    out = {"wall": wall, "latencies": latencies, "accs": accs, "verdicts": verdicts}
    if scorer == "ours":
        from rewards import engine
        out["worker_calls"] = engine.stats().calls
    return out


def measure_batch(path: str, kind: str | None, timeout: float, workers: int) -> dict:
    """`score_batch` over the whole corpus: the wall time of one GRPO step's scoring."""
    from rewards import Sample, engine, score_batch

    rows = _load(path, kind)
    samples = [Sample(r["data_source"], r["response"], r["ground_truth"]) for r in rows]
    import psutil

    engine.configure(workers=workers)
    t = time.perf_counter()
    engine.warm_up()
    start_up = time.perf_counter() - t
    pool = [psutil.Process(pid) for pid in engine._get_pool().pids()]
    worker_cpu = sum(sum(p.cpu_times()[:2]) for p in pool)
    cpu, t = time.process_time(), time.perf_counter()
    results = score_batch(samples, timeout=timeout)
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    worker_cpu = sum(sum(p.cpu_times()[:2]) for p in pool) - worker_cpu
    return {"wall": wall, "cpu": cpu, "worker_cpu": worker_cpu, "start_up": start_up,
            "accs": [r.acc for r in results], "verdicts": [r.verdict.value for r in results],
            "worker_calls": engine.stats().calls}


def measure_pathological(timeout: float, guard: float) -> dict:
    """Each pathological row against each scorer. Ours runs as in training (its own deadline);
    the baselines run inside our engine (a killable worker, memory-capped) with `guard` seconds."""
    from baselines import math_verify_score, verl_score
    from rewards import compute_score, engine
    from rewards.engine import WorkerCrashed, WorkerError, WorkerTimeout, call_bounded

    engine.configure(workers=2)  # our shipped defaults: 1 GiB cap per worker
    engine.warm_up()
    report = []
    for row in corpus_mod.pathological():
        t = time.perf_counter()
        out = compute_score(row.data_source, row.response, row.ground_truth, timeout=timeout)
        report.append({"form": row.form, "ours": {"seconds": time.perf_counter() - t,
                                                  "outcome": out["verdict"], "acc": out["acc"]}})
    # The baselines import torch (verl) and sympy: preload them so imports are not timed, and
    # give them a 2 GiB cap.
    engine.configure(workers=2, memory_mb=2048,
                     preload=engine.get_config().preload + ("baselines", "math_verify", "verl.utils.reward_score"))
    for row, entry in zip(corpus_mod.pathological(), report):
        for name, fn, args in (("math_verify", math_verify_score, (row.response, row.ground_truth)),
                               ("verl", verl_score, (row.data_source, row.response, row.ground_truth))):
            engine.warm_up()
            t = time.perf_counter()
            try:
                outcome = f"score {call_bounded(fn, *args, timeout=guard)}"
            except WorkerTimeout:
                outcome = f"still running after {guard:g} s (killed)"
            except WorkerCrashed as exc:
                outcome = f"crashed: {exc}"
            except WorkerError as exc:
                outcome = f"raised {exc.type_name}"
            entry[name] = {"seconds": time.perf_counter() - t, "outcome": outcome}
    return {"rows": report}


# -- orchestration -------------------------------------------------------------------------------

def _child(*args: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"measurement {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}" if seconds < 1 else f"{seconds * 1000:.0f}"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _agreement(accs, labels) -> float:
    return sum((a >= 1.0) == bool(l) for a, l in zip(accs, labels)) / max(1, len(labels))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=8192, help="corpus rows (default 8192)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=5.0, help="our per-sample deadline (default 5 s)")
    p.add_argument("--guard", type=float, default=20.0, help="seconds the baselines get per pathological row")
    p.add_argument("--quick", action="store_true", help="Math-Verify on the MATH part only")
    p.add_argument("--repeat", type=int, default=3, help="batch runs per part; the fastest is reported (shared machines)")
    p.add_argument("--json", help="write every number to this file")
    p.add_argument("--measure", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.measure:
        return _measure(args.measure)

    tmp = tempfile.mkdtemp(prefix="rewards-bench-")
    path = os.path.join(tmp, "corpus.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for row in corpus_mod.corpus(args.n, args.seed):
            f.write(row.to_json() + "\n")
    rows = _load(path)
    labels = {kind: [r["label"] for r in rows if kind in (None, r["kind"])] for kind in (None, "math", "gsm8k")}
    print(f"corpus: {len(rows)} rows ({Counter(r['kind'] for r in rows)}), seed {args.seed}, "
          f"{os.cpu_count()} CPUs, ours with {args.workers} workers and a {args.timeout:g} s deadline\n")

    results: dict = {"n": len(rows), "workers": args.workers, "timeout": args.timeout, "runs": {}}
    table = []
    plan = [("ours", "math"), ("math_verify", "math"), ("verl", "math"),
            ("ours", "gsm8k"), ("verl", "gsm8k")] + ([] if args.quick else [("math_verify", "gsm8k")])
    for scorer, kind in plan:
        run = _child("seq", path, scorer, kind, str(args.timeout), str(args.workers))
        lat = run["latencies"]
        line = {"scorer": scorer, "part": kind, "n": len(lat), "per_s": len(lat) / run["wall"],
                "p50": statistics.median(lat), "p99": _pct(lat, 0.99), "max": max(lat),
                "agreement": _agreement(run["accs"], labels[kind]), "worker_calls": run.get("worker_calls")}
        table.append(line)
        results["runs"][f"seq/{scorer}/{kind}"] = {**line, "verdicts": dict(Counter(run["verdicts"]))}
        if scorer == "ours":
            results[f"slow_forms/{kind}"] = _slow_forms(path, kind, lat, run["accs"])
        print(f"  measured {scorer:12s} {kind:6s}: {line['per_s']:9.0f}/s  agreement {line['agreement']:.4f}", flush=True)

    print("\nOne sample at a time (verl's reward-loop call pattern):")
    print(f"{'scorer':12s} {'part':6s} {'rows':>5s} {'samples/s':>10s} {'p50 ms':>8s} {'p99 ms':>8s} "
          f"{'max ms':>8s} {'agreement':>9s}")
    for line in table:
        print(f"{line['scorer']:12s} {line['part']:6s} {line['n']:5d} {line['per_s']:10.0f} {_ms(line['p50']):>8s} "
              f"{_ms(line['p99']):>8s} {_ms(line['max']):>8s} {line['agreement']:9.4f}")
    ours = next(l for l in table if l["scorer"] == "ours" and l["part"] == "math")
    mv = next(l for l in table if l["scorer"] == "math_verify" and l["part"] == "math")
    print(f"\nMATH part: ours {ours['per_s'] / mv['per_s']:.1f}x Math-Verify's throughput, agreement "
          f"{ours['agreement']:.4f} vs {mv['agreement']:.4f}; {ours['worker_calls']} of {ours['n']} went to a worker")

    print(f"\nBatch (score_batch, {args.workers} workers), fresh process each, best of {args.repeat}:")
    for kind in (None, "math"):
        runs = [_child("batch", path, str(kind), str(args.timeout), str(args.workers)) for _ in range(args.repeat)]
        run = min(runs, key=lambda r: r["wall"])
        walls = sorted(r["wall"] for r in runs)
        n = len(run["accs"])
        label = "all rows" if kind is None else "MATH part"
        print(f"  {label:9s}: {n} answers in {run['wall']:.3f} s wall (runs: {', '.join(f'{w:.2f}' for w in walls)}; "
              f"{n / run['wall']:.0f}/s; pool start-up {run['start_up']:.2f} s before), CPU {run['cpu']:.2f} s "
              f"here + {run['worker_cpu']:.2f} s in workers, agreement {_agreement(run['accs'], labels[kind]):.4f}, "
              f"{run['worker_calls']} worker calls")
        results["runs"][f"batch/{label}"] = {"n": n, "walls": walls, "start_up": run["start_up"],
                                             "cpu": run["cpu"], "worker_cpu": run["worker_cpu"],
                                             "agreement": _agreement(run["accs"], labels[kind]),
                                             "worker_calls": run["worker_calls"]}

    print(f"\nPathological inputs (ours: deadline {args.timeout:g} s; baselines: run in a capped worker, "
          f"killed after {args.guard:g} s):")
    patho = _child("patho", str(args.timeout), str(args.guard))
    results["pathological"] = patho["rows"]
    for entry in patho["rows"]:
        print(f"  {entry['form']:24s} ours {entry['ours']['seconds']:6.2f} s {entry['ours']['outcome']:16s}"
              f" | math_verify {entry['math_verify']['seconds']:6.2f} s {entry['math_verify']['outcome']:34s}"
              f" | verl {entry['verl']['seconds']:6.2f} s {entry['verl']['outcome']}")
    worst = max(e["ours"]["seconds"] for e in patho["rows"])
    print(f"  ours, slowest pathological row: {worst:.2f} s (deadline {args.timeout:g} s + 0.5 s = "
          f"{args.timeout + 0.5:g} s)")

    print("\nOurs, slowest answer forms (mean / max ms, share of rows, agreement):")
    for kind in ("math", "gsm8k"):
        for form, stats in results[f"slow_forms/{kind}"][:6]:
            print(f"  {kind:6s} {form:32s} mean {stats['mean_ms']:8.2f}  max {stats['max_ms']:8.1f}  "
                  f"rows {stats['n']:5d}  agreement {stats['agreement']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


def _slow_forms(path: str, kind: str, latencies: list[float], accs: list[float]) -> list:
    rows = _load(path, kind)
    groups = defaultdict(list)
    for r, t, a in zip(rows, latencies, accs):
        groups[r["form"]].append((t, (a >= 1.0) == r["label"]))
    stats = {form: {"n": len(v), "mean_ms": 1000 * sum(t for t, _ in v) / len(v),
                    "max_ms": 1000 * max(t for t, _ in v), "agreement": sum(ok for _, ok in v) / len(v)}
             for form, v in groups.items()}
    return sorted(stats.items(), key=lambda kv: -kv[1]["mean_ms"] * kv[1]["n"])


def _measure(spec: list[str]) -> int:
    what, *rest = spec
    if what == "seq":
        path, scorer, kind, timeout, workers = rest
        out = measure_sequential(path, scorer, None if kind == "None" else kind, float(timeout), int(workers))
    elif what == "batch":
        path, kind, timeout, workers = rest
        out = measure_batch(path, None if kind == "None" else kind, float(timeout), int(workers))
    elif what == "patho":
        timeout, guard = rest
        out = measure_pathological(float(timeout), float(guard))
    else:
        raise SystemExit(f"unknown measurement {what}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
