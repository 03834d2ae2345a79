"""Model shapes from the published config.json files, and where the planner finds them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli.launch.model import ModelConfigError, find_config, read_config, shape_from_config

MODELS = Path(__file__).resolve().parent / "fixtures" / "models"

# Parameter counts the model cards publish (total, non-embedding), in billions.
PUBLISHED = {
    "Qwen3-0.6B": (0.6, 0.44),
    "Qwen3-0.6B-Base": (0.6, 0.44),
    "Qwen3-8B": (8.2, 6.95),
    "Qwen2.5-0.5B-Instruct": (0.49, 0.36),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_counts_match_the_model_cards(name):
    shape = shape_from_config(read_config(MODELS / name))
    total, non_embedding = PUBLISHED[name]
    assert round(shape.params / 1e9, 2 if total < 1 else 1) == total
    assert round((shape.params - shape.embedding_params - shape.head_params) / 1e9, 2) == non_embedding


def test_vl_model_counts_its_vision_tower():
    shape = shape_from_config(read_config(MODELS / "Qwen2.5-VL-3B-Instruct"))
    assert round(shape.params / 1e9, 2) == 3.75
    assert shape.vision is not None and shape.vision.depth == 32 and shape.vision.heads == 16
    assert (shape.heads, shape.kv_heads, shape.layers) == (16, 2, 36)


def test_shapes_the_checks_use():
    q3 = shape_from_config(read_config(MODELS / "Qwen3-0.6B"))
    assert (q3.layers, q3.heads, q3.kv_heads, q3.head_dim, q3.hidden, q3.vocab, q3.tie_embeddings) == \
        (28, 16, 8, 128, 1024, 151936, True)
    q8 = shape_from_config(read_config(MODELS / "Qwen3-8B"))
    assert (q8.layers, q8.heads, q8.kv_heads, q8.tie_embeddings, q8.head_params) == (36, 32, 8, False, 151936 * 4096)


def test_config_from_the_hub_cache(tmp_path, monkeypatch):
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen3-8B" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    shutil.copy(MODELS / "Qwen3-8B" / "config.json", snapshot / "config.json")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert find_config("Qwen/Qwen3-8B") == snapshot / "config.json"
    assert find_config("Qwen/Qwen3-4B") is None


def test_local_directory_and_explicit_file(tmp_path):
    assert find_config(str(MODELS / "Qwen3-8B")) == MODELS / "Qwen3-8B" / "config.json"
    assert find_config("anything", explicit=str(MODELS / "Qwen3-8B" / "config.json")) == MODELS / "Qwen3-8B" / "config.json"


def test_unreadable_configs_say_why(tmp_path):
    with pytest.raises(ModelConfigError, match="does not exist"):
        read_config(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelConfigError, match="not a readable JSON file"):
        read_config(tmp_path)
    with pytest.raises(ModelConfigError, match="no 'num_hidden_layers'"):
        shape_from_config({"model_type": "clip"})
