"""Other graders a team may train with, by name, called the way their users call them (`--against`).

- `verl`: verl 0.9.1's `default_compute_score`, with the keywords verl's reward loop passes a
  reward function (`data_source`, `solution_str`, `ground_truth`, `extra_info`); from a dict
  result, its `score`. It has no timeout of its own for GSM8K or MATH (prime_math's is its own).
- `math-verify`: Math-Verify's `parse` and `verify` with the extraction targets of verl's own
  `math_verify.compute_score` (the gold wrapped in `\\boxed{}`, the response read as an expression
  or LaTeX), with Math-Verify's own timeouts (`parsing_timeout`, `timeout_seconds`: 5 s each, by
  `signal.alarm`, so they hold only on a main thread: where `rewards score` and a Ray task call it).
- `MODULE:FUNCTION`: any importable function with verl's custom reward signature
  (`reward.custom_reward_function`), such as a team's own checker; a float or a dict with `score`.

A grader that raises on a row gives no score for it (`GraderFailed`; the audit counts the row apart
with its message): in verl's reward loop the same exception would have stopped the run.
"""

from __future__ import annotations

import importlib
import math
from functools import lru_cache
from typing import Any, Callable, Mapping

Grader = Callable[[str, Any, Any, Any], float]
"""(data_source, response, ground truth, extra_info) -> reward."""

NAMES = ("verl", "math-verify")


class GraderError(ValueError):
    """The grader named cannot be used here; one line that says why."""


class GraderFailed(ValueError):
    """The grader raised on one row, or returned something that is not a reward."""


@lru_cache(maxsize=8)
def get_grader(name: str) -> Grader:
    """The grader `name` (one of NAMES, or MODULE:FUNCTION), imported now so that a missing
    package is one line before any row is read. Raises GraderError."""
    if name == "verl":
        try:
            from verl.utils.reward_score import default_compute_score
        except ImportError as exc:
            raise GraderError(f"--against verl: verl is not installed here ({exc})") from None
        return _custom(default_compute_score)
    if name == "math-verify":
        try:
            import math_verify  # noqa: F401
        except ImportError as exc:
            raise GraderError(f"--against math-verify: math-verify is not installed here ({exc})") from None
        return _math_verify
    if ":" not in name:
        raise GraderError(f"--against {name!r}: one of {', '.join(NAMES)}, or MODULE:FUNCTION "
                          "(a function with verl's custom reward signature)")
    module, _, attr = name.partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise GraderError(f"--against {name}: cannot import it ({exc})") from None
    if not callable(fn):
        raise GraderError(f"--against {name}: {type(fn).__name__} is not a function")
    return _custom(fn)


def grade(grader: Grader, data_source: str, response: Any, ground_truth: Any, extra_info: Any) -> float:
    """The grader's reward for one row; GraderFailed (with the grader's message) when it raised."""
    try:
        value = grader(data_source, response, ground_truth, extra_info)
    except Exception as exc:  # any grader bug is that row's message, never the end of the audit
        message = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise GraderFailed(f"{type(exc).__name__}: {message}") from None
    return value


def _custom(fn: Callable[..., Any]) -> Grader:
    """A function called as verl's reward loop calls `reward.custom_reward_function`."""
    def call(data_source: str, response: Any, ground_truth: Any, extra_info: Any) -> float:
        out = fn(data_source=data_source, solution_str=response, ground_truth=ground_truth,
                 extra_info=dict(extra_info) if isinstance(extra_info, Mapping) else extra_info)
        return _reward(out["score"] if isinstance(out, Mapping) else out)
    return call


def _math_verify(data_source: str, response: Any, ground_truth: Any, extra_info: Any) -> float:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    gold = parse("\\boxed{" + str(ground_truth) + "}", (LatexExtractionConfig(),))
    pred = parse(response, (ExprExtractionConfig(), LatexExtractionConfig()))
    return 1.0 if gold and pred and verify(gold, pred) else 0.0


def _reward(value: Any) -> float:
    """A number verl could put in its reward tensor (a bool or numpy scalar too); text is not."""
    try:
        number = float(value) if not isinstance(value, (str, bytes)) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise GraderFailed(f"returned {type(value).__name__} {str(value)[:40]!r}, not a finite reward")
    return number
