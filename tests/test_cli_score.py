import json
from pathlib import Path

from cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "rollouts.jsonl"


def read_jsonl(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_scores_the_shipped_example(tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(EXAMPLE), "-o", str(out)]) == 0
    rows = read_jsonl(out)
    assert len(rows) == len(EXAMPLE.read_text().splitlines())
    for row in rows:
        assert {"score", "acc", "format", "pred", "verdict"} <= row.keys()
    table = capsys.readouterr().out
    assert "openai/gsm8k" in table and "correct" in table


def test_broken_lines_are_kept_and_named(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join([
        json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"}),
        '{"data_source": "openai/gsm8k", "response": ',              # truncated JSON
        json.dumps({"data_source": "openai/gsm8", "response": "#### 3", "ground_truth": "3"}),
        json.dumps({"data_source": "openai/gsm8k", "ground_truth": "3"}),   # no response
        json.dumps([1, 2]),
        json.dumps({"data_source": "openai/gsm8k", "response": "#### 4", "ground_truth": "3"}),
    ]) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out)]) == 0
    rows = read_jsonl(out)
    assert len(rows) == 6
    assert [r["verdict"] for r in rows] == ["correct", "error", "error", "error", "error", "wrong"]
    assert rows[1]["error"] == f"{src} line 2: invalid JSON (Expecting value at column 45)" and "input" in rows[1]
    assert "line 3" in rows[2]["error"] and "openai/gsm8k" in rows[2]["error"]
    assert "line 4" in rows[3]["error"] and "response" in rows[3]["error"]
    err = capsys.readouterr().err
    assert "4 of 6 row(s) could not be scored" in err


def test_verl_dump_rows_with_data_source_flag(tmp_path):
    src = tmp_path / "12.jsonl"
    src.write_text(json.dumps({"input": "q", "output": "#### 7", "gts": "7", "score": 0.0, "step": 12}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "--data-source", "openai/gsm8k", "-o", str(out)]) == 0
    (row,) = read_jsonl(out)
    assert row["verdict"] == "correct" and row["score"] == 1.0
    assert row["prev_score"] == 0.0 and row["step"] == 12


def test_reward_model_ground_truth_and_mode(tmp_path):
    src = tmp_path / "rows.jsonl"
    src.write_text(json.dumps({"data_source": "openai/gsm8k", "solution_str": "so it is 7 apples",
                               "reward_model": {"style": "rule", "ground_truth": "7"}}) + "\n")
    out = tmp_path / "out.jsonl"
    main(["score", str(src), "-o", str(out)])
    assert read_jsonl(out)[0]["verdict"] == "no_answer"
    main(["score", str(src), "-o", str(out), "--mode", "flexible"])
    assert read_jsonl(out)[0]["verdict"] == "correct"


def test_json_summary(tmp_path, capsys):
    assert main(["score", str(EXAMPLE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"] == len(EXAMPLE.read_text().splitlines()) and summary["errors"] == 0


def test_unreadable_file_is_the_only_failure(tmp_path, capsys):
    assert main(["score", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_list(capsys):
    assert main(["list"]) == 0
    assert "openai/gsm8k" in capsys.readouterr().out


def test_reasons_reach_the_output_rows_and_an_error_verdict_is_not_scored(tmp_path, capsys):
    """A verdict's reason is in its output row; a response that is a list is an `error` row with its
    message, listed on stderr and counted with the rows that could not be scored; a re-scored file's
    old reason and error move to prev_* instead of standing beside the new verdict."""
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"data_source": "openai/gsm8k", "response": "#### 7", "ground_truth": "7"},
        {"data_source": "openai/gsm8k", "response": ["#### 7"], "ground_truth": "7"},
        {"data_source": "lighteval/MATH", "response": "\\boxed{10^{10^{10^{10}}}}", "ground_truth": "7"},
        {"data_source": "openai/gsm8k", "response": "no answer", "ground_truth": "7",
         "reason": "stale", "error": "old"},
    ]))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--json"]) == 0
    rows = read_jsonl(out)
    assert "reason" not in rows[0] and "error" not in rows[0]
    assert rows[1]["verdict"] == "error" and rows[1]["reason"] == "response is list, not text"
    assert rows[1]["error"] == f"{src} line 2: response is list, not text"
    assert rows[2]["verdict"] == "timeout" and "would outlast any deadline" in rows[2]["reason"]
    assert rows[3]["reason"] == "no `####` answer line" and "error" not in rows[3]
    assert (rows[3]["prev_reason"], rows[3]["prev_error"]) == ("stale", "old")
    captured = capsys.readouterr()
    assert json.loads(captured.out)["errors"] == 1
    assert f"1 of 4 row(s) could not be scored:\n  {src} line 2: response is list, not text" in captured.err
