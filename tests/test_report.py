"""`rewards report`: the numbers behind the page, both input shapes, and a real render in Chromium."""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cli.main import main
from rewards.reporting.html import render_html
from rewards.reporting.stats import Report, Row, SourceStats, group_key, make_row
from tests.helpers.browser import chromium, screenshot

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "rollouts.jsonl"


def build_report(rows) -> Report:
    report = Report()
    for row in rows:
        report.add(row)
    return report


def grpo_dump(n_prompts=24, n=8, seed=0, step=3):
    """Rows shaped like verl's `trainer.rollout_data_dir` dump (`input`, `output`, `gts`, `score`,
    `step`), n samples per prompt. Easy prompts are solved by every sample, hard ones by none."""
    rng = random.Random(seed)
    rows = []
    for p in range(n_prompts):
        gold = rng.randint(11, 900)
        prompt = f"user\nQuestion {p}: compute something. Let's think step by step and output the final answer after \"####\".\nassistant\n"
        solve_rate = [1.0, 0.0, 0.5, 0.25][p % 4]
        for _ in range(n):
            steps = "\n".join(f"Step {k}: {rng.randint(1, 99)} + {rng.randint(1, 99)}." for k in range(rng.randint(1, 12)))
            roll = rng.random()
            if roll < solve_rate:
                out = f"{steps}\n#### {gold}"
            elif roll < solve_rate + (1 - solve_rate) * 0.8:
                out = f"{steps}\n#### {rng.choice([gold + 1, gold * 2, 42])}"
            else:
                out = f"{steps}\nI am not sure."
            rows.append({"input": prompt, "output": out, "gts": str(gold), "score": 0.0, "step": step})
    return rows


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_group_key_prefers_uid_then_index_then_prompt():
    assert group_key({"uid": "u1", "extra_info": {"index": 4}, "input": "q"}) == (None, "uid", "u1")
    assert group_key({"extra_info": {"uid": "u2", "index": 4}}) == (None, "uid", "u2")
    assert group_key({"extra_info": {"index": 4}, "prompt": "q", "step": 7}) == (7, "index", "4")
    assert group_key({"input": "q", "step": 2}) == (2, "prompt", "q")
    msgs = [{"role": "user", "content": "q"}]
    assert group_key({"prompt": msgs}) == group_key({"prompt": [dict(msgs[0])]})
    assert group_key({"output": "x"}) is None


def test_verl_v1_sample_keys_group_by_the_prompt_uid():
    """verl 0.9.1's V1 trainer writes `{uid}_{session}_{index}` as each dump row's uid (seen in a real
    GRPO run's step dumps): the eight samples of a prompt are one group, not eight."""
    uid = "16332886-adf4-4625-b10f-bb9e1ca92bca"
    keys = {group_key({"uid": f"{uid}_{i}_0", "step": 3}) for i in range(8)}
    assert keys == {(3, "uid", uid)}
    assert group_key({"uid": "prompt_7"}) == (None, "uid", "prompt_7")       # not a sample key: kept whole
    assert group_key({"uid": f"{uid}_1_0", "step": 3}) != group_key({"uid": f"{uid}_1_0", "step": 4})


def test_zero_variance_groups_are_counted_and_split():
    rows = []
    for g, scores in enumerate([[1, 1, 1], [0, 0, 0, 0], [1, 0], [0.1, 0.1], [1]]):
        rows += [Row("ds", s, 1.0 if s == 1 else 0.0, "correct" if s == 1 else "wrong", group=(None, "uid", str(g)))
                 for s in scores]
    g = build_report(rows).sources["ds"].group_stats()
    # the size-1 group is not a group; [0.1, 0.1] is zero variance but neither all correct nor all failed
    assert (g.groups, g.zero_variance, g.all_correct, g.all_failed) == (4, 3, 1, 2)
    assert g.share == 0.75


def test_same_prompt_in_different_steps_is_two_groups():
    rows = [make_row("ds", {"score": s, "acc": s, "verdict": "correct" if s else "wrong"}, "x",
                     {"input": "q", "step": step}) for step, s in [(1, 1), (1, 1), (2, 0), (2, 1)]]
    g = build_report(rows).sources["ds"].group_stats()
    assert (g.groups, g.zero_variance) == (2, 1)


@given(st.lists(st.tuples(st.integers(0, 5000), st.booleans()), min_size=1, max_size=300),
       st.integers(1, 12))
def test_length_bins_cover_every_row_once_in_order(items, bins):
    stats = SourceStats("ds")
    for length, ok in items:
        stats.add(Row("ds", float(ok), float(ok), "correct" if ok else "wrong", length=length))
    out = stats.length_bins(bins)
    assert sum(b.count for b in out) == len(items)
    assert len(out) <= bins
    assert all(a.high < b.low for a, b in zip(out, out[1:]))  # disjoint, increasing
    assert sum(b.acc * b.count for b in out) == pytest.approx(sum(ok for _, ok in items))


def test_raw_verl_dump_is_scored_and_grouped(tmp_path, capsys):
    src = write_jsonl(tmp_path / "3.jsonl", grpo_dump())
    out = tmp_path / "report.html"
    assert main(["report", str(src), "-o", str(out), "--data-source", "openai/gsm8k", "--json"]) == 0
    numbers = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["openai/gsm8k"]
    assert numbers["rows"] == 24 * 8
    groups = numbers["groups"]
    assert groups["groups"] == 24 and groups["mean_size"] == 8
    # prompts with solve rate 1 are all correct; 0 are all failed; the others mostly mixed
    assert groups["all_correct"] == 6 and groups["all_failed"] >= 6
    assert sum(numbers["verdicts"].values()) == 24 * 8 and numbers["verdicts"]["no_answer"] > 0
    top = dict(numbers["top_wrong"])
    assert top.get("42", 0) >= max(top.values()) * 0.5  # the shared decoy is among the most common
    page = out.read_text()
    assert page.count("data:image/png;base64,") == 2 and "openai/gsm8k" in page


def test_scored_rows_are_read_as_they_are(tmp_path, capsys):
    scored = tmp_path / "scored.jsonl"
    assert main(["score", str(EXAMPLE), "-o", str(scored)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    rows[0]["score"], rows[0]["verdict"] = 0.25, "wrong"  # a value only the file has
    write_jsonl(scored, rows)
    assert main(["report", str(scored), "-o", str(tmp_path / "r.html"), "--json"]) == 0
    numbers = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["openai/gsm8k"]
    gsm8k = [r["score"] for r in rows if r["data_source"] == "openai/gsm8k"]
    assert numbers["mean_score"] == pytest.approx(sum(gsm8k) / len(gsm8k))
    # --rescore scores again and the file's edited value is gone
    assert main(["report", str(scored), "-o", str(tmp_path / "r.html"), "--json", "--rescore"]) == 0
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["openai/gsm8k"]
    assert again["mean_score"] != numbers["mean_score"]


def test_broken_lines_are_counted_not_fatal(tmp_path, capsys):
    rows = grpo_dump(n_prompts=2, n=2)
    text = json.dumps(rows[0]) + "\n{not json\n" + "".join(json.dumps(r) + "\n" for r in rows[1:])
    src = tmp_path / "d.jsonl"
    src.write_text(text)
    out = tmp_path / "r.html"
    assert main(["report", str(src), "-o", str(out), "--data-source", "openai/gsm8k", "--json"]) == 0
    numbers = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["openai/gsm8k"]
    assert numbers["rows"] == 5 and numbers["verdicts"]["error"] == 1
    assert "line 2: invalid JSON" in out.read_text()


def test_model_text_is_escaped(tmp_path):
    rows = [make_row("ds<b>", {"score": 0, "acc": 0, "verdict": "wrong", "pred": "<script>alert(1)</script>"}, "x")]
    page = render_html(build_report(rows), title="t<i>")
    assert "<script>alert" not in page and "&lt;script&gt;" in page and "ds&lt;b&gt;" in page


def test_missing_file_and_empty_file(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.jsonl")]) == 2
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    assert main(["report", str(empty)]) == 1  # an empty input: 1 in every command
    assert "no rows" in capsys.readouterr().err


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (.ci/run installs Debian's chromium)")
def test_report_renders_in_headless_chromium(tmp_path):
    from PIL import Image

    rows = grpo_dump(n_prompts=24)
    for r in rows:
        r["data_source"] = "openai/gsm8k"
    math_rows = [{"data_source": "lighteval/MATH", "prompt": f"problem {i // 4}", "response": resp,
                  "ground_truth": "\\frac{1}{2}"}
                 for i, resp in enumerate(["so \\boxed{\\frac12}", "\\boxed{0.5}", "\\boxed{1/3}", "no idea"] * 10)]
    src = write_jsonl(tmp_path / "mixed.jsonl", rows + math_rows)
    html_file = tmp_path / "report.html"
    assert main(["report", str(src), "-o", str(html_file)]) == 0
    shot = tmp_path / "shot.png"
    screenshot(html_file, shot, tmp_path / "profile")
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 2000)
    pixels = np.asarray(image, dtype=np.int16)
    ink = float((pixels.min(axis=2) < 200).mean())
    # chart bars are saturated colours (blue histogram, green/red verdicts); text and tables are grey
    colour = float((pixels.max(axis=2) - pixels.min(axis=2) > 80).mean())
    assert ink > 0.03, f"page looks empty: {ink:.2%} non-white pixels"
    assert colour > 0.01, f"no chart colours on the page: {colour:.2%} saturated pixels"


def test_a_one_value_histogram_names_only_that_value():
    """All rewards equal: one bar, one tick naming the value, not an axis spanning 0.6-1.4."""
    from rewards.reporting.charts import source_figure

    report = Report()
    for i in range(12):
        report.add(make_row("openai/gsm8k", {"score": 1.0, "acc": 1.0, "verdict": "correct"}, "#### 1"))
    hist = source_figure(report.sources["openai/gsm8k"]).axes[0]
    assert [t.get_text() for t in hist.get_xticklabels()] == ["1"]
    assert [p.get_height() for p in hist.patches] == [12]


def test_tables_show_no_negative_zero(tmp_path, capsys):
    """A mean of tiny penalties rounds to 0.000, not -0.000, in the report's lines, its page and score's table."""
    import io

    from cli.summary import Summary

    rows = [{"data_source": "openai/gsm8k", "response": "no", "ground_truth": "1", "score": -0.0001, "acc": 0.0,
             "verdict": "no_answer", "format": 1.0, "pred": ""} for _ in range(3)]
    src = write_jsonl(tmp_path / "rows.jsonl", rows)
    assert main(["report", str(src), "-o", str(tmp_path / "page.html"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "mean score 0.000" in out and "-0.000" not in out
    assert "-0.000" not in (tmp_path / "page.html").read_text()
    summary = Summary()
    for row in rows:
        summary.add("openai/gsm8k", row)
    table = io.StringIO()
    summary.print(table)
    assert "-0.000" not in table.getvalue() and " 0.000" in table.getvalue()
