"""The report pages: one self-contained HTML file each (inline CSS, base64 PNG charts), all row
text escaped, because model output can contain anything.

`render_html` is the page of one rollout file (stats.Report); `render_run_html` the page of a run
folder (runs.RunStats), its trouble flags first.
"""

from __future__ import annotations

import html
from typing import Any, Iterable

from ..result import VERDICTS
from .audit import DIRECTIONS, PAID, Audit
from .charts import audit_chart, groups_chart, run_chart, source_chart
from .shapes import SHAPES
from .runs import CHECKS, TOP_ANSWERS, RunStats
from .stats import Report, fixed

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 24px auto; max-width: 1400px;
       color: #212121; padding: 0 16px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 2em; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }
th { background: #f5f5f5; } td.text { text-align: left; font-family: monospace; max-width: 700px;
     overflow-wrap: anywhere; }
img { max-width: 100%; } .muted { color: #666; font-size: 0.9em; }
ul.flags li { margin: 4px 0; } .flag { color: #b71c1c; font-weight: 600; } .ok { color: #2e7d32; }
"""


def _head(title: str, notes: Iterable[str]) -> list[str]:
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    parts += [f"<p class=\"muted\">{html.escape(note)}</p>" for note in notes]
    return parts


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


def render_html(report: Report, title: str = "Reward report", notes: Iterable[str] = (),
                audit: Audit | None = None) -> str:
    """One self-contained HTML page (inline CSS, base64 PNG charts); all row text is escaped."""
    parts = _head(title, notes)
    if not report.sources:
        parts.append("<p>No rows.</p></body></html>")
        return "\n".join(parts)

    parts.append("<h2>Overview</h2>")
    seen = [v for v in VERDICTS if any(s.verdicts.get(v) for s in report.sources.values())]
    overview = []
    for name, s in report.sources.items():
        g = s.group_stats()
        overview.append([name, s.count, fixed(s.mean_score), fixed(s.accuracy),
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
    parts += audit_section(audit)

    for name, s in report.sources.items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        g = s.group_stats()
        parts.append(f"<p>{s.count} responses, mean score {fixed(s.mean_score)}, accuracy {fixed(s.accuracy)}"
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


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "-" if value is None else fixed(value, spec)


def _reward_time_section(steps: list[dict[str, Any]]) -> list[str]:
    """The reward's own time per step, from the dump's `reward_ms` column (docs/probe-and-report.md)."""
    if not steps:
        return []
    rows = [[s["step"], s["rows"], f"{s['mean_ms']:.2f}", f"{s['max_ms']:.1f}", f"{s['sum_s']:.3f}",
             _fmt(s["step_s"]), "-" if s["share"] is None else f"{s['share']:.2%}"] for s in steps]
    return ["<h2>Reward time</h2>",
            '<p class="muted">The reward\'s own wall time per sample (the dumps\' <code>reward_ms</code>); '
            "the share is the summed time over the step's time in verl's metrics (<code>timing_s/step</code>, plus "
            "<code>timing_s/testing</code> where it validated; pass --metrics). The samples are scored concurrently "
            "while others generate, so the share is the work the reward did, not time the step waited.</p>",
            _table(["step", "rows", "mean ms", "slowest ms", "summed s", "step s", "share of the step"], rows)]


def render_run_html(run: RunStats, title: str = "Run report", notes: Iterable[str] = (),
                    length_unit: str = "chars", audit: Audit | None = None) -> str:
    """The run page: trouble flags, an overview per data_source, then its per-step charts."""
    parts = _head(title, notes)
    parts.append('<h2 id="flags">Flags</h2>')
    flags = run.flags(audit if audit is not None and (audit.rows or audit.unreadable) else None)
    if flags:
        parts.append('<ul class="flags">' + "".join(
            f'<li><span class="flag">{html.escape(f.kind)}</span> ({html.escape(f.data_source)}): '
            f"{html.escape(f.message)}</li>" for f in flags) + "</ul>")
    else:
        parts.append('<p class="ok">No trouble pattern found.</p>')
    parts.append('<p class="muted">Checked (trends compare the first quarter of the steps with the last): '
                 + "; ".join(html.escape(c) for c in CHECKS) + ".</p>")
    unjudged = [source for source, steps in run.steps.items() if not any(s.judged for s in steps)]
    if unjudged:
        parts.append('<p class="muted">Only the length and group checks ran for ' + ", ".join(map(html.escape, unjudged))
                     + ": its rows carry a score only (pass --data-source to re-score them).</p>")

    parts.append("<h2>Overview</h2>")
    overview = []
    for source, steps in run.steps.items():
        first, last = steps[0], steps[-1]
        how = ", ".join(f"{n} {what}" for what, n in run.how[source].most_common())
        overview.append([source, len(steps), f"{first.step}-{last.step}", sum(s.rows for s in steps),
                         f"{_fmt(first.mean_score)} → {_fmt(last.mean_score)}",
                         f"{_fmt(first.acc)} → {_fmt(last.acc)}", how])
    parts.append(_table(["data_source", "steps", "range", "rows", "mean reward (first → last step)",
                         "accuracy (first → last step)", "rows judged by"], overview, text_cols=(0, 6)))
    parts += _reward_time_section(run.reward_time())
    parts += audit_section(audit)

    for source, steps in run.steps.items():
        parts.append(f"<h2>{html.escape(source)}</h2>")
        wrong = run.top_wrong(source)
        chart = run_chart(steps, [answer for answer, _ in wrong], length_unit)
        parts.append(f'<img alt="per-step charts for {html.escape(source)}" src="data:image/png;base64,{chart}">')
        if wrong:
            parts.append("<h3>Most repeated wrong answers</h3>")
            parts.append(_table(["pred", "times wrong (run)", "first step", "last step", "share of wrong, first step",
                                 "share of wrong, last step"],
                                [_wrong_row(answer, count, steps) for answer, count in wrong], text_cols=(0,)))
        errors = [e for s in steps for e in s.errors][:10]
        if errors:
            parts.append("<h3>Rows that could not be read or scored</h3>")
            parts.append(_table(["message"], [[e] for e in errors], text_cols=(0,)))
        parts.append("<details><summary>Per-step numbers</summary>")
        seen = [v for v in VERDICTS if v != "correct" and any(s.verdicts.get(v) for s in steps)]
        parts.append(_table(
            ["step", "rows", "mean reward", "acc", *seen, "format", f"median length ({length_unit})", "p95",
             "cut off", "zero-variance groups", f"top-{TOP_ANSWERS} answers", "commonest answer",
             "commonest gold (prompts)"],
            [[s.step, s.rows, _fmt(s.mean_score), _fmt(s.acc), *(_fmt(s.verdict_share(v), ".1%") for v in seen),
              _fmt(s.format_rate, ".1%"), _fmt(s.length_median, ".0f"), _fmt(s.length_p95, ".0f"),
              _fmt(s.cut_share, ".1%"), _fmt(s.zero_variance_share, ".1%"), _fmt(s.answer_concentration, ".1%"),
              f"{s.top_answer[0]} ({s.top_answer[1] / s.top_answer[2]:.0%})" if s.top_answer else "-",
              _fmt(s.top_gold_share, ".0%")]
             for s in steps]))
        parts.append("</details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def audit_section(audit: Audit | None) -> list[str]:
    """The reward audit: agreement per data_source, the per-step chart, and per data_source a table
    by cause with an example row each. Nothing when no row carried a previous reward."""
    if audit is None or not (audit.rows or audit.unreadable):
        return []
    numbers = audit.to_dict()["sources"]
    parts = [f'<h2 id="audit">Reward audit: {html.escape(audit.reference)} against our verdicts</h2>',
             f'<p class="muted">A row is <b>paid</b> when its previous reward is at least {PAID}. '
             "<b>Paid but wrong</b>: paid, and our verdict is not correct; <b>correct but unpaid</b>: our verdict "
             "is correct and it was not paid. Rows whose verdict is no judgement (timeout, error, unparsable_gold) "
             "are not counted either way. A GRPO group (same uid and step) has an <b>advantage sign changed</b> "
             "when some sample is above its group's mean reward under one reward and not under the other.</p>"]
    parts.append(_table(
        ["data_source", "rows", "judged", "disagree", "paid but wrong", "correct but unpaid", "GRPO groups",
         "advantage sign changed"],
        [[name, d["rows"], d["judged"], _fmt(d["disagreement_rate"], ".1%"), d["paid_but_wrong"],
          d["correct_but_unpaid"], d["groups"],
          f'{d["groups_sign_changed"]} ({_fmt(d["groups_sign_changed_share"], ".1%")})' if d["groups"] else "-"]
         for name, d in numbers.items()], text_cols=(0,)))
    chart = audit_chart(audit)
    if chart:
        parts.append(f'<img alt="disagreement per step" src="data:image/png;base64,{chart}">')
    for name, d in numbers.items():
        if not d["causes"]:
            continue
        parts.append(f"<h3>{html.escape(name)}: disagreements by cause</h3>")
        rows = []
        for c in d["causes"]:
            e = c["examples"][0]
            rows.append([DIRECTIONS[c["direction"]], c["verdict"], c["shape"], c["rows"],
                         _fmt(c["rows"] / d["judged"], ".1%"), _where(e), e["gold"], e["pred"] or "(none)",
                         f'{fixed(e["previous"], "g")} → {fixed(e["score"], "g")}', e["response_end"]])
        parts.append(_table(["", "our verdict", "answer shape", "rows", "share of judged", "example row", "gold",
                             "our answer", "reward: previous → ours", "end of the response"],
                            rows, text_cols=(0, 2, 5, 6, 7, 9)))
        more = [[c["shape"], _where(e), e["gold"], e["pred"] or "(none)", f'{fixed(e["previous"], "g")} → {fixed(e["score"], "g")}',
                 e["response_end"]] for c in d["causes"] for e in c["examples"][1:]]
        if more:
            parts.append("<details><summary>More examples</summary>")
            parts.append(_table(["answer shape", "row", "gold", "our answer", "reward", "end of the response"],
                                more, text_cols=(0, 1, 2, 3, 5)))
            parts.append("</details>")
    shown = sorted({c["shape"] for d in numbers.values() for c in d["causes"]}, key=list(SHAPES).index)
    if shown:
        parts.append('<p class="muted">Answer shapes (the first that fits the response): '
                     + "; ".join(f"<b>{html.escape(s)}</b>: {html.escape(SHAPES[s])}" for s in shown) + ".</p>")
    if audit.unreadable:
        parts.append(f"<p>{audit.unreadable} row(s) with a previous reward not compared:</p>")
        parts.append(_table(["message"], [[m] for m in audit.messages], text_cols=(0,)))
    return parts


def _where(example: dict[str, Any]) -> str:
    return example["where"] + (f" (step {example['step']})" if example["step"] is not None else "")


def _wrong_row(answer: str, count: int, steps) -> list[Any]:
    present = [s for s in steps if dict(s.top_wrong).get(answer)]

    def share(s) -> str:
        return f"{dict(s.top_wrong).get(answer, 0) / s.wrong:.1%}" if s.wrong else "-"

    return [answer or "(empty)", count, present[0].step if present else "-", present[-1].step if present else "-",
            share(steps[0]), share(steps[-1])]
