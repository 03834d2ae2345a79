"""Locks that a forked child gets back free, and state the child must not inherit.

`fork()` copies a lock held by another thread as held, and that thread does not exist in the
child: the child's first scoring call would wait on it forever (issue 23: 4 threads scoring while
the main thread forked 20 children; about half the children hung). Every lock on the scoring
path is a `ForkSafeLock`, renewed in the child right after `fork()`; `after_fork` registers
anything else a child must reset (a half-updated mpmath context, the parent's worker pool).
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Callable

_locks: "weakref.WeakSet[ForkSafeLock]" = weakref.WeakSet()


class ForkSafeLock:
    """A `threading.Lock` (or `RLock`, by `factory`) that is new and free in a forked child."""

    __slots__ = ("_factory", "_lock", "__weakref__")

    def __init__(self, factory: Callable[[], Any] = threading.Lock):
        self._factory = factory
        self._lock = factory()
        _locks.add(self)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> bool:
        return self._lock.acquire()

    def __exit__(self, *exc: Any) -> None:
        self._lock.release()

    def _renew(self) -> None:
        self._lock = self._factory()


def after_fork(reset: Callable[[], None]) -> None:
    """Run `reset` in every child forked from now on (nothing where fork does not exist)."""
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=reset)


def _renew_locks() -> None:
    for lock in list(_locks):
        lock._renew()


after_fork(_renew_locks)
