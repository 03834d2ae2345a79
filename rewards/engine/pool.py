"""A pool of worker processes that run picklable calls under a hard deadline.

Why not multiprocessing/concurrent.futures: their fork start method is unsafe in the threaded
processes verl runs reward functions in (Ray actors), and their spawn/forkserver methods re-import
the caller's `__main__` in every worker (in verl that is the trainer or Ray's worker script) and
refuse to start children from daemonic processes. Here a fresh interpreter, the zygote
(`python -m rewards.engine.zygote`), imports and warms up once and forks each worker on request
(milliseconds); where fork is unavailable, or the zygote is gone, a worker is a fresh
`python -m rewards.engine.worker`. Either way a worker talks over two private pipes, so the pool
starts the same way from threads, asyncio executors, Ray actors or a plain script. A call that
overruns its deadline gets its worker killed (SIGKILL; no signal handlers anywhere) and a
replacement started in the background. Deadlines cover the call only: worker start-up and module
imports happen before the clock starts.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any, Callable

from .config import STARTUP_TIMEOUT, EngineConfig
from .errors import WorkerCrashed, WorkerError, WorkerTimeout
from .stats import PoolStats

log = logging.getLogger("rewards")

# The directory holding `rewards/`, put on the worker's PYTHONPATH so `-m rewards.engine.*` resolves.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SIGKILL = 9
"""POSIX SIGKILL, sent to a zygote-forked worker past its deadline (Popen.kill sends the same to
the others). Sending it is the only use of signals here; no handler is ever installed."""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    return env


def _sys_path() -> list[str]:
    return [os.getcwd() if p == "" else p for p in sys.path]


def _start(module: str, fds: tuple[int, ...], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", module, *map(str, fds), *args], pass_fds=fds, env=_env(),
        stdin=subprocess.DEVNULL,
        start_new_session=True)  # a terminal's Ctrl-C goes to the caller, which shuts us down


class _Popened:
    """A worker process started on its own (`python -m rewards.engine.worker`)."""

    def __init__(self, popen: subprocess.Popen):
        self.popen = popen
        self.pid = popen.pid

    def kill(self) -> None:
        try:
            self.popen.kill()
        except OSError:
            pass

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


class _Forked:
    """A worker forked by the zygote: killed by pid, reaped by the zygote (once, on request)."""

    def __init__(self, zygote: "_Zygote", pid: int):
        self.zygote = zygote
        self.pid = pid
        self._reaped = False
        self._code: int | None = None

    def kill(self) -> None:
        if not self._reaped and self.zygote.alive:  # unreaped, so the pid is still this worker's
            try:
                os.kill(self.pid, _SIGKILL)
            except OSError:
                pass

    def wait(self, timeout: float | None = None) -> int | None:
        """Only used when the worker must stop anyway: kill it, then collect its exit code."""
        if not self._reaped:
            self.kill()
            self._code = self.zygote.reap(self.pid)
            self._reaped = True
        return self._code


class ZygoteError(OSError):
    """The zygote is gone or did not answer; the pool falls back to starting workers directly."""


class _Zygote:
    """The pool's side of `rewards.engine.zygote`: spawn and reap requests, one at a time."""

    def __init__(self, memory_mb: int, preload: tuple[str, ...]):
        from .zygote import recv_message, send_message

        self._send, self._recv = send_message, recv_message
        ours, theirs = socket.socketpair()
        try:
            self.process = _start("rewards.engine.zygote", (theirs.fileno(),))
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.alive = True
        self._ready = False
        self._lock = threading.Lock()
        self._send(self.sock, ("init", _sys_path(), tuple(preload), memory_mb))

    def _request(self, message: tuple, fds: list[int] | None = None) -> tuple:
        with self._lock:
            if not self.alive:
                raise ZygoteError("the zygote has exited")
            try:
                self.sock.settimeout(STARTUP_TIMEOUT)
                if not self._ready:
                    reply, _ = self._recv(self.sock)
                    if reply[0] != "ready":
                        raise ZygoteError(f"zygote sent {reply[0]!r} instead of ready")
                    self._ready = True
                self._send(self.sock, message, fds)
                reply, _ = self._recv(self.sock)
                return reply
            except (OSError, EOFError) as exc:
                self.alive = False
                raise ZygoteError(f"the zygote stopped answering: {exc or type(exc).__name__}") from None

    def spawn(self, preload: tuple[str, ...]) -> tuple[int, Connection, Connection]:
        reply, inbox, outbox = _with_pipes(lambda fds: self._request(("spawn", tuple(preload)), list(fds)))
        return reply[1], inbox, outbox

    def reap(self, pid: int) -> int | None:
        try:
            return self._request(("reap", pid))[1]
        except ZygoteError:
            return None

    def close(self) -> None:
        with self._lock:
            self.alive = False
            self.sock.close()
        try:
            self.process.wait(2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _with_pipes(start: Callable[[tuple[int, int]], Any]) -> tuple[Any, Connection, Connection]:
    """Two pipes for a new worker: `start` hands the child its ends (read, write), which are then
    closed here; the result of `start` comes back with our ends, or our ends are closed if it fails."""
    child_in, self_out = os.pipe()
    self_in, child_out = os.pipe()
    try:
        started = start((child_in, child_out))
    except BaseException:
        os.close(self_in)
        os.close(self_out)
        raise
    finally:
        os.close(child_in)
        os.close(child_out)
    return started, Connection(self_in, writable=False), Connection(self_out, readable=False)


def _popen_worker(memory_mb: int, preload: tuple[str, ...]) -> "_Worker":
    popen, inbox, outbox = _with_pipes(
        lambda fds: _start("rewards.engine.worker", fds, str(memory_mb), str(os.getpid())))
    worker = _Worker(_Popened(popen), inbox, outbox)
    worker.outbox.send(("init", _sys_path(), tuple(preload)))
    return worker


class _Worker:
    """One worker process and the parent's ends of its two pipes."""

    def __init__(self, process: _Popened | _Forked, inbox: Connection, outbox: Connection):
        self.process = process
        self.inbox = inbox
        self.outbox = outbox
        self.modules: set[str] = set()  # filled from the ready message: what actually imported
        self.ready = False

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
            code = self.exitcode()
            raise WorkerCrashed(f"worker exited while starting (exit code {code})", code) from None
        if reply[0] != "ready":
            raise WorkerCrashed(f"worker sent {reply[0]!r} instead of ready")
        self.modules.update(reply[2])
        self.ready = True

    def exitcode(self, wait: float = 1.0) -> int | None:
        return self.process.wait(wait)

    def kill(self) -> None:
        """Stop the process now and reap it; safe to call twice."""
        self.process.kill()
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
        self._zygote = self._start_zygote()
        for _ in range(config.workers):
            self._add_worker()

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
                log.warning("rewards: %s; starting workers on their own from now on", exc)
        return _popen_worker(self._memory_mb, preload)

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
            code = worker.exitcode()
            worker.kill()
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
        worker = self._launch(preload)
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
