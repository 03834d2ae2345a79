"""The reward-loop guarantee at default settings (issue 13): concurrency, asyncio, verl's own loop.

    python tests/bench/reward_loop.py            # all three measurements, default settings
    python tests/bench/reward_loop.py --json F   # also keep the numbers

1. The 128-sample mix (tests/helpers/mix.py: 72 fast-path, 48 correct answers that need a worker,
   8 power towers and huge factorials) through `rewards.verl.compute_score` from 32 threads.
2. 240 asyncio tasks through `rewards.verl.compute_score_async`, gathered.
3. 1,024 samples (956 from the benchmark corpus, which the in-process fast path settles, the 48
   worker-bound answers of the mix, 20 pathological = 2%) through verl 0.9.1's real
   `RewardLoopWorker` on CPU, for the `compute_score` and `compute_score_async` entry points: batch
   wall time, the slowest sample, and whether any sound sample got `timeout`. The `-held`
   variants make half of the 20 pathological answers ones the cost rule admits (a 9,000-term
   power sum), which hold a worker until the deadline.

4. Issue 23's held mix (tests/helpers/mix.py `held`: 36 sound sympy-bound answers, 6 hopeless
   ones refused from their text, 6 that hold a worker to the deadline) from 8 and 32 threads,
   gathered asyncio tasks, and inside a Ray actor (`--only held-8 held-32 held-async held-ray`):
   sound answers lost, batch time, the held answers' times.
5. `--verl-scale OUT`: verl's scale on one host (8 reward processes, 1,024 samples a step, 2%
   hopeless, 5% sympy-bound; needs only the package, sympy and numpy): one table, also in OUT.

Each measurement runs in a fresh process with the pool started before the clock; verdicts are
compared with the same samples judged one at a time in that process (verdict cache cleared
between). Every call is timed from its own start; the bound to hold is deadline + 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

DEADLINE = 5.0  # Settings.timeout's default
MARGIN = 0.5


def _forget() -> None:
    from rewards.scorers.boxed import symbolic_verdict_bounded

    symbolic_verdict_bounded.cache_clear()


def _sequential(rows) -> list[str]:
    from rewards.api import compute_score

    _forget()
    return [compute_score(*row)["verdict"] for row in rows]


def _summary(name: str, verdicts: list[str], times: list[float], expected: list[str], wall: float) -> dict:
    from rewards import engine

    return {
        "name": name, "samples": len(verdicts), "wall_s": round(wall, 3),
        "slowest_s": round(max(times), 3), "within_bound": max(times) <= DEADLINE + MARGIN,
        "equal_to_sequential": verdicts == expected,
        "differing": [i for i, (a, b) in enumerate(zip(verdicts, expected)) if a != b],
        "verdicts": dict(Counter(verdicts)), "pool": vars(engine.stats()),
        "sound_lost": sound_lost(verdicts, expected),
    }


def sound_lost(verdicts: list[str], expected: list[str]) -> int:
    """Samples judged alone to a verdict other than `timeout`/`error` that came back `timeout` or
    `error` under load: sound answers that lost their reward to the crowd."""
    failed = ("timeout", "error")
    return sum(1 for got, alone in zip(verdicts, expected) if got in failed and alone not in failed)


def _start_pool() -> None:
    """Start the pool as rewards.verl's first call does: the scorers register first, declaring what
    workers preload (sympy), so the zygote forks ready workers. A bare `engine.warm_up()` before
    any scorer is loaded starts a zygote without sympy; every worker the pool then grows by imports
    it inside a deadline (2-3 s), and sound samples queued behind held ones reached `timeout`."""
    from rewards import engine
    from rewards.registry import list_scorers

    list_scorers()
    engine.warm_up()


def measure_threads() -> dict:
    import rewards.verl as rv
    from rewards import engine
    from tests.helpers.mix import mix

    _start_pool()
    rows = mix()
    _forget()

    def one(row):
        start = time.monotonic()
        out = rv.compute_score(*row)
        return out["verdict"], time.monotonic() - start

    start = time.monotonic()
    with ThreadPoolExecutor(32) as ex:
        results = list(ex.map(one, rows))
    wall = time.monotonic() - start
    return _summary("128 mix, 32 threads, compute_score", [v for v, _ in results],
                    [t for _, t in results], _sequential(rows), wall)


def measure_async() -> dict:
    import rewards.verl as rv
    from rewards import engine
    from tests.helpers.mix import mix

    _start_pool()
    rows = (mix() * 2)[:240]
    _forget()

    async def go():
        async def one(row):
            start = time.monotonic()
            out = await rv.compute_score_async(*row)
            return out["verdict"], time.monotonic() - start

        start = time.monotonic()
        results = await asyncio.gather(*(one(row) for row in rows))
        return results, time.monotonic() - start

    results, wall = asyncio.run(go())
    return _summary("240 tasks, compute_score_async", [v for v, _ in results],
                    [t for _, t in results], _sequential(rows), wall)


def loop_rows(n: int = 1024, share: float = 0.02, held: bool = False):
    """n rows: the benchmark corpus with `share` of them pathological, spread evenly; `held`:
    half of those are answers the cost rule admits, which hold a worker to the deadline."""
    import corpus as corpus_mod

    from tests.helpers.mix import SLOW_ADMITTED, pathological, symbolic
    from tests.helpers.verl_rows import Row

    bad = pathological(round(n * share))
    sound = symbolic()
    if held:
        for j in range(0, len(bad), 2):
            bad[j] = (SLOW_ADMITTED[0], f"The value is \\boxed{{\\sum_{{k=1}}^{{{9000 + j}}} k^{{k}}}}.", "7")
    good = list(corpus_mod.corpus(n - len(bad) - len(sound), seed=0))
    rows, step, every = [], n // max(len(bad), 1), n // len(sound)
    for i in range(n):
        if bad and i % step == step // 2:
            rows.append(Row(*bad.pop()))
        elif sound and i % every == 0:
            rows.append(Row(*sound.pop()))
        else:
            r = good.pop(0) if good else None
            rows.append(Row(r.data_source, r.response, r.ground_truth) if r else Row(*symbolic(1)[0]))
    pathological_at = {i for i, r in enumerate(rows) if r.response.startswith("The value is")}
    return rows, pathological_at


def measure_verl_loop(name: str, held: bool = False) -> dict:
    from hydra import compose, initialize_config_module
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    from rewards import engine
    from tests.helpers.tokenizer import make_tokenizer
    from tests.helpers.verl_rows import make_batch

    tok_dir = make_tokenizer(Path(tempfile.mkdtemp()) / "tok")
    with initialize_config_module(config_module="verl.trainer.config", version_base=None):
        config = compose("ppo_trainer", overrides=[
            "reward.custom_reward_function.path=pkg://rewards.verl",
            f"reward.custom_reward_function.name={name}",
            f"actor_rollout_ref.model.path={tok_dir}"])
    rows, bad = loop_rows(held=held)
    _start_pool()
    from transformers import AutoTokenizer

    data = make_batch(AutoTokenizer.from_pretrained(str(tok_dir)), rows)

    async def go():
        worker = RewardLoopWorker(config)
        start = time.monotonic()

        async def one(i):  # what RewardLoopWorker.compute_score_batch gathers, timed per sample
            out = await worker.compute_score(data[i:i + 1])
            return out, time.monotonic() - start

        results = await asyncio.gather(*(one(i) for i in range(len(rows))))
        wall = time.monotonic() - start
        batch_start = time.monotonic()
        await worker.compute_score_batch(data)  # verl's own batch call, once more, for its wall time
        return results, wall, time.monotonic() - batch_start

    _forget()
    results, wall, batch_wall = asyncio.run(go())
    verdicts = [out["reward_extra_info"]["verdict"] for out, _ in results]
    finish = [t for _, t in results]
    healthy_timeouts = [i for i, v in enumerate(verdicts) if v == "timeout" and i not in bad]
    return {
        "name": f"verl RewardLoopWorker, 1,024 samples (20 pathological{', 10 held' if held else ''}), {name}",
        "samples": len(rows), "wall_s": round(wall, 3), "batch_call_wall_s": round(batch_wall, 3),
        "slowest_finish_s": round(max(finish), 3),
        "slowest_healthy_finish_s": round(max(t for i, t in enumerate(finish) if i not in bad), 3),
        "healthy_timeouts": healthy_timeouts, "sound_lost": len(healthy_timeouts),
        "verdicts": dict(Counter(verdicts)),
        "pool": vars(engine.stats()),
    }


def _mix_summary(name: str, rows, results, wall: float) -> dict:
    sound = [t for (_, t), row in zip(results, rows) if row[3]]
    held = [t for (_, t), row in zip(results, rows) if not row[3]]
    return {"name": name, "samples": len(rows), "wall_s": round(wall, 3),
            "sound_lost": sum(1 for (v, _), row in zip(results, rows) if row[3] and v != "correct"),
            "sound_answers": len(sound), "slowest_sound_s": round(max(sound), 3),
            "held_slowest_s": round(max(held), 3), "held_fastest_s": round(min(held), 3)}


def measure_held_mix_threads(threads: int) -> dict:
    import rewards.verl as rv
    from tests.helpers.mix import held

    _start_pool()
    rows = held()
    _forget()

    def one(row):
        start = time.monotonic()
        return rv.compute_score(*row[:3])["verdict"], time.monotonic() - start

    start = time.monotonic()
    with ThreadPoolExecutor(threads) as ex:
        results = list(ex.map(one, rows))
    return _mix_summary(f"held mix, {threads} threads, compute_score", rows, results, time.monotonic() - start)


def measure_held_mix_async() -> dict:
    import rewards.verl as rv
    from tests.helpers.mix import held

    _start_pool()
    rows = held()
    _forget()

    async def go():
        async def one(row):
            start = time.monotonic()
            return (await rv.compute_score_async(*row[:3]))["verdict"], time.monotonic() - start
        start = time.monotonic()
        results = await asyncio.gather(*(one(row) for row in rows))
        return results, time.monotonic() - start

    results, wall = asyncio.run(go())
    return _mix_summary("held mix, gathered, compute_score_async", rows, results, wall)


def measure_held_mix_ray() -> dict:
    """The mix inside a Ray actor, called the way verl's reward loop calls a sync function
    (`run_in_executor` on the actor's event loop). Each call is timed from its start in an
    executor thread: the time a row waits for one of the executor's threads is the caller's queue,
    not the call's (it is in the batch's wall time)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})

    @ray.remote
    class Scorer:
        async def run(self):
            import rewards.verl as rv
            from tests.helpers.mix import held

            _start_pool()
            rows = held()
            loop = asyncio.get_running_loop()

            def timed(row):
                start = time.monotonic()
                return rv.compute_score(*row[:3])["verdict"], time.monotonic() - start

            async def one(row):
                return await loop.run_in_executor(None, timed, row)

            start = time.monotonic()
            results = await asyncio.gather(*(one(row) for row in rows))
            return _mix_summary("held mix, inside a Ray actor, compute_score", rows, results,
                                time.monotonic() - start)

    try:
        return ray.get(Scorer.remote().run.remote())
    finally:
        ray.shutdown()


def scale_rows(n: int, hopeless: float, sympy_bound: float, seed: int) -> list[tuple[str, str, str, bool]]:
    """n rows of (data_source, response, gold, sound): `hopeless` of them hold a worker to the
    deadline (a 9,000-term power sum the cost rule admits), `sympy_bound` need the worker's check,
    the rest the fast path settles; spread evenly, shifted by `seed` per reward process."""
    from tests.helpers.mix import fast, symbolic

    held = {round((k + 0.5) * n / h) for h in [round(n * hopeless)] if h for k in range(h)}
    checks = symbolic(round(n * sympy_bound))
    every = n // max(len(checks), 1)
    plain = fast(72)
    rows = []
    for i in range(n):
        if i in held:
            rows.append((MATH_SOURCE, f"\\boxed{{\\sum_{{k=1}}^{{{9000 + seed * n + i}}} k^{{k}}}}", "7", False))
        elif checks and i % every == 1:
            rows.append((*checks.pop(), True))
        else:
            rows.append((*plain[(i + seed) % len(plain)], True))
    return rows


MATH_SOURCE = "lighteval/MATH"


def _scale_process(args: tuple) -> dict:
    """One reward process: start the pool as rewards.verl does, wait for the others, then score
    its share of the step from an executor of min(32, CPUs + 4) threads (verl's default)."""
    index, share, hopeless, sympy_bound, start_at = args
    import os
    from concurrent.futures import ThreadPoolExecutor

    import rewards.verl as rv

    _start_pool()
    rows = scale_rows(share, hopeless, sympy_bound, seed=index)
    while time.time() < start_at:
        time.sleep(0.01)

    def one(row):
        begin = time.monotonic()
        out = rv.compute_score(row[0], row[1], row[2])
        return out["verdict"], time.monotonic() - begin

    begin = time.monotonic()
    with ThreadPoolExecutor(min(32, (os.cpu_count() or 1) + 4)) as ex:
        results = list(ex.map(one, rows))
    step = time.monotonic() - begin
    lost = sum(1 for (v, _), row in zip(results, rows) if row[3] and v in ("timeout", "error"))
    held_times = [t for (_, t), row in zip(results, rows) if not row[3]]
    return {"lost": lost, "slowest": max(t for _, t in results), "step": step,
            "held_slowest": max(held_times, default=0.0), "sound": sum(r[3] for r in rows)}


def measure_verl_scale(processes: int = 8, samples: int = 1024, hopeless: float = 0.02,
                       sympy_bound: float = 0.05) -> dict:
    """verl's scale on one host: `processes` reward processes (verl's reward.num_workers), one
    step of `samples` split between them, each scoring through rewards.verl.compute_score from
    its own executor threads, all starting together. Needs only the package, sympy and numpy."""
    import multiprocessing

    share = samples // processes
    start_at = time.time() + 60.0  # every process has its pool up by then
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        parts = pool.map(_scale_process, [(k, share, hopeless, sympy_bound, start_at) for k in range(processes)])
    return {"name": f"verl scale: {processes} reward processes, {share * processes} samples a step, "
                    f"{hopeless:.0%} hopeless, {sympy_bound:.0%} sympy-bound",
            "sound_answers": sum(p["sound"] for p in parts), "sound_lost": sum(p["lost"] for p in parts),
            "slowest_call_s": round(max(p["slowest"] for p in parts), 3),
            "held_slowest_s": round(max(p["held_slowest"] for p in parts), 3),
            "step_s": round(max(p["step"] for p in parts), 3), "deadline_s": DEADLINE}


def print_scale_table(result: dict, out: str) -> None:
    lines = [result["name"], "",
             "| sound answers | sound answers lost | slowest call (s) | slowest held call (s) | step time (s) |",
             "|---|---|---|---|---|",
             f"| {result['sound_answers']} | {result['sound_lost']} | {result['slowest_call_s']} | "
             f"{result['held_slowest_s']} | {result['step_s']} |"]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path(out).write_text(text + "\n" + json.dumps(result) + "\n")


MEASURES = {"held-8": lambda: measure_held_mix_threads(8), "held-32": lambda: measure_held_mix_threads(32),
            "held-async": measure_held_mix_async, "held-ray": measure_held_mix_ray,
            "threads": measure_threads, "async": measure_async,
            "loop-sync": lambda: measure_verl_loop("compute_score"),
            "loop-async": lambda: measure_verl_loop("compute_score_async"),
            "loop-sync-held": lambda: measure_verl_loop("compute_score", held=True),
            "loop-async-held": lambda: measure_verl_loop("compute_score_async", held=True)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--measure", choices=sorted(MEASURES), help="run one measurement in this process")
    p.add_argument("--only", nargs="*", choices=sorted(MEASURES), help="which measurements (default all)")
    p.add_argument("--json", help="write all results here")
    p.add_argument("--verl-scale", metavar="OUT", help="only the verl-scale step (8 reward processes, "
                   "1,024 samples, 2%% hopeless, 5%% sympy-bound): print its table and write it to OUT")
    args = p.parse_args(argv)
    if args.verl_scale:
        print_scale_table(measure_verl_scale(), args.verl_scale)
        return 0
    if args.measure:
        print(json.dumps(MEASURES[args.measure]()))
        return 0
    results = []
    for name in args.only or MEASURES:
        out = subprocess.run([sys.executable, __file__, "--measure", name], capture_output=True, text=True)
        if out.returncode:
            print(out.stderr[-3000:], file=sys.stderr)
            return out.returncode
        result = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(result)
        shown = {k: v for k, v in result.items() if k not in ("pool", "name")}
        print(f"{result['name']}: {json.dumps(shown)}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
