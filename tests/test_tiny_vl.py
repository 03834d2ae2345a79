"""`--smoke` shrinks Qwen2.5-VL: the shrunk model and its processor build offline, load with transformers
and run a forward pass on a drawn diagram; every split the run's parallel sizes need stays valid."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from cli.launch import smoke, tiny_vl
from cli.launch.presets import load_preset
from tests.conftest import FIXTURES
from tests.helpers.launch_plans import model_dirs  # noqa: F401 (fixture)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

PUBLISHED = json.loads((FIXTURES / "models" / "Qwen2.5-VL-3B-Instruct" / "config.json").read_text())


def test_the_built_in_config_is_the_published_one():
    assert tiny_vl.QWEN25_VL_3B == {k: v for k, v in PUBLISHED.items() if k != "transformers_version"}
    preset = load_preset("qwen2.5-vl-3b-geo3k-grpo")
    assert smoke.source_config("Qwen/Qwen2.5-VL-3B-Instruct", "some/other-model", {}) == tiny_vl.QWEN25_VL_3B
    assert smoke.source_config(preset.model, preset.model, preset.model_config) == preset.model_config


@pytest.mark.parametrize("tp, heads, kv_heads", [(1, 4, 2), (2, 8, 4), (4, 16, 8), (8, 32, 16), (3, 12, 6)])
def test_every_split_the_run_needs_divides_the_shrunk_model(tp, heads, kv_heads):
    """Text heads, KV heads and vision heads divide the tensor-parallel size; the image-token layout
    (patch, merge, temporal, window) is the model's; the vision tower keeps a windowed block and a
    full-attention one; the text heads keep the model's width (128), half of which multimodal RoPE's
    sections ([16, 24, 24]) fill: Megatron-Bridge takes the sections from its own defaults."""
    preset = load_preset("qwen2.5-vl-3b-geo3k-grpo")
    out = smoke.shrunk_config(preset.model_config, tp)      # the preset's shorter record, completed
    assert (out["num_attention_heads"], out["num_key_value_heads"]) == (heads, kv_heads)
    assert out["num_hidden_layers"] == smoke.LAYERS and out["hidden_size"] == heads * 128
    vision = out["vision_config"]
    assert vision["num_heads"] % tp == 0 and out["num_attention_heads"] % tp == 0 and out["num_key_value_heads"] % tp == 0
    assert vision["hidden_size"] % vision["num_heads"] == 0 and (vision["hidden_size"] // vision["num_heads"]) % 4 == 0
    assert vision["depth"] == tiny_vl.VISION_DEPTH and vision["fullatt_block_indexes"] == [tiny_vl.VISION_DEPTH - 1]
    assert vision["out_hidden_size"] == out["hidden_size"]
    for key in ("patch_size", "spatial_merge_size", "temporal_patch_size", "window_size"):
        assert vision[key] == PUBLISHED["vision_config"][key]
    assert out["rope_scaling"]["mrope_section"] == [16, 24, 24] and sum([16, 24, 24]) == 128 // 2
    assert vision["hidden_size"] == heads * tiny_vl.VISION_HEAD_DIM
    assert preset.model_config["vision_config"]["depth"] == 32            # the preset's record is not edited


def test_a_vision_model_of_another_family_is_named():
    with pytest.raises(smoke.SmokeError, match="this model is 'llava'"):
        smoke.shrunk_config({"model_type": "llava", "vision_config": {}, "text_config": {}})


@pytest.fixture(scope="module")
def shrunk(tmp_path_factory):
    """The FSDP preset's model shrunk for rollout TP 2, from its recorded config (nothing local)."""
    preset = load_preset("qwen2.5-vl-3b-geo3k-grpo")
    out = tmp_path_factory.mktemp("vl") / "model"
    config = smoke.source_config(preset.model, preset.model, preset.model_config)
    result = smoke.write_shrunk_model(preset.model, config, out, tp=2)
    return out, result


def _processor(folder):
    """Qwen2.5-VL's processor from the folder's files. transformers' AutoProcessor also builds a video
    processor, which needs torchvision (not in this CPU venv); images need only these parts."""
    from transformers import AutoTokenizer, Qwen2_5_VLProcessor, Qwen2VLImageProcessorPil

    class ImagesOnly(Qwen2_5_VLProcessor):
        def __init__(self, image_processor=None, tokenizer=None, chat_template=None):
            super().__init__(image_processor, tokenizer, None, chat_template=chat_template)

    template = json.loads((folder / "chat_template.json").read_text())["chat_template"]
    return ImagesOnly(Qwen2VLImageProcessorPil.from_pretrained(str(folder)),
                      AutoTokenizer.from_pretrained(str(folder)), template)


def _diagram():
    from PIL import Image

    from datasources.diagrams import make_problems

    row = make_problems(1, seed=3)[0]
    return Image.open(io.BytesIO(row["images"][0]["bytes"])).convert("RGB"), row["problem"].removeprefix("<image>")


def test_the_shrunk_model_and_its_tiny_processor_load_and_run_on_an_image(shrunk):
    folder, result = shrunk
    assert not result.own_tokenizer and "image tokens" in result.tokenizer_from
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "qwen2_5_vl" and "text_config" not in config   # the hub's flat keys
    processor = _processor(folder)
    tokenizer = processor.tokenizer
    for key, token in tiny_vl.TOKEN_ID_KEYS.items():
        assert config[key] == tokenizer.convert_tokens_to_ids(token) < config["vocab_size"]
    assert config["vocab_size"] % 128 == 0
    preprocessor = json.loads((folder / "preprocessor_config.json").read_text())
    assert (preprocessor["patch_size"], preprocessor["merge_size"], preprocessor["temporal_patch_size"]) == (14, 2, 2)

    image, question = _diagram()
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": question}]}]
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert text.startswith("<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>")
    inputs = processor(text=[text], images=[image], return_tensors="pt")
    grid = inputs["image_grid_thw"][0].tolist()
    assert grid == [1, 16, 16]                                              # 224 pixels in 14-pixel patches
    assert int((inputs["input_ids"] == config["image_token_id"]).sum()) == 16 * 16 // 4   # merged 2x2

    model = transformers.AutoModelForImageTextToText.from_pretrained(str(folder))
    assert model.dtype == torch.bfloat16 and type(model).__name__ == "Qwen2_5_VLForConditionalGeneration"
    assert model.config.vision_config.depth == tiny_vl.VISION_DEPTH
    with torch.no_grad():
        logits = model(**inputs).logits
    assert logits.shape == (1, inputs["input_ids"].shape[1], config["vocab_size"]) and torch.isfinite(logits).all()


def test_auto_processor_loads_the_tiny_processor(shrunk):
    """What verl and vLLM call on the GPU nodes (their torchvision builds the video processor)."""
    pytest.importorskip("torchvision")
    processor = transformers.AutoProcessor.from_pretrained(str(shrunk[0]))
    assert type(processor).__name__ == "Qwen2_5_VLProcessor"


def test_the_models_own_tokenizer_and_processor_are_copied_when_here(model_dirs, tmp_path):
    own = tmp_path / "Qwen2.5-VL-3B-Instruct"
    shutil.copytree(model_dirs["Qwen2.5-VL-3B-Instruct"], own)
    (own / "preprocessor_config.json").write_text(json.dumps(tiny_vl.image_processor_config(PUBLISHED["vision_config"])))
    out = tmp_path / "shrunk"
    result = smoke.write_shrunk_model(str(own), smoke.source_config(str(own), "x", {}), out, tp=2)
    assert result.own_tokenizer and str(own) in result.tokenizer_from
    for name in ("tokenizer_config.json", "preprocessor_config.json"):
        assert (out / name).read_bytes() == (own / name).read_bytes()
    config = json.loads((out / "config.json").read_text())
    assert config["vocab_size"] == PUBLISHED["vocab_size"]                     # the model's own token ids
    assert config["image_token_id"] == PUBLISHED["image_token_id"]
