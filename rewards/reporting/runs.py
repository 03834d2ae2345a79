"""Run health across steps: per-step numbers for each data_source, and the patterns that mean trouble.

A run is verl's `trainer.rollout_data_dir` (or `validation_data_dir`): one `<step>.jsonl` per step,
read in step order. The rows of the current step are held in one `StepAccumulator` per data_source
(lengths, answers, GRPO groups: bounded by the size of one step); when the next step starts they are
reduced to a `StepSummary` of a few numbers and the step's most repeated wrong answers. Memory so
grows with the number of steps only by those summaries, never by their rows.

Rows known by `score` alone (a plain verl dump with no data_source to re-score by) count for the
reward, the lengths and the groups; accuracy, verdict shares, format and answers are over judged
rows only, and are None for a step without any.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from .stats import Flag, Row, percentile, zero_variance

TOP_KEPT = 20
"""Wrong answers kept per step; the run-level ranking sums these."""
TOP_ANSWERS = 5
"""Answer concentration: the share of answered responses whose answer is one of the step's 5 most common."""
CUT_FRACTION = 0.99
"""A response at least this share of the maximum length counts as cut off (re-encoded decoded text can
differ from verl's count by a few tokens, and verl's count includes the end-of-sequence token)."""
MAX_LISTED_ERRORS = 3

# Flag thresholds: first quarter of the steps against the last quarter (at least MIN_STEPS steps).
MIN_STEPS = 4
ACC_RISE = 0.05            # accuracy up by at least this ...
CONCENTRATION_RISE = 0.15  # ... while the top answers' share rises this much
CONCENTRATION_OVER_GOLD = 0.15  # ... and exceeds the golds' own concentration by this much
CROWD_OVER_GOLD = 0.10     # the commonest answer's share above the commonest gold's share, by at least this ...
CROWD_RATIO = 2.0          # ... and at least this many times it ...
CROWD_STEPS = 2            # ... at this many steps (the first is named: the flag needs no trend)
CROWD_MIN_ANSWERS = 20     # steps with fewer answered responses are too small to judge
LENGTH_GROWTH = 1.5        # median length of the last quarter over the first
CUT_SHARE = 0.05           # share cut off at the maximum worth a flag (when it also doubled)
FAILURE_RISE = {"no_answer": 0.05, "timeout": 0.02, "error": 0.02, "unparsable_pred": 0.05}
NO_SIGNAL = 0.8            # zero-variance group share in the last quarter


@dataclass
class StepSummary:
    """One step of one data_source, reduced to what the page plots."""

    step: int
    rows: int
    judged: int
    mean_score: float
    acc: float | None
    verdicts: dict[str, int]
    format_rate: float | None
    length_median: float | None
    length_p95: float | None
    cut_share: float | None
    groups: int
    zero_variance: int
    wrong: int
    top_wrong: list[tuple[str, int]]
    answer_concentration: float | None
    gold_concentration: float | None
    top_answer: tuple[str, int, int] | None = None
    """(the commonest answer, its count, answered responses); None without answers."""
    top_gold_share: float | None = None
    """The commonest gold's share among the step's prompts (GRPO groups, else rows)."""
    errors: list[str] = field(default_factory=list)
    nonfinite: dict[str, int] = field(default_factory=dict)   # "NaN" / "inf" / "-inf" rewards: counted as 0 above
    reward_ms: tuple[int, float, float] | None = None
    """(rows timed, summed ms, slowest ms) of the dump's `reward_ms` column; None when it has none."""

    def verdict_share(self, verdict: str) -> float | None:
        return self.verdicts.get(verdict, 0) / self.judged if self.judged else None

    @property
    def zero_variance_share(self) -> float | None:
        return self.zero_variance / self.groups if self.groups else None


class StepAccumulator:
    """The rows of one step and data_source, until `summary` reduces them."""

    def __init__(self) -> None:
        self.rows = 0
        self.score_sum = 0.0
        self.judged = 0
        self.correct = 0
        self.verdicts: Counter = Counter()
        self.formats: list[float] = []
        self.lengths: list[int] = []
        self.wrong: Counter = Counter()
        self.answers: Counter = Counter()
        self.golds: Counter = Counter()
        self.prompt_golds: dict[Any, str] = {}   # one gold per prompt (group), for the commonest gold's share
        self.groups: dict[tuple, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.nonfinite: Counter = Counter()
        self.unknown_groups: set[tuple] = set()   # groups holding a NaN or infinite reward: variance unknown
        self.timed, self.ms_sum, self.ms_max = 0, 0.0, 0.0

    def add(self, row: Row) -> None:
        self.rows += 1
        if row.nonfinite:
            self.nonfinite[row.nonfinite] += 1
            if row.group is not None:
                self.unknown_groups.add(row.group)
        self.score_sum += row.score
        if row.length is not None:
            self.lengths.append(row.length)
        if row.group is not None:
            self.groups[row.group].append(row.score)
        if row.reward_ms is not None:
            self.timed += 1
            self.ms_sum += row.reward_ms
            self.ms_max = max(self.ms_max, row.reward_ms)
        if row.error and len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append(row.error)
        if not row.judged:
            return
        self.judged += 1
        self.correct += row.acc >= 1.0
        self.verdicts[row.verdict] += 1
        if row.format is not None:
            self.formats.append(row.format)
        if row.verdict == "wrong":
            self.wrong[row.pred] += 1
        if row.gold is not None:
            self.prompt_golds.setdefault(row.group if row.group is not None else self.rows, row.gold)
        if row.pred and row.verdict in ("correct", "wrong"):
            self.answers[row.pred] += 1
            if row.gold is not None:
                self.golds[row.gold] += 1

    def summary(self, step: int, max_length: int | None = None) -> StepSummary:
        lengths = sorted(self.lengths)
        answered = sum(self.answers.values())
        top = self.answers.most_common(1)
        gold_counts = Counter(self.prompt_golds.values()).most_common(1)
        groups = [scores for key, scores in self.groups.items() if len(scores) > 1 and key not in self.unknown_groups]
        return StepSummary(
            step=step, rows=self.rows, judged=self.judged,
            mean_score=self.score_sum / self.rows if self.rows else 0.0,
            acc=self.correct / self.judged if self.judged else None,
            verdicts=dict(self.verdicts),
            format_rate=sum(f >= 1.0 for f in self.formats) / len(self.formats) if self.formats else None,
            length_median=percentile(lengths, 0.5) if lengths else None,
            length_p95=percentile(lengths, 0.95) if lengths else None,
            cut_share=(sum(n >= CUT_FRACTION * max_length for n in lengths) / len(lengths)
                       if lengths and max_length else None),
            groups=len(groups), zero_variance=sum(zero_variance(g) for g in groups),
            wrong=self.verdicts.get("wrong", 0), top_wrong=self.wrong.most_common(TOP_KEPT),
            answer_concentration=_concentration(self.answers), gold_concentration=_concentration(self.golds),
            top_answer=(top[0][0], top[0][1], answered) if top else None,
            top_gold_share=gold_counts[0][1] / len(self.prompt_golds) if gold_counts else None,
            errors=self.errors, nonfinite=dict(self.nonfinite),
            reward_ms=(self.timed, self.ms_sum, self.ms_max) if self.timed else None,
        )


def _concentration(counts: Counter) -> float | None:
    total = sum(counts.values())
    return sum(c for _, c in counts.most_common(TOP_ANSWERS)) / total if total else None


CHECKS = (
    "one answer crowding out the others, well above the commonest gold's share of the prompts",
    "accuracy rising while the answers collapse onto a few values",
    "response length blowing up (median x1.5, or the share cut off at the maximum doubling past 5%)",
    "no_answer, timeout, error or unparsable_pred rising",
    "any unparsable_gold",
    "any NaN or infinite reward",
    "most GRPO groups with zero reward variance at the end of the run",
    "with a reward audit: 1% or more of the judged rows paid but wrong, or 10% or more of the GRPO groups "
    "changing an advantage sign",
)
"""What `flags` looks for, in words, for the page."""


class RunStats:
    """Per-step summaries per data_source, fed row by row in step order."""

    def __init__(self, max_length: int | None = None, step_seconds: dict[int, float] | None = None) -> None:
        self.max_length = max_length
        self.step_seconds = step_seconds or {}
        """Each step's wall time from verl's metrics (`step_times`), for the reward's share of it."""
        self.steps: dict[str, list[StepSummary]] = {}
        self.how: dict[str, Counter] = defaultdict(Counter)
        """Per data_source, how its rows were judged ("read from the dump", "re-scored", ...)."""
        self._step: int | None = None
        self._open: dict[str, StepAccumulator] = {}

    def add(self, step: int, row: Row, how: str = "") -> None:
        if step != self._step:
            self.close_step()
            self._step = step
        if row.data_source not in self._open:
            self._open[row.data_source] = StepAccumulator()
        self._open[row.data_source].add(row)
        if how:
            self.how[row.data_source][how] += 1

    def close_step(self) -> None:
        """Reduce the open step's rows to summaries (call once more after the last row)."""
        for source, acc in self._open.items():
            self.steps.setdefault(source, []).append(acc.summary(self._step, self.max_length))
        self._open = {}

    @property
    def total(self) -> int:
        return sum(s.rows for steps in self.steps.values() for s in steps)

    def top_wrong(self, data_source: str, k: int = 6) -> list[tuple[str, int]]:
        """The run's most repeated wrong answers (summed over each step's kept top answers)."""
        total: Counter = Counter()
        for s in self.steps.get(data_source, []):
            total.update(dict(s.top_wrong))
        return total.most_common(k)

    def reward_time(self) -> list[dict[str, Any]]:
        """Per step with a timed row: the reward's mean and slowest ms per sample, its summed seconds,
        and (with the step's time from verl's metrics) that sum's share of the step. The samples are
        scored concurrently, spread over generation: the share is of work done, not of waiting."""
        per_step: dict[int, list[StepSummary]] = defaultdict(list)
        for steps in self.steps.values():
            for s in steps:
                if s.reward_ms:
                    per_step[s.step].append(s)
        out = []
        for step, summaries in sorted(per_step.items()):
            n = sum(s.reward_ms[0] for s in summaries)
            total = sum(s.reward_ms[1] for s in summaries)
            seconds = self.step_seconds.get(step)
            out.append({"step": step, "rows": n, "mean_ms": total / n, "max_ms": max(s.reward_ms[2] for s in summaries),
                        "sum_s": total / 1000, "step_s": seconds,
                        "share": total / 1000 / seconds if seconds else None})
        return out

    def flags(self, audit: Any = None) -> list[Flag]:
        """The trouble patterns of the steps, then the reward audit's findings (audit.py) when given."""
        out: list[Flag] = []
        for source, steps in self.steps.items():
            out += _flags(source, steps)
        return out + (audit.flags() if audit is not None else [])

    def to_dict(self, audit: Any = None) -> dict[str, Any]:
        """The numbers behind the page, for scripts and tests."""
        return {"sources": {source: {"how": dict(self.how[source]), "steps": [vars(s) for s in steps],
                                     "top_wrong": self.top_wrong(source)}
                            for source, steps in self.steps.items()},
                "reward_time": self.reward_time(),
                "flags": [vars(f) for f in self.flags(audit)]}


STEP_TIMES = ("timing_s/step", "timing_s/testing")
"""verl's timers that together make a step's wall time: the training step, and validation where it ran."""


def step_times(lines: Any) -> dict[int, float]:
    """Each step's wall time from verl's file logger (`trainer.logger=[...,file]`): one JSON object a
    line, `{"step": N, "data": {metric: value}}`. Steps without a timer (the validation before
    training) are left out; a later line for the same step wins (a resumed run)."""
    import json

    out: dict[int, float] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            step, data = int(record["step"]), record["data"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"line {number} is not a verl file-logger record ({exc})") from None
        seconds = [float(data[k]) for k in STEP_TIMES if isinstance(data, dict) and k in data]
        if seconds:
            out[step] = sum(seconds)
    return out


def _ends(values: list[float | None]) -> tuple[float, float] | None:
    """Mean of the first and of the last quarter of the steps that have a value."""
    known = [v for v in values if v is not None]
    if len(known) < MIN_STEPS:
        return None
    q = max(1, len(known) // 4)
    return sum(known[:q]) / q, sum(known[-q:]) / q


def commonest_answer_share(s: StepSummary) -> float | None:
    """The step's commonest answer's share of its answered responses."""
    return s.top_answer[1] / s.top_answer[2] if s.top_answer else None


def _crowded(s: StepSummary) -> bool:
    """The commonest answer is well above the commonest gold's share of the prompts: the policy
    gives one value whatever the question. Steps whose golds are unknown are not judged."""
    share = commonest_answer_share(s)
    if share is None or s.top_gold_share is None or s.top_answer[2] < CROWD_MIN_ANSWERS:
        return False
    return share >= s.top_gold_share + CROWD_OVER_GOLD and share >= CROWD_RATIO * s.top_gold_share


def _flags(source: str, steps: list[StepSummary]) -> list[Flag]:
    out: list[Flag] = []

    def flag(kind: str, message: str) -> None:
        out.append(Flag(source, kind, message))

    span = f"steps {steps[0].step}-{steps[-1].step}"
    crowded = [s for s in steps if _crowded(s)]
    if len(crowded) >= CROWD_STEPS:
        first = crowded[0]
        answer, count, answered = first.top_answer
        worst = max(crowded, key=lambda s: s.top_answer[1] / s.top_answer[2])
        flag("answer_crowding",
             f"from step {first.step}, one answer takes far more of the answers than any gold has prompts: "
             f"{answer!r} was {count / answered:.0%} of answers ({count} of {answered}) where the commonest gold "
             f"is {first.top_gold_share:.0%} of the prompts; {len(crowded)} of {len(steps)} steps, at most "
             f"{worst.top_answer[0]!r} at {worst.top_answer[1] / worst.top_answer[2]:.0%} (step {worst.step}): "
             "check that the reward does not pay it when it is wrong")
    acc = _ends([s.acc for s in steps])
    top = _ends([s.answer_concentration for s in steps])
    gold = _ends([s.gold_concentration for s in steps])
    if acc and top and acc[1] - acc[0] >= ACC_RISE and top[1] - top[0] >= CONCENTRATION_RISE \
            and top[1] >= (gold[1] if gold else 0.0) + CONCENTRATION_OVER_GOLD:
        flag("answer_collapse",
             f"accuracy rose {acc[0]:.2f} -> {acc[1]:.2f} while the {TOP_ANSWERS} most common answers went from "
             f"{top[0]:.0%} to {top[1]:.0%} of answers" + (f" (the golds' own: {gold[1]:.0%})" if gold else "")
             + f", {span}: check for a reward that pays a few values")
    median = _ends([s.length_median for s in steps])
    if median and median[0] > 0 and median[1] >= LENGTH_GROWTH * median[0]:
        flag("length", f"median response length grew x{median[1] / median[0]:.1f} "
                       f"({median[0]:.0f} -> {median[1]:.0f}), {span}")
    cut = _ends([s.cut_share for s in steps])
    if cut and cut[1] >= CUT_SHARE and cut[1] >= 2 * cut[0]:
        flag("length", f"responses cut off at the maximum length rose {cut[0]:.1%} -> {cut[1]:.1%}, {span}")
    for verdict, rise in FAILURE_RISE.items():
        share = _ends([s.verdict_share(verdict) for s in steps])
        if share and share[1] - share[0] >= rise and share[1] >= 1.5 * share[0]:
            flag(f"{verdict}_rising", f"{verdict} rose {share[0]:.1%} -> {share[1]:.1%} of responses, {span}")
    bad_gold = [(s.step, s.verdicts["unparsable_gold"]) for s in steps if s.verdicts.get("unparsable_gold")]
    if bad_gold:
        listed = ", ".join(f"step {step}: {n}" for step, n in bad_gold[:5]) + (" ..." if len(bad_gold) > 5 else "")
        flag("unparsable_gold", f"{sum(n for _, n in bad_gold)} responses judged against a gold that cannot be "
                                f"read ({listed}): fix the data, those rows can never pay")
    odd = [(s.step, s.nonfinite) for s in steps if s.nonfinite]
    if odd:
        kinds: Counter = Counter()
        for _, counts in odd:
            kinds.update(counts)
        listed = ", ".join(f"step {step}: {sum(c.values())}" for step, c in odd[:5]) + (" ..." if len(odd) > 5 else "")
        flag("nonfinite", f"{sum(kinds.values())} rewards are not finite numbers ("
                          + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + f"; {listed}): the means here "
                          f"count them as 0 and their groups' variance as unknown; verl trains on them as they are")
    signal = _ends([s.zero_variance_share for s in steps])
    if signal and signal[1] >= NO_SIGNAL:
        flag("no_signal", f"{signal[1]:.0%} of GRPO groups have zero reward variance in the last quarter of "
                          f"{span}: most prompts teach nothing (too easy or too hard)")
    return out
