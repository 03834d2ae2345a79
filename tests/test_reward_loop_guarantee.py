"""Issue 13's guarantee under the conditions verl creates: many concurrent callers, asyncio tasks,
answers that would hold a worker for its whole deadline, and a caller killed with SIGKILL.

Budgets here are small (3 s) so the suite stays quick; tests/bench/reward_loop.py measures the
same mix at the default 5 s. The tests assert what was paid, never how long a call took: on a
loaded machine the wall time is the machine's, the verdict must not be.
"""

import asyncio
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import rewards.verl as rv
from rewards import engine
from rewards.api import compute_score
from tests.helpers.mix import SLOW_ADMITTED, mix, symbolic

DEADLINE = 3.0


@pytest.fixture(scope="module", autouse=True)
def default_pool():
    from rewards.registry import list_scorers

    list_scorers()  # the MATH scorer declares its preload, so the zygote forks workers with sympy loaded
    engine.configure(workers=2, max_workers=None, memory_mb=1024, inline=False)
    engine.warm_up()
    yield
    engine.shutdown()


def forget_verdicts():
    """No verdict cached from an earlier run may make a later run cheaper than it is."""
    from rewards.scorers.boxed import symbolic_verdict_bounded

    symbolic_verdict_bounded.cache_clear()


def sequential(rows, deadline=DEADLINE):
    forget_verdicts()
    return [compute_score(*row, timeout=deadline)["verdict"] for row in rows]


def threaded(rows, threads=32, deadline=DEADLINE):
    forget_verdicts()

    def one(row):
        start = time.monotonic()
        out = rv.compute_score(*row, timeout=deadline)
        return out["verdict"], time.monotonic() - start

    with ThreadPoolExecutor(threads) as ex:
        return list(ex.map(one, rows))


def gathered(rows, deadline=DEADLINE):
    forget_verdicts()

    async def go():
        async def one(row):
            start = time.monotonic()
            out = await rv.compute_score_async(*row, timeout=deadline)
            return out["verdict"], time.monotonic() - start

        return await asyncio.gather(*(one(row) for row in rows))

    return asyncio.run(go())


def test_the_mix_from_32_threads_keeps_every_verdict():
    rows = mix()
    concurrent = threaded(rows)
    assert [v for v, _ in concurrent] == sequential(rows)
    assert [v for v, _ in concurrent].count("timeout") == 8  # the towers and factorials, no other


def test_240_async_tasks_keep_every_verdict():
    rows = (mix() * 2)[:240]
    before = engine.stats()
    results = gathered(rows)
    assert [v for v, _ in results] == sequential(rows)
    assert engine.stats().calls > before.calls  # the symbolic checks really went to workers


def test_async_tasks_park_no_threads():
    """While 48 symbolic checks are awaited, the default executor gains no waiting threads."""
    rows = symbolic()
    forget_verdicts()

    async def go():
        before = threading_count()
        task = asyncio.gather(*(rv.compute_score_async(*row, timeout=DEADLINE) for row in rows))
        await asyncio.sleep(0.2)
        during = threading_count()
        outs = await task
        return before, during, outs

    before, during, outs = asyncio.run(go())
    assert during - before <= 4, (before, during)  # engine helpers at most, not one per task
    assert {o["verdict"] for o in outs} == {"correct"}


def threading_count():
    import threading

    return threading.active_count()


def test_answers_that_hold_workers_do_not_make_sound_ones_wait():
    """Two admitted answers that run to their deadline occupy both configured workers; the pool
    grows, so 12 sound answers behind them are still judged correct in time."""
    rows = [SLOW_ADMITTED, SLOW_ADMITTED[:2] + ("8",)] + symbolic(12)
    results = threaded(rows, threads=len(rows))
    verdicts = [v for v, _ in results]
    assert verdicts[:2] == ["timeout", "timeout"]
    assert verdicts[2:] == ["correct"] * 12
    assert engine.stats().grown >= 1


def test_a_caller_queued_behind_a_held_worker_is_not_charged_for_the_wait():
    """One worker, held by a slow answer for its whole budget: a sound answer queued behind it with
    a shorter budget is judged once the worker is free, since only the check's own run is charged."""
    engine.configure(workers=1, max_workers=1)
    try:
        engine.warm_up()
        with ThreadPoolExecutor(2) as ex:
            slow = ex.submit(threaded, [SLOW_ADMITTED], 1, 2.0)
            time.sleep(0.3)
            queued = compute_score(*symbolic(1)[0], timeout=1.0)
            assert queued["verdict"] == "correct"
            assert slow.result()[0][0] == "timeout"
    finally:
        engine.configure(workers=2, max_workers=None)
        engine.warm_up()


def test_timeouts_are_logged_with_counts(caplog):
    import logging

    from rewards import api

    api.timeouts._last, api.timeouts._since_last = float("-inf"), {}
    with caplog.at_level(logging.WARNING, logger="rewards"):
        compute_score("lighteval/MATH", r"\boxed{9999999!}", "1")
    line = next(r.getMessage() for r in caplog.records if "deadline" in r.getMessage())
    assert "1 lighteval/MATH" in line and "timeout" in line


ORPHAN = r"""
import sys
from rewards import engine
from rewards.scorers.boxed import SYMBOLIC_VERDICT
engine.warm_up()
pool = engine._get_pool()
print(pool._zygote.process.pid if pool._zygote else 0, *pool.pids(), flush=True)
# Straight to a worker: the cost rule would refuse this answer before any worker saw it.
engine.call_bounded(SYMBOLIC_VERDICT, "10^{10^{9}}", "1", timeout=600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_no_engine_process_outlives_a_sigkilled_caller():
    import psutil

    caller = subprocess.Popen([sys.executable, "-c", ORPHAN], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "REWARDS_WORKERS": "2"})
    pids = [int(p) for p in caller.stdout.readline().split() if int(p)]
    assert len(pids) >= 3  # the zygote and two workers
    time.sleep(1.5)  # the worker is computing now (on a loaded machine, slowly)
    spent = {p: sum(psutil.Process(p).cpu_times()[:2]) for p in pids[1:]}
    time.sleep(1.0)
    busy = [p for p in pids[1:] if sum(psutil.Process(p).cpu_times()[:2]) > spent[p]]
    assert busy, "no worker was computing"
    os.kill(caller.pid, signal.SIGKILL)
    caller.wait()
    time.sleep(5)
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    assert not alive, f"engine processes outlived their caller: {alive}"


@pytest.mark.skipif(not hasattr(signal, "SIGXCPU"), reason="POSIX CPU limits")
def test_the_cpu_limit_ends_a_runaway_worker_by_itself():
    """The backstop under the deadline: a worker past its call's CPU allowance is ended by the kernel."""
    code = ("import os\nfrom rewards.engine.worker import die_with_parent, limit_cpu\n"
            "die_with_parent(os.getppid())\nlimit_cpu(1.0)\nwhile True:\n    pass\n")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert done.returncode == -signal.SIGXCPU
    assert time.monotonic() - start < 30
