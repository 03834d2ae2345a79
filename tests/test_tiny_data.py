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


# -- geometry3k-shaped diagrams (`--images`) ----------------------------------------------------

def _labels(drawing) -> list[str]:
    return [text for what, arg in drawing if what == "label" for text in [arg[1]]]


def _answer_from_the_drawing(key, drawing) -> str:
    """The answer worked out again from the labels drawn (not from the generator's own arithmetic)."""
    import math

    labels = _labels(drawing)
    kind = key[0]
    if kind == "right":
        a, b, c = labels                                   # legs, then hypotenuse
        if c == "x":
            return str(math.isqrt(int(a) ** 2 + int(b) ** 2))
        leg = int(b if a == "x" else a)
        return str(math.isqrt(int(c) ** 2 - leg ** 2))
    if kind == "perimeter":
        return str(sum(map(int, labels)))
    if kind == "angles":
        return str(180 - sum(int(t.rstrip("°")) for t in labels if t != "x°"))
    if kind == "circle":
        r = int(labels[0])
        return f"{r * r}\\pi" if key[2] == "area" else f"{2 * r}\\pi"
    w, h = map(int, labels)
    return str(w * h if key[3] == "area" else 2 * (w + h))


def test_every_diagram_answer_follows_from_what_is_drawn():
    import random

    from datasources.diagrams import KINDS

    rng = random.Random(5)
    for kind in KINDS:
        for _ in range(200):
            key, problem, answer, drawing = kind(rng)
            assert _answer_from_the_drawing(key, drawing) == answer, (key, _labels(drawing))
            assert not any(ch.isdigit() for ch in problem)           # the numbers are in the picture only
            if key[0] == "right":
                a, b, c = key[1:4]
                assert a * a + b * b == c * c and _labels(drawing).count("x") == 1


def test_diagram_rows_are_reproducible_distinct_pngs():
    from PIL import Image

    from datasources.diagrams import SIZE, DiagramError, make_problems

    rows = make_problems(120, seed=4)
    assert make_problems(120, seed=4) == rows and make_problems(120, seed=5) != rows
    keys = {(r["problem"], r["answer"], r["images"][0]["bytes"]) for r in rows}
    assert len(keys) == 120
    for row in rows:
        assert set(row) == {"images", "problem", "answer"} and row["problem"].startswith("<image>")
        (image,) = row["images"]
        assert Image.open(__import__("io").BytesIO(image["bytes"])).size == (SIZE, SIZE)
    with pytest.raises(DiagramError, match="at least 1"):
        make_problems(0)


def test_prepare_reads_diagrams_as_geometry3k_and_validate_passes(tmp_path, capsys):
    raw, out = tmp_path / "shapes.parquet", tmp_path / "data"
    assert main(["tiny-data", str(raw), "--images", "-n", "60", "--seed", "1"]) == 0
    assert capsys.readouterr().out == f"{raw}: 60 diagram problems (seed 1, geometry3k's columns)\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]        # no partial file left
    assert main(["prepare", str(raw), "-o", str(out), "--test-size", "12", "--seed", "0", "--json", "-q"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert (manifest["family"], manifest["data_sources"], manifest["template"]) == (
        "geometry3k", ["hiyouga/geometry3k"], "think_box")
    assert manifest["skipped"] == 0 and manifest["files"]["train.parquet"]["rows"] == 48
    for row in pq.read_table(out / "train.parquet").to_pylist() + pq.read_table(out / "test.parquet").to_pylist():
        assert row["data_source"] == "hiyouga/geometry3k"
        content = row["prompt"][-1]["content"]
        assert content.count("<image>") == len(row["images"]) == 1 and content.startswith("<image>")
        assert row["images"][0]["bytes"].startswith(b"\x89PNG")
        gold = row["reward_model"]["ground_truth"]
        response = f"<think>Read the figure.</think> The answer is $\\boxed{{{gold}}}$."
        assert compute_score("hiyouga/geometry3k", response, gold)["score"] == 1.0
    assert main(["validate", str(out / "train.parquet"), "--against", str(out / "test.parquet")]) == 0
    assert "OK" in capsys.readouterr().out


def test_image_flags_are_one_line(tmp_path, capsys):
    assert main(["tiny-data", str(tmp_path / "a.jsonl"), "--images"]) == 2
    assert "name the file .parquet" in capsys.readouterr().err
    assert main(["tiny-data", str(tmp_path / "a.parquet"), "--images", "--operations", "2"]) == 2
    assert "--operations sets the arithmetic problems" in capsys.readouterr().err
    assert main(["tiny-data", str(tmp_path / "no" / "a.parquet"), "--images"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
