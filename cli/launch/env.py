"""The GPU-side software a run needs, checked against the versions verl 0.9.1 itself pins.

verl declares its tested versions in its package metadata (extras `megatron`, `sglang`, `vllm`:
megatron-bridge, the rollout engine, torch, transformers). On the planning machine these are usually
absent, which is fine (a note); on the node that launches, a missing package stops the launch and a
version other than verl's pin is a warning (the unpinned-bridge breakages users hit).

The Megatron engine builds every model with TransformerEngine layers (both bridges ask Megatron-Core
for its TE layer spec), and verl sets Megatron's `attention_backend=flash`, which makes
TransformerEngine use the flash-attn package only: without flash-attn installed the first forward
stops with "No dot product attention backend is available". `attention_backend=fused` (cuDNN,
inside TransformerEngine) needs nothing more. verl 0.9.1's `megatron` extra pins megatron-bridge
0.5.2, a version PyPI does not have (it has 0.5.1 and 0.6.x); mbridge (`vanilla_mbridge=true`) is
the bridge with the fewest dependencies (megatron-core, transformers, safetensors, einops).
docs/launcher.md and docs/launcher-reference.md list what a node needs.

verl pins no megatron-core, mbridge or TransformerEngine version. The set below is the one that ran
verl 0.9.1's Megatron GRPO (docs/measurements.md, "Node software"); mbridge 0.15.1 calls
`ModelType.encoder_and_decoder`, which megatron-core 0.17 removed, so with mbridge a newer
megatron-core fails when the first model is built, after the cluster is up.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, requires, version
from typing import Any

from .findings import Finding, error, note, warning
from .parallel import need_critic


@dataclass(frozen=True)
class Requirement:
    package: str
    why: str
    pinned: str | None       # the version verl pins for this run's extras, if it pins one
    installed: str | None


UNPUBLISHED_BRIDGE_PIN = "0.5.2"   # verl 0.9.1's megatron-bridge pin; PyPI has 0.5.0, 0.5.1 and 0.6.x
RAN_WITH = {"megatron-core": "0.16.1", "mbridge": "0.15.1", "transformer-engine": "2.20.2"}
MBRIDGE_LAST_CORE = (0, 16)   # mbridge 0.15.1 needs ModelType.encoder_and_decoder, gone in megatron-core 0.17
BRIDGE_RAN = {"megatron-bridge": "0.6.2", "megatron-core": "0.19.2"}   # Megatron-Bridge 0.6.2 imports 0.17+ names


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


FLASH_ATTN_WHY = "attention kernels of verl's FSDP actor (flash_attention_2, padding-free batches) and critic"


def needs_flash_attn(cfg: Any) -> bool:
    """verl 0.9.1's FSDP workers build the HF model with `override_config.attn_implementation`, defaulting
    to flash_attention_2; remove-padding batches unpad with flash-attn's kernels."""
    if cfg.critic.get("enable"):
        return True   # verl.utils.model:load_valuehead_model asks for flash_attention_2 whatever the config says
    model = cfg.actor_rollout_ref.model
    return ((model.get("override_config") or {}).get("attn_implementation", "flash_attention_2") == "flash_attention_2"
            or bool(model.get("use_remove_padding")))


def bridge_of(megatron: Any) -> str | None:
    """The model bridge a Megatron role's `megatron` section builds through: "mbridge"
    (`vanilla_mbridge=true`), "megatron-bridge" (verl's default), or None (`use_mbridge=false`)."""
    megatron = megatron or {}
    if not megatron.get("use_mbridge", True):
        return None
    return "mbridge" if megatron.get("vanilla_mbridge") else "megatron-bridge"


FUSED_LOGPROBS = "actor_rollout_ref.model.use_fused_kernels"


def wants_fused_logprobs(cfg: Any, overrides: Any) -> bool:
    """Whether the launcher turns on verl's fused log-prob kernels (torch backend) for an FSDP actor.

    Without flash-attn, verl 0.9.1 computes each token's log-probability in its own Python iteration
    (`logprobs_from_logits_v2`, its fallback for flash-attn's cross-entropy): about 480,000 small ops an
    update for 256 short responses, seconds of kernel launches whatever the model's size. The fused path
    computes log-probs and entropy from the hidden states in 512-token chunks, in fp32. A run set up
    without flash-attn gets it unless the preset or the user set the key; verl refuses it beside
    `calculate_sum_pi_squared`."""
    actor = cfg.actor_rollout_ref.actor
    return (str(actor.strategy) != "megatron" and not needs_flash_attn(cfg)
            and not actor.get("calculate_sum_pi_squared") and overrides.get(FUSED_LOGPROBS) is None)


GRAD_FUSION = "megatron.override_transformer_config.gradient_accumulation_fusion"


def bridge_fusion_keys(cfg: Any, overrides: Any) -> list[str]:
    """The gradient_accumulation_fusion keys the launcher sets false: one per Megatron role built by
    Megatron-Bridge that does not set it. Megatron-Bridge's model providers turn the fusion on, and it
    needs Apex's `fused_weight_gradient_mlp_cuda`; without Apex the model build stops ("ColumnParallelLinear
    was called with gradient_accumulation_fusion set to True ...": the H200 rehearsal of the
    vision-language Megatron preset). mbridge leaves it off. The reference copies the actor's settings."""
    roles = ["actor_rollout_ref.actor"] + (["critic"] if need_critic(cfg) else [])
    keys = []
    for role in roles:
        section = cfg.critic if role == "critic" else cfg.actor_rollout_ref.actor
        if (str(section.get("strategy")) == "megatron" and bridge_of(section.get("megatron")) == "megatron-bridge"
                and overrides.get(f"{role}.{GRAD_FUSION}") is None):
            keys.append(f"{role}.{GRAD_FUSION}")
    return keys


VISION_MODEL_TYPES = ("qwen2_5_vl", "qwen2_vl")
VISION_NEEDS = (("torchvision", "Qwen2.5-VL's processor (transformers builds its video processor with it)"),
                ("qwen-vl-utils", "verl's image loading for vision-language rows"),
                ("pydantic-extra-types", "imported by vLLM's tokenizer module (mistral_common) when a "
                                         "vision-language processor loads: the H200 rehearsal stopped without it"))


# Megatron-Bridge writes every checkpoint's weights as a Hugging Face folder (verl saves "model" through the
# bridge unless use_dist_checkpointing is on), and its save_hf_weights imports NVIDIA's model optimizer,
# which imports pulp and scipy: the H200 rehearsal of the vision-language Megatron preset trained its step
# and stopped at the first checkpoint on each in turn. mbridge's save needs none of them.
BRIDGE_SAVE_NEEDS = (("nvidia-modelopt", "Megatron-Bridge's checkpoint save (save_hf_weights imports modelopt)"),
                     ("pulp", "imported by nvidia-modelopt"), ("scipy", "imported by nvidia-modelopt"))


def requirements(cfg: Any, vision: bool = False) -> list[Requirement]:
    if str(cfg.actor_rollout_ref.actor.strategy) != "megatron":   # FSDP: torch and transformers train
        needed = [("torch", "everything"), ("transformers", "FSDP training engine")]
        if vision:
            needed += VISION_NEEDS
        if needs_flash_attn(cfg):
            needed.append(("flash-attn", FLASH_ATTN_WHY))
        rollout = str(cfg.actor_rollout_ref.rollout.get("name") or "")
        if rollout in ("vllm", "sglang"):
            needed.append((rollout, "rollout engine"))
        pins = verl_pins()
        return [Requirement(name, why, pins.get(name), _installed(name)) for name, why in needed]
    megatron = cfg.actor_rollout_ref.actor.megatron
    needed = [("megatron-core", "Megatron training engine"),
              ("transformer-engine", "Megatron's layers (the TE layer spec both bridges build)"),
              ("torch", "everything")]
    bridge = bridge_of(megatron)
    if bridge is not None:
        needed.append((bridge, "HF <-> Megatron model bridge (use_mbridge=true)" if bridge == "megatron-bridge"
                       else "legacy model bridge (vanilla_mbridge=true)"))
    if bridge == "megatron-bridge":
        needed += BRIDGE_SAVE_NEEDS
    if vision:
        needed += VISION_NEEDS
    if flash_attention_roles(cfg):
        needed.append(("flash-attn", f"TransformerEngine attention with attention_backend=flash "
                                     f"({', '.join(flash_attention_roles(cfg))}); attention_backend=fused needs none"))
    rollout = str(cfg.actor_rollout_ref.rollout.get("name") or "")
    if rollout in ("vllm", "sglang"):
        needed.append((rollout, "rollout engine"))
    pins = {**RAN_WITH, **verl_pins(),
            **({"megatron-core": BRIDGE_RAN["megatron-core"]} if bridge == "megatron-bridge" else {})}
    return [Requirement(name, why, pins.get(name), _installed(name)) for name, why in needed]


def megatron_defaults(trains_critic: bool) -> dict[str, Any]:
    """The bridge and attention the launcher picks for Megatron roles, which a preset or the user may
    override: mbridge (verl's default, Megatron-Bridge, is pinned at 0.5.2, which PyPI lacks, and 0.6
    pulls dozens of packages) and TransformerEngine's cuDNN attention (`fused`; verl's default, `flash`,
    needs the flash-attn package). The reference copies the actor's settings."""
    roles = ["actor_rollout_ref.actor"] + (["critic"] if trains_critic else [])
    return {f"{role}.megatron.{key}": value for role in roles
            for key, value in (("vanilla_mbridge", True), ("override_transformer_config.attention_backend", "fused"))}


def _release(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _bridge_mismatch(reqs: list[Requirement]) -> Finding | None:
    """mbridge with a megatron-core it cannot build models with (seen: 0.19.2)."""
    found = {r.package: r.installed for r in reqs if r.installed}
    core = found.get("megatron-core")
    if "mbridge" not in found or core is None or _release(core) <= MBRIDGE_LAST_CORE:
        return None
    return error("versions", f"megatron-core {core} is installed here, but mbridge {found['mbridge']} calls "
                             f"ModelType.encoder_and_decoder, which megatron-core 0.17 removed: verl stops with "
                             f"AttributeError when it builds the model; install megatron-core=={RAN_WITH['megatron-core']}")


def tied_critic_finding(cfg: Any, tied: bool) -> Finding | None:
    """A Megatron critic on mbridge cannot load a model whose output layer is its embedding.

    verl 0.9.1 builds a value model untied (a value head cannot share the vocabulary embedding), so
    mbridge 0.15.1 maps the output layer to `lm_head.weight` and reads it from the checkpoint before
    discarding it for the value head; a tied checkpoint (Qwen2.5-0.5B, Qwen3-0.6B) has no such tensor.
    Seen on an H200 rehearsal of qwen2.5-0.5b-ppo: `Weights {'lm_head.weight'} not found`."""
    megatron = cfg.critic.get("megatron") or {}
    if (not tied or not need_critic(cfg) or str(cfg.critic.get("strategy")) != "megatron"
            or bridge_of(megatron) != "mbridge" or megatron.get("use_dist_checkpointing")):
        return None
    return error("critic-weights", "the Megatron critic loads through mbridge, which reads lm_head.weight, and "
                                   "this model ties its output layer to the embedding (no lm_head.weight saved): "
                                   "verl stops at the critic's load; give the critic an untied copy "
                                   "(`rewards untie MODEL OUT`, then critic.model.path=OUT) or set "
                                   "critic.megatron.vanilla_mbridge=false (Megatron-Bridge)")


def vl_bridge_finding(cfg: Any, model_type: str) -> Finding | None:
    """mbridge 0.15.1 cannot build Qwen2.5-VL under transformers 5, which verl 0.9.1 requires: its model
    reads `hf_config.rope_scaling`, which a transformers 5 Qwen2.5-VL config no longer answers (it raises
    AttributeError: no attribute 'rope_parameters'; seen on an H200 rehearsal, and on CPU with 5.10)."""
    actor = cfg.actor_rollout_ref.actor
    if (str(actor.strategy) != "megatron" or model_type not in VISION_MODEL_TYPES
            or bridge_of(actor.get("megatron")) != "mbridge"):
        return None
    return error("bridge", f"mbridge cannot build a {model_type} model under transformers 5 (verl 0.9.1's pin): "
                           f"it reads config.rope_scaling and stops with AttributeError 'rope_parameters'; set "
                           f"actor_rollout_ref.actor.megatron.vanilla_mbridge=false (Megatron-Bridge) or train it "
                           f"with FSDP (qwen2.5-vl-3b-geo3k-grpo)")


def flash_attention_roles(cfg: Any) -> list[str]:
    """The attention_backend keys to set for no Megatron role to run TransformerEngine's flash-attn
    backend (verl's default). The reference copies the actor's transformer overrides, so it is named
    only when it was given its own."""
    def backend(section: Any) -> str:
        overrides = (section.get("megatron") or {}).get("override_transformer_config") or {}
        return str(overrides.get("attention_backend", "flash"))

    key = "{}.megatron.override_transformer_config.attention_backend"
    actor, ref = cfg.actor_rollout_ref.actor, cfg.actor_rollout_ref.ref
    roles = [key.format("actor_rollout_ref.actor")] if backend(actor) == "flash" else []
    if backend(ref) == "flash" and not roles:
        roles.append(key.format("actor_rollout_ref.ref"))
    if need_critic(cfg) and backend(cfg.critic) == "flash":
        roles.append(key.format("critic"))
    return roles


def _advice(r: Requirement) -> str:
    """What to install: verl's pin when PyPI has it."""
    if r.package == "megatron-bridge" and r.pinned == UNPUBLISHED_BRIDGE_PIN:
        return (f"verl 0.9.1 pins megatron-bridge=={r.pinned}, which PyPI does not have; megatron-bridge=="
                f"{BRIDGE_RAN['megatron-bridge']} installs with --no-deps beside megatron-core=="
                f"{BRIDGE_RAN['megatron-core']} (docs/launcher-reference.md lists the rest), or a text model can use mbridge "
                f"with actor_rollout_ref.actor.megatron.vanilla_mbridge=true")
    return f"install {r.package}=={r.pinned}"


# pip's own answer to `pip install "verl[sglang]==0.9.1"` (resolved on CPU for CPython 3.12, 2026-11-27).
SGLANG_PIN_CONFLICT = ("pip cannot install verl 0.9.1's sglang extra: it pins sglang 0.5.12, which pins "
                       "transformers==5.6.0, a version verl itself excludes (it wants 5.9.0); install sglang "
                       "with --no-deps beside transformers 5.9.0 (so installed, it ran this preset's smoke on "
                       "H200s; docs/launcher-reference.md lists the wheels), or roll out with "
                       "actor_rollout_ref.rollout.name=vllm")


def check_environment(cfg: Any, launching: bool, vision: bool = False) -> tuple[list[Finding], list[str]]:
    """(findings, missing package names); `launching` means this machine is the one that will train;
    `vision`: the model is a vision-language one."""
    findings: list[Finding] = []
    reqs = requirements(cfg, vision)
    missing = [r.package for r in reqs if r.installed is None]
    mismatch = _bridge_mismatch(reqs) if launching else None
    if mismatch is not None:
        findings.append(mismatch)
    for r in reqs if launching else ():   # the planning machine's own versions do not matter
        if (r.installed and r.pinned and r.installed.split("+")[0] != r.pinned
                and (mismatch is None or r.package != "megatron-core")):
            source = "verl 0.9.1 pins" if r.pinned == verl_pins().get(r.package) else "the measured run used"
            findings.append(warning("versions", f"{r.package} {r.installed} is installed here but {source} "
                                                f"{r.pinned} ({r.why}); if workers fail to start, {_advice(r)}"))
    if missing and not launching:
        absent = [r for r in reqs if r.installed is None]
        unpublished = [r for r in absent if r.package == "megatron-bridge" and r.pinned == UNPUBLISHED_BRIDGE_PIN]
        pinned = ", ".join(f"{r.package}=={r.pinned}" for r in absent if r.pinned and r not in unpublished)
        findings.append(note("versions", f"not installed on this machine, needed on the GPU nodes: {', '.join(missing)}"
                                         + (f" (versions that ran: {pinned})" if pinned else "")
                                         + (f"; {_advice(unpublished[0])}" if unpublished else "")))
    sglang = next((r for r in reqs if r.package == "sglang"), None)
    if sglang is not None and sglang.installed is None:
        findings.append(note("sglang", SGLANG_PIN_CONFLICT))
    flash = flash_attention_roles(cfg) if str(cfg.actor_rollout_ref.actor.strategy) == "megatron" else []
    if flash and not any(r.package == "flash-attn" and r.installed for r in reqs):
        findings.append(note("attention", f"verl sets Megatron's attention_backend=flash, which makes TransformerEngine "
                                          f"use the flash-attn package only; where flash-attn is not installed set "
                                          f"{'=fused, '.join(flash)}=fused (cuDNN attention inside TransformerEngine)"))
    return findings, missing


def missing_sentence(missing: list[str], cfg: Any) -> str:
    """One sentence naming what this machine lacks to train, with flash-attn's way around it where there is
    one: Megatron's attention_backend=fused, FSDP's sdpa without padding-free batches; none for verl 0.9.1's
    FSDP critic (measured on an H100)."""
    strategy = str(cfg.actor_rollout_ref.actor.strategy)
    text = f"this machine lacks {', '.join(missing)}, which verl's {strategy} engine needs to train"
    if "flash-attn" not in missing:
        return text
    if strategy == "megatron":
        roles = flash_attention_roles(cfg)
        return text + f" (flash-attn: or set {'=fused, '.join(roles)}=fused, cuDNN attention inside TransformerEngine)"
    if cfg.critic.get("enable"):
        return text + " (verl 0.9.1's FSDP critic loads its value model with flash_attention_2 whatever the config says)"
    return text + (" (flash-attn: or run without it, with +actor_rollout_ref.model.override_config.attn_implementation=sdpa "
                   "actor_rollout_ref.model.use_remove_padding=false)")
