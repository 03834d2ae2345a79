"""Identical calls in flight share one worker run.

A GRPO group holds n responses to one prompt, and many spell the same answer: scored at once,
each identical sympy check queued for a worker of its own, and in a burst the copies pushed sound
answers past their deadlines (issue 23). Here the first call of a function on given arguments
leads; an identical call arriving while it runs waits for the leader's outcome (within its own
deadline) instead of queueing. A value, or the function's own exception (`WorkerError`), is the
same for every caller and is shared. Anything else the leader met is its own: a timeout is shared
only with followers whose deadline is no later than the leader's; a follower with time left gets
its own run (in a burst the leader's time mostly went waiting for a worker, so one timeout cost a
GRPO group every copy of its answer). A crash or an exception raised into the leader's wait also
makes followers run the call again. Followers that run again form a new flight, so the call runs
once more, not once per follower.
"""

from __future__ import annotations

import math
import pickle
import time
from concurrent.futures import Future, wait
from typing import Any, Awaitable, Callable

from ..forksafe import ForkSafeLock, after_fork
from .errors import WorkerError, WorkerTimeout

_lock = ForkSafeLock()
_flights: dict[Any, "_Flight"] = {}


def _forget_all() -> None:
    _flights.clear()  # the parent's leaders do not exist in a forked child


after_fork(_forget_all)


class _Flight:
    __slots__ = ("future", "end")

    def __init__(self, end: float):
        self.future: Future = Future()
        self.end = end  # the leader's deadline


def flight_key(fn: Callable[..., Any], args: tuple) -> bytes | None:
    """What makes two calls identical: their pickles (a function pickles by module and name, a
    partial with its arguments). Equal pickles unpickle to the same call; unequal ones only
    miss a merge. None for a call that does not pickle: it runs alone, and the pool says why."""
    try:
        return pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None


def _join(key: Any, end: float) -> tuple[_Flight, bool]:
    """The flight for `key`, and whether this caller leads it."""
    with _lock:
        flight = _flights.get(key)
        if flight is not None:
            return flight, False
        flight = _flights[key] = _Flight(end)
        return flight, True


def _land(key: Any, flight: _Flight, exc: BaseException | None = None, value: Any = None) -> None:
    """The leader's outcome: the flight leaves the table (a new identical call runs afresh) and
    its followers wake with the value or the exception."""
    with _lock:
        if _flights.get(key) is flight:
            del _flights[key]
    if exc is not None:
        flight.future.set_exception(exc)
    else:
        flight.future.set_result(value)


def _outcome(flight: _Flight, end: float, budget: float) -> tuple[bool, Any]:
    """What a follower takes from a finished (or not) flight: (True, value), a raised shared
    exception, or (False, None) when it must run the call itself."""
    if not flight.future.done():
        raise WorkerTimeout(budget, queued=True)  # its own deadline passed while it waited
    exc = flight.future.exception()
    if exc is None:
        return True, flight.future.result()
    if isinstance(exc, WorkerError):
        raise exc
    if isinstance(exc, WorkerTimeout) and (end <= flight.end or end <= time.monotonic()):
        raise WorkerTimeout(budget, exc.fn_name, exc.queued)
    return False, None


def shared_call(key: Any, end: float, budget: float, run: Callable[[], Any]) -> Any:
    """`run()` (the pool call, due by `end`), or the outcome of an identical call in flight."""
    if key is None:
        return run()
    while True:
        flight, lead = _join(key, end)
        if lead:
            return _lead(key, flight, run)
        left = end - time.monotonic()
        wait([flight.future], timeout=left if math.isfinite(left) else None)
        known, value = _outcome(flight, end, budget)
        if known:
            return value


async def ashared_call(key: Any, end: float, budget: float, run: Callable[[], Awaitable[Any]]) -> Any:
    """`shared_call` for asyncio: a follower waits on the event loop."""
    if key is None:
        return await run()
    while True:
        flight, lead = _join(key, end)
        if lead:
            break
        known, value = await _afollow(flight, end, budget)
        if known:
            return value
    try:
        value = await run()
    except BaseException as exc:
        _land(key, flight, exc)
        raise
    _land(key, flight, value=value)
    return value


async def _afollow(flight: _Flight, end: float, budget: float) -> tuple[bool, Any]:
    """A follower's wait on the event loop, then `_outcome`."""
    import asyncio

    from .pool import _resolve

    loop = asyncio.get_running_loop()
    landed = loop.create_future()

    def wake(_: Future) -> None:
        try:
            loop.call_soon_threadsafe(_resolve, landed)
        except RuntimeError:  # that event loop is closed
            pass

    flight.future.add_done_callback(wake)
    left = end - time.monotonic()
    await asyncio.wait((landed,), timeout=left if math.isfinite(left) else None)
    return _outcome(flight, end, budget)


def _lead(key: Any, flight: _Flight, run: Callable[[], Any]) -> Any:
    try:
        value = run()
    except BaseException as exc:
        _land(key, flight, exc)
        raise
    _land(key, flight, value=value)
    return value
