"""`rewards tiny-model`: a random-weight Qwen2 folder that transformers loads like a hub model, with a
byte-level tokenizer that spells any text and a ChatML template."""

from __future__ import annotations

import json
import sys

import pytest

from cli.main import main
from datasources.arithmetic import make_problems

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "model"
    assert main(["tiny-model", str(out), "--layers", "2", "--hidden", "128", "--heads", "2"]) == 0
    return out


def test_it_loads_like_a_hub_model_and_generates(tiny):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tiny))
    model = transformers.AutoModelForCausalLM.from_pretrained(str(tiny))
    config = json.loads((tiny / "config.json").read_text())
    assert config["architectures"] == ["Qwen2ForCausalLM"] and config["model_type"] == "qwen2"
    assert config["vocab_size"] == len(tokenizer) == 259 == model.config.vocab_size
    assert "rope_theta" in config and "rope_parameters" not in config  # a hub Qwen2.5 config's keys
    assert model.config.tie_word_embeddings and model.config.num_hidden_layers == 2
    assert model.config.hidden_size // model.config.num_attention_heads == 64
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    generation = json.loads((tiny / "generation_config.json").read_text())
    assert generation == {"bos_token_id": 256, "eos_token_id": tokenizer.eos_token_id,
                          "pad_token_id": tokenizer.pad_token_id}
    tokenizer_config = json.loads((tiny / "tokenizer_config.json").read_text())
    assert tokenizer_config["chat_template"] == tokenizer.chat_template
    ids = torch.tensor([tokenizer.encode("Ava has 3 pens.")])
    out = model.generate(ids, max_new_tokens=4, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert out.shape == (1, ids.shape[1] + 4) or tokenizer.eos_token_id in out[0].tolist()


def test_the_launchers_parameter_count_is_the_models(tiny):
    from cli.launch.model import shape_from_config

    model = transformers.AutoModelForCausalLM.from_pretrained(str(tiny))
    shape = shape_from_config(json.loads((tiny / "config.json").read_text()))
    assert shape.params == sum(p.numel() for p in model.parameters())


def test_any_text_round_trips_one_token_per_byte(tiny):
    """The problems' text, non-ASCII, control characters and special tokens, through the class
    AutoTokenizer picks (transformers 5 rebuilds `qwen2` tokenizers) and the generic fast class."""
    auto = transformers.AutoTokenizer.from_pretrained(str(tiny))
    fast = transformers.PreTrainedTokenizerFast.from_pretrained(str(tiny))
    texts = [row[key] for row in make_problems(50, seed=3) for key in ("question", "answer")]
    texts += ["Ünïcødé ✓ 日本語 — naïve café 🙂", "tab\there\r\nCRLF  two  spaces ", "\x00\x7f", "#### -1,080.5"]
    for text in texts:
        ids = auto.encode(text)
        assert ids == fast.encode(text) and len(ids) == len(text.encode())
        assert auto.decode(ids) == text == fast.decode(ids)
    ids = auto.encode("#### 7<|im_end|>")
    assert ids[-1] == auto.eos_token_id and auto.decode(ids, skip_special_tokens=True) == "#### 7"


def test_the_chat_template_renders_every_turn_and_the_generation_prompt(tiny):
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tiny))
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "#### 4"}]
    assert tokenizer.apply_chat_template(chat, tokenize=False) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n"
        "<|im_start|>assistant\n#### 4<|im_end|>\n")
    prompt = tokenizer.apply_chat_template(chat[1:2], add_generation_prompt=True, tokenize=False)
    assert prompt == "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n"
    ids = tokenizer.apply_chat_template(chat[1:2], add_generation_prompt=True, tokenize=True)
    ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
    assert ids == tokenizer.encode(prompt)  # verl's two tokenisation paths agree


def test_a_bad_size_an_occupied_folder_and_a_missing_library_are_one_line(tmp_path, capsys, monkeypatch):
    assert main(["tiny-model", str(tmp_path / "a"), "--hidden", "100", "--heads", "3"]) == 2
    assert "--hidden 100 is not a multiple of --heads 3" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x").write_text("mine")
    assert main(["tiny-model", str(tmp_path / "b")]) == 2
    assert "is not empty; pass --overwrite" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "torch", None)
    assert main(["tiny-model", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "torch is not installed" in err
    assert not (tmp_path / "c").exists()


def test_the_split_is_qwen2s_own():
    """transformers 5 rebuilds a `qwen2` tokenizer with this regex: ours must be the same."""
    from transformers.models.qwen2 import tokenization_qwen2

    from cli.launch.tiny_model import QWEN_SPLIT

    assert getattr(tokenization_qwen2, "PRETOKENIZE_REGEX", QWEN_SPLIT) == QWEN_SPLIT


def test_a_padded_vocabulary_lets_tensor_parallel_2_split_the_embedding(tmp_path):
    """Megatron splits the embedding rows evenly over TP and verl pads nothing: 259 rows allow TP 1
    only, `--pad-vocab 128` gives 384 rows (the tokenizer keeps its 259 tokens, as hub models do)."""
    out = tmp_path / "model"
    assert main(["tiny-model", str(out), "--layers", "1", "--hidden", "64", "--heads", "2",
                 "--pad-vocab", "128"]) == 0
    model = transformers.AutoModelForCausalLM.from_pretrained(str(out))
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(out))
    assert model.config.vocab_size == 384 and len(tokenizer) == 259
    assert model.get_input_embeddings().weight.shape[0] == 384
    ids = torch.tensor([tokenizer.encode("#### 7")])
    assert model(ids).logits.shape[-1] == 384


def test_pad_vocab_must_be_positive(tmp_path, capsys):
    assert main(["tiny-model", str(tmp_path / "m"), "--pad-vocab", "0"]) != 0
    assert "--pad-vocab must be at least 1" in capsys.readouterr().err
