"""A pool of worker processes that run picklable calls, each under a budget.

The processes themselves (zygote, workers, their pipes) are processes.py's; this module decides
who gets a worker and when. A call's budget is the CPU time its check may use from the moment its
worker starts it (budget.py): waiting for a worker, a worker's start and imports are never charged.
A check that runs past its budget gets its worker killed (SIGKILL; no signal handlers anywhere) and
a replacement started in the background. A worker that dies mid-call (the host's OOM killer) gets
its call re-run once, on another worker, with the budget it had left.

Scheduling (docs/verl.md, "Scheduling"): waiting callers, threads and asyncio tasks alike, are
served first come, first served, and wait as long as the checks ahead of them run (each bounded by
its budget). While callers wait behind workers held by long checks, the pool grows (forked from the
zygote in milliseconds) up to `max_workers`, and workers above `workers` retire after a few idle
seconds. A worker keeps its priority and its warm caches for as long as it lives: nothing is
reniced or replaced for being slow. asyncio callers wait on the event loop itself (`add_reader`
on the worker's pipe), never in a parked thread.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import pickle
import socket
import threading
import time
from collections import deque
from multiprocessing.connection import Connection
from typing import Any, Callable

from .budget import CheckClock
from .config import STARTUP_TIMEOUT, EngineConfig, EngineConfigError
from .errors import WorkerCrashed, WorkerError, WorkerTimeout
from .processes import ZygoteError, _Forked, _popen_worker, _Worker, _Zygote
from .stats import PoolStats

log = logging.getLogger("rewards")


EXTRA_IDLE_S = 5.0
"""Seconds a worker above the configured count may sit idle before it retires."""
STUCK_S = 0.5
"""A worker whose check has used more CPU time than this counts as held (sympy checks take 20-200
ms when warm; a check slowed only by a busy machine is not held, and growing the pool for it would
only add processes, each paying its own warm-ups, on the same cores): while callers queue, the pool may hold two extra workers per held one, up to
`max_workers`. Two, not one: the queue holds more answers like the held ones, and a new worker
taken by one of them would leave the sound ones waiting again (measured: one per held one left 10
of 48 sound checks at their deadline behind 10 held answers). Growing for a queue of ordinary
checks would only add processes competing for the same cores."""
RECHECK_S = 0.1
"""How often a queued caller re-checks whether the pool should grow."""
POLL_SLICE_S = 60.0
"""The longest single wait on a worker's pipe: longer budgets (`inf`, 1e9 s) are waited for in
slices (the poll takes its timeout in milliseconds as a C int, which 1e9 s overflows)."""
SIGXCPU_EXIT = -24
"""A worker ended by its CPU-time limit (worker.py's backstop): its check ran past its budget."""

_questions = itertools.count(1)
"""Question ids: every request's reply carries its id (next() on a count is atomic)."""


class PoolClosed(OSError):
    """A worker was asked for while the pool shut down; nothing is started."""


class _Died(WorkerCrashed):
    """The worker's pipe closed mid-call: it was killed from outside (the host's OOM killer) or by
    its CPU-time limit. Which one is read from its check's clock before the process is reaped:
    `spent` (the check had used its budget) and `left` (the budget a re-run gets)."""

    def __init__(self, message: str, exitcode: int | None, spent: bool, left: float | None):
        super().__init__(message, exitcode)
        self.spent = spent or exitcode == SIGXCPU_EXIT
        self.left = left


class _Waiter:
    """A caller queued for a worker: a thread (an Event) or an asyncio task (a future on its loop).
    `worker` is set, under the pool's lock, when one is handed over."""

    __slots__ = ("event", "loop", "future", "worker", "abandoned")

    def __init__(self, loop: Any = None):
        self.loop = loop
        self.future = loop.create_future() if loop is not None else None
        self.event = threading.Event() if loop is None else None
        self.worker: _Worker | None = None
        self.abandoned = False

    def wake(self) -> None:
        if self.loop is None:
            self.event.set()
        else:
            self.loop.call_soon_threadsafe(_resolve, self.future)


def _resolve(future: Any) -> None:
    if not future.done():
        future.set_result(None)


def why_no_worker(failure: BaseException, memory_mb: int) -> str:
    """The sentence for a pool none of whose workers could start, naming the likely cause."""
    if isinstance(failure, OSError) and failure.errno in (errno.EMFILE, errno.ENFILE):
        try:
            import resource

            limit = f"; the limit is {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}, `ulimit -n`"
        except (ImportError, ValueError, OSError):
            limit = ""
        return (f"no worker could start: out of file descriptors ({failure.strerror}{limit}); "
                "close files this process holds open, or raise the limit")
    if memory_mb:
        return (f"no worker could start ({failure}); with a memory cap of {memory_mb} MiB "
                "(REWARDS_WORKER_MEMORY_MB), is the cap too small?")
    return f"no worker could start ({failure})"


class WorkerPool:
    """A pool of `workers` to `max_workers` processes; each call borrows one worker."""

    def __init__(self, config: EngineConfig):
        self.config = config
        self.pid = os.getpid()
        self.stats = PoolStats()
        self._memory_mb = config.memory_mb or 0
        self._preload = list(dict.fromkeys(config.preload))
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._waiters: deque[_Waiter] = deque()
        self._starting = 0
        self._held = (float("-inf"), 0)  # (when counted, workers held by long checks)
        self._closed = False
        self._zygote = self._start_zygote()
        failures = []
        for _ in range(config.workers):
            with self._cond:
                self._starting += 1
            failures.append(self._add_worker())
        if all(failures):  # not one worker: every call would end as `error`
            self.shutdown()
            raise EngineConfigError(why_no_worker(failures[-1], self._memory_mb))

    def _start_zygote(self) -> _Zygote | None:
        if not (hasattr(os, "fork") and hasattr(socket, "send_fds")):
            return None  # not POSIX: every worker starts on its own
        try:
            return _Zygote(self._memory_mb, tuple(self._preload))
        except OSError as exc:
            log.warning("rewards: no zygote (%s); workers will start on their own, ~2 s each", exc)
            return None

    def _launch(self, preload: tuple[str, ...]) -> _Worker:
        """A new worker: forked by the zygote when it is there, else started on its own."""
        zygote = self._zygote
        if zygote is not None and zygote.alive:
            try:
                pid, inbox, outbox = zygote.spawn(preload)
                return _Worker(_Forked(zygote, pid), inbox, outbox)
            except ZygoteError as exc:
                if not self._closed:
                    log.warning("rewards: %s; starting workers on their own from now on", exc)
        if self._closed:  # a replacement asked for as the pool shut down (at exit): start nothing
            raise PoolClosed("the pool was shut down")
        return _popen_worker(self._memory_mb, preload)

    # -- calls -----------------------------------------------------------------------------

    def _module(self, fn: Callable[..., Any]) -> str | None:
        """The function's module, which new workers then preload too."""
        module = getattr(fn, "__module__", None)
        if module == "__main__":
            raise ValueError(f"{getattr(fn, '__qualname__', fn)!r} is defined in __main__; workers "
                             "can only run functions from importable modules")
        if module and module not in self._preload:
            with self._cond:
                if module not in self._preload:
                    self._preload.append(module)  # replacements warm up with it
        return module

    @staticmethod
    def _payload(fn: Callable[..., Any], args: tuple, budget: float) -> tuple[bytes, int]:
        """The pickled request and the question id its reply must carry."""
        cpu_seconds = min(budget, 3600.0) + 1.0  # backstop, see worker.py
        qid = next(_questions)
        return pickle.dumps(("call", qid, fn, args, cpu_seconds), protocol=pickle.HIGHEST_PROTOCOL), qid

    def call(self, fn: Callable[..., Any], args: tuple, budget: float) -> Any:
        """fn(*args) in a worker, or WorkerTimeout once the check has used `budget` seconds of CPU
        time (budget.py; `inf` for none). A worker that dies mid-call gets the call re-run once on
        another worker with the budget left; a second death is WorkerCrashed.

        Whatever ends the wait other than the answer (the budget, a crash, an exception a signal
        handler raises into it: Ctrl-C, a caller's SIGALRM guard) replaces the worker, so an answer
        still being computed can never reach the next caller; replies also carry their question's
        id, and one for another question is dropped."""
        module = self._module(fn)
        for retry in (False, True):
            payload, qid = self._payload(fn, args, budget)
            worker = self._borrow()
            try:
                if module and module not in worker.modules:
                    self._import(worker, module, fn)
                clock = self._start(worker, payload, budget)
                return self._reply(self._wait(worker, qid, clock), budget, fn)
            except WorkerError:
                raise  # an ordinary answer: the worker is fine (released below)
            except _Died as died:
                self._replace(worker)
                worker = None
                budget = self._after_death(died, budget, fn, retry)
            except BaseException:
                self._replace(worker)
                worker = None
                raise
            finally:
                if worker is not None:
                    self._release(worker)
        raise AssertionError("unreachable")  # pragma: no cover

    async def acall(self, fn: Callable[..., Any], args: tuple, budget: float) -> Any:
        """`call` for asyncio: the wait for a worker and for its answer are awaited on the loop."""
        import asyncio

        module = self._module(fn)
        for retry in (False, True):
            payload, qid = self._payload(fn, args, budget)
            worker = await self._borrow_async()
            try:
                if module and module not in worker.modules:
                    await asyncio.to_thread(self._import, worker, module, fn)
                clock = self._start(worker, payload, budget)
                return self._reply(await self._wait_async(worker, qid, clock), budget, fn)
            except WorkerError:
                raise
            except _Died as died:
                self._replace(worker)
                worker = None
                budget = self._after_death(died, budget, fn, retry)
            except BaseException:  # timeout, crash, or cancelled mid-call (its answer would go astray)
                self._replace(worker)
                worker = None
                raise
            finally:
                if worker is not None:
                    self._release(worker)
        raise AssertionError("unreachable")  # pragma: no cover

    def _after_death(self, died: _Died, budget: float, fn: Callable, retry: bool) -> float:
        """What follows a worker's death mid-call: WorkerTimeout when its check had used its budget
        (the CPU-time limit ended it), WorkerCrashed after a re-run, else the budget for the re-run."""
        if died.spent:
            with self._cond:
                self.stats.crashes -= 1  # counted as a crash by _crashed: it is a timeout
                self.stats.timeouts += 1
            raise WorkerTimeout(budget, getattr(fn, "__qualname__", ""))
        if retry:
            raise WorkerCrashed(str(died), died.exitcode)
        with self._cond:
            self.stats.retried += 1
        return budget if died.left is None else died.left

    def _borrow(self) -> _Worker:
        """A live worker; one that died while idle is replaced and another taken."""
        while True:
            worker = self._acquire()
            if self._usable(worker):
                return worker

    async def _borrow_async(self) -> _Worker:
        while True:
            worker = await self._acquire_async()
            if self._usable(worker):
                return worker

    def _usable(self, worker: _Worker) -> bool:
        """False for a worker that died while idle (its pipe reads end-of-file; an idle worker
        never writes), which is then replaced: e.g. killed with the zygote. Never keeps a worker
        on raising."""
        try:
            dead = worker.inbox.poll(0)
        except (OSError, EOFError):
            dead = True
        except BaseException:  # raised into us by a caller's signal handler, not the pipe's
            self._release(worker)
            raise
        if dead:
            self._replace(worker)
        return not dead

    def _start(self, worker: _Worker, payload: bytes, budget: float) -> CheckClock:
        """Send a request and start its clock; a broken pipe means the worker is gone."""
        with self._cond:
            self.stats.calls += 1
        clock = worker.clock = CheckClock(worker.process.pid, budget)
        self._send(worker, payload)
        return clock

    def _send(self, worker: _Worker, payload: bytes) -> None:
        try:
            worker.outbox.send_bytes(payload)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._crashed(worker) from None

    def _import(self, worker: _Worker, module: str, fn: Callable) -> None:
        """A module first needed now: imported in this worker before the call's clock starts, with
        the start-up allowance."""
        qid = next(_questions)
        worker.clock = None  # a death during an import is no check's: re-run with the whole budget
        self._send(worker, pickle.dumps(("import", qid, module)))
        self._reply(self._wait(worker, qid, CheckClock(worker.process.pid, STARTUP_TIMEOUT)), STARTUP_TIMEOUT, fn)
        worker.modules.add(module)

    def _wait(self, worker: _Worker, qid: int, clock: CheckClock) -> tuple | None:
        """The reply to question `qid`, or None once the check has spent its budget. Looks at the
        worker's CPU time only when the budget could have run out; a reply to another question is
        dropped."""
        while True:
            look = clock.until_next_look()
            if look <= 0:
                return None
            if worker.inbox.poll(min(look, POLL_SLICE_S)):
                reply = self._read(worker)
                if reply[0] == "oom" or reply[1] == qid:
                    return reply
                self._count_stale()

    async def _wait_async(self, worker: _Worker, qid: int, clock: CheckClock) -> tuple | None:
        """`_wait` on the running event loop."""
        while True:
            look = clock.until_next_look()
            if look <= 0:
                return None
            if await _readable(worker.inbox, time.monotonic() + min(look, POLL_SLICE_S)):
                reply = self._read(worker)
                if reply[0] == "oom" or reply[1] == qid:
                    return reply
                self._count_stale()

    def _read(self, worker: _Worker) -> tuple:
        try:
            return worker.inbox.recv()
        except TimeoutError:
            raise  # a caller's signal handler, not the pipe
        except (EOFError, OSError):
            raise self._crashed(worker) from None

    def _crashed(self, worker: _Worker) -> _Died:
        clock = worker.clock  # read before the process is reaped: its CPU time goes with it
        spent, left = (clock.spent(), clock.left()) if clock is not None else (False, None)
        code = worker.exitcode()
        with self._cond:
            self.stats.crashes += 1
        return _Died(f"worker died during the call (exit code {code})", code, spent, left)

    def _count_stale(self) -> None:
        with self._cond:
            self.stats.stale_replies += 1

    def _reply(self, reply: tuple | None, budget: float, fn: Callable) -> Any:
        """The value of a reply, or the exception it stands for (None: the budget was spent)."""
        if reply is None:
            with self._cond:
                self.stats.timeouts += 1
            raise WorkerTimeout(budget, getattr(fn, "__qualname__", ""))
        if reply[0] == "ok":
            return reply[2]
        if reply[0] == "oom":
            with self._cond:
                self.stats.crashes += 1
            raise WorkerCrashed(f"worker ran out of memory (cap {self._memory_mb} MiB)")
        with self._cond:
            self.stats.errors += 1
        raise WorkerError(reply[2], reply[3], reply[4])

    # -- borrowing -------------------------------------------------------------------------

    def _take_idle(self) -> _Worker | None:
        """An idle worker when nobody is queued ahead (under the lock)."""
        if self._closed:
            raise WorkerCrashed("the worker pool is shut down")
        if self._idle and not self._waiters:
            worker = self._idle.pop()
            worker.busy_since, worker.clock = time.monotonic(), None
            return worker
        return None

    def _enqueue(self, waiter: _Waiter) -> None:
        """Queue a caller (under the lock)."""
        self._waiters.append(waiter)
        self._maybe_grow()

    def _maybe_grow(self) -> None:
        """Start one more worker (under the lock) when callers queue while workers are held by
        long calls: up to two extra per held worker, never above `max_workers`."""
        if not self._waiters or self._closed or len(self._waiters) <= self._starting:
            return
        now = time.monotonic()
        if now - self._held[0] >= RECHECK_S:  # read once per RECHECK_S, not once per queued caller
            idle = set(self._idle)
            self._held = (now, sum(1 for w in self._live if w not in idle and now - w.busy_since > STUCK_S
                                   and w.clock is not None and w.clock.used() > STUCK_S))
        allowed = min(self.config.worker_limit, self.size + 2 * self._held[1])
        if len(self._live) + self._starting < allowed:
            self._starting += 1
            self.stats.grown += 1
            threading.Thread(target=self._add_worker, name="rewards-worker-start", daemon=True).start()

    def _give_up(self, waiter: _Waiter) -> _Worker | None:
        """The caller stops waiting (under the lock): its worker if one was handed over meanwhile."""
        if waiter.worker is not None:
            return waiter.worker
        waiter.abandoned = True
        try:
            self._waiters.remove(waiter)
        except ValueError:
            pass
        return None

    def _abandon(self, waiter: _Waiter) -> None:
        """A caller stops waiting because of an exception: out of the queue, and any worker handed
        over meanwhile goes to the next caller."""
        with self._cond:
            worker = self._give_up(waiter)
        if worker is not None:
            self._release(worker)

    def _handed(self, waiter: _Waiter) -> _Worker:
        """The worker handed to a woken waiter; WorkerCrashed when the pool shut down instead."""
        with self._cond:
            worker = self._give_up(waiter)
        if worker is None:
            raise WorkerCrashed("the worker pool is shut down")
        return worker

    def _acquire(self) -> _Worker:
        """A worker, waited for as long as the calls ahead run (each bounded by its budget)."""
        with self._cond:
            worker = self._take_idle()
            if worker is not None:
                return worker
            waiter = _Waiter()
            self._enqueue(waiter)
        try:
            while not waiter.event.wait(RECHECK_S):
                with self._cond:
                    self._maybe_grow()
        except BaseException:  # raised into the wait (a signal handler): leave the queue
            self._abandon(waiter)
            raise
        return self._handed(waiter)

    async def _acquire_async(self) -> _Worker:
        import asyncio

        with self._cond:
            worker = self._take_idle()
            if worker is not None:
                return worker
            waiter = _Waiter(asyncio.get_running_loop())
            self._enqueue(waiter)
        try:
            while True:
                await asyncio.wait((waiter.future,), timeout=RECHECK_S)
                if waiter.future.done():
                    break
                with self._cond:
                    self._maybe_grow()
        except BaseException:  # cancelled: hand back anything that arrived meanwhile
            self._abandon(waiter)
            raise
        return self._handed(waiter)

    def _offer(self, worker: _Worker) -> None:
        """A free worker goes to the longest-waiting caller, else to the idle list (under the lock)."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if waiter.abandoned:
                continue
            worker.busy_since, worker.clock = time.monotonic(), None
            waiter.worker = worker
            try:
                waiter.wake()
                return
            except RuntimeError:  # its event loop is closed
                waiter.worker = None
        worker.idle_since = time.monotonic()
        self._idle.append(worker)

    def _release(self, worker: _Worker) -> None:
        retired = []
        with self._cond:
            if self._closed:
                self._live.discard(worker)
                retired.append(worker)
            else:
                self._offer(worker)
                retired = self._retire_extras()
        for old in retired:
            threading.Thread(target=old.kill, name="rewards-worker-retire", daemon=True).start()

    def _retire_extras(self) -> list[_Worker]:
        """Workers above the configured count that idled past EXTRA_IDLE_S (under the lock)."""
        retired = []
        cutoff = time.monotonic() - EXTRA_IDLE_S
        while len(self._live) > self.size and self._idle and self._idle[0].idle_since < cutoff:
            worker = self._idle.pop(0)
            self._live.discard(worker)
            retired.append(worker)
        return retired

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker now; reap it and start its replacement in the background, so the caller
        gets its WorkerTimeout/WorkerCrashed at once, not after a process start."""
        try:
            worker.process.kill()
        except OSError:
            pass
        with self._cond:
            self._live.discard(worker)
            restart = not self._closed and (
                len(self._live) + self._starting < self.size or len(self._waiters) > self._starting)
            if restart:
                self._starting += 1
                self.stats.restarts += 1
        threading.Thread(target=self._reap_and_restart, args=(worker, restart),
                         name="rewards-worker-restart", daemon=True).start()

    def _reap_and_restart(self, worker: _Worker, restart: bool) -> None:
        worker.kill()
        if restart:
            self._add_worker()

    def _add_worker(self) -> BaseException | None:
        """Start one worker (the caller has counted it in `_starting`) and offer it once ready;
        why it could not start, or None."""
        with self._cond:
            preload = tuple(self._preload)
        try:
            worker = self._launch(preload)
        except OSError as exc:  # cannot start a process now; waiting callers wait for another
            with self._cond:
                self._starting -= 1
            if not isinstance(exc, PoolClosed):
                log.warning("rewards: could not start a worker: %s", exc)
            return exc
        try:
            worker.wait_ready(STARTUP_TIMEOUT)
        except WorkerCrashed as exc:
            worker.kill()
            with self._cond:
                self._starting -= 1
            log.warning("rewards: a new worker failed to start: %s", exc)
            return exc
        with self._cond:
            self._starting -= 1
            closing = self._closed
            if not closing:
                self._live.add(worker)
                self.stats.peak_workers = max(self.stats.peak_workers, len(self._live))
                self._offer(worker)
        if closing:
            worker.kill()
        return None

    def require(self, preload: tuple[str, ...]) -> None:
        """More preload entries: workers started from now on load them (a running worker imports a
        function's module before its first call to it anyway)."""
        with self._cond:
            self._preload.extend(p for p in preload if p not in self._preload)

    def warm_up(self) -> None:
        """Every configured worker is started and ready once the pool exists; kept for callers
        that want to say so explicitly."""

    # -- lifecycle -------------------------------------------------------------------------

    def shutdown(self, wait: float = 2.0) -> None:
        """Close every worker: idle ones exit on end-of-input, busy ones are killed (their callers
        get WorkerCrashed and close the pipes themselves); queued callers get WorkerCrashed."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            idle = list(self._idle)
            busy = [w for w in self._live if w not in idle]
            self._live.clear()
            self._idle.clear()
            waiters = list(self._waiters)
            self._waiters.clear()
            for waiter in waiters:
                try:
                    waiter.wake()
                except RuntimeError:
                    pass
        if os.getpid() != self.pid:
            return  # an inherited copy after fork(): the processes belong to the parent
        for worker in busy:
            try:
                worker.process.kill()
            except OSError:
                pass
        for worker in idle:
            try:
                worker.outbox.close()
            except OSError:
                pass
        for worker in idle:
            worker.process.wait(wait)
            worker.kill()
        if self._zygote is not None:
            self._zygote.close()

    @property
    def size(self) -> int:
        return self.config.workers

    def pids(self) -> list[int]:
        with self._cond:
            return sorted(w.process.pid for w in self._live)


async def _readable(conn: Connection, end: float) -> bool:
    """Whether `conn` has data by `end` (finite), waiting on the running event loop (no thread)."""
    import asyncio

    if conn.poll(0):
        return True
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    fd = conn.fileno()
    try:
        loop.add_reader(fd, _resolve, done)
    except NotImplementedError:  # an event loop without readers (Windows' proactor)
        return await asyncio.to_thread(conn.poll, max(end - time.monotonic(), 0.0))
    try:
        await asyncio.wait_for(done, max(end - time.monotonic(), 0.0))
        return True
    except TimeoutError:
        return conn.poll(0)
    finally:
        loop.remove_reader(fd)
