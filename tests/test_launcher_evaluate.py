"""`rewards warm-start MODEL TRAIN --val-file TEST --steps 0`: a model's greedy accuracy on held-out rows,
scored as the run's validation is (a merged checkpoint against the run's last validation), writing nothing."""

from __future__ import annotations

import hashlib
import json

import pytest

from cli.main import main

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    root = tmp_path_factory.mktemp("kit")
    assert main(["tiny-model", str(root / "model"), "--layers", "2", "--hidden", "64", "--heads", "1",
                 "--intermediate", "128"]) == 0
    assert main(["tiny-data", str(root / "arith.jsonl"), "-n", "60", "--max-number", "9", "--operations", "1"]) == 0
    assert main(["prepare", str(root / "arith.jsonl"), "-o", str(root / "data"), "--test-size", "12", "-q"]) == 0
    return root


def _digest(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_steps_0_evaluates_every_held_out_row_and_writes_nothing(kit, capsys):
    from cli.launch.warm_start import evaluate, read_examples

    before = _digest(kit / "model")
    capsys.readouterr()
    assert main(["warm-start", str(kit / "model"), str(kit / "data" / "train.parquet"), "--val-file",
                 str(kit / "data" / "test.parquet"), "--steps", "0", "--eval-rows", "256", "--max-new-tokens", "8",
                 "--device", "cpu"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (summary["steps"], summary["eval_rows"], summary["max_new_tokens"]) == (0, 12, 8)
    assert summary["stopped"] == "evaluation only" and summary["output"] is None
    assert _digest(kit / "model") == before and not [p for p in kit.joinpath("model").iterdir() if p.name.startswith(".")]
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(kit / "model"))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(kit / "model"), dtype=torch.float32)
    rows = read_examples(str(kit / "data" / "test.parquet"), tokenizer)
    assert summary["accuracy"] == evaluate(model, tokenizer, rows, 8, 128, torch.device("cpu"),
                                           lambda: torch.autocast("cpu", enabled=False), torch)


def test_negative_steps_are_one_line(kit, capsys):
    assert main(["warm-start", str(kit / "model"), str(kit / "data" / "train.parquet"), "--steps", "-1"]) == 2
    assert "--steps must be at least 0 (0: evaluate only)" in capsys.readouterr().err
