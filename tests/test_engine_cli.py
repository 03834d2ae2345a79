"""`rewards score` on the engine: --workers, progress bar rules, streaming, and --ray."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from cli.score import _counted, score_lines
from rewards import engine
from rewards.engine.ray_map import ordered_map

ROOT = Path(__file__).resolve().parent.parent


def _rows(n):
    for i in range(n):
        if i % 97 == 5:
            yield "{not json"
        elif i % 250 == 7:  # settled by sympy in an engine worker (inside a Ray task with --ray)
            yield json.dumps({"data_source": "lighteval/MATH", "response": "So $\\boxed{\\sqrt{8}}$.",
                              "ground_truth": "2\\sqrt{2}"})
        else:
            yield json.dumps({"data_source": "openai/gsm8k", "response": f"Work.\n#### {i % 11}",
                              "ground_truth": str(i % 5)})


@pytest.fixture
def rows_file(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(_rows(5000)) + "\n")
    return path


def test_workers_flag_sizes_the_pool_and_every_line_comes_back_in_order(rows_file, tmp_path):
    out = tmp_path / "out.jsonl"
    try:
        assert main(["score", str(rows_file), "-o", str(out), "--workers", "1", "--quiet"]) == 0
        assert engine.get_config().workers == 1
    finally:
        engine.configure(workers=engine.config.default_workers())
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5000
    for i, row in enumerate(rows):
        if i % 97 == 5:
            assert row["verdict"] == "error" and row["error"].startswith(f"{rows_file} line {i + 1}:")
        elif i % 250 == 7:
            assert row["verdict"] == "correct" and row["data_source"] == "lighteval/MATH"
        else:
            assert row["response"].endswith(f"#### {i % 11}")
            assert row["verdict"] == ("correct" if i % 11 == i % 5 else "wrong")


def test_workers_must_be_positive(rows_file, capsys):
    assert main(["score", str(rows_file), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_no_progress_bar_when_stderr_is_not_a_terminal(rows_file):
    done = subprocess.run([sys.executable, "-m", "cli.main", "score", str(rows_file), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "scoring" not in done.stderr and "%|" not in done.stderr
    assert json.loads(done.stdout)["rows"] == 5000


def test_progress_counts_every_row():
    class Bar:
        n = 0

        def update(self, k):
            self.n += k
    lines = [f"{i} é\n" for i in range(1000)]
    bar = Bar()
    assert list(_counted(lines, bar, every=7)) == lines
    assert bar.n == 1000


def test_many_errors_are_counted_but_only_a_few_listed(tmp_path, capsys):
    src = tmp_path / "bad.jsonl"
    src.write_text("{\n" * 500)
    assert main(["score", str(src), "--json", "-q"]) == 1  # not one row scored
    captured = capsys.readouterr()
    assert json.loads(captured.out)["errors"] == 500
    assert "500 of 500 row(s) could not be scored" in captured.err and "... and 490 more" in captured.err
    assert "no row could be scored" in captured.err


def test_score_lines_is_lazy():
    """Streaming: the first rows come out before later input is read."""
    consumed = []

    def lines():
        for k, line in enumerate(_rows(10_000)):
            consumed.append(k)
            yield line
    first = next(score_lines(lines(), None, {}))
    assert first[0] == 1 and len(consumed) <= 2048 + 1


def test_ordered_map_keeps_order_and_bounds_the_window():
    outstanding, peak = set(), 0

    def submit(chunk):
        nonlocal peak
        outstanding.add(chunk)
        peak = max(peak, len(outstanding))
        return chunk

    def fetch(ref):
        outstanding.discard(ref)
        return ref * 10

    assert list(ordered_map(iter(range(50)), submit=submit, fetch=fetch, max_in_flight=4)) == \
        [k * 10 for k in range(50)]
    assert peak == 4
    with pytest.raises(ValueError):
        list(ordered_map([1], submit=submit, fetch=fetch, max_in_flight=0))


@pytest.mark.slow
def test_ray_scoring_matches_local_scoring(rows_file, tmp_path):
    """A real local Ray (2 CPUs) scores the same file to the same bytes as the local path."""
    pytest.importorskip("ray")
    local, spread = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    base = [sys.executable, "-m", "cli.main", "score", str(rows_file), "--json", "-q"]
    for out, extra in ((local, []), (spread, ["--ray"])):
        done = subprocess.run(base + ["-o", str(out)] + extra, cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert spread.read_bytes() == local.read_bytes()
    assert sum(json.loads(line)["data_source"] == "lighteval/MATH" and json.loads(line)["verdict"] == "correct"
               for line in spread.read_text().splitlines() if line.startswith("{\"data_source")) == 20
