"""`rewards prepare` on JSON files whose columns mix types (an integer among text answers): every
good row is kept, golds equal the input values (no JSON quoting, no doubled backslashes, `"0.50"`
never read as 0.5), and `validate` flags a gold that still carries JSON quoting."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from cli.main import main
from schemas.validate import validate_file
from schemas.verl_row import make_row, write_parquet

DEEPSCALER = [("Simplify 6/8.", "\\frac34"), ("Add 3 and 7.", 10), ("Half of 12?", "6"),
              ("Write one half.", "0.50"), ("Is 4 even? (yes/no)", "yes"), ("Bigger of 1e3, 999?", "1e3")]


def _golds(folder):
    return [r["reward_model"]["ground_truth"] for r in pq.read_table(folder / "train.parquet").to_pylist()]


@pytest.mark.parametrize("shape", ["jsonl", "json"])
def test_deepscaler_answers_of_mixed_types_are_written_as_given(tmp_path, shape, capsys):
    rows = [{"problem": q, "answer": a, "solution": "s"} for q, a in DEEPSCALER]
    source = tmp_path / f"deepscaler.{shape}"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows) if shape == "jsonl" else json.dumps(rows))
    assert main(["prepare", str(source), "-o", str(tmp_path / "out"), "--family", "deepscaler"]) == 0
    assert _golds(tmp_path / "out") == [str(a) for _, a in DEEPSCALER]
    assert main(["validate", str(tmp_path / "out"), "-q"]) == 0, capsys.readouterr().out


def test_gsm8k_with_one_integer_answer_keeps_every_good_row(tmp_path):
    rows = [{"question": f"Q{i}?", "answer": f"Work, {i} apples.\n#### {i + 1},080"} for i in range(5)]
    rows[2]["answer"] = 7
    source = tmp_path / "gsm8k.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["prepare", str(source), "-o", str(tmp_path / "out"), "--family", "gsm8k"]) == 0
    assert _golds(tmp_path / "out") == ["1080", "2080", "4080", "5080"]
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert [(s["source_index"], s["reason"]) for s in manifest["skipped_rows"]] == [(2, "answer has no `####` line")]


def test_validate_flags_a_gold_still_in_json_quotes(tmp_path):
    golds = ['"\\\\frac34"', '"6"', '\\frac34', '"a" or "b"', '"']
    rows = [make_row(data_source="lighteval/MATH", prompt=[{"role": "user", "content": f"Q{i}"}],
                     ground_truth=g, extra_info={"split": "train", "index": i}) for i, g in enumerate(golds)]
    write_parquet(rows, tmp_path / "train.parquet")
    report = validate_file(tmp_path / "train.parquet")
    quoted = {p.row: p.message for p in report.errors if "JSON quoting" in p.message}
    assert sorted(quoted) == [0, 1]
    assert "the value is '\\\\frac34'" in quoted[0] and "the value is '6'" in quoted[1]
