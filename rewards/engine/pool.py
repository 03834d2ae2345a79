"""A pool of worker processes that run picklable calls under a hard deadline.

Why not multiprocessing/concurrent.futures: their fork start method is unsafe in the threaded
processes verl runs reward functions in (Ray actors), and their spawn/forkserver methods re-import
the caller's `__main__` in every worker (in verl that is the trainer or Ray's worker script) and
refuse to start children from daemonic processes. Each worker here is a fresh
`python -m rewards.engine.worker` talking over two private pipes, so it starts the same way from
threads, asyncio executors, Ray actors or a plain script; a call that overruns its deadline gets
its worker killed (SIGKILL via Popen.kill; no `signal` handlers anywhere) and a replacement started
in the background. Deadlines cover the call only: worker start-up and module imports happen before
the clock starts.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable

from .config import STARTUP_TIMEOUT, EngineConfig
from .errors import WorkerCrashed, WorkerError, WorkerTimeout
from .stats import PoolStats

log = logging.getLogger("rewards")

# The directory holding `rewards/`, put on the worker's PYTHONPATH so `-m rewards.engine.worker` resolves.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Worker:
    """One worker process and the parent's ends of its two pipes."""

    def __init__(self, memory_mb: int, preload: tuple[str, ...]):
        child_in, self_out = os.pipe()
        self_in, child_out = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "rewards.engine.worker",
                 str(child_in), str(child_out), str(memory_mb), str(os.getpid())],
                pass_fds=(child_in, child_out), env=env, stdin=subprocess.DEVNULL,
                start_new_session=True)  # a terminal's Ctrl-C goes to the caller, which shuts us down
        except BaseException:
            for fd in (self_in, self_out):
                os.close(fd)
            raise
        finally:
            os.close(child_in)
            os.close(child_out)
        self.inbox = Connection(self_in, writable=False)
        self.outbox = Connection(self_out, readable=False)
        self.modules: set[str] = set()  # filled from the ready message: what actually imported
        self.ready = False
        sys_path = [os.getcwd() if p == "" else p for p in sys.path]
        self.outbox.send(("init", sys_path, tuple(preload)))

    def poll_ready(self) -> bool:
        """True once the worker has said `ready` (never blocks)."""
        if not self.ready and self.inbox.poll(0):
            self._read_ready()
        return self.ready

    def wait_ready(self, timeout: float) -> None:
        if self.ready:
            return
        if not self.inbox.poll(timeout):
            raise WorkerCrashed(f"worker did not start within {timeout:g} s")
        self._read_ready()

    def _read_ready(self) -> None:
        try:
            reply = self.inbox.recv()
        except (EOFError, OSError):
            raise WorkerCrashed(f"worker exited while starting (exit code {self.exitcode()})",
                                self.exitcode()) from None
        if reply[0] != "ready":
            raise WorkerCrashed(f"worker sent {reply[0]!r} instead of ready")
        self.modules.update(reply[2])
        self.ready = True

    def exitcode(self, wait: float = 1.0) -> int | None:
        try:
            return self.process.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Stop the process now and reap it; safe to call twice."""
        try:
            self.process.kill()
        except OSError:
            pass
        self.process.wait()
        self.close_pipes()

    def close_pipes(self) -> None:
        for conn in (self.inbox, self.outbox):
            try:
                conn.close()
            except OSError:
                pass


class WorkerPool:
    """Fixed-size pool; each call borrows one worker and blocks only its calling thread."""

    def __init__(self, config: EngineConfig):
        self.config = config
        self.pid = os.getpid()
        self.stats = PoolStats()
        self._memory_mb = config.memory_mb or 0
        self._preload = list(dict.fromkeys(config.preload))
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._closed = False
        for _ in range(config.workers):
            self._add_worker()

    # -- borrowing -------------------------------------------------------------------------

    def call(self, fn: Callable[..., Any], args: tuple, timeout: float) -> Any:
        module = getattr(fn, "__module__", None)
        if module == "__main__":
            raise ValueError(f"{getattr(fn, '__qualname__', fn)!r} is defined in __main__; workers "
                             "can only run functions from importable modules")
        payload = pickle.dumps(("call", fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        if module and module not in self._preload:
            with self._cond:
                if module not in self._preload:
                    self._preload.append(module)  # replacements warm up with it
        worker = self._acquire()
        try:
            if module and module not in worker.modules:
                self._exchange(worker, pickle.dumps(("import", module)), STARTUP_TIMEOUT, fn)
                worker.modules.add(module)
            with self._cond:
                self.stats.calls += 1
            return self._exchange(worker, payload, timeout, fn)
        except (WorkerTimeout, WorkerCrashed):
            self._replace(worker)
            worker = None
            raise
        finally:
            if worker is not None:
                self._release(worker)

    def _exchange(self, worker: _Worker, payload: bytes, timeout: float, fn: Callable) -> Any:
        try:
            worker.outbox.send_bytes(payload)
            answered = worker.inbox.poll(timeout)
        except (OSError, EOFError):  # broken pipe: the worker is gone
            answered = True
        if not answered:
            with self._cond:
                self.stats.timeouts += 1
            raise WorkerTimeout(timeout, getattr(fn, "__qualname__", ""))
        try:
            reply = worker.inbox.recv()
        except (EOFError, OSError):
            worker.kill()
            code = worker.process.returncode
            with self._cond:
                self.stats.crashes += 1
            raise WorkerCrashed(f"worker died during the call (exit code {code})", code) from None
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "oom":
            with self._cond:
                self.stats.crashes += 1
            raise WorkerCrashed(f"worker ran out of memory (cap {self._memory_mb} MiB)")
        with self._cond:
            self.stats.errors += 1
        raise WorkerError(reply[1], reply[2], reply[3])

    def _acquire(self) -> _Worker:
        while True:
            with self._cond:
                while not self._idle:
                    if self._closed:
                        raise WorkerCrashed("the worker pool is shut down")
                    self._cond.wait()
                worker = next((w for w in self._idle if self._safe_ready(w)), self._idle[0])
                self._idle.remove(worker)
            try:
                worker.wait_ready(STARTUP_TIMEOUT)
                return worker
            except WorkerCrashed:
                self._replace(worker)
                raise

    @staticmethod
    def _safe_ready(worker: _Worker) -> bool:
        try:
            return worker.poll_ready()
        except WorkerCrashed:
            return True  # let the borrower find out and replace it

    def _release(self, worker: _Worker) -> None:
        with self._cond:
            if self._closed:
                self._live.discard(worker)
            else:
                self._idle.append(worker)
                self._cond.notify()
                return
        worker.kill()

    def _replace(self, worker: _Worker) -> None:
        """Kill a worker now; reap it and start its replacement in the background, so the caller
        gets its WorkerTimeout/WorkerCrashed at the deadline, not after a process start."""
        try:
            worker.process.kill()
        except OSError:
            pass
        with self._cond:
            self._live.discard(worker)
            restart = not self._closed
            if restart:
                self.stats.restarts += 1
        threading.Thread(target=self._reap_and_restart, args=(worker, restart),
                         name="rewards-worker-restart", daemon=True).start()

    def _reap_and_restart(self, worker: _Worker, restart: bool) -> None:
        worker.kill()
        if restart:
            try:
                self._add_worker()
            except OSError as exc:  # cannot start a process now; the next call will say so
                log.warning("rewards: could not start a replacement worker: %s", exc)

    def _add_worker(self) -> None:
        with self._cond:
            preload = tuple(self._preload)
        worker = _Worker(self._memory_mb, preload)
        with self._cond:
            if self._closed:
                closing = True
            else:
                closing = False
                self._live.add(worker)
                self._idle.append(worker)
                self._cond.notify()
        if closing:
            worker.kill()

    def warm_up(self) -> None:
        """Return once every worker has started (borrowing each in turn, so it is safe while
        other threads use the pool)."""
        borrowed = []
        try:
            for _ in range(self.size):
                borrowed.append(self._acquire())
        finally:
            for worker in borrowed:
                self._release(worker)

    # -- lifecycle -------------------------------------------------------------------------

    def shutdown(self, wait: float = 2.0) -> None:
        """Close every worker: idle ones exit on end-of-input, busy ones are killed (their callers
        get WorkerCrashed and close the pipes themselves)."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            idle = list(self._idle)
            busy = [w for w in self._live if w not in idle]
            self._live.clear()
            self._idle.clear()
            self._cond.notify_all()
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
            try:
                worker.process.wait(wait)
            except subprocess.TimeoutExpired:
                pass
            worker.kill()

    @property
    def size(self) -> int:
        return self.config.workers

    def pids(self) -> list[int]:
        with self._cond:
            return sorted(w.process.pid for w in self._live)
