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


def test_a_scorers_aliases_are_summarised_under_its_name(tmp_path, capsys):
    """Rows labelled `yesno` and `acme/yesno` are one data set scored by one scorer: one row of the
    summary, under the name it registered; a name its prefix matches (`acme/yn-2024`) keeps its own,
    as does a name no scorer has. The output rows keep the data_source they came with."""
    from rewards import Result, Verdict, register_scorer
    from rewards.registry import _entries, _lock

    def yes_no(response, ground_truth, extra_info, settings):
        return Result(Verdict.CORRECT if response.strip() == ground_truth else Verdict.WRONG, response.strip())

    names = ("acme/yesno", "yesno", "acme/truefalse", "acme/yn*")
    register_scorer(*names, scorer=yes_no)
    try:
        src = tmp_path / "in.jsonl"
        src.write_text("".join(json.dumps({"data_source": source, "response": answer, "ground_truth": "yes"}) + "\n"
                               for source, answer in [("yesno", "yes"), ("acme/yesno", "no"), ("yesno", "yes"),
                                                      ("acme/yn-2024", "yes"), ("acme/yesn", "yes"),
                                                      ("acme/truefalse", "yes")]))
        out = tmp_path / "out.jsonl"
        assert main(["score", str(src), "--json", "-o", str(out)]) == 0
        table = {(r["data_source"], r["verdict"]): r["count"] for r in json.loads(capsys.readouterr().out)["table"]}
        assert table == {("acme/yesno", "correct"): 2, ("acme/yesno", "wrong"): 1, ("acme/yesno", "(all)"): 3,
                         ("acme/yn-2024", "correct"): 1, ("acme/yn-2024", "(all)"): 1,
                         ("acme/yesn", "error"): 1, ("acme/yesn", "(all)"): 1,
                         # another data set the same scorer answers to keeps its row
                         ("acme/truefalse", "correct"): 1, ("acme/truefalse", "(all)"): 1, ("(all)", "(all)"): 6}
        assert [r["data_source"] for r in read_jsonl(out)] == ["yesno", "acme/yesno", "yesno", "acme/yn-2024",
                                                              "acme/yesn", "acme/truefalse"]
    finally:
        with _lock:
            for name in names:
                _entries.pop(name, None)


def test_timeout_rows_are_rechecked_once_and_every_count_agrees(tmp_path, capsys):
    """Two slow but sound checks (1 s of CPU against a 0.4 s budget) are paid on the re-check with a
    longer budget; an answer refused from its text stays `timeout`; the stderr line and the table
    give the same count."""
    from rewards import register_scorer
    from tests.helpers.engine_funcs import bounded_scorer

    register_scorer("test/recheck", scorer=bounded_scorer, override=True)
    src = tmp_path / "in.jsonl"
    rows = [{"data_source": "test/recheck", "response": f"compute:1.0:{k}", "ground_truth": str(k)} for k in (1, 2)]
    rows.append({"data_source": "lighteval/MATH", "response": r"\boxed{9999999!}", "ground_truth": "1"})
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "--timeout", "0.4", "-o", str(out), "--json", "-q"]) == 0
    assert [r["verdict"] for r in read_jsonl(out)] == ["correct", "correct", "timeout"]
    captured = capsys.readouterr()
    table = json.loads(captured.out)["table"]
    in_table = sum(r["count"] for r in table if r["verdict"] == "timeout" and r["data_source"] != "(all)")
    assert in_table == 1
    assert "1 of 3 row(s) ended as `timeout`" in captured.err
    assert "sample(s) ended at" not in captured.err  # no periodic line counting first looks
