"""The execution engine: run sympy-bound checks in worker processes under a hard deadline.

`call_bounded(fn, *args, timeout=...)` is the one primitive: it runs a top-level picklable
function in a worker from a shared, lazily started pool and returns its value, or raises
`WorkerTimeout` (the worker is killed and replaced), `WorkerCrashed` (the worker died, e.g. at its
memory cap) or `WorkerError` (the function raised; original type name and message kept). It is
thread-safe and blocks only the calling thread, so it works from thread pools, asyncio executors
(`acall_bounded`) and Ray actors alike. No `signal` is used anywhere.

Configuration is per process: `REWARDS_WORKERS`, `REWARDS_WORKER_MEMORY_MB`,
`REWARDS_WORKER_PRELOAD`, `REWARDS_ENGINE_INLINE` (debugging only), or `configure(...)`.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from .config import EngineConfig, from_env
from .errors import EngineError, WorkerCrashed, WorkerError, WorkerTimeout
from .stats import PoolStats

if TYPE_CHECKING:  # the pool (subprocess, pipes) is imported when it first starts
    from .pool import WorkerPool

__all__ = [
    "call_bounded", "acall_bounded", "configure", "get_config", "warm_up", "shutdown", "stats",
    "EngineConfig", "EngineError", "WorkerTimeout", "WorkerCrashed", "WorkerError", "PoolStats",
]

log = logging.getLogger("rewards")

_lock = threading.Lock()
_config: EngineConfig | None = None
_pool: WorkerPool | None = None
_inline_warned = False


def get_config() -> EngineConfig:
    """The configuration the pool uses (or will use when it starts)."""
    with _lock:
        return _current_config()


def _current_config() -> EngineConfig:
    global _config
    if _config is None:
        _config = from_env()
    return _config


def configure(**changes: Any) -> EngineConfig:
    """Change workers / memory_mb / preload / inline; a running pool is shut down and restarts
    lazily with the new configuration on the next call."""
    global _config, _pool
    with _lock:
        _config = replace(_current_config(), **changes)
        old, _pool = _pool, None
    if old is not None:
        old.shutdown()
    return _config


def _get_pool() -> WorkerPool:
    global _pool
    with _lock:
        if _pool is not None and _pool.pid != os.getpid():
            _pool = None  # inherited through fork(): the workers belong to the parent process
        if _pool is None:
            from .pool import WorkerPool
            _pool = WorkerPool(_current_config())
        return _pool


def call_bounded(fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """fn(*args) in a worker process, with a hard deadline of `timeout` seconds.

    Raises WorkerTimeout, WorkerCrashed or WorkerError instead of returning; a pickling error
    for an unpicklable fn or argument is raised as is, before any worker is involved.
    """
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if get_config().inline:
        return _call_inline(fn, args)
    return _get_pool().call(fn, args, float(timeout))


async def acall_bounded(fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """`call_bounded` for asyncio: waits in the loop's default executor, never blocking the loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(call_bounded, fn, *args, timeout=timeout))


def _call_inline(fn: Callable[..., Any], args: tuple) -> Any:
    """Debug mode: no process, no deadline, no memory cap; exceptions still become WorkerError."""
    global _inline_warned
    if not _inline_warned:
        _inline_warned = True
        log.warning("rewards: engine runs inline (REWARDS_ENGINE_INLINE / configure(inline=True)): "
                    "no deadlines and no memory cap; for debugging only")
    try:
        return fn(*args)
    except Exception as exc:
        import traceback
        raise WorkerError(type(exc).__name__, str(exc), traceback.format_exc()) from exc


def warm_up() -> None:
    """Start the pool now and wait until every worker is ready (e.g. when a reward worker starts),
    so the first calls do not wait for start-up. A no-op in inline mode."""
    if not get_config().inline:
        _get_pool().warm_up()


def stats() -> PoolStats:
    """Counters of the running pool (zeros when it has not started)."""
    with _lock:
        pool = _pool
    return replace(pool.stats) if pool is not None else PoolStats()


def shutdown() -> None:
    """Stop the pool now (it restarts lazily if called again). Runs automatically at exit."""
    global _pool
    with _lock:
        old, _pool = _pool, None
    if old is not None:
        old.shutdown()


atexit.register(shutdown)
