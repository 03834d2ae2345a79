"""The reward report: what a run's rewards looked like, beyond the dashboard's means.

From scored rollout rows it computes, per data_source: the reward and verdict distributions, the
share of GRPO groups whose rewards have zero variance (they carry no advantage signal: every sample
of the prompt got the same reward), accuracy by response length, and the most common extracted
wrong answers. `render_html` turns that into one self-contained HTML page with embedded PNG charts.

Groups: rows are grouped by `uid` (top level or in `extra_info`), else `extra_info.index`, else
the prompt text (`prompt`, or `input` in verl's rollout dumps), within one data_source and one
`step` when rows carry one. Groups of one sample have no variance and are not counted.

matplotlib is imported only when a chart is drawn (Agg backend, no pyplot state).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .result import VERDICTS

LENGTH_BINS = 8
TOP_WRONG = 12
_EPS = 1e-9


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


def group_key(record: Mapping[str, Any]) -> tuple | None:
    """The GRPO group a row belongs to: uid, else extra_info.index, else the prompt; plus its step."""
    extra = record.get("extra_info")
    extra = extra if isinstance(extra, Mapping) else {}
    step = record.get("step")
    for kind, value in (("uid", record.get("uid")), ("uid", extra.get("uid")), ("index", extra.get("index"))):
        if value is not None:
            return (step, kind, _text(value))
    prompt = record.get("prompt", record.get("input"))
    if prompt is None or prompt == "":
        return None
    return (step, "prompt", _text(prompt))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _number(value: Any, default: float = 0.0) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def make_row(data_source: str, result: Mapping[str, Any], response: Any = None,
             record: Mapping[str, Any] | None = None) -> Row:
    """A report row from a result dict (`score`, `acc`, `verdict`, `pred`) and its input record."""
    verdict = str(result.get("verdict") or "error")
    pred = result.get("pred")
    return Row(
        data_source=data_source,
        score=_number(result.get("score")),
        acc=_number(result.get("acc"), 1.0 if verdict == "correct" else 0.0),
        verdict=verdict,
        pred="" if pred is None else str(pred),
        length=len(response) if isinstance(response, str) else None,
        group=group_key(record) if isinstance(record, Mapping) else None,
        error=str(result.get("error") or ""),
    )


# ----------------------------------------------------------------------------------------------
# Aggregation.

@dataclass
class GroupStats:
    groups: int = 0           # groups of two or more samples
    zero_variance: int = 0    # all samples of the group got the same reward
    all_correct: int = 0      # ... because every sample was correct
    all_failed: int = 0       # ... because no sample was correct
    mean_size: float = 0.0

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

    def add(self, row: Row) -> None:
        self.scores.append(row.score)
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
        for members in self.groups.values():
            if len(members) < 2:
                continue
            out.groups += 1
            sizes.append(len(members))
            scores = [s for s, _ in members]
            if max(scores) - min(scores) <= _EPS:
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
                           "all_correct": g.all_correct, "all_failed": g.all_failed, "mean_size": g.mean_size},
                "acc_by_length": [vars(b) for b in s.length_bins()],
                "top_wrong": s.top_wrong(),
            }
        return out


def build_report(rows: Iterable[Row]) -> Report:
    report = Report()
    for row in rows:
        report.add(row)
    return report


# ----------------------------------------------------------------------------------------------
# Charts (PNG, base64) and the page.

_VERDICT_COLOURS = {"correct": "#2e7d32", "wrong": "#c62828", "no_answer": "#f9a825",
                    "unparsable_pred": "#ef6c00", "unparsable_gold": "#6a1b9a",
                    "timeout": "#1565c0", "error": "#424242"}


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _new_figure(width: float, height: float):
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # no pyplot: no global state, safe in threads

    return Figure(figsize=(width, height))


def source_chart(stats: SourceStats) -> str:
    """Reward histogram, verdict counts and accuracy by length for one data_source (base64 PNG)."""
    fig = _new_figure(13.5, 3.6)
    ax1, ax2, ax3 = fig.subplots(1, 3)

    low, high = min(stats.scores), max(stats.scores)
    if high - low < _EPS:
        low, high = low - 0.5, high + 0.5
    ax1.hist(stats.scores, bins=20, range=(low, high), color="#1565c0", edgecolor="white")
    ax1.set_title("reward distribution")
    ax1.set_xlabel("score")
    ax1.set_ylabel("responses")

    names = [v for v in VERDICTS if stats.verdicts.get(v)] + sorted(
        v for v in stats.verdicts if v not in VERDICTS)
    counts = [stats.verdicts[v] for v in names]
    bars = ax2.barh(names, counts, color=[_VERDICT_COLOURS.get(v, "#757575") for v in names])
    ax2.invert_yaxis()
    ax2.bar_label(bars, labels=[f"{c} ({c / stats.count:.0%})" for c in counts], padding=3, fontsize=8)
    ax2.set_xlim(0, max(counts) * 1.35)
    ax2.set_title("verdicts")
    ax2.set_xlabel("responses")

    bins = stats.length_bins()
    if bins:
        labels = [f"{b.low}-{b.high}" if b.low != b.high else f"{b.low}" for b in bins]
        bars = ax3.bar(range(len(bins)), [b.acc for b in bins], color="#2e7d32")
        ax3.bar_label(bars, labels=[f"n={b.count}" for b in bins], padding=2, fontsize=7)
        ax3.set_xticks(range(len(bins)), labels, rotation=35, ha="right", fontsize=7)
        ax3.set_ylim(0, 1.12)
    else:
        ax3.text(0.5, 0.5, "no response text in the rows", ha="center", va="center")
    ax3.set_title("accuracy by response length (chars)")
    ax3.set_ylabel("accuracy")
    fig.tight_layout()
    return _png(fig)


def groups_chart(report: Report) -> str | None:
    """Per data_source: the share of groups that were all correct, all failed, other zero-variance, mixed."""
    rows = [(name, s.group_stats()) for name, s in report.sources.items()]
    rows = [(name, g) for name, g in rows if g.groups]
    if not rows:
        return None
    fig = _new_figure(9, 1.2 + 0.45 * len(rows))
    ax = fig.subplots()
    names = [n for n, _ in rows]
    parts = [("all correct (zero variance)", "#2e7d32", lambda g: g.all_correct),
             ("all failed (zero variance)", "#c62828", lambda g: g.all_failed),
             ("other zero variance", "#f9a825", lambda g: g.zero_variance - g.all_correct - g.all_failed),
             ("rewards differ (learning signal)", "#90a4ae", lambda g: g.groups - g.zero_variance)]
    left = [0.0] * len(rows)
    for label, colour, part in parts:
        widths = [part(g) / g.groups for _, g in rows]
        ax.barh(names, widths, left=left, color=colour, label=label)
        left = [a + b for a, b in zip(left, widths)]
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of GRPO groups")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    ax.set_title("groups whose rewards have zero variance")
    return _png(fig)  # bbox_inches="tight" makes room for the legend


_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 24px auto; max-width: 1400px;
       color: #212121; padding: 0 16px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 2em; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }
th { background: #f5f5f5; } td.text { text-align: left; font-family: monospace; max-width: 700px;
     overflow-wrap: anywhere; }
img { max-width: 100%; } .muted { color: #666; font-size: 0.9em; }
"""


def _table(head: list[str], rows: list[list[Any]], text_cols: tuple[int, ...] = ()) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="text"' if i in text_cols else ""
            cells.append(f"<td{cls}>{html.escape(str(cell))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_html(report: Report, title: str = "Reward report", notes: Iterable[str] = ()) -> str:
    """One self-contained HTML page (inline CSS, base64 PNG charts); all row text is escaped."""
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    for note in notes:
        parts.append(f"<p class=\"muted\">{html.escape(note)}</p>")
    if not report.sources:
        parts.append("<p>No rows.</p></body></html>")
        return "\n".join(parts)

    parts.append("<h2>Overview</h2>")
    seen = [v for v in VERDICTS if any(s.verdicts.get(v) for s in report.sources.values())]
    overview = []
    for name, s in report.sources.items():
        g = s.group_stats()
        overview.append([name, s.count, f"{s.mean_score:.3f}", f"{s.accuracy:.3f}",
                         *(s.verdicts.get(v, 0) for v in seen),
                         g.groups, f"{g.share:.1%}" if g.groups else "-"])
    parts.append(_table(["data_source", "rows", "mean score", "acc", *seen, "groups", "zero-variance groups"],
                        overview, text_cols=(0,)))
    chart = groups_chart(report)
    if chart:
        parts.append(f'<img alt="zero-variance groups per data_source" src="data:image/png;base64,{chart}">')
        parts.append("<p class=\"muted\">A GRPO group is the samples of one prompt (by uid, extra_info.index, "
                     "or prompt text, per step). When every sample gets the same reward the advantages are all "
                     "zero and the group teaches nothing.</p>")
    else:
        parts.append("<p class=\"muted\">No GRPO groups: no two rows share a uid, extra_info.index or prompt.</p>")

    for name, s in report.sources.items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        g = s.group_stats()
        parts.append(f"<p>{s.count} responses, mean score {s.mean_score:.3f}, accuracy {s.accuracy:.3f}"
                     + (f"; {g.groups} groups of mean size {g.mean_size:.1f}, {g.zero_variance} with zero "
                        f"variance ({g.all_correct} all correct, {g.all_failed} all failed)" if g.groups else "")
                     + ".</p>")
        parts.append(f'<img alt="charts for {html.escape(name)}" src="data:image/png;base64,{source_chart(s)}">')
        wrong = s.top_wrong()
        total_wrong = s.verdicts.get("wrong", 0)
        if wrong:
            parts.append("<h3>Most common extracted wrong answers</h3>")
            parts.append(_table(["pred", "count", "share of wrong"],
                                [[p if p else "(empty)", c, f"{c / total_wrong:.1%}"] for p, c in wrong],
                                text_cols=(0,)))
        if s.errors:
            parts.append("<h3>Rows that could not be scored</h3>")
            parts.append(_table(["message"], [[e] for e in s.errors], text_cols=(0,)))
    parts.append("</body></html>")
    return "\n".join(parts)
