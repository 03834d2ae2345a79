"""The scoring call, in verl's signature: `compute_score(data_source, solution_str, ground_truth, ...)`."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from .compose import compose
from .engine.config import EngineConfigError
from .forksafe import ForkSafeLock
from .gold import UnusableGold, canonical_gold, refusal_logged
from .registry import ScorerEntry, get_scorer
from .result import Result, Verdict, failed, from_reward
from .settings import Settings, make_settings

log = logging.getLogger("rewards")


@dataclass(frozen=True, slots=True)
class Sample:
    """One response to judge, as a row of a batch."""

    data_source: str
    response: str
    ground_truth: Any
    extra_info: Mapping[str, Any] | None = None


def compute_score(data_source: str, solution_str: str, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """Judge one response; returns `score`, `acc`, `format`, `pred`, `verdict` (+ shaping keys).

    Never raises on model text: a failure is a verdict. An unknown or empty data_source raises
    `UnknownDataSourceError`, naming the closest registered names, even a name verl's own
    scorer knows: only `rewards.verl.compute_score`, the function verl loads, delegates those.

    >>> from rewards import compute_score
    >>> compute_score("openai/gsm8k", "She pays 3 + 4 = 7 dollars. #### 7", "7")
    {'score': 1.0, 'acc': 1.0, 'format': 1.0, 'pred': '7', 'verdict': 'correct'}
    >>> compute_score("lighteval/MATH", r"So $x = \\boxed{\\frac{1}{2}}$.", "0.5")["verdict"]
    'correct'
    """
    return score_entry(get_scorer(data_source), solution_str, ground_truth, extra_info, kwargs)


def score_entry(entry: ScorerEntry, solution_str: Any, ground_truth: Any,
                extra_info: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """`compute_score` for an entry the caller has looked up already (rewards.verl does, to choose
    between our scorers and verl's), so a sample costs one registry lookup."""
    settings = make_settings(entry.defaults, kwargs)
    return judge(entry, solution_str, ground_truth, extra_info, settings).to_dict()


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any,
                              extra_info: Mapping[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
    """`compute_score` as a coroutine that never parks a thread: the in-process judging runs on
    the event loop (bounded: rewards/region.py), and a sympy-bound check is awaited on the loop
    while its worker computes (engine.drive). The deadline covers the whole coroutine."""
    return await score_entry_async(get_scorer(data_source), solution_str, ground_truth, extra_info, kwargs)


async def score_entry_async(entry: ScorerEntry, solution_str: Any, ground_truth: Any,
                            extra_info: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """`compute_score_async` for an entry the caller has looked up already (see `score_entry`)."""
    from .engine import drive, within

    settings = make_settings(entry.defaults, kwargs)
    with within(float(settings.timeout)):
        result = await drive(lambda: judge(entry, solution_str, ground_truth, extra_info, settings))
    return result.to_dict()


def score_batch(samples: Iterable[Sample], *, threads: int | None = None, **kwargs: Any) -> list[Result]:
    """Judge many responses, results in input order. Unknown data_sources raise before any work.

    Fast-path answers are judged in this process; sympy-bound checks go to the engine's worker
    pool, and `threads` (default: the pool's `max_workers` + 1) keep those workers busy meanwhile.

    >>> from rewards import Sample, score_batch
    >>> results = score_batch([Sample("openai/gsm8k", "#### 12", "12"), Sample("openai/gsm8k", "#### 13", "12")])
    >>> [(r.verdict.value, r.score) for r in results]
    [('correct', 1.0), ('wrong', 0.0)]
    """
    from .engine.batch import map_ordered, round_robin

    samples = list(samples)
    entries = {s.data_source: get_scorer(s.data_source) for s in samples}
    settings = {name: make_settings(e.defaults, kwargs) for name, e in entries.items()}
    order = round_robin([(s.data_source, _gold_key(s.ground_truth)) for s in samples])
    return map_ordered(lambda s: judge(entries[s.data_source], s.response, s.ground_truth,
                                       s.extra_info, settings[s.data_source]), samples, threads, order)


RECHECK_TIMEOUT = 30.0
"""The least budget an offline re-check gives a `timeout` row; at least six times the run's own."""


def recheck_timeouts(samples: list[Sample], results: list[Result], **kwargs: Any) -> list[Result]:
    """Offline scoring's second look: the samples whose verdict is `timeout` judged once more with
    a longer budget (`RECHECK_TIMEOUT`, or six times `timeout` if more), results in input order.
    A slow but sound check is paid; an answer that outlasts the longer budget too stays `timeout`.
    Training never does this: a reward is due within its step."""
    again = [i for i, r in enumerate(results) if r.verdict is Verdict.TIMEOUT]
    if not again:
        return list(results)
    longer = {**kwargs, "timeout": max(RECHECK_TIMEOUT, 6 * float(kwargs.get("timeout") or Settings().timeout))}
    out = list(results)
    for i, result in zip(again, score_batch([samples[i] for i in again], **longer)):
        out[i] = result
    return out


async def score_batch_async(samples: Iterable[Sample], *, threads: int | None = None,
                            **kwargs: Any) -> list[Result]:
    """`score_batch` as a coroutine: the batch runs in a helper thread, so the event loop (verl's
    reward worker) keeps serving while it waits. Unknown data_sources raise before any work.

    >>> import asyncio
    >>> from rewards import Sample, score_batch_async
    >>> [r.score for r in asyncio.run(score_batch_async([Sample("openai/gsm8k", "#### 12", "12")]))]
    [1.0]
    """
    import asyncio

    samples = list(samples)
    for s in samples:
        get_scorer(s.data_source)
    return await asyncio.to_thread(score_batch, samples, threads=threads, **kwargs)


def _gold_key(ground_truth: Any) -> Any:
    """What groups a GRPO group's samples for `round_robin`: the canonical gold, never raising."""
    try:
        gold = canonical_gold(ground_truth)
    except UnusableGold:
        return None
    return gold if isinstance(gold, str) else id(ground_truth)


def judge(entry: ScorerEntry, response: Any, ground_truth: Any,
          extra_info: Mapping[str, Any] | None, settings: Settings) -> Result:
    """Run one scorer within its deadline (`settings.timeout`, from now: the in-process work and
    any wait for a worker count), turning anything it raises into an `error` verdict, then compose
    the score."""
    from .engine import within

    with within(float(settings.timeout)):
        result = _run_scorer(entry, response, ground_truth, extra_info, settings)
    if result.verdict is Verdict.TIMEOUT:
        timeouts.note(entry.name, settings.timeout)
    # Format and shaping (rewards/compose.py); every result passes here so all carry the same keys.
    return compose(result, response, extra_info, settings)


def _run_scorer(entry: ScorerEntry, response: Any, ground_truth: Any,
                extra_info: Mapping[str, Any] | None, settings: Settings) -> Result:
    if not isinstance(response, str):
        return failed(Verdict.ERROR, f"response is {type(response).__name__}, not text")
    try:
        ground_truth = canonical_gold(ground_truth)
    except UnusableGold as exc:
        return failed(Verdict.UNPARSABLE_GOLD, refusal_logged(exc, entry.name))
    try:
        result = entry.scorer(response, ground_truth, extra_info, settings)
    except TimeoutError:  # the caller's own guard fired (verl's `compute_score_timeout`, SIGALRM):
        raise             # the call ends now, and the caller's handler decides the reward
    except EngineConfigError:
        raise  # a misconfigured engine fails loudly, not as an `error` verdict per sample
    except Exception as exc:  # a scorer bug must not stop a training step
        log.warning("rewards: scorer %r raised %s: %s", entry.name, type(exc).__name__, exc)
        return failed(Verdict.ERROR, f"scorer raised {type(exc).__name__}: {exc}")
    return result if isinstance(result, Result) else _read_reward(entry.name, result)


def _read_reward(name: str, raw: Any) -> Result:
    """A scorer that returned verl's own convention (a number, a dict with `score`) is read as
    verl reads it (`from_reward`); anything else is an `error` verdict that says what to return."""
    try:
        return from_reward(raw, f"scorer {name!r} returned {type(raw).__name__}, read as verl's reward")
    except (TypeError, ValueError) as exc:
        message = (f"scorer {name!r} returned {type(raw).__name__} ({exc}); return a Result "
                   "(or a number, or a dict with a numeric 'score', as verl does)")
        log.warning("rewards: %s", message)
        return failed(Verdict.ERROR, message)


class _TimeoutLog:
    """Samples that ended at their deadline, reported as one log line at most every `every`
    seconds, with counts, so a run whose answers time out says so without flooding the log."""

    def __init__(self, every: float = 30.0):
        self.every = every
        self.silent = False
        self._lock = ForkSafeLock()
        self._last = float("-inf")
        self._since_last: dict[str, int] = {}
        self.total = 0

    @contextmanager
    def muted(self) -> Iterator[None]:
        """No line while in this block: offline commands re-check `timeout` rows and print their
        own count, which a line counting first looks would contradict."""
        previous, self.silent = self.silent, True
        try:
            yield
        finally:
            self.silent = previous

    def note(self, source: str, timeout: float) -> None:
        with self._lock:
            self.total += 1
            self._since_last[source] = self._since_last.get(source, 0) + 1
            now = time.monotonic()
            if self.silent or now - self._last < self.every:
                return
            counts, self._since_last, self._last = self._since_last, {}, now
            total = self.total
        shown = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
        log.warning("rewards: %d sample(s) ended at the %gs deadline (verdict `timeout`, reward 0) "
                    "since the last report: %s; %d in this process so far", sum(counts.values()),
                    timeout, shown, total)


timeouts = _TimeoutLog()
