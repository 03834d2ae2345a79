"""Identical calls in flight share one worker run.

A GRPO group holds n responses to one prompt, and many spell the same answer: scored at once,
each identical sympy check queued for a worker of its own, and in a burst the copies pushed sound
answers past their deadlines (issue 23). Here the first call of a function on given arguments
leads; an identical call arriving while it runs waits for the leader's outcome instead of
queueing. A value, or the function's own exception (`WorkerError`), is the same for every caller
and is shared. A timeout means the check itself used its budget on a worker, so it is shared with
followers whose budget is no larger than the leader's; a follower with a larger budget gets its
own run. A crash or an exception raised into the leader's wait makes followers run the call
again. Followers that run again form a new flight, so the call runs once more, not once per
follower.
"""

from __future__ import annotations

import pickle
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
    __slots__ = ("future", "budget")

    def __init__(self, budget: float):
        self.future: Future = Future()
        self.budget = budget  # the leader's


def flight_key(fn: Callable[..., Any], args: tuple) -> bytes | None:
    """What makes two calls identical: their pickles (a function pickles by module and name, a
    partial with its arguments). Equal pickles unpickle to the same call; unequal ones only
    miss a merge. None for a call that does not pickle: it runs alone, and the pool says why."""
    try:
        return pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None


def _join(key: Any, budget: float) -> tuple[_Flight, bool]:
    """The flight for `key`, and whether this caller leads it."""
    with _lock:
        flight = _flights.get(key)
        if flight is not None:
            return flight, False
        flight = _flights[key] = _Flight(budget)
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


def _outcome(flight: _Flight, budget: float) -> tuple[bool, Any]:
    """What a follower takes from a finished flight: (True, value), a raised shared exception,
    or (False, None) when it must run the call itself."""
    exc = flight.future.exception()
    if exc is None:
        return True, flight.future.result()
    if isinstance(exc, WorkerError):
        raise exc
    if isinstance(exc, WorkerTimeout) and not exc.queued and budget <= flight.budget:
        raise WorkerTimeout(budget, exc.fn_name)
    return False, None


def shared_call(key: Any, budget: float, run: Callable[[], Any]) -> Any:
    """`run()` (the pool call, with `budget`), or the outcome of an identical call in flight. A
    follower waits as long as the leader runs (its check is bounded by its own budget)."""
    if key is None:
        return run()
    while True:
        flight, lead = _join(key, budget)
        if lead:
            return _lead(key, flight, run)
        wait([flight.future])
        known, value = _outcome(flight, budget)
        if known:
            return value


async def ashared_call(key: Any, budget: float, run: Callable[[], Awaitable[Any]]) -> Any:
    """`shared_call` for asyncio: a follower waits on the event loop."""
    if key is None:
        return await run()
    while True:
        flight, lead = _join(key, budget)
        if lead:
            break
        known, value = await _afollow(flight, budget)
        if known:
            return value
    try:
        value = await run()
    except BaseException as exc:
        _land(key, flight, exc)
        raise
    _land(key, flight, value=value)
    return value


async def _afollow(flight: _Flight, budget: float) -> tuple[bool, Any]:
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
    await landed
    return _outcome(flight, budget)


def _lead(key: Any, flight: _Flight, run: Callable[[], Any]) -> Any:
    try:
        value = run()
    except BaseException as exc:
        _land(key, flight, exc)
        raise
    _land(key, flight, value=value)
    return value
