"""verl checkpoints to Hugging Face weights: find the checkpoint, pick the export route, check the result.

verl 0.9.1's FSDP engine writes `global_step_N/{actor,critic}/model_world_size_W_rank_R.pt` shards with
`fsdp_config.json` and `huggingface/` (config and tokenizer; weights too when `checkpoint.save_contents`
asks for hf_model) -- converted by `python -m verl.model_merger merge --backend fsdp`.
Its Megatron engine writes the "v2" layout, `global_step_N/{actor,critic}/`:
- `model/huggingface/`: HF config and tokenizer, and the HF weights themselves when the model bridge
  saved them (the default: use_mbridge=true, use_dist_checkpointing=false) -- nothing to convert;
- `model/dist_ckpt/`: Megatron sharded weights (use_dist_checkpointing=true, or no bridge) -- converted
  by `python -m verl.model_merger merge --backend megatron`.
Older checkpoints put `huggingface/` and `dist_ckpt/` directly under `actor/` (the "v1" layout).
verl writes `ckpt_contents.json` into a v2 checkpoint last, "so its presence signals a fully-completed
save" (`MegatronCheckpointManager._write_checkpoint_manifest`): a v2 role directory without it is a
save that was cut off, and is refused rather than exported.

A merge "succeeds" only when the output has a config, weights that exist, and a parameter count close
to the one the config implies: a merger that silently drops a tensor (a missing lm_head, a skipped
shard) otherwise produces a model that loads and is wrong.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from .model import ModelConfigError, read_config, shape_from_config

TRACKER = "latest_checkpointed_iteration.txt"
MANIFEST = "ckpt_contents.json"      # verl's Megatron v2 checkpoint: written last, after every shard
WEIGHT_SUFFIXES = (".safetensors", ".bin")
DTYPE_BYTES = {"F64": 8, "F32": 4, "BF16": 2, "F16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I64": 8, "I32": 4,
               "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}
TOLERANCE = 0.02


class CheckpointError(ValueError):
    """The checkpoint cannot be found or exported (one sentence)."""


@dataclass
class Checkpoint:
    role_dir: Path                 # global_step_N/actor (or critic)
    step: int | None
    route: str                     # "huggingface" (weights already HF), "dist_ckpt" or "fsdp" (need the merger)
    hf_dir: Path                   # where the HF config (and, for "huggingface", weights) live


def _step_of(path: Path) -> int | None:
    match = re.fullmatch(r"global_step_(\d+)", path.name)
    return int(match.group(1)) if match else None


def find_checkpoint(path: str | Path, step: int | None = None, role: str = "actor") -> Checkpoint:
    """Resolve a run directory, a global_step_N directory or a role directory to one checkpoint."""
    path = Path(path).expanduser()
    if not path.exists():
        raise CheckpointError(f"{path} does not exist")
    if (path / TRACKER).is_file() or any(path.glob("global_step_*")):
        if step is None:
            step = _latest_step(path)
        path = path / f"global_step_{step}"
        if not path.is_dir():
            raise CheckpointError(f"{path} does not exist: the steps saved are "
                                  f"{', '.join(sorted(p.name for p in path.parent.glob('global_step_*'))) or 'none'}")
    if _step_of(path) is not None:
        if not (path / role).is_dir():
            raise CheckpointError(f"{path} has no {role}/ directory (found: "
                                  f"{', '.join(sorted(p.name for p in path.iterdir() if p.is_dir())) or 'nothing'})")
        path = path / role
    found_step = _step_of(path.parent)
    if (path / "model").is_dir() and not (path / MANIFEST).is_file():
        raise CheckpointError(f"{path} has no {MANIFEST}, which verl writes last when a Megatron checkpoint is "
                              f"complete: this save was cut off (or is still being written); pick an earlier "
                              f"step with --step")
    if (path / "model" / "huggingface").is_dir() and _has_weights(path / "model" / "huggingface"):
        return Checkpoint(path, found_step, "huggingface", path / "model" / "huggingface")
    if (path / "model" / "dist_ckpt").is_dir():
        if not (path / "model" / "huggingface" / "config.json").is_file():
            raise CheckpointError(f"{path}/model/huggingface/config.json is missing, and verl's merger reads the model's "
                                  f"config there: copy the base model's config.json and tokenizer into it")
        return Checkpoint(path, found_step, "dist_ckpt", path / "model" / "huggingface")
    if (path / "huggingface").is_dir() and _has_weights(path / "huggingface"):
        return Checkpoint(path, found_step, "huggingface", path / "huggingface")
    if (path / "fsdp_config.json").is_file() or any(path.glob("model_world_size_*_rank_0.pt")):
        if not (path / "huggingface" / "config.json").is_file():
            raise CheckpointError(f"{path}/huggingface/config.json is missing, and verl's merger reads the model's "
                                  f"config there: copy the base model's config.json and tokenizer into it")
        if path.name == "critic":
            raise CheckpointError(f"{path} is an FSDP critic: verl 0.9.1's merger converts value models only from "
                                  f"Megatron checkpoints")
        return Checkpoint(path, found_step, "fsdp", path / "huggingface")
    if (path / "dist_ckpt").is_dir():
        raise CheckpointError(f"{path} uses the pre-0.9 checkpoint layout (dist_ckpt/ directly under {path.name}/), "
                              f"which verl 0.9.1's merger does not read: convert it with verl's "
                              f"scripts/migrate_megatron_checkpoint_layout.py first")
    if _has_weights(path) and (path / "config.json").is_file():
        return Checkpoint(path, found_step, "huggingface", path)
    raise CheckpointError(f"no verl checkpoint in {path}: expected model_world_size_*_rank_0.pt shards (FSDP), "
                          f"or model/huggingface/ (bridge export) or model/dist_ckpt/ (Megatron) under a "
                          f"global_step_N/{role} directory")


def _latest_step(run_dir: Path) -> int:
    tracker = run_dir / TRACKER
    if tracker.is_file():
        text = tracker.read_text().strip()
        if text.isdigit():
            return int(text)
    steps = [s for s in (_step_of(p) for p in run_dir.glob("global_step_*")) if s is not None]
    if not steps:
        raise CheckpointError(f"{run_dir} has no global_step_N directories (set trainer.save_freq to save checkpoints)")
    return max(steps)


def _has_weights(directory: Path) -> bool:
    return any(p.suffix in WEIGHT_SUFFIXES and p.stat().st_size > 0 for p in directory.glob("*") if p.is_file())


def merger_argv(checkpoint: Checkpoint, target_dir: str | Path, python: str = "python3") -> list[str]:
    """verl's own merger for an FSDP or a Megatron dist_ckpt checkpoint."""
    backend = "fsdp" if checkpoint.route == "fsdp" else "megatron"
    argv = [python, "-m", "verl.model_merger", "merge", "--backend", backend,
            "--local_dir", str(checkpoint.role_dir), "--target_dir", str(target_dir)]
    if backend == "fsdp":
        return argv   # the FSDP merger reads tied embeddings from the config itself
    config = read_config(checkpoint.hf_dir)
    if config.get("tie_word_embeddings", False):
        argv.append("--tie-word-embedding")
    if checkpoint.role_dir.name == "critic":
        argv.append("--is-value-model")
    return argv


@dataclass
class ExportCheck:
    directory: Path
    params: int = 0                  # parameters counted in the weight files
    expected: int = 0                # parameters the config implies
    weight_bytes: int = 0
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_export(directory: str | Path, value_model: bool = False, base_config: str | Path | None = None) -> ExportCheck:
    """A merged directory must hold a config, weights, and as many parameters as the config implies."""
    directory = Path(directory).expanduser()
    check = ExportCheck(directory)
    try:
        config = read_config(directory)
        shape = shape_from_config(config)
    except ModelConfigError as exc:
        check.problems.append(f"{directory} has no usable config.json ({exc})")
        return check
    # A value model (the critic) has a one-output score head instead of the vocabulary output layer.
    check.expected = shape.params - shape.head_params + shape.hidden if value_model else shape.params
    if base_config is not None:
        base = shape_from_config(read_config(base_config))
        if (base.layers, base.hidden, base.heads, base.vocab) != (shape.layers, shape.hidden, shape.heads, shape.vocab):
            check.problems.append(f"the exported config.json ({shape.describe()}) is not the base model's ({base.describe()})")
    files = sorted(p for p in directory.iterdir() if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    check.files = [p.name for p in files]
    if not files:
        check.problems.append(f"{directory} has no weight files (*.safetensors or *.bin)")
        return check
    for index_name in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        index = directory / index_name
        if index.is_file():
            try:
                shards = set(json.loads(index.read_text())["weight_map"].values())
            except (OSError, ValueError, KeyError, TypeError) as exc:
                check.problems.append(f"{index_name} is unreadable ({exc})")
                continue
            missing = sorted(s for s in shards if not (directory / s).is_file() or (directory / s).stat().st_size == 0)
            if missing:
                check.problems.append(f"{index_name} names shard(s) that are missing or empty: {', '.join(missing)}")
    counted_all = True
    for path in files:
        if path.stat().st_size == 0:
            check.problems.append(f"{path.name} is empty")
            continue
        if path.suffix == ".safetensors":
            try:
                params, nbytes = safetensors_size(path)
            except ValueError as exc:
                check.problems.append(f"{path.name} is not a readable safetensors file ({exc})")
                continue
            check.params += params
            check.weight_bytes += nbytes
        else:
            counted_all = False
            check.weight_bytes += path.stat().st_size
    if not counted_all:
        check.params = check.weight_bytes // 2   # .bin files cannot be read without torch: assume bf16
        check.notes.append("parameters of .bin files estimated from their size at 2 bytes each")
    if check.params and check.expected:
        ratio = check.params / check.expected
        if abs(ratio - 1) > TOLERANCE:
            missing_head = not shape.tie_embeddings and math.isclose(check.params, check.expected - shape.head_params, rel_tol=TOLERANCE)
            why = (" (the output layer lm_head is missing: were the weights merged with --tie-word-embedding for an "
                   "untied model?)") if missing_head else ""
            check.problems.append(f"the weights hold {check.params / 1e9:.3f} B parameters but the config implies "
                                  f"{check.expected / 1e9:.3f} B ({ratio:.1%}){why}")
        per_param = check.weight_bytes / check.params
        if not 0.9 <= per_param <= 4.1:
            check.problems.append(f"{per_param:.2f} bytes per parameter is not a plausible weight dtype")
    if not any((directory / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json", "vocab.json")):
        check.notes.append("no tokenizer files: copy them from the base model before serving this directory")
    return check


def safetensors_size(path: Path) -> tuple[int, int]:
    """(parameters, bytes) of a safetensors file, read from its JSON header without loading tensors."""
    with path.open("rb") as handle:
        head = handle.read(8)
        if len(head) != 8:
            raise ValueError("too short")
        (length,) = struct.unpack("<Q", head)
        if length > 100_000_000:
            raise ValueError("header length is implausible")
        header = json.loads(handle.read(length))  # a ValueError (UnicodeDecodeError too) when not JSON
    if not isinstance(header, dict):
        raise ValueError(f"the header is a JSON {type(header).__name__}, not an object")
    params = nbytes = 0
    data_bytes = path.stat().st_size - 8 - length
    for name, info in header.items():
        if name == "__metadata__":
            continue
        shape, offsets = _tensor_fields(name, info)
        count = math.prod(shape) if shape else 1
        params += count
        start, end = offsets
        nbytes += end - start
        if info["dtype"] in DTYPE_BYTES and end - start != count * DTYPE_BYTES[info["dtype"]]:
            raise ValueError(f"tensor {name} has {end - start} bytes for {count} {info['dtype']} values")
        if end > data_bytes:
            raise ValueError(f"the file is cut short: tensor {name} ends at byte {end} of the data, which holds "
                             f"{data_bytes}")
    return params, nbytes


def _tensor_fields(name: str, info) -> tuple[list[int], list[int]]:
    """A tensor entry's shape and data offsets, checked (a malformed header is a ValueError naming it)."""
    def counts(value) -> bool:
        return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                               for v in value)

    if not isinstance(info, dict) or not isinstance(info.get("dtype"), str):
        raise ValueError(f"tensor {name!r} has no dtype")
    shape, offsets = info.get("shape"), info.get("data_offsets")
    if not counts(shape):
        raise ValueError(f"tensor {name!r} has no valid shape ({shape!r})")
    if not counts(offsets) or len(offsets) != 2 or offsets[1] < offsets[0]:
        raise ValueError(f"tensor {name!r} has no valid data_offsets ({offsets!r})")
    return shape, offsets
