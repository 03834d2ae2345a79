"""Process-wide engine configuration: pool size, memory cap, warm-up modules, debug mode.

These are properties of the process (one pool per process), not of a scoring call, so they live
in environment variables (read when the pool first starts) and `rewards.engine.configure()`,
not in per-call `Settings`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

ENV_WORKERS = "REWARDS_WORKERS"
ENV_MAX_WORKERS = "REWARDS_MAX_WORKERS"
ENV_MEMORY_MB = "REWARDS_WORKER_MEMORY_MB"
ENV_PRELOAD = "REWARDS_WORKER_PRELOAD"
ENV_INLINE = "REWARDS_ENGINE_INLINE"

DEFAULT_MEMORY_MB = 1024
DEFAULT_PRELOAD: tuple[str, ...] = ()
"""Nothing: what workers import and warm up before they take work (~2-3 s for the MATH check's
sympy, paid at start rather than inside a deadline) is declared by the callers, through
`rewards.engine.require` (`register_scorer(..., preload=)`). This setting adds to it."""
STARTUP_TIMEOUT = 120.0
"""Seconds a new worker may take to start and import its modules (never charged to a check)."""
ZYGOTE_REPLY_S = 2.0
"""Seconds the pool waits for the started zygote to fork or reap a worker (milliseconds when it
works; under the 5 s default deadline): a stopped zygote is given up after this, not after
STARTUP_TIMEOUT, and workers start on their own from then on."""


class EngineConfigError(ValueError):
    """The engine cannot work as configured (a malformed REWARDS_* variable, `max_workers` below
    `workers`, a memory cap no worker can start under). Raised by the first call that needs a
    worker, and by every one after it, never turned into per-sample `error` or `timeout` verdicts."""


def default_workers() -> int:
    """Two workers, or one on a one-core machine: sympy checks are rare, the fast path is in-process."""
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class EngineConfig:
    workers: int = field(default_factory=default_workers)
    """Worker processes in the pool."""
    max_workers: int | None = None
    """How far the pool grows while callers queue behind workers held by long checks (default
    `workers + 8`): a few answers that hold workers to their deadline then cannot hold up the
    rest. Held workers run at the lowest CPU priority; extra workers retire when idle."""
    memory_mb: int | None = DEFAULT_MEMORY_MB
    """Address-space cap per worker (RLIMIT_AS) in MiB; None or 0 for no cap."""
    preload: tuple[str, ...] = DEFAULT_PRELOAD
    """Modules each worker imports before it takes work, so imports never eat into a deadline;
    `module:function` also calls a zero-argument warm-up function. Added to what callers require
    (`rewards.engine.require`); the modules of the functions called are added automatically."""
    inline: bool = False
    """Debugging only: run functions in the calling process, with no deadline and no memory cap."""

    @property
    def worker_limit(self) -> int:
        """`max_workers`, or its default."""
        return self.workers + 8 if self.max_workers is None else self.max_workers

    def __post_init__(self) -> None:
        if not (isinstance(self.workers, int) and self.workers >= 1):
            raise EngineConfigError(f"workers must be a positive integer, got {self.workers!r}")
        if self.max_workers is not None and not (isinstance(self.max_workers, int)
                                                 and self.max_workers >= self.workers):
            raise EngineConfigError(f"max_workers must be an integer >= workers ({self.workers}), got {self.max_workers!r}")
        if self.memory_mb is not None and not (isinstance(self.memory_mb, int) and self.memory_mb >= 0):
            raise EngineConfigError(f"memory_mb must be a non-negative integer or None, got {self.memory_mb!r}")


def from_env(base: EngineConfig | None = None, environ: Any = None) -> EngineConfig:
    """The configuration with any REWARDS_* environment variables applied."""
    env = os.environ if environ is None else environ
    config = base or EngineConfig()
    changes: dict[str, Any] = {}
    if env.get(ENV_WORKERS):
        changes["workers"] = _int(env, ENV_WORKERS)
    if env.get(ENV_MAX_WORKERS):
        changes["max_workers"] = _int(env, ENV_MAX_WORKERS)
    if env.get(ENV_MEMORY_MB):
        changes["memory_mb"] = _int(env, ENV_MEMORY_MB) or None
    if ENV_PRELOAD in env:  # set but empty: nothing beyond what the scorers require
        changes["preload"] = tuple(m.strip() for m in env[ENV_PRELOAD].split(",") if m.strip())
    if env.get(ENV_INLINE, "").strip().lower() in ("1", "true", "yes", "on"):
        changes["inline"] = True
    try:
        return replace(config, **changes)
    except EngineConfigError as exc:
        shown = ", ".join(f"{n}={env[n]!r}" for n in (ENV_WORKERS, ENV_MAX_WORKERS, ENV_MEMORY_MB) if env.get(n))
        raise EngineConfigError(f"{exc} (from the environment: {shown})") from None


def _int(env: Any, name: str) -> int:
    try:
        return int(env[name])
    except ValueError:
        raise EngineConfigError(f"environment variable {name} must be an integer, got {env[name]!r}") from None
