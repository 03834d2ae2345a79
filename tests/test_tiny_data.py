"""Synthetic GSM8K-shaped problems: right answers, reproducible, distinct, and read by `rewards
prepare` and `rewards validate` exactly as GSM8K is."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

from cli.main import main
from datasources.arithmetic import Difficulty, DifficultyError, make_problems
from rewards import compute_score

LINE = re.compile(r"(\d+)([-+*/])(\d+)=(\d+)")


def _check_solution(row, difficulty):
    """Every line is true arithmetic, each starts from the last result, `####` gives the last."""
    *lines, final = row["answer"].split("\n")
    assert difficulty.min_operations <= len(lines) <= difficulty.max_operations
    value = int(re.search(r"has (\d+) ", row["question"]).group(1))
    for line in lines:
        a, op, b, c = LINE.fullmatch(line).groups()
        a, b, c = int(a), int(b), int(c)
        assert a == value and c == {"+": a + b, "-": a - b, "*": a * b, "/": a // b}[op]
        assert op != "/" or (a % b == 0 and a > b)  # never n/n: `1` must not be a free answer
        assert 1 <= c <= difficulty.ceiling
        value = c
    assert final == f"#### {value}"
    assert compute_score("openai/gsm8k", row["answer"], str(value))["verdict"] == "correct"


@pytest.mark.parametrize("difficulty", [Difficulty(), Difficulty(max_number=9, min_operations=1, max_operations=1),
                                        Difficulty(max_number=100, min_operations=3, max_operations=3)])
def test_solutions_are_right_short_and_distinct(difficulty):
    rows = make_problems(400, seed=7, difficulty=difficulty)
    for row in rows:
        _check_solution(row, difficulty)
        assert len(row["answer"]) <= 60 and len(row["question"]) <= 240
    assert len({r["question"] for r in rows}) == 400
    assert make_problems(400, seed=7, difficulty=difficulty) == rows
    assert make_problems(400, seed=8, difficulty=difficulty) != rows


def test_impossible_difficulties_say_which_setting():
    with pytest.raises(DifficultyError, match="operations must run from 1 to at most 3"):
        make_problems(5, difficulty=Difficulty(min_operations=2, max_operations=4))
    with pytest.raises(DifficultyError, match="--max-number must be at least 2"):
        make_problems(5, difficulty=Difficulty(max_number=1))
    with pytest.raises(DifficultyError, match="distinct problems found"):
        make_problems(5000, difficulty=Difficulty(max_number=2, max_operations=1))


def test_prepare_reads_them_as_gsm8k_and_validate_passes(tmp_path, capsys):
    raw, out = tmp_path / "arith.jsonl", tmp_path / "data"
    assert main(["tiny-data", str(raw), "-n", "300", "--seed", "1", "--max-number", "30", "--operations", "1-3"]) == 0
    assert capsys.readouterr().out == f"{raw}: 300 problems (seed 1, numbers 1-30, 1-3 operations)\n"
    rows = [json.loads(line) for line in raw.read_text().splitlines()]
    assert rows == make_problems(300, seed=1, difficulty=Difficulty(30, 1, 3))
    assert main(["prepare", str(raw), "-o", str(out), "--test-size", "50", "--seed", "0", "--json", "-q"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert (manifest["family"], manifest["data_sources"], manifest["template"]) == ("gsm8k", ["openai/gsm8k"], "gsm8k")
    assert manifest["skipped"] == 0 and manifest["files"]["train.parquet"]["rows"] == 250
    train = pq.read_table(out / "train.parquet").to_pylist()
    test = pq.read_table(out / "test.parquet").to_pylist()
    assert not {r["extra_info"]["question"] for r in train} & {r["extra_info"]["question"] for r in test}
    by_question = {r["question"]: r["answer"] for r in rows}
    for row in train + test:
        assert row["data_source"] == "openai/gsm8k"
        assert by_question[row["extra_info"]["question"]] == row["extra_info"]["answer"]
        gold = row["reward_model"]["ground_truth"]
        assert row["extra_info"]["answer"].endswith(f"#### {gold}")
        assert row["prompt"][-1]["content"].startswith(row["extra_info"]["question"])
    assert main(["validate", str(out / "train.parquet"), "--against", str(out / "test.parquet")]) == 0
    assert "OK" in capsys.readouterr().out


def test_bad_flags_are_one_line(tmp_path, capsys):
    assert main(["tiny-data", str(tmp_path / "a.jsonl"), "--operations", "1-5"]) == 2
    assert "operations must run from 1 to at most 3" in capsys.readouterr().err
    assert main(["tiny-data", str(tmp_path / "a.jsonl"), "--operations", "two"]) == 2
    assert "give a count (2) or a range (1-3)" in capsys.readouterr().err
    assert main(["tiny-data", str(tmp_path / "a.csv")]) == 2
    assert "name the file .jsonl" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
