"""Composition: the scorer decides `acc` and `pred`; this decides `format` and `score`.

    score = (1 - w) * acc + w * format + overlong_penalty + length_penalty + repetition_penalty

`w` is `format_weight` (EasyR1's shape, 0.1 in its math reward). Where no format rule is set the
weight does not apply: `format` stays what the scorer reported (1.0) and the score is the accuracy,
so a weight given to a mixed run never pays GSM8K or MATH rows for a format they were not asked for.
Each enabled shaping term is added under its own key for every sample judged with the same settings
(verl needs identical keys across a batch); disabled terms add no key. With `verdict_keys` on, the
0/1 verdict keys (rewards/result.py: VERDICT_KEYS) follow, after the score is settled.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from .format import check_format
from .result import Result, verdict_flags
from .settings import Settings
from .shaping import shaping_enabled, shaping_terms


def compose(result: Result, response: Any, extra_info: Mapping[str, Any] | None, settings: Settings) -> Result:
    """The scorer's result with `format`, `score` and the shaping components filled in (a new Result)."""
    if settings.format_rule != "none" or shaping_enabled(settings):
        result = _shape(result, response, extra_info, settings)
    if settings.verdict_keys:
        result = replace(result, extras={**result.extras, **verdict_flags(result.verdict)})
    return result


def _shape(result: Result, response: Any, extra_info: Mapping[str, Any] | None, settings: Settings) -> Result:
    """Format check, weighted score and shaping terms."""
    has_rule = settings.format_rule != "none"
    text = response if isinstance(response, str) else ""
    fmt, reason = result.format, result.reason
    score = result.score
    if has_rule:
        check = check_format(text, settings.format_rule, settings.format_mode, settings.think_prefilled)
        fmt = check.score
        score = combine(result.acc, fmt, settings.format_weight)
        if not check.ok:
            reason = f"{reason}; format: {check.reason}" if reason else f"format: {check.reason}"
    terms = shaping_terms(text, extra_info, settings) if shaping_enabled(settings) else {}
    score += sum(terms.values())
    return replace(result, format=fmt, score=score, extras={**result.extras, **terms}, reason=reason)


def combine(acc: float, fmt: float, weight: float) -> float:
    """EasyR1's overall reward: `(1 - weight) * acc + weight * fmt`."""
    return (1.0 - weight) * acc + weight * fmt
