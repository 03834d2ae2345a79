"""The one result shape every scorer returns.

verl builds its per-batch key list from the first sample and fails (or silently drops metrics)
when samples disagree, so every data_source yields exactly the same keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from numbers import Real
from typing import Any, Mapping


class Verdict(str, Enum):
    """Why a sample got its score. Everything except `correct` pays no accuracy.

    >>> from rewards import Verdict
    >>> Verdict("timeout") is Verdict.TIMEOUT, f"{Verdict.TIMEOUT}"
    (True, 'timeout')
    """

    CORRECT = "correct"
    WRONG = "wrong"
    NO_ANSWER = "no_answer"
    UNPARSABLE_PRED = "unparsable_pred"
    UNPARSABLE_GOLD = "unparsable_gold"
    TIMEOUT = "timeout"
    ERROR = "error"

    def __str__(self) -> str:  # so f-strings and JSON show the plain word
        return self.value


RESULT_KEYS = ("score", "acc", "format", "pred", "verdict")
DUMP_SOURCE_KEY = "scored_data_source"
"""The key `rewards.verl` adds to what it gives verl: the data_source the sample was scored under,
so that verl's dumps, which have no data_source column, say it (docs/verl.md, "Replaying a rollout dump")."""
TIMING_KEY = "reward_ms"
"""The key `rewards.verl` adds last with the `timing_key` setting (on by default): the sample's wall time
in the adapter, in milliseconds (docs/verl.md, "The reward's own time")."""
VERL_KEYS = (*RESULT_KEYS, TIMING_KEY)
"""What `rewards.verl` returns with no setting that adds keys."""
VERDICTS = tuple(v.value for v in Verdict)
VERDICT_KEYS = tuple(f"verdict_{v}" for v in VERDICTS if v != Verdict.CORRECT.value)
"""The 0/1 keys the `verdict_keys` setting adds (`acc` already counts `correct`): verl skips the
string `verdict` on its dashboard but averages numbers, so these plot as verdict rates."""


def verdict_flags(verdict: Verdict) -> dict[str, float]:
    """1.0 under the key of this verdict, 0.0 under every other failure verdict's key."""
    return {key: float(key == f"verdict_{verdict.value}") for key in VERDICT_KEYS}


@dataclass(frozen=True, slots=True)
class Result:
    """A verdict on one response.

    `score` is what training optimises, always a number: left out, it is the accuracy, and only
    composition (format weight, shaping) changes it. `extras` holds shaping components, which a run
    that enables them emits for every sample. `reason` is a human explanation that never reaches verl.

    >>> from rewards import Result, Verdict
    >>> Result(Verdict.CORRECT, "7").to_dict()
    {'score': 1.0, 'acc': 1.0, 'format': 1.0, 'pred': '7', 'verdict': 'correct'}
    """

    verdict: Verdict
    pred: str = ""
    format: float = 1.0
    score: float = None  # type: ignore[assignment]  # None here means "the accuracy", set below
    extras: dict[str, float] = field(default_factory=dict)
    reason: str = ""

    def __post_init__(self) -> None:
        if self.score is None:
            object.__setattr__(self, "score", self.acc)

    @property
    def acc(self) -> float:
        return 1.0 if self.verdict is Verdict.CORRECT else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The dict verl receives: the five fixed keys, then any shaping components."""
        out: dict[str, Any] = {
            "score": float(self.score),
            "acc": self.acc,
            "format": float(self.format),
            "pred": self.pred,
            "verdict": self.verdict.value,
        }
        out.update(self.extras)
        return out


def correct(pred: str, **kw: Any) -> Result:
    return Result(Verdict.CORRECT, pred, **kw)


def wrong(pred: str, **kw: Any) -> Result:
    return Result(Verdict.WRONG, pred, **kw)


def failed(verdict: Verdict, reason: str, pred: str = "") -> Result:
    """A sample that could not be judged; the reason says why."""
    return Result(verdict, pred, reason=reason)


def from_reward(raw: Any, reason: str = "") -> Result:
    """A reward in verl's own convention as a Result: a number is the score; a dict gives `score`
    and, optionally, `acc` and `pred`. `score` is kept as given; `acc` is 1 only for full credit
    (the dict's own `acc`, else a score of at least 1.0), so partial credit never counts as correct.

    Raises TypeError or ValueError, naming what was given, for anything else (None, text, a dict
    without a numeric `score`, a score that is not finite): a reward nobody can read is no reward.

    >>> from rewards.result import from_reward
    >>> from_reward(0.5).to_dict()
    {'score': 0.5, 'acc': 0.0, 'format': 1.0, 'pred': '', 'verdict': 'wrong'}
    >>> from_reward({"score": 1.0, "pred": "7"}).verdict.value
    'correct'
    """
    if isinstance(raw, Mapping):
        if "score" not in raw:
            raise TypeError(f"a dict without 'score' (keys: {', '.join(map(str, list(raw)[:8]))})")
        score = _finite(raw["score"], "the dict's 'score'")
        acc = bool(raw["acc"]) if "acc" in raw else score >= 1.0
        pred = "" if raw.get("pred") is None else str(raw["pred"])
    else:
        score = _finite(raw, "the result")
        acc, pred = score >= 1.0, ""
    return Result(Verdict.CORRECT if acc else Verdict.WRONG, pred, score=score, reason=reason)


def _finite(value: Any, what: str) -> float:
    if not isinstance(value, Real):  # bool included: verl reads True as 1.0
        raise TypeError(f"{what} is {type(value).__name__}, not a number")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} is {number}, not a finite number")
    return number
