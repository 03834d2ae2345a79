"""A preset's engine settings carried over when it runs on verl's other engine (`--strategy`).

verl spells the same intent differently on its two engines. Offload is `{role}.fsdp_config.*` (the
critic's `critic.fsdp.*`) on FSDP and `{role}.megatron.*` on Megatron. Gradient checkpointing is
`{model}.enable_gradient_checkpointing` on FSDP, which the Megatron engine never reads; Megatron's
is activation recompute, `{role}.megatron.override_transformer_config.recompute_granularity=full`
with `recompute_method=uniform` and `recompute_num_layers=1` (what the Megatron presets set). Without
this, an FSDP preset run with `--strategy megatron` would silently lose its checkpointing and
offload (and the memory plan with them), and the reverse likewise. Settings with no counterpart
(Ulysses, `fsdp_size`, selective recompute, pipeline sizes) are left out and listed by the plan.
"""

from __future__ import annotations

from typing import Any

OFFLOAD = ("param_offload", "optimizer_offload")
RECOMPUTE = "override_transformer_config.recompute_granularity"
FULL_RECOMPUTE = {"override_transformer_config.recompute_granularity": "full",
                  "override_transformer_config.recompute_method": "uniform",
                  "override_transformer_config.recompute_num_layers": 1}
# FSDP engine section -> Megatron engine section, per role
SECTIONS = {"actor_rollout_ref.actor.fsdp_config": "actor_rollout_ref.actor.megatron",
            "actor_rollout_ref.ref.fsdp_config": "actor_rollout_ref.ref.megatron",
            "critic.fsdp": "critic.megatron"}
# the HF model section whose gradient checkpointing flag stands for a trained role's recompute
CHECKPOINTING = {"actor_rollout_ref.model.enable_gradient_checkpointing": "actor_rollout_ref.actor.megatron",
                 "critic.model.enable_gradient_checkpointing": "critic.megatron"}


def counterparts(key: str, value: Any, strategy: str) -> dict[str, Any]:
    """The keys that say what `key=value` (a preset override) says, on the engine `strategy` picks;
    empty when the key needs no carrying over or has no counterpart."""
    if strategy == "megatron":
        return _to_megatron(key, value)
    return _to_fsdp(key, value)


def _to_megatron(key: str, value: Any) -> dict[str, Any]:
    section, _, name = key.rpartition(".")
    if section in SECTIONS and name in OFFLOAD:
        return {f"{SECTIONS[section]}.{name}": value}
    if key in CHECKPOINTING and _true(value):
        return {f"{CHECKPOINTING[key]}.{k}": v for k, v in FULL_RECOMPUTE.items()}
    return {}


def _to_fsdp(key: str, value: Any) -> dict[str, Any]:
    megatron_sections = {m: f for f, m in SECTIONS.items()}
    section, _, name = key.rpartition(".")
    if section in megatron_sections and name in OFFLOAD:
        return {f"{megatron_sections[section]}.{name}": value}
    for flag, megatron in CHECKPOINTING.items():
        if key == f"{megatron}.{RECOMPUTE}" and str(value) == "full":
            return {flag: True}
    return {}


def _true(value: Any) -> bool:
    return value is True or str(value).lower() == "true"
