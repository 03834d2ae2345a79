"""`rewards merge` and the parameter counting it relies on, against real transformers models on CPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.launch.export import check_export, find_checkpoint, safetensors_size
from cli.launch.model import read_config, shape_from_config
from cli.main import main

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TINY = dict(vocab_size=160, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2)


def tiny(kind: str, tied: bool):
    torch.manual_seed(0)
    if kind == "qwen3":
        config = transformers.Qwen3Config(**TINY, head_dim=16, tie_word_embeddings=tied)
        return transformers.Qwen3ForCausalLM(config)
    if kind == "qwen2":
        return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**TINY, tie_word_embeddings=tied))
    if kind == "qwen2_5_vl":
        config = transformers.Qwen2_5_VLConfig(
            text_config=dict(**TINY, tie_word_embeddings=tied),
            vision_config=dict(depth=2, hidden_size=16, intermediate_size=24, num_heads=2, out_hidden_size=32,
                               patch_size=14, spatial_merge_size=2, temporal_patch_size=2, in_channels=3),
            tie_word_embeddings=tied)
        return transformers.Qwen2_5_VLForConditionalGeneration(config)
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["qwen3", "qwen2", "qwen2_5_vl"])
@pytest.mark.parametrize("tied", [True, False])
def test_parameter_count_matches_transformers(kind, tied, tmp_path):
    model = tiny(kind, tied)
    model.config.save_pretrained(tmp_path)
    shape = shape_from_config(read_config(tmp_path))
    unique = {id(p): p.numel() for p in model.parameters()}   # a tied embedding counts once
    assert shape.params == sum(unique.values())


def save(model, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory, safe_serialization=True)
    return directory


def megatron_save(actor: Path, model, step: int, dist_ckpt: bool = False) -> Path:
    """global_step_N/actor as verl 0.9.1's MegatronCheckpointManager.save_checkpoint leaves it (layout v2,
    the default contents model/optimizer/extra): with the bridge the HF export in model/huggingface/,
    with use_dist_checkpointing model shards in model/dist_ckpt/ (and no HF config); optimizer and rng
    shards; transformer_config.json; and ckpt_contents.json, written last."""
    if dist_ckpt:
        (actor / "model" / "dist_ckpt").mkdir(parents=True)
    else:
        save(model, actor / "model" / "huggingface")
    for part in ("optimizer", "extra"):
        (actor / part / "dist_ckpt").mkdir(parents=True)
        (actor / part / "dist_ckpt" / "metadata.json").write_text("{}")
    (actor / "transformer_config.json").write_text(json.dumps({"num_layers": model.config.num_hidden_layers}))
    model_entry = ({"path": "model/dist_ckpt", "format": "megatron_dist_checkpoint", "backend": "dist_checkpointing"}
                   if dist_ckpt else {"path": "model/huggingface", "format": "huggingface", "backend": "mbridge"})
    manifest = {"schema_version": 1, "framework": "megatron", "role": "actor", "global_step": step,
                "contents": {"model": model_entry, "optimizer": {"path": "optimizer/dist_ckpt"}}}
    (actor / "ckpt_contents.json").write_text(json.dumps(manifest))
    return actor


def run_dir(tmp_path: Path, model, step: int = 5) -> Path:
    run = tmp_path / "run"
    megatron_save(run / f"global_step_{step}" / "actor", model, step)
    (run / "latest_checkpointed_iteration.txt").write_text(str(step))
    return run


def test_bridge_export_is_copied_and_checked(tmp_path, capsys):
    model = tiny("qwen3", tied=False)
    run = run_dir(tmp_path, model)
    target = tmp_path / "hf"
    assert main(["merge", str(run), "--target-dir", str(target)]) == 0
    out = capsys.readouterr().out
    assert "step 5" in out and "ok: config and weights present" in out
    assert (target / "config.json").is_file()
    check = check_export(target)
    assert check.ok and check.params == sum(p.numel() for p in model.parameters())


def test_latest_step_and_explicit_step(tmp_path):
    model = tiny("qwen2", tied=True)
    run = run_dir(tmp_path, model, step=5)
    megatron_save(run / "global_step_10" / "actor", model, 10)
    assert find_checkpoint(run).step == 5          # the tracker file names the latest saved step
    assert find_checkpoint(run, step=10).step == 10
    assert find_checkpoint(run / "global_step_10").role_dir == run / "global_step_10" / "actor"


def test_missing_step_lists_the_saved_ones(tmp_path, capsys):
    run = run_dir(tmp_path, tiny("qwen2", tied=True))
    assert main(["merge", str(run), "--step", "7"]) == 2
    assert "the steps saved are global_step_5" in capsys.readouterr().err


def test_dropped_output_layer_is_caught(tmp_path, capsys):
    from safetensors.torch import save_file

    model = tiny("qwen3", tied=False)
    out = save(model, tmp_path / "hf")
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    (out / "model.safetensors").unlink()
    save_file(state, str(out / "model.safetensors"))
    assert main(["merge", str(out), "--check-only"]) == 2
    assert "lm_head is missing" in capsys.readouterr().err


def test_missing_shard_is_caught(tmp_path):
    out = save(tiny("qwen2", tied=True), tmp_path / "hf")
    index = {"metadata": {}, "weight_map": {"model.embed_tokens.weight": "model-00002-of-00002.safetensors"}}
    (out / "model.safetensors.index.json").write_text(json.dumps(index))
    check = check_export(out)
    assert any("missing or empty: model-00002-of-00002.safetensors" in p for p in check.problems)


def test_safetensors_header_counts(tmp_path):
    model = tiny("qwen2", tied=False)
    out = save(model, tmp_path / "hf")
    params, nbytes = safetensors_size(out / "model.safetensors")
    assert params == sum(p.numel() for p in model.parameters())
    assert nbytes == sum(p.numel() * p.element_size() for p in model.parameters())


def test_dist_ckpt_runs_verls_merger(tmp_path, capsys):
    actor = megatron_save(tmp_path / "run" / "global_step_3" / "actor", tiny("qwen2", tied=True), 3, dist_ckpt=True)
    tiny("qwen2", tied=True).config.save_pretrained(actor / "model" / "huggingface")
    assert main(["merge", str(actor.parent), "--target-dir", str(tmp_path / "out"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "-m verl.model_merger merge --backend megatron" in out
    assert f"--local_dir {actor}" in out and "--tie-word-embedding" in out


def test_old_layout_is_named(tmp_path, capsys):
    actor = tmp_path / "global_step_1" / "actor"
    (actor / "dist_ckpt").mkdir(parents=True)
    assert main(["merge", str(actor)]) == 2
    assert "migrate_megatron_checkpoint_layout" in capsys.readouterr().err


def test_base_model_mismatch(tmp_path):
    out = save(tiny("qwen2", tied=True), tmp_path / "hf")
    base = Path(__file__).resolve().parent / "fixtures" / "models" / "Qwen2.5-0.5B-Instruct"
    check = check_export(out, base_config=base)
    assert any("is not the base model's" in p for p in check.problems)


def test_fsdp_checkpoint_runs_verls_fsdp_merger(tmp_path, capsys):
    actor = tmp_path / "run" / "global_step_5" / "actor"
    actor.mkdir(parents=True)
    (actor / "model_world_size_2_rank_0.pt").write_bytes(b"x")
    (actor / "model_world_size_2_rank_1.pt").write_bytes(b"x")
    (actor / "fsdp_config.json").write_text(json.dumps({"FSDP_version": 2, "world_size": 2}))
    tiny("qwen2", tied=True).config.save_pretrained(actor / "huggingface")
    assert main(["merge", str(actor.parent.parent), "--target-dir", str(tmp_path / "out"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"FSDP shards in {actor}" in out
    assert f"-m verl.model_merger merge --backend fsdp --local_dir {actor}" in out
    assert "--tie-word-embedding" not in out


def test_cut_off_megatron_save_is_refused(tmp_path, capsys):
    """verl writes ckpt_contents.json after every shard of a Megatron save: without it (the run died while
    saving, or an async save is still running) the step is refused, not exported half-written."""
    model = tiny("qwen2", tied=True)
    run = run_dir(tmp_path, model, step=5)
    cut = megatron_save(run / "global_step_10" / "actor", model, 10)
    (cut / "ckpt_contents.json").unlink()
    assert main(["merge", str(run / "global_step_10"), "--target-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "has no ckpt_contents.json" in err and "--step" in err
    assert not (tmp_path / "out").exists()
    assert main(["merge", str(run), "--target-dir", str(tmp_path / "out")]) == 0   # the tracker's step 5 is whole


def test_truncated_safetensors_is_caught(tmp_path, capsys):
    """A weight file cut short (a copy or a save that died) keeps an intact header: the data must hold
    every tensor the header names."""
    out = save(tiny("qwen2", tied=True), tmp_path / "hf")
    weights = out / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1000])
    assert main(["merge", str(out), "--check-only"]) == 2
    assert "model.safetensors is not a readable safetensors file (the file is cut short" in capsys.readouterr().err
