"""Pool counters, kept apart so that reading them never imports the pool itself."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PoolStats:
    """Counters since the pool started: how many calls ran, overran their budget, crashed, raised,
    were re-run after their worker died; how often and how far the pool grew."""

    calls: int = 0
    timeouts: int = 0
    crashes: int = 0
    errors: int = 0
    restarts: int = 0
    retried: int = 0
    grown: int = 0
    peak_workers: int = 0
    stale_replies: int = 0
    """Replies to another question than the one waited for, dropped (should stay 0: a worker
    whose caller stopped waiting is replaced)."""
