"""The worker process: `python -m rewards.engine.worker IN_FD OUT_FD MEMORY_MB PARENT_PID`.

A fresh interpreter (not a fork of the caller, which may hold threads, CUDA or Ray state): it caps
its own address space, takes the caller's sys.path and warm-up modules, says `ready`, then runs
pickled calls one at a time. A MemoryError ends the process (its heap cannot be trusted after);
the parent sees that as a crash and starts a replacement. It exits when its input pipe closes or
its parent disappears.

Dying with the caller, however the caller dies (Ray ends actors with SIGKILL, which runs no
clean-up): the kernel sends SIGKILL to this process when its parent does (`PR_SET_PDEATHSIG`,
Linux), a watcher thread checks the parent every second where that is unavailable, and each call
runs under a CPU-time limit a little above its deadline (`RLIMIT_CPU`), so even a worker that
outlived every other mechanism stops computing by itself.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
import time
import traceback
from importlib import import_module
from multiprocessing.connection import Connection

OOM_EXIT = 3
IMPORT_CPU_SECONDS = 120.0
"""CPU allowance for importing a module first needed mid-run (the pool's start-up allowance)."""


def cap_memory(memory_mb: int) -> None:
    """Limit this process's address space so a runaway computation fails here, not on the host."""
    if memory_mb <= 0:
        return
    try:
        import resource
    except ImportError:  # not POSIX: no cap available
        return
    limit = memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


_PR_SET_PDEATHSIG = 1
_SIGKILL = 9


def die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux only; elsewhere the
    parent watch is the mechanism), and exit now if the parent is already gone.

    The signal fires when the *thread* that forked this process ends, so the pool starts its
    children from one long-lived thread (pool.py), and the zygote is single-threaded."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # died before the request took effect
        os._exit(0)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    except (ImportError, ValueError, OSError):  # no core files from the CPU limit below
        pass


def limit_cpu(seconds: float) -> None:
    """Let this process use at most `seconds` more CPU time (then the kernel ends it with SIGXCPU):
    a backstop under the parent's deadline, which always fires first while the parent lives."""
    try:
        import resource
    except ImportError:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):
        pass


def watch_parent(parent_pid: int, every: float = 1.0) -> None:
    """Exit if the parent dies mid-computation (a blocked read would notice only afterwards)."""
    def watch() -> None:
        while True:
            time.sleep(every)
            if os.getppid() != parent_pid:
                os._exit(0)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def prepare(sys_path: list[str], preload: tuple[str, ...]) -> list[str]:
    """Take the caller's sys.path, import the preload modules and run `module:function` warm-ups;
    the modules that imported."""
    sys.path[:] = list(sys_path) + [p for p in sys.path if p not in sys_path]
    loaded = []
    for name in preload:
        module, _, function = name.partition(":")
        try:
            imported = import_module(module)
            loaded.append(module)
            if function:
                getattr(imported, function)()
        except Exception:  # a failed warm-up only costs time later, when a call needs it
            pass
    return loaded


def serve(inbox: Connection, outbox: Connection) -> None:
    """A worker started on its own: read `init`, prepare, say `ready`, then run calls."""
    kind, sys_path, preload = inbox.recv()
    assert kind == "init", kind
    loaded = prepare(sys_path, preload)
    outbox.send(("ready", os.getpid(), loaded))
    run_calls(inbox, outbox)


def run_calls(inbox: Connection, outbox: Connection) -> None:
    """Answer requests one at a time until the input pipe closes."""
    while True:
        try:
            data = inbox.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            outbox.send_bytes(handle(data))
        except MemoryError:
            _out_of_memory(outbox)


def run_forked(in_fd: int, out_fd: int, memory_mb: int, loaded: list[str], zygote_pid: int) -> None:
    """A worker forked by the zygote (already prepared): cap, say `ready`, run calls."""
    die_with_parent(zygote_pid)
    cap_memory(memory_mb)
    watch_parent(zygote_pid)
    inbox, outbox = Connection(in_fd, writable=False), Connection(out_fd, readable=False)
    try:
        outbox.send(("ready", os.getpid(), loaded))
        run_calls(inbox, outbox)
    except MemoryError:
        os._exit(OOM_EXIT)


def handle(data: bytes) -> bytes:
    """Run one request, `(kind, question id, ...)`; the pickled reply carries the same id, so the
    caller can tell its answer from any other. Only MemoryError escapes."""
    qid = None
    try:
        message = pickle.loads(data)
        qid = message[1]
        if message[0] == "import":
            limit_cpu(IMPORT_CPU_SECONDS)
            import_module(message[2])
            return pickle.dumps(("ok", qid, None))
        _, _, fn, args, cpu_seconds = message
        limit_cpu(cpu_seconds)
        value = fn(*args)
        return pickle.dumps(("ok", qid, value), protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        raise
    except BaseException as exc:  # the caller gets the type and message as WorkerError
        return pickle.dumps(("err", qid, type(exc).__name__, str(exc), traceback.format_exc()))


def _out_of_memory(outbox: Connection) -> None:
    try:
        outbox.send(("oom",))
    finally:
        os._exit(OOM_EXIT)


def main(argv: list[str]) -> None:
    in_fd, out_fd, memory_mb, parent_pid = (int(a) for a in argv)
    die_with_parent(parent_pid)
    cap_memory(memory_mb)
    watch_parent(parent_pid)
    try:
        serve(Connection(in_fd, writable=False), Connection(out_fd, readable=False))
    except MemoryError:
        os._exit(OOM_EXIT)


if __name__ == "__main__":
    main(sys.argv[1:])
