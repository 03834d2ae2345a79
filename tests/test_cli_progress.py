"""Progress on long work: validate's hook sees every gold and prompt, probe's bar every response,
and nothing is drawn when stderr is not a terminal."""

from schemas.validate import validate_file
from schemas.verl_row import make_row, write_parquet


def test_validate_reports_progress_for_every_gold(tmp_path):
    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q{i}"}],
                     ground_truth=str(i), extra_info={"split": "train", "index": i}) for i in range(5000)]
    path = tmp_path / "train.parquet"
    write_parquet(rows, path)
    seen = {}

    def progress(total, desc):
        seen[desc] = [total, 0]

        def update(n):
            seen[desc][1] += n
        return update

    report = validate_file(path, progress=progress)
    assert report.ok and seen == {"gold self-check": [5000, 5000]}


def test_probe_counts_responses_only_on_a_terminal(monkeypatch):
    from cli import probe

    class Bar:
        n = 0

        def __init__(self, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k):
            Bar.n += k

    import tqdm

    monkeypatch.setattr(tqdm, "tqdm", Bar)
    with probe._progress(quiet=False) as score_fn:  # stderr is captured here: not a terminal
        score_fn(data_source="openai/gsm8k", solution_str="#### 3", ground_truth="3")
    assert Bar.n == 0
    monkeypatch.setattr(probe.sys.stderr, "isatty", lambda: True, raising=False)
    with probe._progress(quiet=False) as score_fn:
        result = score_fn(data_source="openai/gsm8k", solution_str="#### 3", ground_truth="3")
    assert Bar.n == 1 and result["score"] == 1.0


def test_rows_are_counted_where_the_file_says_so_cheaply(tmp_path):
    import gzip

    from schemas.reader import count_rows

    (tmp_path / "a.jsonl").write_text('{"x": 1}\n{"x": 2}\n{"x": 3}')   # no final line break
    (tmp_path / "b.jsonl").write_text('{"x": 1}\n\n{"x": 2}\n')           # a blank line is a row (an error row)
    write_parquet([make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": "q"}],
                            ground_truth="1", extra_info={"split": "train", "index": i}) for i in range(7)],
                  tmp_path / "c.parquet")
    (tmp_path / "d.jsonl.gz").write_bytes(gzip.compress(b'{"x": 1}\n'))
    assert [count_rows(tmp_path / n) for n in ("a.jsonl", "b.jsonl", "c.parquet", "d.jsonl.gz")] == [3, 3, 7, None]
    assert count_rows(tmp_path) is None and count_rows(tmp_path / "missing.jsonl") is None


def test_score_and_report_bars_know_the_total_so_they_show_a_percentage(tmp_path, monkeypatch):
    """With a total, tqdm draws the percentage and the time left."""
    import json
    import sys

    import tqdm

    from cli.main import main

    totals = []

    class Bar:
        def __init__(self, total=None, **kwargs):
            self.total = total
            totals.append(self)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k):
            pass

        def refresh(self):
            pass

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"})
                            + "\n" for _ in range(300)))
    monkeypatch.setattr(tqdm, "tqdm", Bar)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["score", str(rows), "-o", str(tmp_path / "scored.jsonl")]) == 0
    assert main(["report", str(rows), "-o", str(tmp_path / "page.html")]) == 0
    assert [bar.total for bar in totals] == [300, 300]
