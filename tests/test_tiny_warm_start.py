"""`rewards warm-start`: a supervised fine-tune on prepared rows whose input is verl's own prompt
tokens, whose loss falls, which stops when told, and whose held-out accuracy is our scorer's."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from cli.main import main

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """A 2-layer, 100k-parameter tiny model and 120 prepared problems (100 train, 20 test)."""
    root = tmp_path_factory.mktemp("kit")
    assert main(["tiny-model", str(root / "model"), "--layers", "2", "--hidden", "64", "--heads", "1",
                 "--intermediate", "128"]) == 0
    assert main(["tiny-data", str(root / "arith.jsonl"), "-n", "120", "--max-number", "9", "--operations", "1"]) == 0
    assert main(["prepare", str(root / "arith.jsonl"), "-o", str(root / "data"), "--test-size", "20", "-q"]) == 0
    return root


def _run(capsys, *args):
    capsys.readouterr()
    status = main(["warm-start", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_few_cpu_steps_lower_the_loss_and_save_a_loadable_model(kit, capsys):
    out = kit / "warm"
    status, stdout, stderr = _run(capsys, kit / "model", kit / "data" / "train.parquet", "-o", out,
                                  "--val-file", kit / "data" / "test.parquet", "--steps", 16, "--batch-size", 8,
                                  "--eval-every", 8, "--eval-rows", 6, "--max-new-tokens", 6, "--lr", 3e-3,
                                  "--warmup-steps", 2, "--device", "cpu")
    assert status == 0, stderr
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert {"steps", "seconds", "loss", "accuracy", "tokens_per_s", "stopped", "evals"} <= set(summary)
    assert (summary["steps"], summary["stopped"], summary["eval_rows"], summary["train_rows"]) == (16, "steps", 6, 100)
    (step_a, loss_a, _), (step_b, loss_b, accuracy) = summary["evals"]
    assert (step_a, step_b) == (8, 16) and loss_b < loss_a < 5.6  # ln(259) = 5.56 at random init
    assert summary["loss"] == loss_b and summary["accuracy"] == accuracy and 0 <= accuracy <= 1
    assert summary["tokens_per_s"] > 0 and summary["device"] == "cpu"
    assert stderr.count("held-out accuracy") == 2
    assert (out / "config.json").read_text() == (kit / "model" / "config.json").read_text()
    assert (out / "tokenizer_config.json").read_text() == (kit / "model" / "tokenizer_config.json").read_text()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    before = transformers.AutoModelForCausalLM.from_pretrained(str(kit / "model"))
    after = transformers.AutoModelForCausalLM.from_pretrained(str(out))
    assert after.dtype == torch.bfloat16
    assert not torch.equal(before.model.embed_tokens.weight, after.model.embed_tokens.weight)


def test_it_stops_at_the_time_limit_and_at_the_accuracy_asked_for(kit, capsys, monkeypatch, tmp_path):
    import cli.launch.warm_start as warm

    common = [kit / "data" / "train.parquet", "--steps", 50, "--batch-size", 8, "--eval-rows", 4,
              "--max-new-tokens", 2, "--device", "cpu"]
    status, stdout, _ = _run(capsys, kit / "model", *common, "-o", tmp_path / "a", "--max-seconds", 0.01)
    summary = json.loads(stdout)
    assert status == 0 and (summary["steps"], summary["stopped"], len(summary["evals"])) == (1, "max_seconds", 1)
    assert summary["train_rows"] == 100 - 4  # held out from the training rows when no --val-file

    monkeypatch.setattr(warm, "evaluate", lambda *a, **k: 0.5)
    status, stdout, _ = _run(capsys, kit / "model", *common, "-o", tmp_path / "b", "--eval-every", 3,
                             "--until-accuracy", 0.3)
    summary = json.loads(stdout)
    assert (summary["steps"], summary["stopped"], summary["accuracy"]) == (3, "until_accuracy", 0.5)


def test_held_out_accuracy_is_the_scorers_verdict_on_greedy_answers(kit):
    """A stand-in model that answers each left-padded prompt with its own gold solution (or with a
    wrong one): accuracy 1 and 0 through the real decode and the GSM8K scorer."""
    from cli.launch.warm_start import evaluate, read_examples

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(kit / "model"))
    examples = read_examples(str(kit / "data" / "test.parquet"), tokenizer)

    class Answering:
        def __init__(self, wrong):
            self.wrong, self.calls = wrong, []

        def eval(self):
            pass

        def generate(self, input_ids, attention_mask, max_new_tokens, **_):
            rows = []
            for ids, mask in zip(input_ids.tolist(), attention_mask.tolist()):
                prompt = [t for t, m in zip(ids, mask) if m]
                example = next(e for e in examples if e.prompt_ids == prompt)
                answer = tokenizer.encode("#### 99999") + [tokenizer.eos_token_id] if self.wrong else example.target_ids
                rows.append(ids + answer + [tokenizer.pad_token_id] * (max_new_tokens - len(answer)))
            self.calls.append(len(rows))
            return torch.tensor(rows)

    right = Answering(wrong=False)
    assert evaluate(right, tokenizer, examples, 40, 8, "cpu", lambda: torch.autocast("cpu", enabled=False), torch) == 1.0
    assert right.calls == [8, 8, 4]
    assert evaluate(Answering(wrong=True), tokenizer, examples, 40, 8, "cpu",
                    lambda: torch.autocast("cpu", enabled=False), torch) == 0.0


@pytest.mark.verl
def test_the_input_is_what_verl_feeds_the_policy(kit):
    """verl 0.9.1's agent loop builds rollout prompts with its Qwen continuous-token builder (the
    model type is qwen2); its RLHFDataset keeps every row under the prompt-length filter."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset
    from verl.utils.tokenizer.continuous_token_wiring import create_continuous_token_builder

    from cli.launch.warm_start import read_examples

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(kit / "model"))
    path = kit / "data" / "train.parquet"
    examples = read_examples(str(path), tokenizer)
    builder = create_continuous_token_builder(tokenizer, hf_model_type="qwen2")
    rows = pq.read_table(path).to_pylist()
    for example, row in zip(examples, rows):
        assert builder.build_initial_tokens(row["prompt"]) == example.prompt_ids
        assert tokenizer.decode(example.target_ids) == row["extra_info"]["answer"] + "<|im_end|>"
    config = OmegaConf.create({"max_prompt_length": 256, "filter_overlong_prompts": True,
                               "filter_overlong_prompts_workers": 1, "cache_dir": str(kit / "verl-cache")})
    assert len(RLHFDataset(str(path), tokenizer, config)) == len(rows)


def test_rows_without_a_worked_solution_and_bad_settings_are_one_line(kit, capsys, tmp_path):
    table = pq.read_table(kit / "data" / "train.parquet").to_pylist()
    for row in table:
        row["extra_info"] = {"split": "train", "index": row["extra_info"]["index"]}
    from schemas.verl_row import write_parquet

    write_parquet(table, tmp_path / "bare.parquet")
    status, _, err = _run(capsys, kit / "model", tmp_path / "bare.parquet", "--device", "cpu")
    assert status == 2 and f"{tmp_path / 'bare.parquet'} row 1: field 'extra_info.answer'" in err
    for row in table:
        row["extra_info"]["answer"], row["data_source"] = "1+1=2\n#### 2", "nobody/scores-this"
    write_parquet(table, tmp_path / "unscored.parquet")
    status, _, err = _run(capsys, kit / "model", tmp_path / "unscored.parquet", "--device", "cpu")
    assert status == 2 and "nobody/scores-this" in err and err.count("\n") == 1
    status, _, err = _run(capsys, kit / "model", tmp_path / "none.parquet")
    assert status == 2 and "no such file" in err and err.count("\n") == 1
    status, _, err = _run(capsys, kit / "model", kit / "data" / "test.parquet", "--eval-rows", 20, "--device", "cpu")
    assert status == 2 and "lower --eval-rows or pass --val-file" in err
    status, _, err = _run(capsys, kit / "model", kit / "data" / "train.parquet", "--until-accuracy", 30)
    assert status == 2 and "--until-accuracy is a fraction" in err
    status, _, err = _run(capsys, tmp_path, kit / "data" / "train.parquet")
    assert status == 2 and "not a model folder" in err
