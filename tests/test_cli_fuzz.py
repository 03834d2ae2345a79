"""What a new user's mistakes do to the commands: an output folder that holds the input, an output
that cannot be written, an interrupted run, a plan asked for as JSON. Each is one line on stderr
with a documented status, never a traceback, and the input is never changed."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cli.main import main
from tests.helpers.cli_run import one_line_error, rewards



def gsm8k_source(path: Path, n: int = 6) -> Path:
    path.write_text("".join(json.dumps({"question": f"q{i}?", "answer": f"so #### {i}"}) + "\n"
                            for i in range(n)), encoding="utf-8")
    return path


def digests(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("prepared")
    out = root / "data"
    done = rewards("prepare", gsm8k_source(root / "gsm.jsonl"), "-o", out, "--family", "gsm8k",
                   "--test-size", "2", "-q")
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("source", ["data/train.parquet", "data", "data/../data/test.parquet"])
def test_prepare_refuses_an_output_folder_that_holds_its_input(prepared, tmp_path, source):
    """`prepare data/train.parquet -o data` used to rewrite its own input and delete test.parquet."""
    work = tmp_path / "w"
    work.mkdir()
    (work / "data").mkdir()
    for name, data in digests(prepared).items():
        (work / "data" / name).write_bytes(data)
    before = digests(work / "data")
    line = one_line_error(rewards("prepare", source, "-o", "data", "-q", cwd=work))
    assert "would overwrite the input" in line
    assert digests(work / "data") == before


def test_prepare_into_an_unwritable_output_is_one_line(tmp_path):
    source = gsm8k_source(tmp_path / "gsm.jsonl")
    (tmp_path / "a_file").write_text("x")
    for out in (tmp_path / "a_file" / "sub", "/proc/no/such/folder"):
        line = one_line_error(rewards("prepare", source, "-o", out, "--family", "gsm8k", "-q"))
        assert line.startswith("rewards prepare: cannot write ")


def test_an_interrupted_prepare_keeps_the_previous_run_and_leaves_no_half_file(prepared, tmp_path, monkeypatch,
                                                                                 capsys):
    import datasources.pipeline as pipeline

    out = tmp_path / "data"
    out.mkdir()
    for name, data in digests(prepared).items():
        (out / name).write_bytes(data)
    before = digests(out)
    calls = []

    def interrupted(rows, path):
        calls.append(path)
        if len(calls) == 2:  # Ctrl-C while the second file is being written
            Path(path).write_bytes(b"PAR1 half")
            raise KeyboardInterrupt
        return real(rows, path)

    real = pipeline.write_parquet
    monkeypatch.setattr(pipeline, "write_parquet", interrupted)
    assert main(["prepare", str(gsm8k_source(tmp_path / "gsm.jsonl", 8)), "-o", str(out), "--family", "gsm8k",
                 "--test-size", "3", "-q"]) == 130
    assert digests(out) == before, "the previous run's files are intact and no temporary file is left"
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "rewards prepare: interrupted (Ctrl-C); an output file it was writing was left as it was (a half-written "
        "one is removed)")


def test_outputs_are_ordinary_files_not_private_temporaries(tmp_path):
    """The output is written to a temporary file and renamed: it must not keep the temporary's 0600."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"}) + "\n")
    old = os.umask(0o022)
    try:
        assert main(["score", str(rows), "-o", str(tmp_path / "scored.jsonl"), "-q"]) == 0
        assert main(["report", str(rows), "-o", str(tmp_path / "report.html"), "-q"]) == 0
    finally:
        os.umask(old)
    for name in ("scored.jsonl", "report.html"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name


def test_train_json_is_a_plan_and_never_launches(tmp_path, monkeypatch, capsys):
    import cli.train

    def launch(*_):
        raise AssertionError("--json launched a run")

    monkeypatch.setattr(cli.train, "_launch", launch)
    script = tmp_path / "run.sh"
    for extra in ([], ["--emit", str(script)]):
        assert main(["train", "qwen2.5-0.5b-ppo-gsm8k", "--skip-data-check", "--json", *extra]) == 0
        plan = json.loads(capsys.readouterr().out)  # stdout is one JSON document, with --emit too
        assert plan["ok"] and plan["preset"] == "qwen2.5-0.5b-ppo-gsm8k"
    assert script.is_file()


def test_train_emit_onto_a_folder_is_one_line(tmp_path):
    line = one_line_error(rewards("train", "qwen2.5-0.5b-ppo-gsm8k", "--skip-data-check", "--emit", tmp_path))
    assert line.startswith("rewards train: --emit ") and line.endswith("is a folder; name a file")


def test_validate_against_a_missing_file_and_a_bad_length_are_usage_errors(prepared):
    train = prepared / "train.parquet"
    line = one_line_error(rewards("validate", train, "--against", prepared / "nope.parquet", "-q"))
    assert line == f"rewards validate: {prepared / 'nope.parquet'}: no such file"
    line = one_line_error(rewards("validate", train, "--max-prompt-length", "0", "-q"))
    assert "--max-prompt-length must be a positive number" in line


def test_probe_reads_the_golds_of_rollout_files_and_dump_folders(tmp_path, capsys):
    """README: probe reads what score reads; a rollout's `ground_truth` and a dump's `gts` are golds."""
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 4", "ground_truth": "4"}) + "\n")
    dumps = tmp_path / "rollout"
    dumps.mkdir()
    for step in (1, 2):
        (dumps / f"{step}.jsonl").write_text(json.dumps({"input": "q", "output": "#### 3", "gts": str(step),
                                                         "score": 1.0, "step": step}) + "\n")
    args = ["--attacks", "control,empty", "--json", "-q"]
    assert main(["probe", str(rollouts), *args]) == 0
    assert [b["golds"] for b in json.loads(capsys.readouterr().out)["scoreboards"]] == [1]
    assert main(["probe", str(dumps), "--data-source", "openai/gsm8k", *args]) == 0
    assert [b["golds"] for b in json.loads(capsys.readouterr().out)["scoreboards"]] == [2]
    assert main(["probe", str(dumps), *args]) == 2
    assert "verl dumps have none: pass --data-source" in capsys.readouterr().err


def test_report_json_is_one_document_and_dash_o_is_the_page_alone(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"}) + "\n")
    done = rewards("report", rows, "--json", "-q")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["openai/gsm8k"]["rows"] == 1
    done = rewards("report", rows, "-o", "-", "-q")
    assert done.returncode == 0 and done.stdout.startswith("<!DOCTYPE html>") and done.stdout.rstrip().endswith("</html>")
    assert "openai/gsm8k: 1 rows" in done.stderr


@pytest.mark.parametrize("bound", ["nan", "inf"])
def test_probe_refuses_a_bound_that_can_never_fail(bound):
    line = one_line_error(rewards("probe", "--data-source", "openai/gsm8k", "--max-reward", bound, "-q"))
    assert "--max-reward must be a finite number" in line


def test_prepare_names_the_bad_line_of_a_jsonl_source_and_draws_no_bar_off_a_terminal(tmp_path):
    source = gsm8k_source(tmp_path / "gsm.jsonl")
    with source.open("a", encoding="utf-8") as f:
        f.write('{"question": "q", "answer": "#### 1"\n')  # line 7, truncated
    done = rewards("prepare", source, "-o", tmp_path / "out", "--family", "gsm8k")
    assert one_line_error(done) == f"rewards prepare: {source} line 7: invalid JSON (Expecting ',' delimiter at column 37)"
    assert done.stderr.count("\n") == 1, "nothing but the one line: no library log, no progress bar"
    done = rewards("prepare", gsm8k_source(tmp_path / "ok.jsonl"), "-o", tmp_path / "out", "--family", "gsm8k")
    assert done.returncode == 0 and done.stderr == ""


def test_train_a_word_for_a_number_is_a_plan_error_naming_the_override(capsys):
    assert main(["train", "qwen2.5-0.5b-ppo-gsm8k", "--skip-data-check", "--dry-run",
                 "data.train_batch_size=abc"]) == 2
    out = capsys.readouterr().out
    assert "not a number in data.train_batch_size=abc" in out and "Traceback" not in out


def test_train_a_broken_preset_file_is_one_line(tmp_path):
    preset = tmp_path / "mine.yaml"
    preset.write_text("extends: qwen3-0.6b-grpo\nfoo: [1, 2\n")
    line = one_line_error(rewards("train", preset, "--dry-run"))
    assert line.startswith(f"rewards train: preset {preset} is not valid YAML: ") and line.endswith("(line 3, column 1)")


def test_merge_onto_a_file_or_an_unwritable_folder_is_one_line_and_leaves_nothing(tmp_path, capsys):
    from tests.test_merge import run_dir, tiny

    run = run_dir(tmp_path, tiny("qwen3", tied=False))
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    assert main(["merge", str(run), "--target-dir", str(a_file)]) == 2
    assert "is a file: give a folder" in capsys.readouterr().err and a_file.read_text() == "keep me"
    assert main(["merge", str(run), "--target-dir", str(a_file / "hf")]) == 2
    assert capsys.readouterr().err.startswith(f"rewards merge: cannot write {a_file / 'hf'}: ")
    assert main(["merge", str(tmp_path / "nope"), "--check-only"]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["merge", str(run), "--target-dir", str(tmp_path / "hf")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hf", "notes.txt", "run"], "no staging folder left"


def test_train_list_json_is_json(capsys):
    assert main(["train", "--list", "--json"]) == 0
    presets = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert presets["qwen2.5-0.5b-ppo-gsm8k"]["strategy"] == "fsdp"


@pytest.mark.parametrize("command", ["score", "report", "probe", "validate", "prepare"])
def test_an_empty_input_name_is_named_as_such(command, tmp_path):
    extra = ["-o", tmp_path / "out"] if command == "prepare" else []
    line = one_line_error(rewards(command, "", *extra, "-q"))
    assert "empty" in line and "folder without" not in line


@pytest.mark.parametrize("command", ["score", "report", "probe"])
def test_a_length_tokenizer_that_cannot_load_is_one_line_before_any_row(command, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"}) + "\n")
    (tmp_path / "empty_folder").mkdir()
    source = ["--data-source", "openai/gsm8k", "--attacks", "control"] if command == "probe" else [rows]
    line = one_line_error(rewards(command, *source, "--max-resp-len", "100", "--overlong-buffer-len", "10",
                                  "--length-tokenizer", tmp_path / "empty_folder", "-q"))
    assert line.startswith(f"rewards {command}: --length-tokenizer: cannot load a tokenizer from ")


def test_validate_prints_no_empty_gold_line_when_no_gold_could_be_checked(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "wrong_shapes.parquet"
    pq.write_table(pa.table({"data_source": ["openai/gsm8k"], "prompt": [5], "reward_model": ["abc"]}), path)
    assert main(["validate", str(path), "-q"]) == 1
    out = capsys.readouterr().out
    assert "gold self-check" not in out and "reward_model: must be a mapping" in out
