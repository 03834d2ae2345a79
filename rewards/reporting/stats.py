"""The numbers of one rollout file: what its rewards looked like, beyond the dashboard's means.

From scored rows it computes, per data_source: the reward and verdict distributions, the share of
GRPO groups whose rewards have zero variance (they carry no advantage signal: every sample of the
prompt got the same reward), accuracy by response length, and the most common extracted wrong
answers. `Row` and the group helpers are shared with the run report (runs.py); html.py draws both.

Groups: rows are grouped by `uid` (top level or in `extra_info`; verl's V1 sample keys `{uid}_{session}_{index}`
by the uid in front), else `extra_info.index`, else
the prompt text (`prompt`, or `input` in verl's rollout dumps), within one data_source and one
`step` when rows carry one. Groups of one sample have no variance and are not counted.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from ..result import TIMING_KEY


LENGTH_BINS = 8
TOP_WRONG = 12
EPS = 1e-9
UNJUDGED = ""
"""The verdict of a row known only by its `score` (a plain verl dump with no data_source to re-score by)."""


def fixed(value: float, spec: str = ".3f") -> str:
    """A number as a table shows it: `format(value, spec)`, with a zero that rounds from below shown as
    `0.000`, not `-0.000` (a mean of tiny penalties is no negative reward).

    >>> fixed(-0.0001), fixed(-0.0), fixed(-0.5), fixed(-0.0, "g")
    ('0.000', '0.000', '-0.500', '0')
    """
    text = format(value, spec)
    if text.startswith("-") and not any(c.isdigit() and c != "0" for c in text.split("e")[0]):
        return text[1:]
    return text


@dataclass(frozen=True, slots=True)
class Row:
    """One scored response, reduced to what the report needs."""

    data_source: str
    score: float
    acc: float
    verdict: str
    pred: str = ""
    length: int | None = None
    """Characters in the response; None when the row has no response text."""
    group: tuple | None = None
    error: str = ""
    format: float | None = None
    """The `format` key (1.0 where no format rule was set); None when the row has none."""
    gold: str | None = None
    nonfinite: str = ""
    """"NaN", "inf" or "-inf" when the row's reward was not a finite number (its `score` is then 0)."""
    reward_ms: float | None = None
    """The reward's own time for this sample, from the dump's `reward_ms` column (`rewards.verl`'s
    `timing_key` setting); None when the dump has none."""

    @property
    def judged(self) -> bool:
        return self.verdict != UNJUDGED


_V1_SAMPLE_KEY = re.compile(r"_\d+_\d+$")
"""verl 0.9.1's V1 trainer dumps each sample's key, `{uid}_{session}_{index}`, as its `uid`: the group
is the prompt's uid before it (a UUID, which never ends that way itself)."""


def group_key(record: Mapping[str, Any]) -> tuple | None:
    """The GRPO group a row belongs to: uid, else extra_info.index, else the prompt; plus its step."""
    extra = record.get("extra_info")
    extra = extra if isinstance(extra, Mapping) else {}
    step = record.get("step")
    for kind, value in (("uid", record.get("uid")), ("uid", extra.get("uid")), ("index", extra.get("index"))):
        if value is not None:
            text = _text(value)
            return (step, kind, _V1_SAMPLE_KEY.sub("", text) if kind == "uid" else text)
    prompt = record.get("prompt", record.get("input"))
    if prompt is None or prompt == "":
        return None
    return (step, "prompt", _text(prompt))


@dataclass(frozen=True)
class Flag:
    """A trouble pattern found in a run (runs.py) or by its reward audit (audit.py)."""

    data_source: str
    kind: str
    message: str


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _number(value: Any, default: float | None = 0.0) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def make_row(data_source: str, result: Mapping[str, Any], response: Any = None,
             record: Mapping[str, Any] | None = None, gold: Any = None, length: int | None = None) -> Row:
    """A report row from a result dict (`score`, `acc`, `verdict`, `pred`, `format`) and its input
    record. `length` overrides the response's character count (a token count, for example)."""
    verdict = str(result.get("verdict") or "error")
    pred = result.get("pred")
    fmt = result.get("format")
    return Row(
        data_source=data_source,
        score=_number(result.get("score")),
        acc=_number(result.get("acc"), 1.0 if verdict == "correct" else 0.0),
        verdict=verdict,
        pred="" if pred is None else str(pred),
        length=length if length is not None else len(response) if isinstance(response, str) else None,
        group=group_key(record) if isinstance(record, Mapping) else None,
        error=str(result.get("error") or ""),
        format=None if fmt is None else _number(fmt),
        gold=None if gold is None else _text(gold),
        nonfinite=_nonfinite(result.get("score")),
        reward_ms=_number(record.get(TIMING_KEY), None) if isinstance(record, Mapping) else None,
    )


def _nonfinite(value: Any) -> str:
    """The name of a reward that is a number but not a finite one ("NaN", "inf", "-inf"), else ""."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return ""
    return "" if math.isfinite(x) else "NaN" if math.isnan(x) else "inf" if x > 0 else "-inf"


def score_only_row(data_source: str, score: Any, response: Any = None, record: Mapping[str, Any] | None = None,
                   gold: Any = None, length: int | None = None) -> Row:
    """A row known by its reward alone: no verdict, accuracy or format to report."""
    return replace(make_row(data_source, {"score": score, "verdict": "error"}, response, record, gold, length),
                   verdict=UNJUDGED, acc=0.0)


def zero_variance(scores: list[float]) -> bool:
    """Every sample of the group got the same reward: GRPO's advantages are all zero."""
    return max(scores) - min(scores) <= EPS


def percentile(ordered: list[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, by linear interpolation (numpy's default)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# ----------------------------------------------------------------------------------------------
# Aggregation.

@dataclass
class GroupStats:
    groups: int = 0           # groups of two or more samples
    zero_variance: int = 0    # all samples of the group got the same reward
    all_correct: int = 0      # ... because every sample was correct
    all_failed: int = 0       # ... because no sample was correct
    mean_size: float = 0.0
    nonfinite: int = 0        # groups with a NaN or infinite reward: their variance is not known

    @property
    def share(self) -> float:
        return self.zero_variance / self.groups if self.groups else 0.0


@dataclass
class LengthBin:
    low: int
    high: int
    count: int
    acc: float


@dataclass
class SourceStats:
    data_source: str
    scores: list[float] = field(default_factory=list)
    verdicts: Counter = field(default_factory=Counter)
    correct: int = 0
    lengths: list[tuple[int, float]] = field(default_factory=list)
    wrong_preds: Counter = field(default_factory=Counter)
    groups: dict[tuple, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    nonfinite: Counter = field(default_factory=Counter)    # "NaN"/"inf"/"-inf" -> rows (their score counts as 0)
    nonfinite_groups: set = field(default_factory=set)

    def add(self, row: Row) -> None:
        self.scores.append(row.score)
        if row.nonfinite:
            self.nonfinite[row.nonfinite] += 1
            if row.group is not None:
                self.nonfinite_groups.add(row.group)
        self.verdicts[row.verdict] += 1
        self.correct += row.acc >= 1.0
        if row.length is not None:
            self.lengths.append((row.length, row.acc))
        if row.verdict == "wrong":
            self.wrong_preds[row.pred] += 1
        if row.group is not None:
            self.groups[row.group].append((row.score, row.acc))
        if row.error and len(self.errors) < 10:
            self.errors.append(row.error)

    @property
    def count(self) -> int:
        return len(self.scores)

    @property
    def mean_score(self) -> float:
        return sum(self.scores) / self.count if self.count else 0.0

    @property
    def accuracy(self) -> float:
        return self.correct / self.count if self.count else 0.0

    def group_stats(self) -> GroupStats:
        out = GroupStats()
        sizes = []
        for key, members in self.groups.items():
            if len(members) < 2:
                continue
            out.groups += 1
            sizes.append(len(members))
            if key in self.nonfinite_groups:  # a NaN reward is no evidence of equal rewards
                out.nonfinite += 1
            elif zero_variance([s for s, _ in members]):
                out.zero_variance += 1
                accs = {a >= 1.0 for _, a in members}
                if accs == {True}:
                    out.all_correct += 1
                elif accs == {False}:
                    out.all_failed += 1
        out.mean_size = sum(sizes) / len(sizes) if sizes else 0.0
        return out

    def length_bins(self, bins: int = LENGTH_BINS) -> list[LengthBin]:
        """Accuracy in equal-count bins of response length (bins merge when lengths repeat)."""
        if not self.lengths:
            return []
        ordered = sorted(self.lengths)
        n = len(ordered)
        bins = max(1, min(bins, n))
        out: list[LengthBin] = []
        start = 0
        for b in range(1, bins + 1):
            end = round(b * n / bins)
            while end < n and end > start and ordered[end][0] == ordered[end - 1][0]:
                end += 1  # keep equal lengths in one bin
            if end <= start:
                continue
            chunk = ordered[start:end]
            out.append(LengthBin(chunk[0][0], chunk[-1][0], len(chunk),
                                 sum(1 for _, a in chunk if a >= 1.0) / len(chunk)))
            start = end
            if start >= n:
                break
        return out

    def top_wrong(self, k: int = TOP_WRONG) -> list[tuple[str, int]]:
        return self.wrong_preds.most_common(k)


@dataclass
class Report:
    sources: dict[str, SourceStats] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(s.count for s in self.sources.values())

    def add(self, row: Row) -> None:
        if row.data_source not in self.sources:
            self.sources[row.data_source] = SourceStats(row.data_source)
        self.sources[row.data_source].add(row)

    def to_dict(self) -> dict[str, Any]:
        """The numbers behind the page, for scripts and tests."""
        out = {}
        for name, s in self.sources.items():
            g = s.group_stats()
            out[name] = {
                "rows": s.count, "mean_score": s.mean_score, "acc": s.accuracy,
                "verdicts": dict(s.verdicts),
                "groups": {"groups": g.groups, "zero_variance": g.zero_variance, "share": g.share,
                           "all_correct": g.all_correct, "all_failed": g.all_failed, "mean_size": g.mean_size,
                           "nonfinite": g.nonfinite},
                "nonfinite_rewards": dict(s.nonfinite),
                "acc_by_length": [vars(b) for b in s.length_bins()],
                "top_wrong": s.top_wrong(),
            }
        return out
