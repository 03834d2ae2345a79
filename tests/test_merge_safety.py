"""`rewards merge`: a malformed safetensors header is a finding, never a traceback; `-o` names the output
folder as in every command; the staging folder's name cannot be guessed. Issue 28, issue 27 item 8."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from cli.main import main

CONFIG = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "vocab_size": 160, "hidden_size": 32,
          "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
          "tie_word_embeddings": True}
HEADERS = {
    "a list": [1, 2],
    "a string entry": {"w": "x"},
    "no shape": {"w": {"dtype": "F32", "data_offsets": [0, 4]}},
    "a text shape": {"w": {"dtype": "F32", "shape": "big", "data_offsets": [0, 4]}},
    "one offset": {"w": {"dtype": "F32", "shape": [1], "data_offsets": [4]}},
    "null dtype": {"w": {"dtype": None, "shape": [1], "data_offsets": [0, 4]}},
}


def hf_folder(folder: Path, header, raw: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(CONFIG))
    body = raw if raw is not None else json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(body)) + body + b"\0" * 16)
    return folder


@pytest.mark.parametrize("kind", sorted(HEADERS))
def test_a_malformed_safetensors_header_is_one_finding(tmp_path, capsys, kind):
    folder = hf_folder(tmp_path / "hf", HEADERS[kind])
    assert main(["merge", str(folder), "--check-only"]) == 2
    err = capsys.readouterr().err
    assert "model.safetensors is not a readable safetensors file" in err and "Traceback" not in err


def test_a_header_that_is_not_utf8_is_one_finding(tmp_path, capsys):
    folder = hf_folder(tmp_path / "hf", None, raw=b'{"w": "\xff"}')
    assert main(["merge", str(folder), "--check-only"]) == 2
    assert "not a readable safetensors file" in capsys.readouterr().err


def test_merge_takes_dash_o_and_copies_through_an_unguessable_staging_folder(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**{k: v for k, v in CONFIG.items()
                                                                       if k not in ("architectures", "model_type")}))
    hf = tmp_path / "run" / "global_step_5" / "actor" / "model" / "huggingface"
    model.save_pretrained(hf, safe_serialization=True)
    (tmp_path / "run" / "latest_checkpointed_iteration.txt").write_text("5")
    (hf.parents[1] / "ckpt_contents.json").write_text(json.dumps({"contents": ["model", "hf_model"]}))  # written last
    out = tmp_path / "exported"
    victim = tmp_path / "victim"
    victim.mkdir()
    import os
    (tmp_path / f".exported.{os.getpid()}.tmp").symlink_to(victim)  # the old, guessable staging name
    assert main(["merge", str(tmp_path / "run"), "-o", str(out)]) == 0
    assert (out / "model.safetensors").is_file() and list(victim.iterdir()) == []
    assert "ok: config and weights present" in capsys.readouterr().out
