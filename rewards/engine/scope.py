"""What a bounded call inherits from the scoring call around it: its budget, and (for asyncio)
where to send the request instead of blocking.

The budget. `within(seconds)` starts the scoring call's clock: a worker call made under it gets at
most what is left of it at that moment as the check's budget (the in-process fast path before it
is charged; waiting for a worker and the worker's start-up are not: budget.py). Nested scopes can
only shorten it.

Asyncio without parked threads. A scorer is ordinary synchronous code that calls `call_bounded`
where it needs a worker. `drive(judge)` runs it on the event loop's thread with a request book:
the first `call_bounded` that has no answer in the book raises `Deferred` (a BaseException, so the
scorer's `except Exception` lets it through); `drive` awaits the worker on the event loop, writes
the answer (or the exception) into the book and runs the scorer again, which now finds it. The
fast path runs once per worker call (microseconds); no thread waits for the worker.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, Iterator, TypeVar

T = TypeVar("T")

_deadline: ContextVar[float | None] = ContextVar("rewards_deadline", default=None)
_book: ContextVar[dict | None] = ContextVar("rewards_requests", default=None)


@contextmanager
def within(seconds: float) -> Iterator[float]:
    """A worker call in this block gets at most what is left of `seconds` from now as its budget
    (less when an enclosing block says so); yields the absolute deadline (time.monotonic())."""
    end = time.monotonic() + seconds
    current = _deadline.get()
    if current is not None:
        end = min(end, current)
    token = _deadline.set(end)
    try:
        yield end
    finally:
        _deadline.reset(token)


def deadline() -> float | None:
    """The enclosing scope's absolute deadline, if any."""
    return _deadline.get()


class Deferred(BaseException):
    """A worker call requested under `drive`; not an error (BaseException so scorers pass it on)."""

    def __init__(self, key: Any, fn: Callable[..., Any], args: tuple, timeout: float):
        super().__init__(getattr(fn, "__qualname__", "call"))
        self.key, self.fn, self.args, self.timeout = key, fn, args, timeout


def request_key(fn: Callable[..., Any], args: tuple) -> Any:
    key = (getattr(fn, "__module__", None), getattr(fn, "__qualname__", None), args)
    try:
        hash(key)
    except TypeError:
        import pickle

        key = pickle.dumps((fn, args))
    return key


def answered(fn: Callable[..., Any], args: tuple, timeout: float) -> tuple[bool, Any]:
    """Under `drive`: (True, value) when the book has this call's answer (re-raising a recorded
    exception), else raises Deferred. Outside `drive`: (False, None)."""
    book = _book.get()
    if book is None:
        return False, None
    key = request_key(fn, args)
    if key not in book:
        raise Deferred(key, fn, args, timeout)
    ok, value = book[key]
    if not ok:
        raise value
    return True, value


async def drive(judge: Callable[[], T], acall: Callable[..., Awaitable[Any]]) -> T:
    """`judge()` on this thread, each worker call it needs awaited with `acall(fn, *args,
    timeout=...)` on the event loop, until it returns."""
    book: dict = {}
    token = _book.set(book)
    try:
        while True:
            try:
                return judge()
            except Deferred as request:
                try:
                    book[request.key] = (True, await acall(request.fn, *request.args, timeout=request.timeout))
                except Exception as exc:  # recorded: the scorer turns it into a verdict
                    book[request.key] = (False, exc)
    finally:
        _book.reset(token)
