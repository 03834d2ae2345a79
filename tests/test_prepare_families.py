"""`rewards prepare` of local files in the exact hub shapes of the math sets verl users train on
(DAPO-Math-17k, DeepScaleR, OpenR1-Math-220k, NuminaMath-CoT): each gets its own data set's
data_source, a registered scorer, and golds that validate; a file whose columns fit more than one
data set is never labelled with another set's name."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli.main import main
from schemas.validate import validate_file

PROBLEMS = [("What is $3+4$?", "Adding, $3+4=\\boxed{7}$.", "7"),
            ("Simplify $\\frac{6}{8}$.", "Divide by 2: $\\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}"),
            ("Solve $2x=10$.", "So $x=\\boxed{5}$.", "5")]


def dapo(path):
    """DAPO-Math-17k's hub file (data/dapo-math-17k.parquet): already verl rows, data_source math_dapo."""
    rows = [{"data_source": "math_dapo",
             "prompt": [{"content": f"Solve step by step; end with a line 'Answer: $Answer'.\n\n{q}", "role": "user"}],
             "ability": "MATH", "reward_model": {"ground_truth": a, "style": "rule-lighteval/MATH_v2"},
             "extra_info": {"index": f"id-{i}"}, "__index_level_0__": i}
            for i, (q, _, a) in enumerate(PROBLEMS)]
    pq.write_table(pa.Table.from_pylist(rows), path)


def deepscaler(path):
    """DeepScaleR-Preview-Dataset's deepscaler.json: one JSON array of {problem, answer, solution}."""
    path.write_text(json.dumps([{"problem": q, "answer": a, "solution": s} for q, s, a in PROBLEMS]))


def openr1(path):
    """OpenR1-Math-220k's default config (data/train-*.parquet), all fourteen columns."""
    rows = [{"problem": q, "solution": s, "answer": a, "problem_type": "Algebra",
             "question_type": "math-word-problem", "source": "olympiads", "uuid": f"u{i}",
             "is_reasoning_complete": [True], "generations": [s], "correctness_math_verify": [True],
             "correctness_llama": None, "finish_reasons": None, "correctness_count": 1,
             "messages": [{"content": q, "role": "user"}, {"content": s, "role": "assistant"}]}
            for i, (q, s, a) in enumerate(PROBLEMS)]
    rows.append({**rows[0], "uuid": "proof", "question_type": "proof", "answer": "proof"})  # skipped
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def numinamath(path):
    """NuminaMath-CoT: source, problem, solution, messages."""
    path.write_text("".join(json.dumps({"source": "synthetic_math", "problem": q, "solution": s,
                                        "messages": [{"content": q, "role": "user"}]}) + "\n"
                            for q, s, _ in PROBLEMS))


CASES = {  # name: (writer, file, expected data_source, expected family)
    "DAPO-Math-17k": (dapo, "dapo-math-17k.parquet", "math_dapo", "dapo_math"),
    "DAPO-Math-17k (any name)": (dapo, "rows.parquet", "math_dapo", "dapo_math"),
    "DeepScaleR": (deepscaler, "deepscaler.json", "agentica-org/DeepScaleR-Preview-Dataset", "deepscaler"),
    "OpenR1-Math-220k": (openr1, "dl/data/train-00000-of-00001.parquet", "open-r1/OpenR1-Math-220k", "openr1_math"),
    "NuminaMath-CoT": (numinamath, "numina.jsonl", "AI-MO/NuminaMath-CoT", "numinamath"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_local_hub_shaped_file_gets_its_data_sets_data_source_and_golds_validate(tmp_path, name, capsys):
    write, file, data_source, family = CASES[name]
    source = tmp_path / file
    write(source)
    out = tmp_path / "out"
    assert main(["prepare", str(source), "-o", str(out), "--json", "-q"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert (manifest["family"], manifest["data_source"]) == (family, data_source)
    rows = pq.read_table(out / "train.parquet").to_pylist()
    assert len(rows) == len(PROBLEMS) and {r["data_source"] for r in rows} == {data_source}
    assert [r["reward_model"]["ground_truth"] for r in rows] == [a for _, _, a in PROBLEMS]
    report = validate_file(out / "train.parquet")
    assert report.ok, [str(p) for p in report.errors]
    assert report.stats["gold"] == {"correct": len(PROBLEMS)}
    if family == "dapo_math":  # the set's own prompt is kept, not wrapped in a template
        assert rows[0]["prompt"][0]["content"].startswith("Solve step by step")
    if family == "openr1_math":
        assert manifest["skipped"] == 1 and "proof" in manifest["skipped_rows"][0]["reason"]


def test_columns_of_two_data_sets_get_the_files_own_name_never_another_sets(tmp_path, capsys):
    source = tmp_path / "my_problems.json"
    deepscaler(source)  # DeepScaleR's columns are X-R1-750's too
    assert main(["prepare", str(source), "-o", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "'my_problems'" in err and "--data-source" in err and "X-R1" not in err
    assert main(["prepare", str(source), "-o", str(tmp_path / "b"), "--data-source", "lighteval/MATH", "-q"]) == 0
    rows = pq.read_table(tmp_path / "b/train.parquet").to_pylist()
    assert {r["data_source"] for r in rows} == {"lighteval/MATH"}
    assert main(["prepare", str(source), "-o", str(tmp_path / "c"), "--allow-unregistered", "-q"]) == 0
    assert {r["data_source"] for r in pq.read_table(tmp_path / "c/train.parquet").to_pylist()} == {"my_problems"}


def test_rerun_into_the_same_folder_replaces_what_the_last_run_wrote(tmp_path, capsys):
    from tests.conftest import FIXTURES

    out = tmp_path / "out"
    assert main(["prepare", str(FIXTURES / "hub/openai/gsm8k"), "--out", str(out), "-q"]) == 0
    assert (out / "test.parquet").exists()
    source = tmp_path / "deepscaler.json"
    deepscaler(source)
    assert main(["prepare", str(source), "--out", str(out), "-q"]) == 0  # train only
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "train.parquet"]
    stranger = tmp_path / "other"
    stranger.mkdir()
    (stranger / "test.parquet").write_bytes(b"not ours")
    assert main(["prepare", str(source), "-o", str(stranger), "-q"]) == 2
    assert "no earlier `rewards prepare` manifest" in capsys.readouterr().err
    assert (stranger / "test.parquet").read_bytes() == b"not ours"


@pytest.mark.parametrize("content", [b"", b"\n\n"])
def test_empty_file_and_output_onto_a_file_are_one_line_errors(tmp_path, capsys, content):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(content)
    assert main(["prepare", str(empty), "-o", str(tmp_path / "o")]) == 1  # an empty input: 1 in every command
    assert capsys.readouterr().err.strip() == f"rewards prepare: {empty}: the file is empty"
    source = tmp_path / "deepscaler.json"
    deepscaler(source)
    assert main(["prepare", str(source), "-o", str(empty)]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err
