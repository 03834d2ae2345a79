"""Launch presets: known-good verl recipes kept as YAML data files in `cli/presets/`.

A preset names a model, a data set, a cluster shape, the training strategy (verl's `megatron`, or
`fsdp`/`fsdp2`) and the verl overrides of a recipe. A preset may
`extend` another and change only what differs (the Dr. GRPO preset is the GRPO preset with three
keys changed). `model_config` holds the model's published config.json fields, used by the planner
only when the model's own config.json is not on this machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PRESET_DIR = Path(__file__).resolve().parent.parent / "presets"
STRATEGIES = ("fsdp", "fsdp2", "megatron")
_FIELDS = {"extends", "description", "strategy", "model", "model_config", "train_files", "val_files", "nnodes",
           "n_gpus_per_node", "gpu_memory_gb", "reward_kwargs", "overrides"}


class PresetError(ValueError):
    """A preset cannot be found or read (one sentence)."""


@dataclass
class Preset:
    name: str
    description: str
    model: str
    train_files: str
    val_files: str
    strategy: str = "megatron"
    nnodes: int = 1
    n_gpus_per_node: int = 8
    gpu_memory_gb: float = 80.0
    model_config: dict[str, Any] = field(default_factory=dict)
    reward_kwargs: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


class _Loader(yaml.SafeLoader):
    """YAML 1.1 reads `1e-6` as a string; recipes write learning rates that way, so read them as floats."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\d[\d_]*)?\.?\d*[eE][-+]?\d+$|^[-+]?(\d[\d_]*)?\.\d+$|^[-+]?\d[\d_]*\.$"),
    list("-+0123456789."),
)


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def list_presets() -> list[Preset]:
    return [load_preset(name) for name in preset_names()]


def load_preset(name_or_path: str) -> Preset:
    """A preset by name (`qwen3-0.6b-grpo`) or by the path of a YAML file written the same way."""
    raw = _resolved(name_or_path, seen=())
    path = raw.pop("__path__")
    missing = [key for key in ("model", "train_files", "val_files") if not raw.get(key)]
    if missing:
        raise PresetError(f"preset {path} does not set {', '.join(missing)}")
    strategy = str(raw.get("strategy", "megatron"))
    if strategy not in STRATEGIES:
        raise PresetError(f"preset {path}: strategy {strategy!r} is not one of {', '.join(STRATEGIES)}")
    return Preset(name=path.stem, path=path, description=str(raw.get("description", "")).strip(),
                  strategy=strategy, model=str(raw["model"]), train_files=str(raw["train_files"]), val_files=str(raw["val_files"]),
                  nnodes=int(raw.get("nnodes", 1)), n_gpus_per_node=int(raw.get("n_gpus_per_node", 8)),
                  gpu_memory_gb=float(raw.get("gpu_memory_gb", 80)),
                  model_config=dict(raw.get("model_config") or {}),
                  reward_kwargs=dict(raw.get("reward_kwargs") or {}),
                  overrides=dict(raw.get("overrides") or {}))


def _resolved(name_or_path: str, seen: tuple[str, ...]) -> dict[str, Any]:
    path = _locate(name_or_path)
    if str(path) in seen:
        raise PresetError(f"preset {path} extends itself through {' -> '.join(seen)}")
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise PresetError(f"preset {path} is not valid YAML: {getattr(exc, 'problem', None) or exc}{where}") from None
    if not isinstance(raw, dict):
        raise PresetError(f"preset {path} must be a YAML mapping")
    unknown = set(raw) - _FIELDS
    if unknown:
        raise PresetError(f"preset {path} has unknown field(s) {', '.join(sorted(unknown))}; "
                          f"known fields: {', '.join(sorted(_FIELDS))}")
    if not isinstance(raw.get("overrides") or {}, dict):
        raise PresetError(f"preset {path}: `overrides` must be a mapping of verl keys to values")
    base = raw.pop("extends", None)
    if base:
        parent = _resolved(str(base), seen + (str(path),))
        merged_overrides = {**(parent.get("overrides") or {}), **(raw.get("overrides") or {})}
        merged_kwargs = {**(parent.get("reward_kwargs") or {}), **(raw.get("reward_kwargs") or {})}
        raw = {**parent, **raw, "overrides": merged_overrides, "reward_kwargs": merged_kwargs}
    raw["__path__"] = path
    return raw


def _locate(name_or_path: str) -> Path:
    candidate = Path(name_or_path).expanduser()
    if candidate.suffix in (".yaml", ".yml"):
        if candidate.is_file():
            return candidate
        raise PresetError(f"preset file {candidate} does not exist")
    builtin = PRESET_DIR / f"{name_or_path}.yaml"
    if builtin.is_file():
        return builtin
    import difflib
    names = preset_names()
    close = difflib.get_close_matches(name_or_path, names, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise PresetError(f"no preset named {name_or_path!r}{hint} (known presets: {', '.join(names)}; "
                      f"or give the path of a preset .yaml file)")
