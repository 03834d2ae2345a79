"""`rewards untie`: the untied copy a Megatron critic on mbridge can load (it reads lm_head.weight),
with the language model unchanged."""

from __future__ import annotations

import json

import pytest

from cli.main import main

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tied") / "model"
    assert main(["tiny-model", str(folder), "--layers", "1", "--hidden", "64", "--heads", "2"]) == 0
    return folder


def test_the_copy_saves_its_own_output_layer_and_computes_the_same_logits(tied, tmp_path, capsys):
    out = tmp_path / "untied"
    assert main(["untie", str(tied), str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["copied_from"] == "model.embed_tokens.weight"
    index = json.loads((out / "model.safetensors.index.json").read_text())
    assert index["weight_map"]["lm_head.weight"] == "lm_head.safetensors"
    assert json.loads((out / "config.json").read_text())["tie_word_embeddings"] is False
    assert not (out / "model.safetensors").exists()   # loaders would read that file alone and miss lm_head
    a = transformers.AutoModelForCausalLM.from_pretrained(tied)
    b = transformers.AutoModelForCausalLM.from_pretrained(out)
    assert b.lm_head.weight.data_ptr() != b.model.embed_tokens.weight.data_ptr()
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    assert torch.equal(a(ids).logits, b(ids).logits)


def test_an_untied_model_and_a_missing_folder_are_one_line_errors(tied, tmp_path, capsys):
    out = tmp_path / "untied"
    assert main(["untie", str(tied), str(out)]) == 0
    capsys.readouterr()
    assert main(["untie", str(out), str(tmp_path / "again")]) != 0
    assert "already saves lm_head.weight" in capsys.readouterr().err
    assert main(["untie", str(tmp_path / "nowhere"), str(tmp_path / "x")]) != 0
    err = capsys.readouterr().err
    assert "not a local model folder" in err and len(err.strip().splitlines()) == 1


def test_it_will_not_write_into_a_folder_that_holds_files(tied, tmp_path, capsys):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    assert main(["untie", str(tied), str(busy)]) != 0
    assert "not empty" in capsys.readouterr().err and (busy / "keep.txt").read_text() == "mine"
