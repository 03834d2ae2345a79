"""A tiny model padded for tensor parallelism: the rows past the tokenizer carry probability mass that
verl's trainers count and its vLLM rollout masks (ids >= len(tokenizer) set to -inf), which shows as
`rollout_corr/kl` = mean(rollout log-prob - trainer log-prob) = -log(1 - that mass). `--fill-tokenizer`
names every row, so both sides normalise over the same rows."""

from __future__ import annotations

import json

import pytest

from cli.main import main

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TEXT = [{"role": "user", "content": "Eli has 20 books. He gets 18 more. How many? Ünïcode too."}]


def _model(tmp_path, *flags):
    folder = tmp_path / "-".join(["m", *[f.strip("-") for f in flags]])
    assert main(["tiny-model", str(folder), "--layers", "1", "--hidden", "64", "--heads", "1",
                 "--intermediate", "128", "--pad-vocab", "128", *flags]) == 0
    return folder


def _masses(folder) -> tuple[int, int, float]:
    """(rows, tokenizer tokens, mean mass on rows past the tokenizer) over a chat prompt's positions."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32).eval()
    ids = tokenizer.apply_chat_template(TEXT, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        logits = model(input_ids=ids["input_ids"]).logits[0]
    kept = torch.logsumexp(logits[:, :len(tokenizer)], -1)
    mass = 1 - torch.exp(kept - torch.logsumexp(logits, -1))
    return model.config.vocab_size, len(tokenizer), float(mass.mean())


def test_padded_rows_no_token_names_carry_mass_the_rollout_masks(tmp_path):
    rows, tokens, mass = _masses(_model(tmp_path))
    assert (rows, tokens) == (384, 259)
    assert 0.2 < mass < 0.45   # at random init about 125 of 384 rows' share


def test_a_filled_tokenizer_names_every_row_and_spells_text_as_before(tmp_path):
    plain, filled = _model(tmp_path), _model(tmp_path, "--fill-tokenizer")
    rows, tokens, mass = _masses(filled)
    assert rows == tokens == 384 and mass == 0.0
    a = transformers.AutoTokenizer.from_pretrained(str(plain))
    b = transformers.AutoTokenizer.from_pretrained(str(filled))
    prompt = a.apply_chat_template(TEXT, add_generation_prompt=True, tokenize=False)
    assert b.apply_chat_template(TEXT, add_generation_prompt=True, tokenize=False) == prompt
    assert a(prompt)["input_ids"] == b(prompt)["input_ids"]
    assert b.decode([72, 300, 105, 383], skip_special_tokens=True) == "Hi"   # fillers are special: never in text
    assert json.loads((filled / "config.json").read_text())["eos_token_id"] == b.eos_token_id == 258
