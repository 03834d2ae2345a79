"""Scoring settings: one frozen record built from keyword arguments.

Settings arrive as keyword arguments: from verl's `+reward.custom_reward_function.reward_kwargs.*`,
from `rewards score` flags, or from a data_source's registered defaults. A misspelt setting must not
silently change nothing, so unknown keys are reported once (verl's own pass-through keywords excepted).
"""

from __future__ import annotations

import dataclasses
import logging
import math
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
    """A setting has a value we cannot use. Raised when settings are built, and by token-length
    shaping on the first sample it cannot count (no `response_length`, no `length_tokenizer`):
    a configuration mistake, never a verdict on model text."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every knob of a scoring call, checked once when built; scoring calls take them as keywords.

    >>> from rewards import Settings
    >>> Settings(format_rule="think_boxed", format_weight=0.1).format_weight
    0.1
    >>> Settings(gsm8k_mode="loose")
    Traceback (most recent call last):
    ...
    rewards.settings.SettingsError: gsm8k_mode must be one of ('strict', 'flexible'), got 'loose'
    """

    gsm8k_mode: str = "strict"
    """`strict`: the last `#### <number>`; `flexible`: the last number anywhere in the answer."""
    timeout: float = 5.0
    """Hard deadline in seconds for one sample's symbolic check (the worker is killed after it)."""

    # Format and shaping (rewards/format.py, rewards/shaping.py, rewards/compose.py). The defaults
    # pay accuracy only: no format rule, no shaping, so `score == acc` and no extra keys.
    format_rule: str = "none"
    """`none`, `think_boxed` (`<think>..</think>` then `\\boxed{}`) or `think_answer` (R1 `<answer>` tags)."""
    format_weight: float = 0.0
    """w in `score = (1 - w) * acc + w * format`, at most 0.5 so format never outranks a correct answer."""
    format_mode: str = "strict"
    """`strict`: tags once, in order, nothing stray; `lenient`: the answer after the last `</think>`."""
    think_prefilled: str = "auto"
    """Chat template opens `<think>` itself: `auto` accepts a response with `</think>` only, `yes`, `no`."""
    max_resp_len: int | None = None
    """Maximum response length (verl's `data.max_response_length`); needed by the length terms."""
    overlong_buffer_len: int = 0
    """DAPO soft overlong buffer: the last this many positions before `max_resp_len` are penalised (0: off)."""
    overlong_penalty_factor: float = 1.0
    """DAPO overlong penalty at `max_resp_len` (the penalty ramps from 0 to minus this)."""
    length_penalty: float = 0.0
    """Linear length cost: `-length_penalty * L / max_resp_len` (0: off)."""
    repetition_penalty: float = 0.0
    """Cost of a fully repeated response: `-repetition_penalty * repeated n-gram share` (0: off)."""
    repetition_ngram: int = 3
    """Word n-gram size for the repetition share."""
    length_unit: str = "tokens"
    """`tokens` (from extra_info['response_length'] or `length_tokenizer`) or `chars`."""
    length_tokenizer: str | None = None
    """Path or hub id of the policy's tokenizer, to count response tokens for the length terms."""
    verdict_keys: bool = False
    """Add one 0/1 key per failure verdict (`verdict_timeout`, ...) so verl's dashboard plots their rates."""
    data_source_key: bool = False
    """`rewards.verl` adds `scored_data_source` (the row's data_source) so verl's dumps, which have no
    data_source column, can be replayed and reported per data_source (docs/verl.md)."""
    timing_key: bool = True
    """`rewards.verl` adds `reward_ms`, the sample's wall time in the adapter, because verl 0.9.1 does not time
    a reward scored in its agent loop; `false` for the smallest reward dict (docs/verl.md)."""

    def __post_init__(self) -> None:
        _read_numbers(self)
        if self.gsm8k_mode not in GSM8K_MODES:
            raise SettingsError(f"gsm8k_mode must be one of {GSM8K_MODES}, got {self.gsm8k_mode!r}")
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise SettingsError(f"timeout must be a positive number of seconds, got {self.timeout!r}")
        _check_format_and_shaping(self)


_FLOAT_FIELDS = ("timeout", "format_weight", "overlong_penalty_factor", "length_penalty", "repetition_penalty")
_INT_FIELDS = ("max_resp_len", "overlong_buffer_len", "repetition_ngram")


def _read_numbers(s: Settings) -> None:
    """Numbers given as text become numbers: Hydra's `${oc.env:REWARD_TIMEOUT,5}` passes `'5'`, and
    it must mean what `5` means (as `'true'` does for the flags); text that is no number is refused."""
    for name in _FLOAT_FIELDS + _INT_FIELDS:
        value = getattr(s, name)
        if isinstance(value, str):
            try:
                number = int(value) if name in _INT_FIELDS else float(value)
            except ValueError:
                kind = "an integer" if name in _INT_FIELDS else "a number"
                raise SettingsError(f"{name} must be {kind}, got {value!r}") from None
            object.__setattr__(s, name, number)


def _check_format_and_shaping(s: Settings) -> None:
    """Validate the format and shaping fields; `think_prefilled` booleans become `yes`/`no`."""
    from .format import FORMAT_MODES, FORMAT_RULES, THINK_PREFILLED

    prefilled = {True: "yes", False: "no", "true": "yes", "false": "no"}.get(s.think_prefilled, s.think_prefilled)
    object.__setattr__(s, "think_prefilled", prefilled)
    for name in ("verdict_keys", "data_source_key", "timing_key"):
        value = getattr(s, name)
        flag = {"true": True, "false": False}.get(str(value).lower(), value)
        if not isinstance(flag, bool):
            raise SettingsError(f"{name} must be true or false, got {value!r}")
        object.__setattr__(s, name, flag)
    for name, allowed in (("format_rule", FORMAT_RULES), ("format_mode", FORMAT_MODES),
                          ("think_prefilled", THINK_PREFILLED), ("length_unit", LENGTH_UNITS)):
        if getattr(s, name) not in allowed:
            raise SettingsError(f"{name} must be one of {allowed}, got {getattr(s, name)!r}")
    if not (_is_number(s.format_weight) and 0 <= s.format_weight <= 0.5):
        raise SettingsError(f"format_weight must be in [0, 0.5] (above 0.5 format outranks a correct answer), "
                            f"got {s.format_weight!r}")
    for name in ("overlong_penalty_factor", "length_penalty", "repetition_penalty"):
        if not (_is_number(getattr(s, name)) and getattr(s, name) >= 0):
            raise SettingsError(f"{name} must be a number >= 0 (it is the size of a penalty), got {getattr(s, name)!r}")
    if s.max_resp_len is not None and not (_is_int(s.max_resp_len) and s.max_resp_len > 0):
        raise SettingsError(f"max_resp_len must be a positive integer, got {s.max_resp_len!r}")
    if not (_is_int(s.overlong_buffer_len) and s.overlong_buffer_len >= 0):
        raise SettingsError(f"overlong_buffer_len must be an integer >= 0, got {s.overlong_buffer_len!r}")
    if not (_is_int(s.repetition_ngram) and s.repetition_ngram >= 1):
        raise SettingsError(f"repetition_ngram must be an integer >= 1, got {s.repetition_ngram!r}")
    if (s.overlong_buffer_len or s.length_penalty) and s.max_resp_len is None:
        raise SettingsError("overlong_buffer_len and length_penalty need max_resp_len (verl's data.max_response_length)")
    if s.overlong_buffer_len and s.overlong_buffer_len > s.max_resp_len:
        raise SettingsError(f"overlong_buffer_len ({s.overlong_buffer_len}) must not exceed max_resp_len ({s.max_resp_len})")


LENGTH_UNITS = ("tokens", "chars")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
