"""The worker processes: how they start, talk and die (the pool in pool.py decides when).

Why not multiprocessing/concurrent.futures: their fork start method is unsafe in the threaded
processes verl runs reward functions in (Ray actors), and their spawn/forkserver methods re-import
the caller's `__main__` in every worker (in verl that is the trainer or Ray's worker script) and
refuse to start children from daemonic processes. Here a fresh interpreter, the zygote
(`python -m rewards.engine.zygote`), imports and warms up once and forks each worker on request
(milliseconds); where fork is unavailable, or the zygote is gone, a worker is a fresh
`python -m rewards.engine.worker`. Either way a worker talks over two private pipes, so workers
start the same way from threads, asyncio executors, Ray actors or a plain script. Every child is
started from one long-lived thread and dies with this process (`PR_SET_PDEATHSIG`, worker.py).
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future
from multiprocessing.connection import Connection
from typing import Any, Callable

from ..forksafe import ForkSafeLock
from .config import STARTUP_TIMEOUT, ZYGOTE_REPLY_S
from .errors import WorkerCrashed

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
    command = [sys.executable, "-m", module, *map(str, fds), *args]
    return _launcher().run(lambda: subprocess.Popen(
        command, pass_fds=fds, env=_env(), stdin=subprocess.DEVNULL,
        start_new_session=True))  # a terminal's Ctrl-C goes to the caller, which shuts us down


class _Launcher:
    """The one thread that starts this process's children, alive as long as the process.

    Children ask the kernel to kill them when their parent dies (`PR_SET_PDEATHSIG`), and the
    kernel means the parent *thread*: a zygote started from a short-lived thread (verl's executor,
    our warm-up thread) would be killed when that thread ended."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="rewards-launcher", daemon=True).start()

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                done.set_exception(exc)

    def run(self, job: Callable[[], Any]) -> Any:
        done: Future = Future()
        self._jobs.put((job, done))
        return done.result()


_launcher_lock = ForkSafeLock()
_the_launcher: _Launcher | None = None


def _launcher() -> _Launcher:
    global _the_launcher
    with _launcher_lock:
        if _the_launcher is None or _the_launcher.pid != os.getpid():  # threads do not survive fork()
            _the_launcher = _Launcher()
        return _the_launcher


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
        # Unreaped by a zygote that still exists (stopped or not), so the pid is still this worker's.
        if not self._reaped and self.zygote.process.poll() is None:
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
            self.process = _start("rewards.engine.zygote", (theirs.fileno(),), str(os.getpid()))
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.alive = True
        self._ready = False
        self._known: set[str] = set()  # modules the zygote has loaded (or tried to)
        self._lock = threading.Lock()
        self._holder_limit = STARTUP_TIMEOUT  # how long the request in progress may take
        self._send(self.sock, ("init", _sys_path(), tuple(preload), memory_mb))

    def _request(self, message: tuple, fds: list[int] | None = None, imports: bool = False) -> tuple:
        """One request and its reply. Once the zygote is ready, a fork or a reap answers in
        milliseconds: nobody waits on it longer than ZYGOTE_REPLY_S (a stopped or wedged zygote is
        given up, and workers start on their own). Its start-up, and a spawn that first imports a
        module (`imports`), get STARTUP_TIMEOUT."""
        limit = ZYGOTE_REPLY_S if self._ready and not imports else STARTUP_TIMEOUT
        if not self._lock.acquire(timeout=self._holder_limit + ZYGOTE_REPLY_S):
            self.alive = False  # the request ahead outlived its own limit: the zygote is not answering
            raise ZygoteError("the zygote stopped answering")
        try:
            if not self.alive:
                raise ZygoteError("the zygote has exited")
            self._holder_limit = limit
            try:
                self.sock.settimeout(STARTUP_TIMEOUT)
                if not self._ready:
                    reply, _ = self._recv(self.sock)
                    if reply[0] != "ready":
                        raise ZygoteError(f"zygote sent {reply[0]!r} instead of ready")
                    self._known.update(reply[2])
                    self._ready = True
                self.sock.settimeout(limit)
                self._send(self.sock, message, fds)
                reply, _ = self._recv(self.sock)
                return reply
            except (OSError, EOFError) as exc:
                self.alive = False
                raise ZygoteError(f"the zygote stopped answering: {exc or type(exc).__name__}") from None
        finally:
            self._lock.release()

    def spawn(self, preload: tuple[str, ...]) -> tuple[int, Connection, Connection]:
        imports = not self._ready or any(p.partition(":")[0] not in self._known for p in preload)
        reply, inbox, outbox = _with_pipes(
            lambda fds: self._request(("spawn", tuple(preload)), list(fds), imports=imports))
        self._known.update(p.partition(":")[0] for p in preload)
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
        self.idle_since = 0.0
        self.busy_since = 0.0
        self.clock: Any = None  # the running check's budget.CheckClock, read if the worker dies

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
