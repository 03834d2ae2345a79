"""Run a function over a batch with a few threads, results in input order.

Why threads and not more processes: most answers are settled by the in-process fast path in
microseconds, and shipping them to a worker would cost more than judging them. Only sympy-bound
checks go to a worker (through `call_bounded`), and while a thread waits for one, the GIL is free
for the other threads' fast-path work. So the useful number of threads is the number of workers
the pool may reach (`max_workers`) plus one: every worker busy, the caller's core too, and a few
answers that hold workers to their deadline do not hold the batch's threads with them (1,024
samples with 10 such answers: 20.2 s with workers + 1 threads, 5.7 s with max_workers + 1; with
none, 0.31 s and 0.28 s). Threads that wait cost nothing: the pool only grows for held workers.
"""

from __future__ import annotations

import threading
from typing import Callable, Hashable, Iterable, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_PARALLEL = 8
"""Batches smaller than this run in the calling thread: starting threads would cost more."""


def default_threads() -> int:
    from . import get_config

    config = get_config()
    return 1 if config.inline else config.worker_limit + 1


def round_robin(keys: Sequence[Hashable]) -> list[int]:
    """Indices ordered first occurrence of every key, then second occurrences, and so on.

    A GRPO batch holds each prompt's n responses side by side, and they often share an answer;
    taken in this order, threads work on different golds at the same time, so a repeated check
    finds the first one's cached verdict instead of running again concurrently.
    """
    seen: dict[Hashable, int] = {}
    ranks = []
    for key in keys:
        rank = seen.get(key, 0)
        seen[key] = rank + 1
        ranks.append(rank)
    return sorted(range(len(keys)), key=ranks.__getitem__)


def map_ordered(fn: Callable[[T], R], items: Sequence[T], threads: int | None = None,
                order: Iterable[int] | None = None) -> list[R]:
    """[fn(x) for x in items], computed by up to `threads` threads pulling the next item as they
    free up (one slow item never holds up a fixed share of the batch), in `order` if given.
    Results are always in input order. The first exception raised by fn is re-raised after the
    other threads stop taking work."""
    n = len(items)
    threads = default_threads() if threads is None else threads
    if threads <= 1 or n < MIN_PARALLEL:
        return [fn(x) for x in items]
    results: list = [None] * n
    lock = threading.Lock()
    cursor = iter(range(n) if order is None else order)
    failure: list[BaseException] = []

    def drain() -> None:
        while not failure:
            with lock:
                i = next(cursor, None)
            if i is None:
                return
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller below
                failure.append(exc)
                return

    helpers = [threading.Thread(target=drain, name=f"rewards-batch-{k}", daemon=True)
               for k in range(min(threads, n) - 1)]
    for t in helpers:
        t.start()
    drain()  # the calling thread works too
    for t in helpers:
        t.join()
    if failure:
        raise failure[0]
    return results
