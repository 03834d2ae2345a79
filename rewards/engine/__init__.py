"""The execution engine: run sympy-bound checks in worker processes, each under a budget.

`call_bounded(fn, *args, timeout=...)` is the one primitive: it runs a top-level picklable
function in a worker from a shared, lazily started pool and returns its value, or raises
`WorkerTimeout` (the check used its budget: the worker is killed and replaced), `WorkerCrashed`
(the worker died twice, or at its memory cap) or `WorkerError` (the function raised; original type
name and message kept). The budget is `timeout` seconds of the check's own CPU time, counted from
the moment a worker starts it (budget.py says why CPU time); an enclosing `within(seconds)` scope
can only shorten it, to what the scope has left when the call is made. Waiting for a worker, a
worker's start-up and imports are never charged. A worker that dies mid-call (the host's OOM
killer) gets the call re-run once on another worker. It is thread-safe and blocks only the calling
thread; `acall_bounded` is the asyncio form, which waits on the event loop itself, and `drive` runs
synchronous scoring code on an event loop with its worker calls awaited that way (scope.py). No
`signal` handler is installed anywhere.

Configuration is per process: `REWARDS_WORKERS`, `REWARDS_MAX_WORKERS`, `REWARDS_WORKER_MEMORY_MB`,
`REWARDS_WORKER_PRELOAD`, `REWARDS_ENGINE_INLINE` (debugging only), or `configure(...)`.

The engine knows no scorer: a caller that sends it work says what its workers need with
`require(...)` (the registry does so for each scorer registered with `preload=`), and names heavy
functions with `WorkerFunction` so that only workers import them.
"""

from __future__ import annotations

import atexit
import logging
import os
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from ..forksafe import ForkSafeLock
from .by_name import WorkerFunction
from .config import EngineConfig, EngineConfigError, from_env
from .errors import EngineError, WorkerCrashed, WorkerError, WorkerTimeout
from .flights import ashared_call, flight_key, shared_call
from .scope import Deferred, answered, deadline, within
from .scope import drive as _drive
from .stats import PoolStats

if TYPE_CHECKING:  # the pool (subprocess, pipes) is imported when it first starts
    from .pool import WorkerPool

__all__ = [
    "call_bounded", "acall_bounded", "drive", "within", "deadline", "configure", "get_config",
    "warm_up", "shutdown", "stats", "require", "worker_preload", "EngineConfig", "EngineError",
    "WorkerTimeout", "WorkerCrashed", "WorkerError", "EngineConfigError", "PoolStats", "Deferred", "WorkerFunction",
]

log = logging.getLogger("rewards")

_lock = ForkSafeLock()  # a child forked while a thread held it would wait forever
_config: EngineConfig | None = None
_pool: WorkerPool | None = None
_inline_warned = False
_required: tuple[str, ...] = ()


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
    global _config, _pool, _start_failure
    with _lock:
        _config = replace(_current_config(), **changes)
        old, _pool, _start_failure = _pool, None, None
    if old is not None:
        old.shutdown()
    return _config


def require(*preload: str) -> None:
    """Preload entries every worker loads before it takes work, on top of the configured ones:
    modules, and `module:function` warm-ups that are called. Given by a caller that sends work
    here (`register_scorer(..., preload=)`), before the pool starts; a running pool's workers
    started from now on load them too."""
    global _required
    with _lock:
        _required = tuple(dict.fromkeys(_required + preload))
        pool = _pool
    if pool is not None:
        pool.require(preload)


def worker_preload() -> tuple[str, ...]:
    """What each worker loads before it takes work: the configured preload, then what callers require."""
    with _lock:
        return tuple(dict.fromkeys(_current_config().preload + _required))


START_RETRY_S = 30.0
"""A pool that could not start (no worker came up: out of file descriptors, a memory cap too small)
is not started again for this long: every call in between raises the same error at once, instead
of each paying, and logging, another failed start."""

_start_failure: tuple[float, EngineConfigError] | None = None


def _get_pool() -> WorkerPool:
    """The running pool, started on first use (its start is never charged to a check's budget)."""
    global _pool, _start_failure
    with _lock:
        if _pool is not None and _pool.pid != os.getpid():
            _pool = None  # inherited through fork(): the workers belong to the parent process
        if _pool is not None:
            return _pool
        if _start_failure is not None and time.monotonic() - _start_failure[0] < START_RETRY_S:
            raise _start_failure[1]
        from .pool import WorkerPool
        config = _current_config()
        try:
            _pool = WorkerPool(replace(config, preload=tuple(dict.fromkeys(config.preload + _required))))
        except EngineConfigError as exc:
            _start_failure = (time.monotonic(), exc)
            raise
        _start_failure = None
        return _pool


def _budget(timeout: float) -> float:
    """The check's budget: `timeout`, or what the enclosing scope has left now, if less."""
    scope = deadline()
    return timeout if scope is None else min(timeout, scope - time.monotonic())


def _check_timeout(timeout: Any) -> None:
    if not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")


def call_bounded(fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """fn(*args) in a worker process, its check allowed `timeout` seconds of CPU time from the
    moment a worker starts it (or what the enclosing `within` scope has left, if less); waiting
    for a free worker is not charged.

    Raises WorkerTimeout, WorkerCrashed or WorkerError instead of returning; a pickling error
    for an unpicklable fn or argument is raised as is, before any worker is involved. An
    identical call (same function and arguments) already in flight is waited for instead of
    run again (flights.py).
    """
    _check_timeout(timeout)
    if get_config().inline:
        return _call_inline(fn, args)
    known, value = answered(fn, args, timeout)  # under `drive`: the awaited answer, or Deferred
    if known:
        return value
    budget = _budget(float(timeout))
    if budget <= 0:
        raise WorkerTimeout(float(timeout), queued=True)
    pool = _get_pool()
    return shared_call(flight_key(fn, args), budget, lambda: pool.call(fn, args, budget))


async def acall_bounded(fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
    """`call_bounded` for asyncio: waiting for a worker and for its answer happen on the event
    loop (no thread is parked); only the pool's one-time start runs in a helper thread."""
    import asyncio

    _check_timeout(timeout)
    if get_config().inline:
        return _call_inline(fn, args)
    budget = _budget(float(timeout))
    if budget <= 0:
        raise WorkerTimeout(float(timeout), queued=True)
    with _lock:
        running = _pool if _pool is not None and _pool.pid == os.getpid() else None
    pool = running if running is not None else await asyncio.to_thread(_get_pool)
    return await ashared_call(flight_key(fn, args), budget, lambda: pool.acall(fn, args, budget))


async def drive(judge: Callable[[], Any]) -> Any:
    """Run synchronous scoring code on the event loop; each worker call it makes is awaited with
    `acall_bounded` instead of blocking (scope.py)."""
    return await _drive(judge, acall_bounded)


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
    so the first calls do not wait for start-up. A no-op in inline mode.

    Call it after the scorers you use are registered (`rewards.registry.get_scorer(name)` loads the
    built-ins): workers preload what the registered scorers `require`, and a pool started before
    that imports those modules later, inside the first calls' deadlines. `rewards.verl` does this
    in that order by itself."""
    if not get_config().inline:
        _get_pool()


def stats() -> PoolStats:
    """Counters of the running pool (zeros when it has not started)."""
    with _lock:
        pool = _pool
    return replace(pool.stats) if pool is not None else PoolStats()


def shutdown() -> None:
    """Stop the pool now (it restarts lazily if called again). Runs automatically at exit."""
    global _pool, _start_failure
    with _lock:
        old, _pool, _start_failure = _pool, None, None
    if old is not None:
        old.shutdown()


atexit.register(shutdown)
