"""Scoring settings: one frozen record built from keyword arguments.

Settings arrive as keyword arguments: from verl's `+reward.custom_reward_function.reward_kwargs.*`,
from `rewards score` flags, or from a data_source's registered defaults. A misspelt setting must not
silently change nothing, so unknown keys are reported once (verl's own pass-through keywords excepted).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

log = logging.getLogger("rewards")

GSM8K_MODES = ("strict", "flexible")

# Keywords verl itself passes to reward functions; they are not ours and are ignored quietly.
VERL_PASSTHROUGH = frozenset(
    {"sandbox_fusion_url", "concurrent_semaphore", "memory_limit_mb", "reward_router_address",
     "reward_model_tokenizer", "model_name", "tokenizer", "return_dict"}
)


class SettingsError(ValueError):
    """A setting has a value we cannot use (raised at configuration time, never per sample)."""


@dataclass(frozen=True, slots=True)
class Settings:
    gsm8k_mode: str = "strict"
    """`strict`: the last `#### <number>`; `flexible`: the last number anywhere in the answer."""
    timeout: float = 5.0
    """Hard deadline in seconds for one sample's symbolic check (the worker is killed after it)."""

    def __post_init__(self) -> None:
        if self.gsm8k_mode not in GSM8K_MODES:
            raise SettingsError(f"gsm8k_mode must be one of {GSM8K_MODES}, got {self.gsm8k_mode!r}")
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise SettingsError(f"timeout must be a positive number of seconds, got {self.timeout!r}")


FIELDS = frozenset(f.name for f in dataclasses.fields(Settings))
_warned: set[str] = set()


def make_settings(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> Settings:
    """Registered defaults, then call-time overrides; unknown keys are warned about once."""
    merged = {**defaults, **{k: v for k, v in overrides.items() if v is not None}}
    known = {k: v for k, v in merged.items() if k in FIELDS}
    for key in merged.keys() - FIELDS - VERL_PASSTHROUGH:
        if key not in _warned:
            _warned.add(key)
            log.warning("rewards: ignoring unknown setting %r (known settings: %s)", key, ", ".join(sorted(FIELDS)))
    return _cached(tuple(sorted((k, _hashable(v)) for k, v in known.items())))


@lru_cache(maxsize=256)
def _cached(items: tuple[tuple[str, Any], ...]) -> Settings:
    return Settings(**dict(items))


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value
