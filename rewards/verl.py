"""The verl adapter: what verl loads from `reward.custom_reward_function.path=pkg://rewards.verl`.

Three entry points, one per way verl calls a reward function (set `.name` to pick one):

- `compute_score` (verl's default name): one sample, synchronous. verl's reward loop runs it in
  a thread of its event loop's executor, so it must be thread-safe and must not rely on signals.
- `compute_score_async`: one sample, a coroutine. verl's loader and reward managers check
  `inspect.iscoroutinefunction` and await it directly on the reward worker's event loop.
- `compute_score_batch`: verl's legacy `BatchRewardManager` signature (`data_sources=`,
  `solution_strs=`, `ground_truths=`, `extra_infos=`), one result per sample, in order.

Settings arrive as keyword arguments from `+reward.custom_reward_function.reward_kwargs.KEY=VALUE`.
A data_source no scorer of ours handles goes to verl's own `default_compute_score` when verl is
importable, mapped into our five keys so that a batch mixing both still has one key set (verl
builds its per-batch key list from the first sample). This module imports neither torch nor verl.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from . import api
from .compose import compose
from .registry import ScorerEntry, UnknownDataSourceError, get_scorer
from .result import DUMP_SOURCE_KEY, TIMING_KEY, Result, Verdict, from_reward
from .settings import Settings, make_settings

log = logging.getLogger("rewards")

__all__ = ["compute_score", "compute_score_async", "compute_score_batch", "BatchSizeError"]

# verl's `default_compute_score` raises NotImplementedError with this text for names it lacks.
_VERL_UNKNOWN = "Reward function is not implemented for"


class BatchSizeError(ValueError):
    """The batched call got lists of different lengths (a caller bug, never model text)."""


def compute_score(data_source: str, solution_str: str, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """Judge one response for verl; the dict has `score`, `acc`, `format`, `pred`, `verdict`.

    A data_source we do not score is delegated to verl's `default_compute_score`; a name that
    neither knows raises `UnknownDataSourceError`, naming the closest registered names. That
    delegation is the one difference from the library's `rewards.compute_score`, which never
    delegates (docs/verl.md, "Delegation").

    >>> from rewards.verl import compute_score
    >>> compute_score("openai/gsm8k", "#### 1,080", "1080", timing_key=False)
    {'score': 1.0, 'acc': 1.0, 'format': 1.0, 'pred': '1080', 'verdict': 'correct'}
    """
    started = time.perf_counter()
    _start_engine_once()
    entry = _entry(data_source)
    if entry is None:
        result = _delegate(data_source, solution_str, ground_truth, extra_info, kwargs)
    else:
        result = labelled(api.score_entry(entry, solution_str, ground_truth, extra_info, kwargs), data_source, kwargs)
    return timed(result, time.perf_counter() - started, kwargs)


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any,
                              extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """`compute_score` as a coroutine, for `reward.custom_reward_function.name=compute_score_async`.

    Our scorers judge on the event loop (bounded in-process work) and await a sympy-bound check
    there while a worker computes, so no executor thread is parked per waiting sample and the
    deadline covers the whole coroutine (docs/verl.md, "Scheduling"). A data_source delegated to
    verl's own scorers runs in a helper thread (those may block).

    >>> import asyncio
    >>> from rewards.verl import compute_score_async
    >>> asyncio.run(compute_score_async("openai/gsm8k", "#### 4", "4"))["score"]
    1.0
    """
    started = time.perf_counter()
    _start_engine_once()
    entry = _entry(data_source)
    if entry is None:
        import asyncio  # here, not at module level: asyncio is ~40% of this module's import time

        result = await asyncio.to_thread(_delegate, data_source, solution_str, ground_truth, extra_info, kwargs)
    else:
        scored = await api.score_entry_async(entry, solution_str, ground_truth, extra_info, kwargs)
        result = labelled(scored, data_source, kwargs)
    return timed(result, time.perf_counter() - started, kwargs)


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str],
                        ground_truths: Sequence[Any], extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
                        **kwargs: Any) -> list[dict[str, Any]]:
    """Judge a whole batch (verl's `BatchRewardManager` signature); one dict per sample, in order.

    Every dict has the same keys. Samples for verl's own scorers are judged first, so a name
    that neither we nor verl know raises before our scorers spend time on the batch. The samples
    are judged together, so each one's `reward_ms` is its share of the batch's time.

    >>> from rewards.verl import compute_score_batch
    >>> out = compute_score_batch(data_sources=["openai/gsm8k"] * 2, solution_strs=["#### 4", "no idea"],
    ...                           ground_truths=["4", "4"], extra_infos=[None, None])
    >>> [r["verdict"] for r in out]
    ['correct', 'no_answer']
    """
    started = time.perf_counter()
    _start_engine_once()
    n = len(data_sources)
    if extra_infos is None:
        extra_infos = [None] * n
    lengths = {"data_sources": n, "solution_strs": len(solution_strs),
               "ground_truths": len(ground_truths), "extra_infos": len(extra_infos)}
    if len(set(lengths.values())) != 1:
        raise BatchSizeError("compute_score_batch needs one entry per sample in every list; got "
                             + ", ".join(f"{k}={v}" for k, v in lengths.items()))
    mine = [_entry(source) is not None for source in data_sources]
    ours = [i for i in range(n) if mine[i]]
    theirs = [i for i in range(n) if not mine[i]]
    results: list[dict[str, Any] | None] = [None] * n
    for i in theirs:
        results[i] = _delegate(data_sources[i], solution_strs[i], ground_truths[i], extra_infos[i], kwargs)
    samples = [api.Sample(str(data_sources[i]), solution_strs[i], ground_truths[i], extra_infos[i]) for i in ours]
    for i, result in zip(ours, api.score_batch(samples, **kwargs)):
        results[i] = labelled(result.to_dict(), data_sources[i], kwargs)
    if any(r is None for r in results):  # pragma: no cover - guards the one-per-sample contract
        raise RuntimeError("compute_score_batch lost a sample; this is a bug in rewards.verl")
    share = (time.perf_counter() - started) / max(n, 1)
    return [timed(r, share, kwargs) for r in results]  # type: ignore[arg-type]


_engine_started = False


def _start_engine_once() -> None:
    """Start the worker pool in the background on the first call in this process.

    verl's reward workers live for the whole run; without this the pool would start at the first
    sympy-bound sample, which would then wait for worker start-up (1-2 s) on top of its deadline.
    Import stays free of side effects. Two threads racing here both call warm_up: harmless.
    """
    global _engine_started
    if not _engine_started:
        _engine_started = True
        threading.Thread(target=_warm_up, name="rewards-warm-up", daemon=True).start()


def _warm_up() -> None:
    try:
        from .engine import warm_up
        from .registry import list_scorers

        list_scorers()  # the scorers declare what workers preload when they register
        warm_up()
    except Exception as exc:  # e.g. the process exiting mid-start; a real failure resurfaces,
        log.debug("rewards: background warm-up stopped: %s", exc)  # loudly, at the first call


def _entry(data_source: Any) -> ScorerEntry | None:
    """Our entry for a data_source, or None when it is not ours (verl's scorer may know it).

    A data_source that is not a non-empty string (a null or NaN from a concatenated parquet,
    bytes) raises `UnknownDataSourceError` here, as the library does: verl's scorer cannot take
    it either, and delegating it would pay `error` / 0 with a warning per sample."""
    if not (isinstance(data_source, str) and data_source):
        return get_scorer(data_source)
    try:
        return get_scorer(data_source)
    except UnknownDataSourceError:
        return None


@lru_cache(maxsize=1)
def _verl_default() -> Callable[..., Any] | None:
    """verl's own `default_compute_score`, imported on first need; None when verl is absent."""
    try:
        from verl.utils.reward_score import default_compute_score
    except ImportError:
        return None
    return default_compute_score


def _delegate(data_source: Any, solution_str: Any, ground_truth: Any,
              extra_info: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Score with verl's own function; its number becomes our keys, plus any enabled shaping terms.

    Our format rule is not applied (it was written for our math scorers, not for code or search
    answers); the shaping terms are, because they depend on the response alone and a run that
    enables them needs the same keys and penalties on every sample.
    """
    verl_score = _verl_default()
    if verl_score is None:
        get_scorer(data_source)  # raises the loud UnknownDataSourceError
    settings = _shaping_only(make_settings({}, kwargs))
    try:
        raw = verl_score(data_source=data_source, solution_str=solution_str, ground_truth=ground_truth,
                         extra_info=extra_info, **_verl_kwargs(kwargs))
        result = from_verl(raw)
    except NotImplementedError as exc:
        if _VERL_UNKNOWN not in str(exc):
            result = _delegated_error(data_source, exc)
        else:
            try:
                get_scorer(data_source)
            except UnknownDataSourceError as unknown:
                if hasattr(unknown, "add_note"):  # Python 3.11+
                    unknown.add_note("verl's default_compute_score has no scorer for it either.")
                raise unknown from None
            raise  # pragma: no cover - registered meanwhile; cannot happen for a stable registry
    except Exception as exc:  # verl's scorers may raise on model text; ours never do
        result = _delegated_error(data_source, exc)
    return labelled(compose(result, solution_str, extra_info, settings).to_dict(), data_source, kwargs)


def labelled(result: dict[str, Any], data_source: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The result, with `DUMP_SOURCE_KEY` when the `data_source_key` setting is on: verl writes
    every key of the reward dict into its dumps (`trainer.validation_data_dir`, and the legacy
    trainer's `rollout_data_dir`), which have no data_source column, so that `rewards report` and
    `rewards score` can label a mixed run's rows. Not `data_source` itself: verl puts the reward
    keys into the batch beside the row's own `data_source` array, and a second array of another
    dtype fails verl's batch union."""
    if make_settings({}, kwargs).data_source_key:
        result[DUMP_SOURCE_KEY] = str(data_source)
    return result


def timed(result: dict[str, Any], seconds: float, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The result, with `TIMING_KEY` (the sample's wall time in this adapter, in milliseconds) when
    the `timing_key` setting is on: verl 0.9.1 has no timer for a reward scored inside its agent
    loop (its time is inside `timing_s/gen`), and this key puts it on the dashboard and in the dumps.
    Added last, after every other key, so that all paths give one key order."""
    if make_settings({}, kwargs).timing_key:
        result[TIMING_KEY] = round(seconds * 1000.0, 3)
    return result


@lru_cache(maxsize=64)
def _shaping_only(settings: Settings) -> Settings:
    return replace(settings, format_rule="none") if settings.format_rule != "none" else settings


def from_verl(raw: Any) -> Result:
    """verl's float or dict result as our Result (`rewards.result.from_reward`: `score` unchanged,
    `acc` 1 only for full credit, a dict's `pred` kept for majority voting). Any other keys are
    dropped, because verl needs the same keys from every sample of a batch."""
    return from_reward(raw, "scored by verl's default_compute_score")


def _delegated_error(data_source: Any, exc: Exception) -> Result:
    log.warning("rewards: verl's default_compute_score raised %s for %r: %s",
                type(exc).__name__, data_source, exc)
    return Result(Verdict.ERROR, reason=f"verl's scorer raised {type(exc).__name__}: {exc}")


# The keywords verl's `default_compute_score` accepts besides the four sample fields.
_VERL_KEYWORDS = ("sandbox_fusion_url", "concurrent_semaphore", "memory_limit_mb")


def _verl_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Only verl's own keywords go to verl; our settings mean nothing to its scorers."""
    return {k: kwargs[k] for k in _VERL_KEYWORDS if k in kwargs}
