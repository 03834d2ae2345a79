"""The report's charts: matplotlib figures turned into base64 PNG for a self-contained page.

matplotlib is imported only when a chart is drawn (Agg backend, `Figure` objects, no pyplot state),
so the reports stay safe in threads and cheap to import.
"""

from __future__ import annotations

import base64
import io

from ..result import VERDICTS
from .audit import Audit
from .runs import TOP_ANSWERS, StepSummary, commonest_answer_share
from .stats import EPS, Report, SourceStats

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
    return _png(source_figure(stats))


def source_figure(stats: SourceStats):
    """The figure behind `source_chart`: three axes side by side."""
    fig = _new_figure(13.5, 3.6)
    ax1, ax2, ax3 = fig.subplots(1, 3)

    low, high = min(stats.scores), max(stats.scores)
    if high - low < EPS:  # one value: one bar, and one tick that names it (no span of values that never occurred)
        ax1.bar([low], [len(stats.scores)], width=0.1, color="#1565c0", edgecolor="white")
        ax1.set_xlim(low - 0.5, low + 0.5)
        ax1.set_xticks([low], [f"{low:g}"])
    else:
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
    return fig


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


def audit_chart(audit: Audit) -> str | None:
    """Per step and data_source: the share of judged rows where the two rewards disagree (each
    direction and both), and the share of GRPO groups with an advantage sign changed (base64 PNG);
    None when no data_source has two steps to draw."""
    fig = audit_figure(audit)
    return None if fig is None else _png(fig)


def audit_figure(audit: Audit):
    """The figure behind `audit_chart` (None when there is nothing to draw)."""
    from matplotlib.ticker import MaxNLocator

    sources = {name: [s for s in a.steps.values() if s.step is not None and s.judged]
               for name, a in audit.finish().sources.items()}
    sources = {name: sorted(steps, key=lambda s: s.step) for name, steps in sources.items() if len(steps) >= 2}
    if not sources:
        return None
    fig = _new_figure(13.5, 3.8)
    ax1, ax2 = fig.subplots(1, 2)
    palette = ["#1565c0", "#6a1b9a", "#00838f", "#ef6c00", "#2e7d32", "#c62828"]
    for (name, steps), colour in zip(sources.items(), palette):
        x = [s.step for s in steps]
        ax1.plot(x, [s.disagreement for s in steps], color=colour, linewidth=2, label=f"{name}: disagree")
        ax1.plot(x, [s.paid_wrong / s.judged for s in steps], color=colour, linestyle="--", linewidth=1,
                 label=f"{name}: paid but wrong")
        ax1.plot(x, [s.unpaid_correct / s.judged for s in steps], color=colour, linestyle=":", linewidth=1.4,
                 label=f"{name}: correct but unpaid")
        grouped = [(s.step, s.sign_changed / s.groups) for s in steps if s.groups]
        if grouped:
            ax2.plot(*zip(*grouped), color=colour, linewidth=2, label=name)
    ax1.set_title("rows where the rewards disagree", fontsize=10)
    ax1.set_ylabel("share of judged rows")
    ax2.set_title("GRPO groups with an advantage sign changed", fontsize=10)
    ax2.set_ylabel("share of groups")
    for ax in (ax1, ax2):
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers: no 12.5, 17.5
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best", framealpha=0.7)
    fig.tight_layout()
    return fig


def run_chart(steps: list[StepSummary], wrong_answers: list[str], length_unit: str = "chars") -> str:
    """Eight per-step trends of one data_source in one figure (base64 PNG); x is the training step."""
    return _png(run_figure(steps, wrong_answers, length_unit))


def run_figure(steps: list[StepSummary], wrong_answers: list[str], length_unit: str = "chars"):
    """The figure behind `run_chart`: a 2 x 4 grid of per-step axes."""
    fig = _new_figure(17, 7.6)
    axes = fig.subplots(2, 4).flatten()
    x = [s.step for s in steps]
    style = {"marker": "o", "markersize": 3} if len(steps) <= 40 else {}

    def line(ax, values, label, colour=None, **extra):
        points = [(step, v) for step, v in zip(x, values) if v is not None]
        if points:
            ax.plot(*zip(*points), label=label, color=colour, **{"linewidth": 1.6, **style, **extra})
        return bool(points)

    def frame(ax, title, ylabel, share=True, drawn=True, missing="no data"):
        from matplotlib.ticker import MaxNLocator

        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers: no 1.25, 1.50
        ax.set_ylabel(ylabel)
        if share:
            ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        if not drawn:
            ax.text(0.5, 0.5, missing, ha="center", va="center", transform=ax.transAxes, color="#666", fontsize=9)
            if x:
                ax.set_xlim(min(x) - 0.5, max(x) + 0.5)  # the same steps as the other charts
        elif ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="best", framealpha=0.7)

    ax = axes[0]
    judged = line(ax, [s.acc for s in steps], "accuracy", "#2e7d32", linewidth=3, alpha=0.6)
    line(ax, [s.mean_score for s in steps], "mean reward", "#1565c0", linestyle="--")  # on top: often equal
    frame(ax, "reward and accuracy", "mean per response", share=False)

    ax = axes[1]
    seen = [v for v in VERDICTS if any(s.verdicts.get(v) for s in steps)]
    if judged and seen:
        shares = [[s.verdict_share(v) or 0.0 for s in steps] for v in seen]
        ax.stackplot(x, shares, labels=seen, colors=[_VERDICT_COLOURS[v] for v in seen], alpha=0.85)
    frame(ax, "verdict shares", "share of judged responses", drawn=judged and bool(seen),
          missing="no verdicts: rows carry a score only")
    if judged and seen:
        ax.legend(fontsize=6.5, loc="lower left", ncol=2, framealpha=0.7)  # compact: the stack fills the axes

    ax = axes[2]
    drawn = line(ax, [s.format_rate for s in steps], "format passed", "#6a1b9a")
    frame(ax, "format pass rate", "share passing the format check", drawn=drawn, missing="no `format` key")

    ax = axes[3]
    drawn = line(ax, [s.length_median for s in steps], "median", "#1565c0")
    line(ax, [s.length_p95 for s in steps], "p95", "#ef6c00")
    frame(ax, "response length", f"length ({length_unit})", share=False, drawn=drawn)
    if drawn:
        ax.set_ylim(bottom=0)

    ax = axes[4]
    drawn = line(ax, [s.cut_share for s in steps], "cut off", "#c62828")
    frame(ax, "cut off at the maximum length", "share of responses", drawn=drawn,
          missing="maximum unknown:\npass --max-resp-len")

    ax = axes[5]
    drawn = line(ax, [s.zero_variance_share for s in steps], "zero variance", "#f9a825")
    frame(ax, "GRPO groups with zero reward variance", "share of groups", drawn=drawn,
          missing="no groups of two or more")

    ax = axes[6]
    drawn = line(ax, [s.answer_concentration for s in steps], f"top {TOP_ANSWERS} answers", "#c62828")
    line(ax, [s.gold_concentration for s in steps], f"top {TOP_ANSWERS} golds", "#757575")
    line(ax, [commonest_answer_share(s) for s in steps], "commonest answer", "#ef6c00")
    line(ax, [s.top_gold_share for s in steps], "commonest gold (prompts)", "#757575", linestyle="--")
    frame(ax, f"answer concentration (top {TOP_ANSWERS})", "share of answered responses", drawn=drawn,
          missing="no answers" if judged else "no verdicts: rows carry a score only")

    ax = axes[7]
    palette = ["#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"]
    for answer, colour in zip(wrong_answers, palette):
        label = (answer if len(answer) <= 18 else answer[:17] + "…") or "(empty)"
        label = label.replace("$", r"\$")  # model text is never mathtext
        line(ax, [dict(s.top_wrong).get(answer, 0) / s.wrong if s.wrong else None for s in steps],
             label, colour)
    frame(ax, "most repeated wrong answers", "share of wrong answers", drawn=bool(wrong_answers),
          missing="no wrong answers" if judged else "no verdicts: rows carry a score only")

    fig.tight_layout()
    return fig
