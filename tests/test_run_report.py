"""`rewards report RUN_DIR`: per-step trends of a run folder written by verl's own dump writer,
the trouble flags, plain verl dumps (score only), streaming, and the page in headless Chromium."""

from __future__ import annotations

import json
import random
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cli.main import main
from rewards.reporting.runs import TOP_KEPT, RunStats
from rewards.reporting.stats import Row
from rewards.result import VERDICTS
from tests.helpers.browser import chromium, screenshot

STEPS = 10
PROMPTS = 16
N = 4  # responses per prompt (actor_rollout_ref.rollout.n)


def troubled_step(step: int, rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """One step of a run going wrong: the policy learns to answer 2 (the gold of a quarter of the
    prompts), so accuracy rises while the answers collapse; responses grow; no_answer rises; one
    broken gold shows up at step 5."""
    progress = step / (STEPS - 1)
    inputs, outputs, golds = [], [], []
    for p in range(PROMPTS):
        gold = "2" if p % 4 == 0 else str(100 + 7 * p)
        if step == 5 and p == 1:
            gold = "n/a"
        for _ in range(N):
            words = " ".join(f"Step {k}: {rng.randint(1, 99)} + {rng.randint(1, 99)}." for k in
                             range(3 + int(30 * progress) + rng.randint(0, 3)))
            roll = rng.random()
            no_answer = 0.02 + 0.2 * progress
            two = no_answer + 0.1 + 0.5 * progress
            solved = two + 0.1 + 0.1 * progress
            if roll < no_answer:
                out = f"{words}\nI am not sure."
            elif roll < two:
                out = f"{words}\n#### 2"
            elif roll < solved:
                out = f"{words}\n#### {gold}"
            else:
                out = f"{words}\n#### {rng.randint(11, 999)}"
            inputs.append(f"user\nQuestion {p} of step {step}.\nassistant\n")
            outputs.append(out)
            golds.append(gold)
    return inputs, outputs, golds


def steady_step(step: int, rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """A healthy step: answers as varied as the golds, accuracy near 0.5, lengths flat."""
    inputs, outputs, golds = [], [], []
    for p in range(PROMPTS):
        gold = str(100 + 7 * p)
        for _ in range(N):
            answer = gold if rng.random() < 0.5 else str(rng.randint(11, 999))
            inputs.append(f"user\nQuestion {p} of step {step}.\nassistant\n")
            outputs.append(f"Working {rng.randint(1, 99)}.\n#### {answer}")
            golds.append(gold)
    return inputs, outputs, golds


def write_run(folder, make_step=troubled_step, with_results=True, seed=0) -> None:
    """A run folder in verl's dump format: each step scored by our verl entry point (as the reward
    loop does), then written by verl's own `_write_generations`."""
    pytest.importorskip("verl")
    import rewards.verl as rv
    from tests.helpers.verl_rows import verl_dump_writer

    write = verl_dump_writer()
    rng = random.Random(seed)
    for step in range(1, STEPS + 1):
        inputs, outputs, golds = make_step(step, rng)
        results = rv.compute_score_batch(["openai/gsm8k"] * len(outputs), outputs, golds, None, verdict_keys=True)
        extra = {k: [r[k] for r in results] for k in results[0]} if with_results else {}
        write(inputs=inputs, outputs=outputs, gts=golds, scores=[r["score"] for r in results],
              reward_extra_infos_dict=extra, dump_path=str(folder), global_steps=step)


def report_json(capsys, *argv) -> dict:
    assert main(["report", *argv, "--json", "-q"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_troubled_run_is_flagged(tmp_path, capsys):
    run = tmp_path / "rollouts"
    write_run(run)
    numbers = report_json(capsys, str(run), "--max-resp-len", "600", "--length-unit", "chars")
    steps = numbers["sources"]["(no data_source)"]["steps"]
    assert [s["step"] for s in steps] == list(range(1, STEPS + 1))
    assert all(s["rows"] == PROMPTS * N for s in steps)
    assert steps[-1]["acc"] > steps[0]["acc"]
    kinds = {f["kind"] for f in numbers["flags"]}
    assert {"answer_collapse", "length", "no_answer_rising", "unparsable_gold"} <= kinds
    gold_flag = next(f for f in numbers["flags"] if f["kind"] == "unparsable_gold")
    assert "step 5: 4" in gold_flag["message"]
    assert numbers["sources"]["(no data_source)"]["top_wrong"][0][0] == "2"  # the collapsed answer
    assert steps[-1]["cut_share"] > steps[0]["cut_share"] == 0.0
    assert numbers["sources"]["(no data_source)"]["how"] == {"read from the file": STEPS * PROMPTS * N}


def test_steady_run_raises_no_flag(tmp_path, capsys):
    run = tmp_path / "val"
    write_run(run, steady_step)
    numbers = report_json(capsys, str(run), "--data-source", "openai/gsm8k")
    assert numbers["flags"] == []
    # --data-source names the rows; they carry results, so these are read, not scored again
    assert {k: v["how"] for k, v in numbers["sources"].items()} == {
        "openai/gsm8k": {"read from the file": STEPS * PROMPTS * N}}


def test_plain_verl_dump_is_rescored_or_reported_by_score(tmp_path, capsys):
    run = tmp_path / "plain"
    write_run(run, with_results=False)  # a run with verl's own scorer: only `score` in the dump
    first = json.loads((run / "1.jsonl").read_text().splitlines()[0])
    assert set(first) == {"input", "output", "gts", "score", "step"}
    by_score = report_json(capsys, str(run))["sources"]["(no data_source)"]
    assert by_score["how"] == {"score only (no data_source to re-score by)": STEPS * PROMPTS * N}
    assert all(s["acc"] is None and s["verdicts"] == {} for s in by_score["steps"])
    assert by_score["steps"][0]["mean_score"] >= 0 and by_score["steps"][0]["groups"] == PROMPTS
    assert "Only the length and group checks ran for (no data_source)" in (tmp_path / "plain.report.html").read_text()
    rescored = report_json(capsys, str(run), "--data-source", "openai/gsm8k")["sources"]["openai/gsm8k"]
    assert rescored["how"] == {"re-scored by the library": STEPS * PROMPTS * N}
    assert [s["mean_score"] for s in rescored["steps"]] == [s["mean_score"] for s in by_score["steps"]]
    assert rescored["steps"][4]["verdicts"]["unparsable_gold"] == 4
    page = (tmp_path / "plain.report.html").read_text()
    assert "re-scored by the library" in page


def test_memory_per_step_does_not_grow_with_steps():
    """Rows of a step are reduced when the next step starts: the peak is one step's rows, whatever
    the number of steps (summaries of a few hundred bytes each aside)."""
    rng = random.Random(0)
    rows = [Row("ds", float(k % 2), float(k % 2), "correct" if k % 2 else "wrong", pred=str(rng.randint(0, 10**6)),
                length=rng.randint(10, 5000), group=(None, "prompt", str(k // 8)), format=1.0, gold="3")
            for k in range(4000)]

    def peak(steps: int) -> int:
        run = RunStats(max_length=4096)
        tracemalloc.start()
        for step in range(steps):
            for row in rows:
                run.add(step, row, "read from the file")
        run.close_step()
        size = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert all(len(s.top_wrong) <= TOP_KEPT for s in run.steps["ds"])
        return size

    few, many = peak(5), peak(40)
    assert many < few * 1.5, f"peak memory grew with the steps: {few} -> {many} bytes"


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (.ci/run installs Debian's chromium)")
def test_run_page_renders_in_headless_chromium(tmp_path):
    from PIL import Image

    run = tmp_path / "rollouts"
    write_run(run)
    page = tmp_path / "run.html"
    assert main(["report", str(run), "-o", str(page), "-q", "--data-source", "openai/gsm8k",
                 "--max-resp-len", "600", "--length-unit", "chars"]) == 0
    text = page.read_text()
    assert '<h2 id="flags">Flags</h2>' in text and "answer_collapse" in text
    assert text.count("data:image/png;base64,") == 1  # one data_source: one figure of per-step charts
    shot = screenshot(page, tmp_path / "shot.png", tmp_path / "profile", size="1400,2300")
    image = Image.open(shot).convert("RGB")
    pixels = np.asarray(image, dtype=np.int16)
    colour = float((pixels.max(axis=2) - pixels.min(axis=2) > 80).mean())
    assert colour > 0.01, f"no chart colours on the page: {colour:.2%} saturated pixels"
    # The axes are labelled: matplotlib draws the labels into the PNG, so ask the figure behind it.
    from rewards.reporting.charts import run_figure

    stats = _build_stats(run)
    steps = stats.steps["openai/gsm8k"]
    axes = run_figure(steps, [answer for answer, _ in stats.top_wrong("openai/gsm8k")]).axes
    assert len(axes) == 8 and all(ax.get_xlabel() == "step" and ax.get_ylabel() and ax.get_title() for ax in axes)
    assert all(ax.lines or ax.collections for ax in axes)  # every chart has data in this run


def _build_stats(run) -> RunStats:
    from rewards.reporting.stats import make_row
    from schemas.reader import read_rows

    stats = RunStats(max_length=600)
    for item in read_rows(run):
        stats.add(item.step, make_row("openai/gsm8k", item.value, item.value["output"], item.value,
                                      gold=item.value["gts"]))
    stats.close_step()
    return stats


def test_progress_bar_counts_steps_on_a_terminal(tmp_path, monkeypatch, capsys):
    import sys

    run = tmp_path / "rollouts"
    write_run(run, steady_step)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bars = []

    class Bar:
        def __init__(self, **kw):
            bars.append(kw)
            self.n = 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k):
            self.n += k
            bars[-1]["n"] = self.n

    monkeypatch.setattr("tqdm.tqdm", Bar)
    assert main(["report", str(run), "-o", str(tmp_path / "r.html")]) == 0
    from cli.terminal import unfiltered

    assert unfiltered(bars[0].pop("file")) is sys.stderr  # through the control-character filter
    assert bars == [dict(total=STEPS, unit=" steps", delay=1.0, desc="report", leave=False, n=STEPS)]


def test_page_never_overwrites_the_input(tmp_path, capsys):
    run = tmp_path / "rollouts"
    write_run(run, steady_step)
    before = (run / "3.jsonl").read_bytes()
    assert main(["report", str(run), "-o", str(run / "3.jsonl"), "-q"]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert (run / "3.jsonl").read_bytes() == before
    assert main(["report", str(run), "-q"]) == 0 and (tmp_path / "rollouts.report.html").is_file()

row_strategy = st.builds(
    lambda source, score, verdict, pred, length, group, gold: Row(
        source, score, float(verdict == "correct"), verdict, pred, length, group, format=1.0, gold=gold),
    st.sampled_from(["a", "b"]), st.floats(-1, 2), st.sampled_from([*VERDICTS, ""]),
    st.sampled_from(["", "1", "2", "x"]), st.one_of(st.none(), st.integers(0, 5000)),
    st.one_of(st.none(), st.tuples(st.none(), st.just("prompt"), st.sampled_from("pq"))),
    st.one_of(st.none(), st.sampled_from(["1", "2"])))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), row_strategy), max_size=120), st.one_of(st.none(), st.integers(1, 5000)))
def test_run_summaries_account_for_every_row(items, max_length):
    run = RunStats(max_length=max_length)
    for step, row in sorted(items, key=lambda item: item[0]):
        run.add(step, row, "read from the file")
    run.close_step()
    assert run.total == len(items)
    for source, steps in run.steps.items():
        assert [s.step for s in steps] == sorted({step for step, row in items if row.data_source == source})
        for s in steps:
            assert s.judged == sum(s.verdicts.values()) <= s.rows
            shares = [s.verdict_share(v) for v in s.verdicts]
            assert not shares or abs(sum(shares) - 1) < 1e-9
            for value in (s.acc, s.format_rate, s.cut_share, s.zero_variance_share, s.answer_concentration,
                          s.gold_concentration):
                assert value is None or 0 <= value <= 1
            assert s.length_median is None or s.length_median <= s.length_p95
    for flag in run.flags():
        assert flag.data_source in run.steps and flag.message


def test_nan_and_infinite_rewards_are_named_in_a_run_folder(tmp_path, capsys):
    """A NaN reward was read as 0 and its GRPO group as zero variance, with nothing said."""
    run = tmp_path / "rollouts"
    run.mkdir()
    for step in (1, 2):
        rows = [{"input": "q", "output": "#### 1", "gts": "1", "uid": f"u{step}_{i}_0", "step": step,
                 "score": 1.0, "acc": 1.0, "format": 1.0, "pred": "1", "verdict": "correct"} for i in range(4)]
        rows += [{"input": "p", "output": "#### 2", "gts": "1", "uid": f"w{step}_{i}_0", "step": step,
                  "score": 0.0, "acc": 0.0, "format": 1.0, "pred": "2", "verdict": "wrong"} for i in range(4)]
        if step == 2:
            rows[0]["score"] = float("nan")
            rows[1]["score"] = float("inf")
        (run / f"{step}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    numbers = report_json(capsys, str(run), "--data-source", "openai/gsm8k")
    flag = next(f for f in numbers["flags"] if f["kind"] == "nonfinite")
    assert "2 rewards are not finite numbers (1 NaN, 1 inf; step 2: 2)" in flag["message"]
    steps = numbers["sources"]["openai/gsm8k"]["steps"]
    assert (steps[0]["groups"], steps[0]["zero_variance"]) == (2, 2)
    assert (steps[1]["groups"], steps[1]["zero_variance"]) == (1, 1)   # the NaN group's variance is unknown
    assert steps[1]["nonfinite"] == {"NaN": 1, "inf": 1}


def test_reward_time_and_its_share_of_the_step(tmp_path, capsys, monkeypatch):
    """Dumps of a run whose reward dict carried `reward_ms` (the default), and verl's own file
    logger's metrics: the report gives the reward's mean and slowest time and its share of each step."""
    pytest.importorskip("verl")
    import rewards.verl as rv
    from verl.utils.tracking import FileLogger

    from tests.helpers.verl_rows import verl_dump_writer

    run, metrics = tmp_path / "val", tmp_path / "metrics.jsonl"
    write, rng, times = verl_dump_writer(), random.Random(0), {}
    for step in (1, 2, 3):
        inputs, outputs, golds = steady_step(step, rng)
        results = [rv.compute_score("openai/gsm8k", o, g) for o, g in zip(outputs, golds)]  # one call a sample
        times[step] = [r["reward_ms"] for r in results]
        write(inputs=inputs, outputs=outputs, gts=golds, scores=[r["score"] for r in results],
              reward_extra_infos_dict={k: [r[k] for r in results] for k in results[0]},
              dump_path=str(run), global_steps=step)
    monkeypatch.setenv("VERL_FILE_LOGGER_PATH", str(metrics))
    logger = FileLogger("project", "experiment")
    logger.log({"val-core/openai/gsm8k/acc/mean@1": 0.5}, step=0)  # validation before training: no timer
    for step, seconds in ((1, 10.0), (2, 8.0), (3, 4.0)):
        logger.log({"timing_s/step": seconds, "timing_s/gen": 2.0} | ({"timing_s/testing": 1.0} if step == 3 else {}),
                   step=step)
    logger.finish()

    numbers = report_json(capsys, str(run), "--metrics", str(metrics))
    by_step = {s["step"]: s for s in numbers["reward_time"]}
    for step, seconds in ((1, 10.0), (2, 8.0), (3, 5.0)):
        got, ms = by_step[step], times[step]
        assert got["rows"] == PROMPTS * N and got["step_s"] == seconds
        assert got["mean_ms"] == pytest.approx(sum(ms) / len(ms)) and got["max_ms"] == max(ms)
        assert got["share"] == pytest.approx(sum(ms) / 1000 / seconds)
    assert main(["report", str(run), "--metrics", str(metrics), "-q", "--rescore", "--data-source", "openai/gsm8k"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("reward time:"))
    assert "ms the slowest" in line and "of a step's time (median of 3 steps" in line
    assert "Reward time" in (tmp_path / "val.report.html").read_text()
    assert main(["report", str(run), "-q"]) == 0
    assert "pass --metrics" in capsys.readouterr().out
    metrics.write_text("not json\n")
    assert main(["report", str(run), "--metrics", str(metrics), "-q"]) != 0


def crowding_step(step: int, rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """A run whose answers crowd onto `1` from step 4 (as a real run's did: `1` given 39 times where
    17 were right)."""
    inputs, outputs, golds = [], [], []
    for p in range(PROMPTS):
        gold = "1" if p < 2 else str(100 + 7 * p)  # the commonest gold: 2 of 16 prompts
        for _ in range(N):
            roll = rng.random()
            answer = gold if roll < 0.3 else "1" if step >= 4 and roll < 0.7 else str(rng.randint(11, 999))
            inputs.append(f"user\nQuestion {p} of step {step}.\nassistant\n")
            outputs.append(f"Adding up.\n#### {answer}")
            golds.append(gold)
    return inputs, outputs, golds


def test_answers_crowding_onto_one_value_are_flagged_from_their_first_step(tmp_path, capsys):
    run = tmp_path / "rollouts"
    write_run(run, crowding_step)
    numbers = report_json(capsys, str(run))
    steps = numbers["sources"]["(no data_source)"]["steps"]
    assert all(s["top_gold_share"] == 2 / PROMPTS for s in steps)
    assert [s["top_answer"][0] for s in steps[3:]] == ["1"] * (STEPS - 3)
    crowding = [f for f in numbers["flags"] if f["kind"] == "answer_crowding"]
    assert len(crowding) == 1 and "from step 4" in crowding[0]["message"] and "'1'" in crowding[0]["message"]
    assert main(["report", str(run), "-q"]) == 0
    out = capsys.readouterr().out
    assert f"commonest answer at step {STEPS}: '1'" in out and "commonest gold: 12% of prompts" in out
    assert "flag answer_crowding" in out


def test_step_axes_show_whole_steps_only():
    """Two or three steps: matplotlib's default ticks would read 1.25, 1.50; steps are whole numbers."""
    from rewards.reporting.charts import run_figure

    for last in (2, 3):
        stats = RunStats()
        for step in range(1, last + 1):
            for i in range(4):
                stats.add(step, Row("openai/gsm8k", float(i % 2), float(i % 2), "correct" if i % 2 else "wrong",
                                    pred=str(i), length=10 * i, group=(step, "uid", "p"), gold="1"))
        stats.close_step()
        for ax in run_figure(stats.steps["openai/gsm8k"], []).axes:
            ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
            assert ticks and all(float(t).is_integer() for t in ticks), (ax.get_title(), ticks)



def test_the_audit_charts_step_axes_show_whole_steps_only():
    """Steps 10, 20, 30 (validation every 10 steps): matplotlib's default ticks read 12.5, 17.5."""
    from rewards.reporting.audit import Audit, Comparison
    from rewards.reporting.charts import audit_figure

    audit = Audit("verl")
    for step in (10, 20, 30):
        for i in range(4):
            audit.add(Comparison("openai/gsm8k", previous=float(i % 2), score=float(i < 2),
                                 verdict="correct" if i < 2 else "wrong", step=step, group=(step, "uid", "p")))
    for ax in audit_figure(audit).axes:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), (ax.get_title(), ticks)
