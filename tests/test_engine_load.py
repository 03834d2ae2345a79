"""The engine on a busy node: what a check is charged (its own CPU time from its start, never the
wait for a worker, a worker's start or imports), a worker killed mid-call, a stopped zygote, a
process out of file descriptors. Each test asserts what was paid, not how long it took, except the
stopped zygote's, whose promise is a time: at most one deadline."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rewards import engine
from rewards.engine import WorkerCrashed, WorkerTimeout, call_bounded
from tests.helpers import engine_funcs as f


@pytest.fixture(autouse=True)
def small_pool():
    engine.configure(workers=2, max_workers=None, memory_mb=512, inline=False)
    engine.warm_up()
    yield
    engine.shutdown()


def busy_worker(within=30.0):
    """The pid of a worker running a call, once one is."""
    pool = engine._get_pool()
    end = time.monotonic() + within
    while time.monotonic() < end:
        with pool._cond:
            busy = [w.process.pid for w in pool._live if w not in pool._idle]
        if busy:
            return busy[0]
        time.sleep(0.01)
    raise AssertionError("no worker took the call")


# -- what a check is charged ------------------------------------------------------------------

def test_the_budget_is_cpu_time_so_a_check_that_waits_is_not_charged():
    """1.5 s of waiting in the worker (no CPU) within a 1 s budget: answered."""
    assert call_bounded(f.sleep_then, 1.5, "answered", timeout=1.0) == "answered"


def test_a_check_that_computes_past_its_budget_times_out():
    before = engine.stats().timeouts
    with pytest.raises(WorkerTimeout):
        call_bounded(f.spin, 60, timeout=0.5)
    assert engine.stats().timeouts == before + 1


def test_a_check_that_never_uses_its_budget_ends_at_the_wall_backstop():
    from rewards.engine.budget import BACKSTOP

    with pytest.raises(WorkerTimeout):
        call_bounded(f.sleep_then, 60 * BACKSTOP, None, timeout=0.3)


def test_a_first_import_is_not_charged_to_the_call():
    """The worker imports the function's module (1.5 s of CPU) before the call's clock starts."""
    from tests.helpers import slow_import

    assert call_bounded(slow_import.answer, 42, timeout=0.5) == 42


def test_waiting_for_a_worker_is_not_charged():
    """Two workers, each held 1 s by a call that computes; eight 0.4 s-budget calls queued behind
    them are all answered."""
    with ThreadPoolExecutor(10) as ex:
        held = [ex.submit(call_bounded, f.spin, 1.0, timeout=5) for _ in range(2)]
        time.sleep(0.1)
        queued = [ex.submit(call_bounded, f.add, i, 1, timeout=0.4) for i in range(8)]
        assert [q.result() for q in queued] == [i + 1 for i in range(8)]
        assert all(h.result() > 0 for h in held)


def test_a_slow_sound_check_keeps_its_worker():
    """Checks held past STUCK_S while others queue are neither reniced nor replaced by a cold fork
    (the cascade: each cold fork paid the warm-up again inside the next answer's budget)."""
    before = engine.stats().restarts
    pids = set(engine._get_pool().pids())
    with ThreadPoolExecutor(6) as ex:
        assert list(ex.map(lambda i: call_bounded(f.sleep_then, 0.8, i, timeout=5), range(12))) == list(range(12))
    assert engine.stats().restarts == before
    assert pids <= set(engine._get_pool().pids())
    assert all(os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) for pid in pids)


def test_the_first_call_in_a_fresh_process_pays_a_slow_sound_check():
    """No warm_up(): the pool starts inside the first call (seconds on a loaded machine) and the
    MATH check runs in a worker that has just started; a 3 s budget is enough, since only the
    check's own CPU time is charged."""
    code = ("from rewards.api import compute_score; import json; print(json.dumps(["
            "compute_score('lighteval/MATH', r'\\boxed{\\int_0^{7} x^2 dx + \\sin^2(y)+\\cos^2(y)}', "
            "r'\\frac{346}{3}', timeout=3.0)['verdict'], "
            "compute_score('lighteval/MATH', r'\\boxed{\\binom{8}{3} = 56}', '56', timeout=3.0)['verdict']]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["correct", "correct"], out.stderr[-2000:]


# -- a worker killed mid-call -----------------------------------------------------------------

def test_a_worker_sigkilled_mid_call_loses_no_answer():
    """The host's OOM killer ends a worker while it computes: the call is re-run once on another
    worker and answered. Five kills, five answers."""
    before = engine.stats().retried
    for k in range(5):
        with ThreadPoolExecutor(1) as ex:
            call = ex.submit(call_bounded, f.sleep_then, 0.5, f"answer-{k}", timeout=10)
            os.kill(busy_worker(), signal.SIGKILL)
            assert call.result() == f"answer-{k}"
    assert engine.stats().retried == before + 5


def test_a_worker_sigkilled_mid_call_loses_no_answer_async():
    import asyncio

    async def go():
        task = asyncio.ensure_future(engine.acall_bounded(f.sleep_then, 0.5, "async answer", timeout=10))
        await asyncio.to_thread(lambda: os.kill(busy_worker(), signal.SIGKILL))
        return await task

    assert asyncio.run(go()) == "async answer"


def test_a_worker_that_dies_again_on_the_re_run_is_a_crash():
    with pytest.raises(WorkerCrashed) as info:
        call_bounded(f.die, 7, timeout=10)
    assert info.value.exitcode == 7
    assert call_bounded(f.add, 1, 2, timeout=10) == 3


def test_the_symbolic_check_of_a_killed_worker_is_still_paid():
    from rewards.api import compute_score
    from rewards.registry import list_scorers
    from rewards.scorers.boxed import symbolic_verdict_bounded

    list_scorers()
    engine.configure(workers=1)
    engine.warm_up()
    symbolic_verdict_bounded.cache_clear()
    row = ("lighteval/MATH", r"\boxed{\int_0^{9} x^2 dx + \sin^2(y)+\cos^2(y)}", r"\frac{732}{3}")
    killer = threading.Thread(target=lambda: os.kill(busy_worker(), signal.SIGKILL))
    killer.start()
    assert compute_score(*row, timeout=5)["verdict"] == "correct"
    killer.join()


# -- a stopped zygote -------------------------------------------------------------------------

DEADLINE = 10.0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the zygote is POSIX's")
def test_a_stopped_zygote_costs_at_most_one_deadline():
    """SIGSTOP on the zygote, then a worker that dies: reaping it through the zygote gives up after
    ZYGOTE_REPLY_S (it waited 120 s, holding the zygote's lock), and the pool starts workers on
    their own from then on; every later call is answered."""
    zygote = engine._get_pool()._zygote
    os.kill(zygote.process.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        with pytest.raises(WorkerCrashed):
            call_bounded(f.die, 7, timeout=DEADLINE)
        assert time.monotonic() - start < DEADLINE
        assert not zygote.alive
        assert [call_bounded(f.add, i, 1, timeout=DEADLINE) for i in range(4)] == [1, 2, 3, 4]
    finally:
        os.kill(zygote.process.pid, signal.SIGCONT)


# -- out of file descriptors ------------------------------------------------------------------

NO_DESCRIPTORS = r"""
import json, logging, os, resource
from rewards import engine
from rewards.engine import pool, processes  # imported while descriptors are left
from tests.helpers import engine_funcs as f
records = []
logging.getLogger("rewards").addHandler(type("H", (logging.Handler,), {"emit": lambda s, r: records.append(r)})())
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
held = []
while True:
    try:
        held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        break
errors = []
for _ in range(20):
    try:
        engine.call_bounded(f.add, 1, 2, timeout=5)
    except engine.EngineConfigError as exc:
        errors.append(str(exc))
print(json.dumps({"errors": errors, "log_lines": len(records)}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NOFILE as Linux sets it")
def test_descriptor_exhaustion_is_named_and_the_start_is_not_retried_on_every_call():
    out = subprocess.run([sys.executable, "-c", NO_DESCRIPTORS], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(result["errors"]) == 20
    assert "out of file descriptors" in result["errors"][0] and "memory cap" not in result["errors"][0]
    assert len(set(result["errors"])) == 1
    assert result["log_lines"] <= 4  # one start's lines, not one start per call
