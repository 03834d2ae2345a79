"""The worker pool: values, deadlines, crashes, errors, memory caps, threads, asyncio, fork safety."""

import asyncio
import logging
import os
import pickle
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rewards import engine
from rewards.engine import pool as pool_module
from rewards.engine import WorkerCrashed, WorkerError, WorkerTimeout, call_bounded
from rewards.engine.config import EngineConfig, from_env
from tests.helpers import engine_funcs as f


def _alive(pid):
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def live_pids(count=2, within=10.0):
    """The pool's worker pids once `count` are alive (replacements start in the background)."""
    end = time.monotonic() + within
    while True:
        pids = engine._get_pool().pids()
        if len(pids) == count or time.monotonic() > end:
            return pids
        time.sleep(0.02)


@pytest.fixture(scope="module", autouse=True)
def small_pool():
    engine.configure(workers=2, memory_mb=512, inline=False)
    engine.warm_up()
    yield
    engine.shutdown()


def test_returns_the_value():
    assert call_bounded(f.add, 2, 3, timeout=10) == 5
    assert call_bounded(f.add, "a", "b", timeout=10) == "ab"


def test_a_call_past_its_budget_times_out_and_the_pool_recovers():
    from rewards.engine.budget import BACKSTOP

    start = time.monotonic()
    with pytest.raises(WorkerTimeout) as info:
        call_bounded(f.spin, 30, timeout=0.5)
    assert 0.5 <= time.monotonic() - start  # never before the check has had its budget
    assert info.value.timeout == 0.5
    assert time.monotonic() - start < 0.5 * BACKSTOP + 5  # not the 30 s the check asked for
    # the pool still has two working processes
    assert call_bounded(f.add, 1, 1, timeout=30) == 2
    assert len(live_pids()) == 2


def test_the_stuck_worker_is_killed_and_replaced():
    before = set(live_pids())
    with pytest.raises(WorkerTimeout):
        call_bounded(f.sleep_then, 30, None, timeout=0.3)
    after = set(live_pids())
    assert len(after) == 2 and len(before - after) == 1
    dead = (before - after).pop()
    time.sleep(0.2)  # reaped in the background
    with pytest.raises(ProcessLookupError):
        os.kill(dead, 0)


def test_an_exception_comes_back_with_its_type_and_message():
    with pytest.raises(WorkerError) as info:
        call_bounded(f.raise_value_error, "no good", timeout=10)
    assert info.value.type_name == "ValueError"
    assert info.value.message == "no good"
    assert "raise_value_error" in info.value.remote_traceback
    assert call_bounded(f.add, 1, 2, timeout=10) == 3  # the worker survives an ordinary exception


def test_a_dead_worker_is_reported_and_replaced():
    with pytest.raises(WorkerCrashed) as info:
        call_bounded(f.die, 7, timeout=10)
    assert info.value.exitcode == 7
    assert call_bounded(f.add, 1, 2, timeout=30) == 3


def test_the_memory_cap_stops_a_runaway_allocation():
    with pytest.raises(WorkerCrashed, match="out of memory"):
        call_bounded(f.allocate_mb, 4096, timeout=30)
    assert call_bounded(f.allocate_mb, 16, timeout=30) == 16 * 1024 * 1024


def test_a_huge_integer_power_neither_hangs_nor_exhausts_memory():
    engine.warm_up()
    with pytest.raises((WorkerTimeout, WorkerCrashed)):
        call_bounded(f.big_power, 10 ** 10, timeout=1.0)
    assert call_bounded(f.add, 1, 1, timeout=10) == 2


def test_an_unpicklable_result_is_a_worker_error():
    with pytest.raises(WorkerError) as info:
        call_bounded(f.unpicklable_result, timeout=10)
    assert "pickle" in (info.value.type_name + info.value.message).lower()


def test_unpicklable_arguments_fail_in_the_caller():
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        call_bounded(f.add, lambda: 1, 2, timeout=10)


def test_functions_from_main_are_refused_with_a_clear_message():
    def local():
        pass
    local.__module__ = "__main__"
    with pytest.raises(ValueError, match="importable"):
        call_bounded(local, timeout=1)


def test_timeout_must_be_positive():
    with pytest.raises(ValueError):
        call_bounded(f.add, 1, 2, timeout=0)


def test_many_threads_share_the_pool_and_each_gets_its_own_answer():
    with ThreadPoolExecutor(16) as ex:
        results = list(ex.map(lambda i: call_bounded(f.add, i, 1000, timeout=30), range(200)))
    assert results == [i + 1000 for i in range(200)]


def test_a_timeout_in_one_thread_does_not_disturb_the_others():
    def slow():
        with pytest.raises(WorkerTimeout):
            call_bounded(f.spin, 30, timeout=0.5)
        return "timed out"

    with ThreadPoolExecutor(4) as ex:
        stuck = ex.submit(slow)
        quick = [ex.submit(call_bounded, f.add, i, i, timeout=30) for i in range(50)]
        assert [q.result() for q in quick] == [2 * i for i in range(50)]
        assert stuck.result() == "timed out"


def test_acall_bounded_does_not_block_the_event_loop():
    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        value = await engine.acall_bounded(f.sleep_then, 0.5, "done", timeout=10)
        task.cancel()
        return value, ticks

    value, ticks = asyncio.run(main())
    assert value == "done"
    assert ticks >= 20  # the loop kept running while the worker slept


def test_deadlines_do_not_include_worker_start_up():
    engine.shutdown()  # the next call starts fresh workers, which take a while to import
    assert call_bounded(f.add, 1, 1, timeout=0.05) == 2


def test_stats_count_timeouts_and_restarts():
    before = engine.stats()
    with pytest.raises(WorkerTimeout):
        call_bounded(f.spin, 10, timeout=0.2)
    after = engine.stats()
    assert after.timeouts == before.timeouts + 1
    assert after.restarts == before.restarts + 1


def test_preload_imports_modules_and_runs_warm_up_functions_before_ready():
    default = engine.get_config().preload
    engine.configure(preload=("tests.helpers.engine_funcs:mark_warm", "no.such.module"))
    try:
        engine.warm_up()
        assert "tests.helpers.engine_funcs" in engine._get_pool()._idle[0].modules
        assert call_bounded(f.warmed, timeout=10) is True
    finally:
        engine.configure(preload=default)


def test_the_math_scorer_declares_its_preload_and_warm_up():
    from rewards.registry import get_scorer

    assert "rewards.math.symbolic:warm_up" in get_scorer("lighteval/MATH").preload
    assert "rewards.math.symbolic:warm_up" in engine.worker_preload()
    assert engine.EngineConfig().preload == ()   # the engine itself names no scorer's modules
    from rewards.math.symbolic import warm_up
    warm_up()  # runs in-process too, without raising


def test_inline_mode_runs_in_process_for_debugging():
    engine.configure(inline=True)
    try:
        assert call_bounded(f.pid, timeout=1) == os.getpid()
        with pytest.raises(WorkerError, match="ValueError: boom"):
            call_bounded(f.raise_value_error, "boom", timeout=1)
    finally:
        engine.configure(inline=False)
    assert call_bounded(f.pid, timeout=30) != os.getpid()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool():
    call_bounded(f.add, 1, 1, timeout=30)
    parent_pids = live_pids()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            ok = call_bounded(f.add, 2, 2, timeout=60) == 4 and engine._get_pool().pids() != parent_pids
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(child, 0)
    assert engine._get_pool().pids() == parent_pids


def test_shutdown_stops_every_worker():
    call_bounded(f.add, 1, 1, timeout=30)
    pids = live_pids()
    engine.shutdown()
    time.sleep(0.2)
    for pid in pids:
        with pytest.raises((ProcessLookupError, ChildProcessError)):
            os.kill(pid, 0)


def test_a_replacement_asked_for_as_the_pool_shuts_down_starts_nothing(caplog, monkeypatch):
    """At exit, a worker killed at its deadline just before shutdown has its replacement started
    by a background thread: that start must neither fall back to a fresh interpreter (the zygote
    is closed) nor log that it did."""
    call_bounded(f.add, 1, 1, timeout=30)
    pool = engine._get_pool()
    engine.shutdown()
    started = []
    monkeypatch.setattr(pool_module, "_popen_worker", lambda *args: started.append(args))
    with pool._cond:
        pool._starting += 1
    with caplog.at_level(logging.WARNING, logger="rewards"):
        pool._add_worker()
    assert started == [] and pool._starting == 0 and not pool._live and not caplog.records


def test_configuration_from_the_environment():
    config = from_env(EngineConfig(), {"REWARDS_WORKERS": "3", "REWARDS_WORKER_MEMORY_MB": "0",
                                       "REWARDS_WORKER_PRELOAD": "sympy, json", "REWARDS_ENGINE_INLINE": "1"})
    assert config == EngineConfig(workers=3, memory_mb=None, preload=("sympy", "json"), inline=True)
    assert from_env(EngineConfig(), {"REWARDS_WORKER_PRELOAD": ""}).preload == ()
    with pytest.raises(ValueError, match="REWARDS_WORKERS"):
        from_env(EngineConfig(), {"REWARDS_WORKERS": "many"})
    with pytest.raises(ValueError):
        EngineConfig(workers=0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the zygote needs fork")
class TestZygote:
    """Workers are forked from a prepared zygote, so a killed worker is replaced in milliseconds."""

    def test_workers_are_children_of_the_zygote(self):
        import psutil
        engine.warm_up()
        pool = engine._get_pool()
        assert pool._zygote is not None and pool._zygote.alive
        for pid in live_pids():
            assert psutil.Process(pid).ppid() == pool._zygote.process.pid

    def test_a_replacement_is_ready_almost_at_once(self):
        engine.configure(workers=1)
        try:
            engine.warm_up()
            with pytest.raises(WorkerTimeout):
                call_bounded(f.spin, 30, timeout=0.3)
            start = time.monotonic()
            assert call_bounded(f.add, 2, 2, timeout=10) == 4
            assert time.monotonic() - start < 1.0  # a fresh interpreter would need ~2 s for sympy
        finally:
            engine.configure(workers=2)

    def test_the_zygote_exits_with_the_pool(self):
        engine.warm_up()
        zygote = engine._get_pool()._zygote.process
        engine.shutdown()
        assert zygote.wait(5) is not None

    def test_without_the_zygote_workers_start_on_their_own(self):
        engine.warm_up()
        pool = engine._get_pool()
        forked = live_pids()
        pool._zygote.process.kill()
        pool._zygote.process.wait()
        time.sleep(0.5)  # its workers die with it (PR_SET_PDEATHSIG); idle dead ones are replaced
        for pid in forked:
            assert not _alive(pid)
        for _ in range(3):  # whatever the zygote's state, calls keep working
            with pytest.raises(WorkerTimeout):
                call_bounded(f.spin, 30, timeout=0.2)
            assert call_bounded(f.add, 1, 2, timeout=60) == 3
        assert not pool._zygote.alive
        engine.shutdown()
