"""Qwen2.5-VL made small for `rewards train --smoke`: the same architecture, vision tower included.

The shrunk model keeps what the run's code paths depend on and cuts what costs time: a 2-layer
language model and a 2-block vision tower (the first block windowed, the last full attention, as the
real tower alternates them), heads split as the run's tensor-parallel sizes need (the language
model's keep their width, to which multimodal RoPE's sections are fixed; the vision tower's are 64
wide), and the image-token layout unchanged (patch, merge and temporal sizes, window, the RoPE
sections). The processor is the model's own when it is on this machine; otherwise a tiny one is
written offline: Qwen2.5-VL's image-processor settings and the byte-level tokenizer with Qwen's vision
tokens and a chat template that puts `<|vision_start|><|image_pad|><|vision_end|>` where
each image goes (the processor widens `<|image_pad|>` to the image's patch count, as Qwen's does).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD = (
    "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>")
VISION_TOKENS = (VISION_START, VISION_END, VISION_PAD, IMAGE_PAD, VIDEO_PAD)
# config.json key of each vision token's id (Qwen2.5-VL's names).
TOKEN_ID_KEYS = {"vision_start_token_id": VISION_START, "vision_end_token_id": VISION_END,
                 "vision_token_id": VISION_PAD, "image_token_id": IMAGE_PAD, "video_token_id": VIDEO_PAD}
# Qwen2.5-VL's ChatML with image and video parts, without its default system turn (a prompt costs only
# what the data puts in it). A part is an image when its type says so or it carries one (verl's parts).
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' or 'image' in part or 'image_url' in part %}"
    "{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{% elif part['type'] == 'video' or 'video' in part %}"
    "{{ '<|vision_start|><|video_pad|><|vision_end|>' }}"
    "{% elif 'text' in part %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# The processor's files a model folder may hold beside its tokenizer's.
PROCESSOR_FILES = ("preprocessor_config.json", "video_preprocessor_config.json", "processor_config.json",
                   "chat_template.json", "chat_template.jinja")
SHRINKABLE = ("qwen2_5_vl",)
VISION_DEPTH = 2
VISION_HEAD_DIM = 64

# The published config.json of Qwen/Qwen2.5-VL-3B-Instruct: what --smoke shrinks when neither the model
# nor a preset's record of it is on this machine, and the source of the keys a shorter record leaves out.
QWEN25_VL_3B: dict[str, Any] = {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "vision_start_token_id": 151652,
    "vision_end_token_id": 151653,
    "vision_token_id": 151654,
    "image_token_id": 151655,
    "video_token_id": 151656,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 11008,
    "max_position_embeddings": 128000,
    "max_window_layers": 70,
    "model_type": "qwen2_5_vl",
    "num_attention_heads": 16,
    "num_hidden_layers": 36,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 32768,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "use_cache": True,
    "use_sliding_window": False,
    "vision_config": {
        "depth": 32,
        "hidden_act": "silu",
        "hidden_size": 1280,
        "intermediate_size": 3420,
        "num_heads": 16,
        "in_chans": 3,
        "out_hidden_size": 2048,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "spatial_patch_size": 14,
        "window_size": 112,
        "fullatt_block_indexes": [7, 15, 23, 31],
        "tokens_per_second": 2,
        "temporal_patch_size": 2,
    },
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vocab_size": 151936,
}
PUBLISHED = {"Qwen/Qwen2.5-VL-3B-Instruct": QWEN25_VL_3B}
# Qwen2.5-VL's image processor (preprocessor_config.json); the patch sizes come from the vision config.
IMAGE_PROCESSOR = {
    "min_pixels": 3136,
    "max_pixels": 12845056,
    "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711],
    "image_processor_type": "Qwen2VLImageProcessor",
    "processor_class": "Qwen2_5_VLProcessor",
}
# Family keys the shrink needs (the vision-token ids, the RoPE sections, the window layout), filled in
# from the published config where a recorded config leaves them out.
_FAMILY_KEYS = ("bos_token_id", "eos_token_id", *TOKEN_ID_KEYS, "rope_theta", "rms_norm_eps", "rope_scaling")
_VISION_KEYS = ("window_size", "fullatt_block_indexes", "tokens_per_second", "spatial_patch_size")


def is_vision(config: Mapping[str, Any]) -> bool:
    return "vision_config" in config


def complete(config: Mapping[str, Any]) -> dict[str, Any]:
    """A Qwen2.5-VL config with the family's keys a shorter record (a preset's) leaves out."""
    out = copy.deepcopy(dict(config))
    text = out.get("text_config") or out
    for key in _FAMILY_KEYS:
        if key not in out and key not in text and not (key == "rope_scaling" and "rope_parameters" in text):
            out[key] = copy.deepcopy(QWEN25_VL_3B[key])
    vision = out["vision_config"]
    for key in _VISION_KEYS:
        vision.setdefault(key, copy.deepcopy(QWEN25_VL_3B["vision_config"][key]))
    return out


def shrunk_vl_config(config: Mapping[str, Any], heads: int, kv_heads: int, layers: int) -> dict[str, Any]:
    """The model's config with a `layers`-deep language model of `heads` heads (`kv_heads` KV heads) of
    the model's own head width, and a VISION_DEPTH-block vision tower of `heads` heads of
    VISION_HEAD_DIM; the patch, merge, temporal and window sizes stay as they are, so an image becomes
    the same number of tokens. The text heads keep their width because multimodal RoPE's sections
    ([16, 24, 24], half of a 128-wide head) are fixed to it: Megatron-Bridge 0.6.2 takes them from its
    Qwen2.5-VL provider's defaults, never from the config, and a narrower head stops the first forward
    ("split_with_sizes expects split_sizes to sum exactly to 64", the H200 rehearsal)."""
    model_type = str(config.get("model_type", ""))
    if model_type not in SHRINKABLE:
        raise ValueError(f"--smoke shrinks text models and {', '.join(SHRINKABLE)}; this model is {model_type!r}")
    out = complete(config)
    text = out["text_config"] if "text_config" in out else out
    head_dim = int(text.get("head_dim") or int(text["hidden_size"]) // int(text["num_attention_heads"]))
    hidden = heads * head_dim
    text.update(num_attention_heads=heads, num_key_value_heads=kv_heads, hidden_size=hidden,
                intermediate_size=2 * hidden, num_hidden_layers=layers)
    for key in ("layer_types", "max_window_layers"):
        if isinstance(text.get(key), list):
            text[key] = text[key][:layers]
        elif key in text:
            text[key] = min(int(text[key]), layers)
    vision = out["vision_config"]
    vision.update(depth=VISION_DEPTH, num_heads=heads, hidden_size=heads * VISION_HEAD_DIM,
                  intermediate_size=2 * heads * VISION_HEAD_DIM, out_hidden_size=hidden)
    if "fullatt_block_indexes" in vision:    # windowed blocks, then a full-attention one last
        vision["fullatt_block_indexes"] = [VISION_DEPTH - 1]
    out.pop("dtype", None)
    out["torch_dtype"] = "bfloat16"
    return out


def image_processor_config(vision: Mapping[str, Any]) -> dict[str, Any]:
    """preprocessor_config.json for the model's own patch layout."""
    return {**IMAGE_PROCESSOR, "patch_size": int(vision.get("patch_size", 14)),
            "temporal_patch_size": int(vision.get("temporal_patch_size", 2)),
            "merge_size": int(vision.get("spatial_merge_size", 2))}


def token_ids(tokenizer) -> dict[str, int]:
    """The vision-token ids of config.json, read from a tokenizer."""
    return {key: tokenizer.convert_tokens_to_ids(token) for key, token in TOKEN_ID_KEYS.items()}
