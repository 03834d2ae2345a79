"""How much of its budget a check has used: the CPU time its worker spent on it.

A check's budget (`timeout`) is CPU time, counted from the moment its worker starts it. Why not wall
time: on a node shared with training, the CPUs a reward worker gets change with the phase of the
step (rollout, data loading, the update), so a wall-clock budget would make a sound answer's verdict
depend on what else the node was doing, and the loss would fall on the answers that need a symbolic
check. CPU time charges a check for its own work only: the same answer gets the same verdict on a
busy node as on an idle one, and offline. Waiting for a worker, a worker's start-up and imports are
not the check's and are never charged.

A worker that gets almost no CPU (stopped, or starved far beyond "a busy node") would never spend
its budget, so wall time is a backstop: a check still running `BACKSTOP` times its budget after it
started ends as `timeout` too. Where a process's CPU time cannot be read (not Linux), the budget is
wall time from the check's start.
"""

from __future__ import annotations

import math
import os
import time

BACKSTOP = 4.0
"""A check that has used less than its CPU budget ends anyway this many budgets after it started:
it got under a quarter of a core all along (a stopped worker, a machine far past "busy")."""
MIN_LOOK_S = 0.01
"""The shortest wait between two readings of a worker's CPU time."""

try:
    _TICK = float(os.sysconf("SC_CLK_TCK"))
except (AttributeError, ValueError, OSError):
    _TICK = 0.0


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) process `pid` has used, or None where it cannot be read.
    A process that exited but is not reaped yet still answers (its pid holds its totals)."""
    if not _TICK:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime (fields 14 and 15)
    except (OSError, IndexError, ValueError):
        return None


class CheckClock:
    """One check's use of its budget, started when the check is sent to its worker."""

    __slots__ = ("pid", "budget", "cpu_start", "wall_start", "wall_end")

    def __init__(self, pid: int, budget: float):
        self.pid = pid
        self.budget = budget
        self.cpu_start = cpu_seconds(pid)
        self.wall_start = time.monotonic()
        self.wall_end = self.wall_start + budget * (BACKSTOP if self.cpu_start is not None else 1.0)

    def used(self) -> float:
        """The budget spent so far: CPU seconds where they can be read, else wall seconds."""
        if self.cpu_start is not None:
            cpu = cpu_seconds(self.pid)
            if cpu is not None:
                return cpu - self.cpu_start
        return time.monotonic() - self.wall_start

    def spent(self) -> bool:
        """Whether the check has run past its budget (or past the wall-clock backstop)."""
        return self.until_next_look() <= 0

    def until_next_look(self) -> float:
        """Seconds to wait before the budget can next have run out (a single-threaded check uses at
        most one CPU second per second); 0 when it has."""
        now = time.monotonic()
        if now >= self.wall_end:
            return 0.0
        if self.cpu_start is None:
            return self.wall_end - now
        left = self.budget - self.used()
        if left <= 0:
            return 0.0
        return min(max(left, MIN_LOOK_S), self.wall_end - now)

    def left(self) -> float:
        """The budget not yet spent (for a call re-run after its worker died)."""
        return max(self.budget - self.used(), 0.0) if math.isfinite(self.budget) else self.budget
