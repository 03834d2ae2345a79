"""Every class of bad input through `rewards score` and `rewards report` as a user runs them: rows out ==
lines in, order kept, no traceback, the input's bytes unchanged, the exit status as documented."""

import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.bad_inputs import GOOD, WHOLE_FILE_CASES, corpus_file

ROOT = Path(__file__).resolve().parent.parent


def rewards(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "cli.main", *map(str, args)], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=300)


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.mark.parametrize("packing", ["plain", "gzip"])
def test_score_corpus_rows_out_equal_lines_in(tmp_path, packing):
    src = tmp_path / "corpus.jsonl"
    names, scores = corpus_file(src)
    if packing == "gzip":
        src.write_bytes(gzip.compress(src.read_bytes()))
    before = digest(src)
    out = tmp_path / "scored.jsonl"
    done = rewards("score", src, "-o", out, "--json")
    assert done.returncode == 0, done.stderr  # some rows scored: partial failure is exit 0, summarised
    assert b"Traceback" not in done.stderr and digest(src) == before
    rows = [json.loads(line) for line in out.read_bytes().split(b"\n")[:-1]]
    assert len(rows) == len(names)
    for n, (name, scored, row) in enumerate(zip(names, scores, rows), start=1):
        assert (row["verdict"] != "error") == scored, (name, row)
        if not scored:
            assert row["error"].startswith(f"{src} line {n}: "), (name, row["error"])
        if name == "good":
            assert row["verdict"] == "correct" and row["response"] == "#### 3"
    surrogate = rows[names.index("lone surrogate escape")]
    assert surrogate["response"] == "\ud800 #### 3" and surrogate["verdict"] == "correct"
    summary = json.loads(done.stdout)
    assert summary["rows"] == len(names) and summary["errors"] == scores.count(False)
    assert f"{scores.count(False)} of {len(names)} row(s) could not be scored" in done.stderr.decode()


@pytest.mark.parametrize("name", sorted(WHOLE_FILE_CASES))
def test_score_unreadable_file_is_one_line_and_status_2(tmp_path, name):
    src = tmp_path / "x.jsonl"
    src.write_bytes(WHOLE_FILE_CASES[name])
    out = tmp_path / "out.jsonl"
    done = rewards("score", src, "-o", out)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and err.startswith(f"rewards score: {src}: ")
    assert not out.exists() and not list(tmp_path.glob(".out.jsonl.*"))


def test_score_on_a_folder_without_dumps_and_a_missing_file(tmp_path):
    for target in (tmp_path, tmp_path / "missing.jsonl"):
        done = rewards("score", target)
        assert done.returncode == 2 and done.stderr.decode().count("\n") == 1


@pytest.mark.parametrize("spelling", ["same", "relative", "symlink"])
def test_output_onto_the_input_is_refused(tmp_path, spelling):
    src = tmp_path / "rows.jsonl"
    src.write_bytes(GOOD + b"\n")
    target = {"same": src, "relative": tmp_path / "." / "rows.jsonl", "symlink": tmp_path / "link.jsonl"}[spelling]
    if spelling == "symlink":
        target.symlink_to(src)
    done = rewards("score", src, "-o", target)
    assert done.returncode == 2 and b"would overwrite the input" in done.stderr
    assert src.read_bytes() == GOOD + b"\n"


def test_no_row_scored_is_status_1_with_the_reason(tmp_path):
    src = tmp_path / "3.jsonl"
    src.write_text(json.dumps({"input": "q", "output": "#### 7", "gts": "7", "step": 3}) + "\n")
    done = rewards("score", src)
    assert done.returncode == 1
    assert "no row could be scored" in done.stderr.decode() and "--data-source" in done.stderr.decode()
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(json.dumps({"data_source": "my/set", "response": "1", "ground_truth": "1"}) + "\n")
    done = rewards("score", unknown)
    assert done.returncode == 1 and "my/set" in done.stderr.decode()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert rewards("score", empty).returncode == 1


def test_score_reads_standard_input(tmp_path):
    done = rewards("score", "-", "-o", "-", stdin=GOOD + b"\nnot json\n")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and [r["verdict"] for r in rows] == ["correct", "error"]
    assert rows[1]["error"].startswith("<stdin> line 2: ")


def test_score_a_verl_parquet(tmp_path):
    from schemas.verl_row import make_row, write_parquet

    src = tmp_path / "train.parquet"
    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q{i}"}],
                     ground_truth=str(i), extra_info={"split": "train", "index": i}) for i in range(3)]
    rows = [dict(r, response=f"#### {i % 2}") for i, r in enumerate(rows)]
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), src)
    out = tmp_path / "out.jsonl"
    done = rewards("score", src, "-o", out)
    assert done.returncode == 0, done.stderr
    verdicts = [json.loads(line)["verdict"] for line in out.read_text().splitlines()]
    assert verdicts == ["correct", "correct", "wrong"]
    write_parquet(rows[:1], tmp_path / "no_response.parquet")  # a verl data file has no responses
    for command in ("score", "report"):   # one usage line, not a failure per row
        done = rewards(command, tmp_path / "no_response.parquet", "-o", tmp_path / f"out.{command}")
        assert done.returncode == 2 and done.stderr.decode().strip() == (
            f"rewards {command}: {tmp_path / 'no_response.parquet'} is a data file (prompts and golds, no "
            f"responses): {command} needs responses; generate them (verl's trainer.rollout_data_dir / "
            f"validation_data_dir dumps hold them) and {command} those")


@pytest.mark.parametrize("command", ["score", "report"])
def test_an_unknown_data_source_is_one_usage_line_before_any_row_is_read(command, tmp_path):
    rows = tmp_path / "dump.jsonl"
    rows.write_text("".join(json.dumps({"output": "#### 4", "gts": "4"}) + "\n" for _ in range(50)))
    done = rewards(command, rows, "--data-source", "gsm9k", "-o", tmp_path / "out")
    assert done.returncode == 2
    [line] = done.stderr.decode().strip().splitlines()
    assert line.startswith(f"rewards {command}: --data-source: ") and "gsm9k" in line and "did you mean" in line
    assert not (tmp_path / "out").exists()


def test_score_a_folder_of_verl_step_dumps(tmp_path):
    """verl's trainer.rollout_data_dir, written by verl 0.9.1's own dump writer: <step>.jsonl with
    input/output/gts/score/step and no data_source."""
    from tests.helpers.verl_rows import verl_dump_writer

    dumps = tmp_path / "rollouts"
    write = verl_dump_writer()
    for step in (10, 1, 2):  # written out of order; read in step order
        write(inputs=["q", "q"], outputs=["#### 0", "#### 1"], gts=["1", "1"], scores=[0.0, 0.0],
              reward_extra_infos_dict={}, dump_path=str(dumps), global_steps=step)
    assert sorted(p.name for p in dumps.iterdir()) == ["1.jsonl", "10.jsonl", "2.jsonl"]
    out = tmp_path / "scored.jsonl"
    done = rewards("score", dumps, "--data-source", "openai/gsm8k", "-o", out)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["step"], r["verdict"]) for r in rows] == [(s, v) for s in (1, 2, 10) for v in ("wrong", "correct")]
    assert {r["data_source"] for r in rows} == {"openai/gsm8k"}  # written, so `report` knows it
    done = rewards("score", dumps, "-o", dumps / "3.jsonl")
    assert done.returncode == 2 and b"would overwrite the input" in done.stderr


@pytest.mark.parametrize("packing", ["plain", "gzip"])
def test_report_corpus_counts_every_line(tmp_path, packing):
    """`rewards report` reads with the same reader: every line is one report row, an unreadable or
    unscorable one an `error` row; the input is untouched."""
    src = tmp_path / "corpus.jsonl"
    names, scores = corpus_file(src)
    if packing == "gzip":
        src.write_bytes(gzip.compress(src.read_bytes()))
    before = digest(src)
    done = rewards("report", src, "-o", tmp_path / "page.html", "--json")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and digest(src) == before
    numbers = json.loads(done.stdout.splitlines()[-1])
    assert sum(s["rows"] for s in numbers.values()) == len(names)
    errors = sum(s["verdicts"].get("error", 0) for s in numbers.values())
    assert errors == scores.count(False)
    assert numbers["openai/gsm8k"]["verdicts"] == {"correct": scores.count(True)}


@pytest.mark.parametrize("name", sorted(WHOLE_FILE_CASES))
def test_report_unreadable_file_is_one_line_and_status_2(tmp_path, name):
    src = tmp_path / "x.jsonl"
    src.write_bytes(WHOLE_FILE_CASES[name])
    done = rewards("report", src, "-o", tmp_path / "page.html")
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and err.startswith(f"rewards report: {src}: ")
    assert not (tmp_path / "page.html").exists()
