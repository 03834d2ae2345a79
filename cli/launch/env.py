"""The GPU-side software a run needs, checked against the versions verl 0.9.1 itself pins.

verl declares its tested versions in its package metadata (extras `megatron`, `sglang`, `vllm`:
megatron-bridge, the rollout engine, torch, transformers). On the planning machine these are usually
absent, which is fine (a note); on the node that launches, a missing package stops the launch and a
version other than verl's pin is a warning (the unpinned-bridge breakages users hit).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, requires, version
from typing import Any

from .findings import Finding, note, warning


@dataclass(frozen=True)
class Requirement:
    package: str
    why: str
    pinned: str | None       # the version verl pins for this run's extras, if it pins one
    installed: str | None


def verl_pins() -> dict[str, str]:
    """`name -> version` for every `name==version` in verl's megatron/sglang/vllm extras."""
    pins: dict[str, str] = {}
    try:
        lines = requires("verl") or []
    except PackageNotFoundError:
        return pins
    for line in lines:
        spec, _, marker = line.partition(";")
        if "==" in spec and any(f'extra == "{e}"' in marker for e in ("megatron", "sglang", "vllm")):
            name, pinned = spec.split("==", 1)
            pins[name.strip().lower()] = pinned.strip()
    return pins


def _installed(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


FLASH_ATTN_WHY = ("attention kernels: verl's FSDP engine sets the model's attention to flash_attention_2 unless "
                  "+actor_rollout_ref.model.override_config.attn_implementation=sdpa, and its padding-free "
                  "batches (use_remove_padding) use flash-attn too; without it, set both that and "
                  "actor_rollout_ref.model.use_remove_padding=false")


def needs_flash_attn(cfg: Any) -> bool:
    """verl 0.9.1's FSDP workers build the HF model with `override_config.attn_implementation`, defaulting
    to flash_attention_2; remove-padding batches unpad with flash-attn's kernels."""
    models = [cfg.actor_rollout_ref.model] + ([cfg.critic.model] if cfg.critic.get("enable") else [])
    return any((model.get("override_config") or {}).get("attn_implementation", "flash_attention_2")
               == "flash_attention_2" or bool(model.get("use_remove_padding")) for model in models)


def requirements(cfg: Any) -> list[Requirement]:
    if str(cfg.actor_rollout_ref.actor.strategy) != "megatron":   # FSDP: torch and transformers train
        needed = [("torch", "everything"), ("transformers", "FSDP training engine")]
        if needs_flash_attn(cfg):
            needed.append(("flash-attn", FLASH_ATTN_WHY))
        rollout = str(cfg.actor_rollout_ref.rollout.get("name") or "")
        if rollout in ("vllm", "sglang"):
            needed.append((rollout, "rollout engine"))
        pins = verl_pins()
        return [Requirement(name, why, pins.get(name), _installed(name)) for name, why in needed]
    megatron = cfg.actor_rollout_ref.actor.megatron
    needed = [("megatron-core", "Megatron training engine"), ("transformer-engine", "Megatron kernels"),
              ("torch", "everything")]
    if megatron.get("use_mbridge", True):
        needed.append(("mbridge", "legacy model bridge (vanilla_mbridge=true)") if megatron.get("vanilla_mbridge")
                      else ("megatron-bridge", "HF <-> Megatron model bridge (use_mbridge=true)"))
    rollout = str(cfg.actor_rollout_ref.rollout.get("name") or "")
    if rollout in ("vllm", "sglang"):
        needed.append((rollout, "rollout engine"))
    pins = verl_pins()
    return [Requirement(name, why, pins.get(name), _installed(name)) for name, why in needed]


def check_environment(cfg: Any, launching: bool) -> tuple[list[Finding], list[str]]:
    """(findings, missing package names); `launching` means this machine is the one that will train."""
    findings: list[Finding] = []
    reqs = requirements(cfg)
    missing = [r.package for r in reqs if r.installed is None]
    for r in reqs if launching else ():   # the planning machine's own versions do not matter
        if r.installed and r.pinned and r.installed.split("+")[0] != r.pinned:
            findings.append(warning("versions", f"{r.package} {r.installed} is installed here but verl 0.9.1 pins "
                                                f"{r.pinned} ({r.why}); if workers fail to start, install "
                                                f"{r.package}=={r.pinned}"))
    if missing and not launching:
        pins = verl_pins()
        pinned = ", ".join(f"{m}=={pins[m]}" for m in missing if m in pins)
        findings.append(note("versions", f"not installed on this machine, needed on the GPU nodes: {', '.join(missing)}"
                                         + (f" (verl 0.9.1 pins {pinned})" if pinned else "")))
    return findings, missing


def missing_sentence(missing: list[str], strategy: str) -> str:
    """One sentence naming what this machine lacks to train, with flash-attn's way around it."""
    text = f"this machine lacks {', '.join(missing)}, which verl's {strategy} engine needs to train"
    if "flash-attn" in missing:
        text += (" (flash-attn: or run without it, with +actor_rollout_ref.model.override_config.attn_implementation=sdpa "
                 "actor_rollout_ref.model.use_remove_padding=false, and the same two for critic.model with a critic)")
    return text
