"""`rewards untie`: a copy of a tied-embedding model whose output layer is saved as its own tensor.

verl 0.9.1 builds a Megatron critic untied (a value head cannot share the vocabulary embedding), and
mbridge 0.15.1 then reads `lm_head.weight` from the checkpoint, which a tied model never saved. The
copy adds that tensor (the embedding's values, so the language model is unchanged) and says
`tie_word_embeddings: false`; the plan's `critic-weights` error points here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .errors import CommandError

HEAD = "lm_head.weight"
HEAD_FILE = "lm_head.safetensors"
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"   # loaders read this file alone when it exists, so the copy renames it


def register(sub) -> None:
    p = sub.add_parser(
        "untie", help="copy a tied-embedding model with its output layer saved (for a Megatron critic)",
        description="Copy MODEL (a local Hugging Face folder with safetensors weights) to OUT with "
                    "lm_head.weight saved as its own tensor (the embedding's values) and tie_word_embeddings "
                    "false. The language model is unchanged; verl's Megatron critic on mbridge can then load "
                    "it (critic.model.path=OUT). Weight files are hard-linked where the disk allows.")
    p.add_argument("model", metavar="MODEL", help="the tied model's folder")
    p.add_argument("output", metavar="OUT", help="where to write the copy (created; must not exist or be empty)")
    p.set_defaults(func=run)


def run(args) -> int:
    summary = write_untied(Path(args.model).expanduser(), Path(args.output).expanduser())
    print(json.dumps(summary))
    return 0


def write_untied(src: Path, out: Path) -> dict:
    from safetensors import safe_open
    from safetensors.torch import save_file

    config_path = src / "config.json"
    shards = sorted(p.name for p in src.glob("*.safetensors"))
    if not config_path.is_file() or not shards:
        raise CommandError(f"{src}: not a local model folder with config.json and safetensors weights "
                           f"(download a hub model first)")
    if out.exists() and any(out.iterdir()):
        raise CommandError(f"{out}: exists and is not empty")
    weight_map = {}
    for shard in shards:
        with safe_open(src / shard, framework="pt") as f:
            weight_map.update({key: shard for key in f.keys()})
    if HEAD in weight_map:
        raise CommandError(f"{src}: already saves {HEAD}; it needs no untied copy")
    embedding = _embedding_key(weight_map)
    if embedding is None:
        raise CommandError(f"{src}: no *embed_tokens.weight tensor to copy into {HEAD}")
    out.mkdir(parents=True, exist_ok=True)
    renamed = {SINGLE: "model-00001-of-00001.safetensors"} if SINGLE in shards else {}
    for item in src.iterdir():
        if item.is_file() and item.name not in ("config.json", INDEX):
            _link_or_copy(item, out / renamed.get(item.name, item.name))
    weight_map = {key: renamed.get(shard, shard) for key, shard in weight_map.items()}
    with safe_open(out / weight_map[embedding], framework="pt") as f:
        head = f.get_tensor(embedding).clone()
    save_file({HEAD: head}, str(out / HEAD_FILE), metadata={"format": "pt"})
    weight_map[HEAD] = HEAD_FILE
    (out / INDEX).write_text(json.dumps({"metadata": {}, "weight_map": dict(sorted(weight_map.items()))}, indent=2))
    config = json.loads(config_path.read_text())
    config["tie_word_embeddings"] = False
    if isinstance(config.get("text_config"), dict):
        config["text_config"]["tie_word_embeddings"] = False
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return {"model": str(src), "output": str(out), "copied_from": embedding, "shape": list(head.shape)}


def _embedding_key(weight_map: dict) -> str | None:
    keys = [k for k in weight_map if k.endswith("embed_tokens.weight") and "visual" not in k]
    return min(keys, key=len) if keys else None


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
