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
