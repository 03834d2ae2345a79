"""`rewards score` flags reach the format and shaping settings."""

import json
from pathlib import Path

from cli.main import main

ROWS = [
    {"data_source": "openai/gsm8k", "response": "<think>2+2</think><answer>#### 4</answer>", "ground_truth": "4"},
    {"data_source": "openai/gsm8k", "response": "#### 4", "ground_truth": "4"},
    {"data_source": "openai/gsm8k", "response": "<think>2+2</think><answer>#### 5</answer> 5?", "ground_truth": "4",
     "extra_info": {"response_length": 30}},
]


def score(tmp_path, *flags):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    code = main(["score", str(src), "-o", str(out), *flags])
    rows = [json.loads(line) for line in Path(out).read_text().splitlines()] if out.exists() else []
    return code, rows


def test_format_flags(tmp_path):
    code, rows = score(tmp_path, "--format-rule", "think_answer", "--format-weight", "0.2")
    assert code == 0
    assert [(r["format"], r["score"]) for r in rows] == [(1.0, 1.0), (0.0, 0.8), (0.0, 0.0)]
    code, rows = score(tmp_path, "--format-rule", "think_answer", "--format-weight", "0.2", "--format-mode", "lenient")
    assert [r["format"] for r in rows] == [1.0, 0.0, 1.0]


def test_shaping_flags_add_keys_to_every_row(tmp_path):
    code, rows = score(tmp_path, "--overlong-buffer-len", "10", "--max-resp-len", "40", "--length-unit", "chars",
                       "--repetition-penalty", "0.5")
    assert code == 0
    assert all({"overlong_penalty", "repetition_penalty"} <= r.keys() for r in rows)
    assert rows[0]["overlong_penalty"] < 0 and rows[1]["overlong_penalty"] == 0.0
    assert rows[0]["score"] == rows[0]["acc"] + rows[0]["overlong_penalty"] + rows[0]["repetition_penalty"]


def test_token_lengths_from_the_row_or_a_tokenizer(tmp_path, tokenizer_dir, capsys):
    code, _ = score(tmp_path, "--overlong-buffer-len", "10", "--max-resp-len", "40")
    assert code == 2   # rows 1-2 carry no response_length and no tokenizer was named
    assert "--length-tokenizer" in capsys.readouterr().err   # the flag, not the keyword
    code, rows = score(tmp_path, "--overlong-buffer-len", "10", "--max-resp-len", "40",
                       "--length-tokenizer", str(tokenizer_dir))
    assert code == 0 and rows[2]["overlong_penalty"] == 0.0  # its own response_length (30) wins


def test_bad_values_are_one_line_errors(tmp_path, capsys):
    assert score(tmp_path, "--format-weight", "0.9", "--format-rule", "think_boxed")[0] == 2
    assert "--format-weight" in capsys.readouterr().err   # the flag, not the keyword
    assert score(tmp_path, "--overlong-buffer-len", "10")[0] == 2
    assert "--max-resp-len" in capsys.readouterr().err
