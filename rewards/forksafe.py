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

_locks: "weakref.WeakSet[Any]" = weakref.WeakSet()


def ForkSafeLock(factory: Callable[[], Any] = threading.Lock) -> Any:
    """A `threading.Lock` (or `RLock`, by `factory`) that is free again in a forked child.

    The lock itself is returned, not a wrapper: a wrapper's Python-level `__enter__` lets the GIL pass
    to another thread between taking the lock and returning, and the threads of a scoring batch then
    queue on the lock for whole switch intervals (a cache-free batch of 2,048 MATH answers was 15-25%
    slower on 2 cores). The child re-initialises it with the interpreter's own `_at_fork_reinit`,
    as `threading` does for its own locks."""
    lock = factory()
    _locks.add(lock)
    return lock


def after_fork(reset: Callable[[], None]) -> None:
    """Run `reset` in every child forked from now on (nothing where fork does not exist)."""
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=reset)


def _renew_locks() -> None:
    for lock in list(_locks):
        lock._at_fork_reinit()


after_fork(_renew_locks)
