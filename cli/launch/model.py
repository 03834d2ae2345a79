"""A model's shape, read from its Hugging Face `config.json`, and where to find that file.

The plan needs only a handful of numbers (layers, heads, KV heads, widths, vocabulary, tied
embeddings) to check tensor/pipeline splits and to count parameters. Counting is exact for the
dense decoder layouts verl's Megatron path trains (Llama/Qwen2/Qwen3 style, SwiGLU MLP, RMSNorm),
plus the Qwen2.5-VL vision tower; MoE layers are counted from their expert sizes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

# Model types whose attention q/k/v projections carry a bias (Qwen2 family hard-codes it).
_QKV_BIAS_TYPES = {"qwen2", "qwen2_vl", "qwen2_5_vl", "qwen2_moe"}
# Model types with per-head RMSNorm on q and k (Qwen3 family).
_QK_NORM_TYPES = {"qwen3", "qwen3_moe", "qwen3_vl", "qwen3_vl_moe"}


class ModelConfigError(ValueError):
    """The model's config.json cannot be found or read (one sentence, says what to do)."""


@dataclass(frozen=True)
class VisionShape:
    depth: int
    hidden: int
    intermediate: int
    heads: int
    out_hidden: int
    params: int


def parameter_count(n: int) -> str:
    """A parameter count in the unit that keeps its digits: `0.60 B` from 0.1 B up, `4.3 M` below
    (a tiny model read `0.00 B`), `980 K`."""
    if n >= 1e8:
        return f"{n / 1e9:.2f} B"
    if n >= 1e6:
        return f"{n / 1e6:.1f} M"
    return f"{n / 1e3:.0f} K" if n >= 1e3 else str(n)


@dataclass(frozen=True)
class ModelShape:
    """What the planner needs to know about a model; `params` counts every weight once."""

    model_type: str
    layers: int
    heads: int
    kv_heads: int
    hidden: int
    intermediate: int
    vocab: int
    head_dim: int
    tie_embeddings: bool
    max_positions: int | None
    layer_params: int          # one decoder layer (all experts of an MoE layer)
    embedding_params: int      # the input embedding (vocab x hidden)
    head_params: int           # the output projection, 0 when tied to the embedding
    vision: VisionShape | None = None
    experts: int = 0           # routed experts per MoE layer (0 for dense models)
    expert_params: int = 0     # parameters of all routed experts in one layer (inside layer_params)

    @property
    def params(self) -> int:
        vision = self.vision.params if self.vision else 0
        return self.layers * self.layer_params + self.embedding_params + self.head_params + self.hidden + vision

    def describe(self) -> str:
        tied = "tied" if self.tie_embeddings else "untied"
        vision = f", vision tower {parameter_count(self.vision.params)}" if self.vision else ""
        return (f"{self.layers} layers, {self.heads} heads / {self.kv_heads} KV heads, hidden {self.hidden}, "
                f"MLP {self.intermediate}, vocab {self.vocab} ({tied} embeddings), "
                f"{parameter_count(self.params)} parameters{vision}")


def shape_from_config(config: Mapping[str, Any]) -> ModelShape:
    """Count a model's parameters from its config.json (a dict); raises ModelConfigError on gaps."""
    text = config.get("text_config") or config
    # Qwen2.5-VL keeps the language fields at the top level; newer exports nest them.
    text = {**config, **text} if text is not config else config
    try:
        layers = int(text["num_hidden_layers"])
        heads = int(text["num_attention_heads"])
        hidden = int(text["hidden_size"])
        vocab = int(text["vocab_size"])
    except KeyError as exc:
        raise ModelConfigError(f"config.json has no {exc.args[0]!r}: is this a decoder model's config?") from None
    kv_heads = int(text.get("num_key_value_heads") or heads)
    head_dim = int(text.get("head_dim") or hidden // heads)
    intermediate = int(text.get("intermediate_size") or 4 * hidden)
    model_type = str(config.get("model_type", text.get("model_type", "")))
    tie = bool(config.get("tie_word_embeddings", text.get("tie_word_embeddings", False)))

    q_dim, kv_dim = heads * head_dim, kv_heads * head_dim
    attention = hidden * q_dim + 2 * hidden * kv_dim + q_dim * hidden
    if model_type in _QKV_BIAS_TYPES or text.get("attention_bias"):
        attention += q_dim + 2 * kv_dim
    if model_type in _QK_NORM_TYPES:
        attention += 2 * head_dim
    experts = int(text.get("num_experts") or text.get("n_routed_experts") or 0)
    expert_params = 0
    if experts:
        moe_intermediate = int(text.get("moe_intermediate_size") or intermediate)
        expert_params = experts * 3 * hidden * moe_intermediate
        shared = int(text.get("shared_expert_intermediate_size") or 0) * 3 * hidden
        mlp = expert_params + shared + hidden * experts
    else:
        mlp = 3 * hidden * intermediate
    layer_params = attention + mlp + 2 * hidden

    return ModelShape(
        model_type=model_type, layers=layers, heads=heads, kv_heads=kv_heads, hidden=hidden,
        intermediate=intermediate, vocab=vocab, head_dim=head_dim, tie_embeddings=tie,
        max_positions=text.get("max_position_embeddings"),
        layer_params=layer_params, embedding_params=vocab * hidden, head_params=0 if tie else vocab * hidden,
        vision=_vision_shape(config.get("vision_config"), hidden), experts=experts, expert_params=expert_params,
    )


def _vision_shape(vision: Mapping[str, Any] | None, text_hidden: int) -> VisionShape | None:
    """The Qwen2/2.5-VL vision tower: patch embedding, transformer blocks, patch merger."""
    if not vision:
        return None
    hidden = int(vision.get("hidden_size") or vision.get("embed_dim"))
    depth = int(vision["depth"])
    heads = int(vision.get("num_heads", 16))
    intermediate = int(vision.get("intermediate_size") or 4 * hidden)
    out = int(vision.get("out_hidden_size") or text_hidden)
    patch = int(vision.get("patch_size", 14))
    temporal = int(vision.get("temporal_patch_size", 2))
    channels = int(vision.get("in_chans") or vision.get("in_channels") or 3)
    merge = int(vision.get("spatial_merge_size", 2)) ** 2
    gated = vision.get("hidden_act", "silu") == "silu"   # Qwen2.5-VL: SwiGLU; Qwen2-VL: GELU MLP
    mlp = (3 if gated else 2) * hidden * intermediate + (2 * intermediate + hidden if gated else intermediate + hidden)
    block = 3 * hidden * hidden + 3 * hidden + hidden * hidden + hidden + mlp + 2 * hidden
    merger = hidden + (hidden * merge) ** 2 + hidden * merge + hidden * merge * out + out
    params = channels * temporal * patch * patch * hidden + depth * block + merger
    return VisionShape(depth=depth, hidden=hidden, intermediate=intermediate, heads=heads, out_hidden=out, params=params)


def read_config(path: str | os.PathLike) -> dict[str, Any]:
    """Read a config.json file (or the one in a model directory)."""
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / "config.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelConfigError(f"{path} does not exist") from None
    except (OSError, UnicodeError, json.JSONDecodeError) as exc:
        raise ModelConfigError(f"{path} is not a readable JSON file ({exc})") from None
    if not isinstance(data, dict):
        raise ModelConfigError(f"{path} does not hold a JSON object")
    return data


def find_config(model: str, explicit: str | None = None) -> Path | None:
    """Where this machine has the model's config.json: an explicit file, a local model directory,
    or the Hugging Face hub cache (for a hub id such as `Qwen/Qwen3-8B`). None when nowhere."""
    if explicit:
        return Path(explicit).expanduser()
    local = Path(model).expanduser()
    if (local / "config.json").is_file():
        return local / "config.json"
    if local.is_file() and local.name.endswith(".json"):
        return local
    if model.count("/") == 1 and not local.exists():
        cache = Path(os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", "~/.cache/huggingface")) / "hub")
        snapshots = cache.expanduser() / f"models--{model.replace('/', '--')}" / "snapshots"
        found = sorted(snapshots.glob("*/config.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        if found:
            return found[0]
    return None


def local_model_dir(model: str) -> Path | None:
    """The model's directory on this machine (for its tokenizer), if there is one."""
    config = find_config(model)
    return config.parent if config is not None else None
