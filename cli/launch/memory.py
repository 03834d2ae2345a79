"""Per-GPU memory estimate for verl's colocated training (actor, reference, critic and the rollout
engine share every GPU), on the FSDP or the Megatron engine, with a suggestion when it does not fit.

FSDP (`estimate_fsdp`), calibrated on an H100 and checked with the states sharded over two H200s
(tests/bench/gpu_memory.py; the figures are in tests/bench/gpu_memory_h100.json,
gpu_memory_h200x2_sharded.json and docs/measurements.md, and a test keeps the estimate within 15% of each):
- Per parameter, sharded over the FSDP group: fp32 master weights 4 bytes (verl's model_dtype=fp32),
  fp32 gradients 4 (freed between steps), AdamW's two fp32 moments 8; AdamW's step holds one more
  fp32 copy (4) for a moment.
  The reference policy is forward-only and loaded in bf16: 2 bytes, sharded.
- Activations per token (tokens = micro x (prompt + response) / Ulysses size, or
  ppo_max_token_len_per_gpu with dynamic batch size): per decoder layer 16h + 12q + 6kv + 8I bytes
  without gradient checkpointing (measured 0.89-1.01x of it on Qwen2.5 and Qwen3), 2h with it;
  plus, for the actor, the logits term: 14 bytes x vocabulary per token (bf16 logits, their fp32
  upcast, the fp32 log-softmax and its gradient) -- the largest term for small models. With verl's
  fused log-probs (`use_fused_kernels`, which the plan turns on without flash-attn) no full logits
  exist: one 512-token chunk's fp32 logits, softmax and gradients, 16 bytes x vocabulary per chunk
  token, from verl's code (not measured).
- The old and reference log-probs (`log-prob` phase, measured with verl's main_ppo on an H200,
  tests/bench/gpu_memory_fsdp_logprob_h200.json): forward-only micro-batches, no layer activations kept,
  the logits chain LOGPROB_BYTES x vocab per token (measured 10.6 on verl's padded path without
  flash-attn); each pass loads its own weights; with fused kernels, one chunk.

Megatron (`estimate`), measured on H200s (tests/bench/gpu_memory_megatron_h200.json, docs/measurements.md;
a test keeps the estimate within 15% of each): Qwen3-0.6B's shape at TP 2 with and without full
recompute and optimizer offload, every response at full length.
- Each Megatron role holds its heaviest pipeline stage on a GPU: layers/PP decoder layers split by
  TP (experts also by EP), plus the embedding (first stage), the output layer (last stage; a tied
  embedding is copied there when PP > 1) and a vision tower (first stage), split by TP.
- Per parameter on the GPU: bf16 weights 2 bytes; fp32 gradient buffer 4 bytes (verl sets Megatron's
  grad_reduce_in_fp32); Adam with fp32 master weights, first and second moments 12 bytes, sharded over
  DP by the distributed optimizer. The reference policy is forward-only: weights only.
- Activations of a training micro-batch: tokens = micro x (prompt + response) / CP (every sample at full
  length: an upper bound); per layer and token 2 x (5h + 2q + 2kv + 3I) bytes without recompute, 2h
  bytes with full recompute (plus one layer recomputed at a time); split by TP (sequence parallel);
  PP micro-batches in flight on the first stage; for the actor the logits chain, 14 bytes x vocab per
  token / TP: verl's Megatron forward keeps the output layer's logits, clones them to take the entropy
  (whose backward saves the softmax), and Megatron's cross-entropy works on an fp32 copy (measured
  0.89x of this form without recompute).
- The old and reference log-probs are forward passes of their own micro-batch
  (`log_prob_micro_batch_size_per_gpu`, often twice the training one): no layer activations are kept,
  but the logits chain is, 12 bytes x vocab per token / TP (fp32 logits, their clone for the entropy,
  and the entropy's softmax; measured 12.2). With the vocabularies of today's models this phase, not
  the update, is the actor's peak.
- Offload (verl's `param_offload`, `optimizer_offload`) moves those states to CPU between phases; they
  come back to the GPU for the update itself, so offload lowers the rollout and log-prob phases.
- The rollout engine (vLLM/SGLang) takes gpu_memory_utilization x GPU memory while generating and
  frees it (free_cache_engine) while training; with vLLM's kv_cache_memory_bytes set (vLLM then ignores
  the utilization), its weights, that KV cache and 3.2 GiB of its own (both engines; `rollout_share`).
- A fixed 5 GiB per GPU beyond torch's allocated peak: the CUDA context, NCCL's and TransformerEngine's
  buffers and the allocator's cache (measured 4.2-5.0 GiB between `nvidia-smi`'s view of the Megatron
  worker and torch's peak; FSDP's is 2 GiB).
Phases: `update` (an actor or critic step with everything else resident), `log-prob` (the old and
reference log-probs) and `rollout` (generation with the training states that were not
offloaded). The peak phase must fit the GPU.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from .model import ModelShape
from .parallel import Layout, ParallelPlan

GIB = 2 ** 30
OVERHEAD_GIB = 2.0
WEIGHT_BYTES, GRAD_BYTES, ADAM_BYTES = 2, 4, 12
MEGATRON_LOGIT_BYTES = 14   # verl's Megatron logits chain in an update (see above)
LOGPROB_BYTES = 12   # a forward-only log-prob pass, either engine (measured 12.2 Megatron, 10.6 FSDP)
MEGATRON_OVERHEAD_GIB = 5.0
# vLLM 0.24's worker beyond its weights and a fixed KV cache (context, profiling activations, sampler):
# 7.7 GiB held with a 4 GiB cache and 0.56 GiB of weights, TP 2, enforce_eager, one H200 run. CUDA
# graphs add their pool, not measured.
VLLM_ENGINE_OVERHEAD_GIB = 3.2
# FSDP, measured (see the module docstring): bytes per parameter and per token.
FSDP_MASTER_BYTES, FSDP_GRAD_BYTES, FSDP_ADAM_BYTES, FSDP_STEP_BYTES, FSDP_REF_BYTES = 4, 4, 8, 4, 2
FSDP_LOGIT_BYTES = 14
FUSED_CHUNK_TOKENS, FUSED_LOGIT_BYTES = 512, 16   # verl's FusedLinearForPPO chunk; not measured


@dataclass
class Phase:
    name: str
    parts: dict[str, float] = field(default_factory=dict)   # label -> GiB

    @property
    def total(self) -> float:
        return sum(self.parts.values())


@dataclass
class MemoryEstimate:
    gpu_gib: float
    phases: list[Phase]
    rollout_weights_gib: float
    rollout_budget_gib: float
    kv_sequences: int                       # full-length sequences the rollout KV cache holds per replica
    kv_fixed: bool = False                  # vLLM's kv_cache_memory_bytes sets the cache, not the utilization
    suggestion: str = ""                    # how to make it fit (empty when it fits)
    offload_note: str = ""                  # why a configured offload is needed (or that it is not)

    @property
    def peak(self) -> Phase:
        return max(self.phases, key=lambda p: p.total)

    @property
    def fits(self) -> bool:
        return self.peak.total <= self.gpu_gib and self.rollout_weights_gib < self.rollout_budget_gib


def stage_params(shape: ModelShape, layout: Layout, value_head: bool = False) -> float:
    """Parameters of the heaviest pipeline stage held by one GPU."""
    tp, pp, ep = layout.tp, layout.pp, layout.ep
    dense_layer = shape.layer_params - shape.expert_params
    per_layer = dense_layer / tp + shape.expert_params / (ep * tp)
    layers = math.ceil(shape.layers / pp) * per_layer
    embedding = shape.embedding_params / tp
    vision = (shape.vision.params / tp) if shape.vision else 0.0
    head = (shape.hidden if value_head else (shape.head_params or (shape.embedding_params if pp > 1 else 0))) / tp
    if pp == 1:
        return layers + embedding + vision + head + shape.hidden
    return layers + max(embedding + vision, head + shape.hidden)


def _layer_bytes(shape: ModelShape) -> float:
    """One decoder layer's activations per token without recompute, before the TP split."""
    q, kv = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    return 2 * (5 * shape.hidden + 2 * q + 2 * kv + 3 * shape.intermediate)


def _activations(shape: ModelShape, layout: Layout, plan: ParallelPlan, logits: bool) -> float:
    seq = plan.prompt_len + plan.response_len
    micro = layout.micro or max(1, 16384 // seq)   # dynamic batch size: verl's default 16k tokens per GPU
    tokens = micro * seq / layout.cp
    full_layer = _layer_bytes(shape)
    layers = math.ceil(shape.layers / layout.pp)
    if layout.recompute == "full":
        per_token = layers * 2 * shape.hidden + full_layer
    else:
        per_token = layers * full_layer
    in_flight = layout.pp
    total = tokens * per_token * in_flight / layout.tp
    if logits:
        total += tokens * shape.vocab * MEGATRON_LOGIT_BYTES / layout.tp
    return total


def _log_prob_activations(shape: ModelShape, layout: Layout) -> float:
    """A forward-only log-prob micro-batch: the logits chain and one layer's transient activations."""
    return layout.log_prob_tokens * (shape.vocab * LOGPROB_BYTES + _layer_bytes(shape)) / layout.tp


def _states(params: float, layout: Layout, distributed_optimizer: bool) -> tuple[float, float, float]:
    shards = layout.dp if distributed_optimizer and layout.dp else 1
    return params * WEIGHT_BYTES, params * GRAD_BYTES, params * ADAM_BYTES / shards


def estimate(plan: ParallelPlan, shape: ModelShape, gpu_gib: float, critic_shape: ModelShape | None = None,
             distributed_optimizer: bool = True, suggest: bool = True) -> MemoryEstimate:
    """Per-GPU memory of each phase; when the peak does not fit, `suggestion` says what would."""
    actor = plan.actor
    a_params = stage_params(shape, actor)
    a_w, a_g, a_o = (x / GIB for x in _states(a_params, actor, distributed_optimizer))
    resident: dict[str, float] = {
        "actor weights (bf16)": 0.0 if actor.param_offload else a_w,
        "actor gradients (fp32)": 0.0 if actor.param_offload else a_g,
        "actor Adam states (fp32)": 0.0 if actor.optimizer_offload else a_o,
    }
    update = {"actor weights (bf16)": a_w, "actor gradients (fp32)": a_g, "actor Adam states (fp32)": a_o,
              "actor activations": _activations(shape, actor, plan, logits=True) / GIB}
    log_prob = {"actor weights (bf16)": a_w, "actor gradients (fp32)": resident["actor gradients (fp32)"],
                "actor Adam states (fp32)": resident["actor Adam states (fp32)"],
                "actor log-prob forward (logits, no gradient)": _log_prob_activations(shape, actor) / GIB}
    if plan.use_ref:
        ref = 0.0 if plan.ref_param_offload else a_w
        resident["reference weights (bf16)"] = update["reference weights (bf16)"] = ref
        log_prob["reference weights (bf16)"] = a_w
    phases = []
    critic_update: dict[str, float] = {}
    if plan.critic is not None:
        c_shape = critic_shape or shape
        c_params = stage_params(c_shape, plan.critic, value_head=True)
        c_w, c_g, c_o = (x / GIB for x in _states(c_params, plan.critic, distributed_optimizer))
        critic_resident = {"critic weights (bf16)": 0.0 if plan.critic.param_offload else c_w,
                           "critic gradients (fp32)": 0.0 if plan.critic.param_offload else c_g,
                           "critic Adam states (fp32)": 0.0 if plan.critic.optimizer_offload else c_o}
        update.update(critic_resident)
        log_prob.update(critic_resident)
        critic_update = {**resident, "critic weights (bf16)": c_w, "critic gradients (fp32)": c_g,
                         "critic Adam states (fp32)": c_o,
                         "critic activations": _activations(c_shape, plan.critic, plan, logits=False) / GIB}
        resident.update(critic_resident)
    label, budget = rollout_share(plan, shape, gpu_gib)
    rollout = {**resident, label: budget}
    if not actor.log_prob_tokens:
        log_prob = {}
    for name, parts in (("update", update), ("log-prob", log_prob), ("critic update", critic_update),
                        ("rollout", rollout)):
        if parts:
            phases.append(Phase(name, {**{k: v for k, v in parts.items() if v},
                                       "CUDA context, NCCL, TE, allocator cache": MEGATRON_OVERHEAD_GIB}))

    result = _estimate(plan, shape, gpu_gib, phases, budget)
    if suggest:
        result.offload_note = _offload_note(plan, shape, gpu_gib, critic_shape, distributed_optimizer, result)
        if not result.fits:
            result.suggestion = _suggest(plan, shape, gpu_gib, critic_shape, distributed_optimizer, result)
    return result



def rollout_share(plan: ParallelPlan, shape: ModelShape, gpu_gib: float) -> tuple[str, float]:
    """The rollout engine's memory per GPU while it generates, and its row's label: its share of the
    GPU, or, where vLLM's KV cache is fixed (kv_cache_memory_bytes), what that cache implies."""
    if plan.rollout_kv_bytes is None:
        return "rollout engine (gpu_memory_utilization)", plan.rollout_util * gpu_gib
    return (f"rollout engine (weights + fixed KV + {VLLM_ENGINE_OVERHEAD_GIB:g})",
            _rollout_weights_gib(plan, shape) + plan.rollout_kv_bytes / GIB + VLLM_ENGINE_OVERHEAD_GIB)


def _rollout_weights_gib(plan: ParallelPlan, shape: ModelShape) -> float:
    return shape.params * WEIGHT_BYTES / max(plan.rollout_tp, 1) / GIB


def _estimate(plan: ParallelPlan, shape: ModelShape, gpu_gib: float, phases: list[Phase],
              budget: float) -> MemoryEstimate:
    """The phases with what the rollout engine does with its share (weights, then KV cache for
    whole sequences): the same for both engines."""
    rollout_weights = _rollout_weights_gib(plan, shape)
    kv_per_token = 2 * shape.layers * shape.kv_heads * shape.head_dim * 2 / max(plan.rollout_tp, 1)
    kv_free = plan.rollout_kv_bytes if plan.rollout_kv_bytes is not None else max(budget - rollout_weights, 0) * GIB
    kv_sequences = int(kv_free // (kv_per_token * (plan.prompt_len + plan.response_len))) if kv_per_token else 0
    return MemoryEstimate(gpu_gib=gpu_gib, phases=phases, rollout_weights_gib=rollout_weights,
                          rollout_budget_gib=budget, kv_sequences=kv_sequences,
                          kv_fixed=plan.rollout_kv_bytes is not None)

def _smaller_log_prob_micro(plan: ParallelPlan) -> list[tuple[str, ParallelPlan]]:
    """Log-prob micro-batches of one sequence, where they hold more (either engine's suggester)."""
    one = (plan.prompt_len + plan.response_len) / (plan.actor.cp * plan.actor.sp)
    if plan.actor.log_prob_tokens <= one:
        return []
    if plan.actor.log_prob_dynamic:   # verl multiplies the budget by the split and needs a whole sequence
        label = (f"lower actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu and "
                 f"actor_rollout_ref.ref.log_prob_max_token_len_per_gpu to {math.ceil(one)} (one sequence)")
    else:
        label = ("lower actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu and "
                 "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu to 1")
    return [(label, _variant(plan, log_prob_tokens=one))]


def _variant(plan: ParallelPlan, **changes) -> ParallelPlan:
    actor_changes = {k: v for k, v in changes.items() if k in {f.name for f in dataclasses.fields(Layout)}}
    if "sp" in changes and "log_prob_tokens" not in changes and not plan.actor.log_prob_dynamic:
        actor_changes["log_prob_tokens"] = plan.actor.log_prob_tokens * plan.actor.sp / changes["sp"]
    plan_changes = {k: v for k, v in changes.items() if k not in actor_changes}
    new = dataclasses.replace(plan, actor=dataclasses.replace(plan.actor, **actor_changes), findings=[], **plan_changes)
    if new.critic is not None and actor_changes.keys() & {"param_offload", "optimizer_offload"}:
        new.critic = dataclasses.replace(new.critic, **{k: v for k, v in actor_changes.items()
                                                        if k in ("param_offload", "optimizer_offload")})
    return new


def _fits(plan: ParallelPlan, shape, gpu_gib, critic_shape, dist_opt) -> MemoryEstimate:
    return estimate(plan, shape, gpu_gib, critic_shape, dist_opt, suggest=False)


def _offload_note(plan, shape, gpu_gib, critic_shape, dist_opt, current: MemoryEstimate) -> str:
    """Say whether each offload the config turns on is what makes the run fit."""
    notes = []
    if plan.actor.optimizer_offload and current.fits:
        without = _fits(_variant(plan, optimizer_offload=False, param_offload=plan.actor.param_offload),
                        shape, gpu_gib, critic_shape, dist_opt)
        if without.fits:
            notes.append("optimizer offload is on but not needed (without it the peak is "
                         f"{without.peak.total:.1f} of {gpu_gib:g} GiB); turning it off saves CPU-GPU copies")
        else:
            notes.append(f"optimizer offload is needed: without it the {without.peak.name} phase needs "
                         f"{without.peak.total:.1f} GiB of {gpu_gib:g} GiB")
    if plan.actor.param_offload and current.fits:
        without = _fits(_variant(plan, param_offload=False), shape, gpu_gib, critic_shape, dist_opt)
        notes.append(("parameter offload is needed: without it the " f"{without.peak.name} phase needs "
                      f"{without.peak.total:.1f} GiB of {gpu_gib:g} GiB") if not without.fits else
                     f"parameter offload is on but not needed (without it the peak is {without.peak.total:.1f} GiB)")
    return "; ".join(notes)


def _suggest(plan, shape, gpu_gib, critic_shape, dist_opt, current: MemoryEstimate) -> str:
    """The cheapest change, tried in order, after which the estimate fits; or what is missing."""
    key = "actor_rollout_ref.actor.megatron"
    tries: list[tuple[str, ParallelPlan]] = []
    if not plan.actor.optimizer_offload:
        tries.append((f"set {key}.optimizer_offload=true", _variant(plan, optimizer_offload=True)))
    if not plan.actor.param_offload:
        tries.append((f"set {key}.optimizer_offload=true and {key}.param_offload=true",
                      _variant(plan, optimizer_offload=True, param_offload=True)))
    if plan.actor.recompute != "full":
        tries.append((f"turn on full recompute ({key}.override_transformer_config.recompute_granularity=full, "
                      f"recompute_method=uniform, recompute_num_layers=1)", _variant(plan, recompute="full")))
    if plan.actor.micro and plan.actor.micro > 1:
        tries.append((f"lower actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu to 1", _variant(plan, micro=1)))
    tries += _smaller_log_prob_micro(plan)
    for label, variant in tries:
        if _fits(variant, shape, gpu_gib, critic_shape, dist_opt).fits:
            return label
    hint = _rollout_hint(current, gpu_gib, "actor_rollout_ref")
    if hint:
        return hint
    for tp in (plan.actor.tp * 2, plan.actor.tp * 4):
        if plan.world % (tp * plan.actor.pp * plan.actor.cp) == 0 and shape.heads % tp == 0 and shape.kv_heads % tp == 0:
            variant = _variant(plan, tp=tp, optimizer_offload=True, dp=plan.world // (tp * plan.actor.pp * plan.actor.cp))
            if _fits(variant, shape, gpu_gib, critic_shape, dist_opt).fits:
                return f"raise {key}.tensor_model_parallel_size to {tp} and set {key}.optimizer_offload=true"
    return "use more GPUs (or GPUs with more memory): even with offload and recompute the estimate does not fit"


# --- FSDP --------------------------------------------------------------------------------------------


def _rollout_hint(current: MemoryEstimate, gpu_gib: float, key: str) -> str | None:
    """When the rollout phase is the peak: a smaller vLLM/SGLang memory share, if one still holds
    the rollout weights comfortably (both engines' suggesters ask this first)."""
    if current.peak.name != "rollout":
        return None
    spare = gpu_gib - (current.peak.total - current.rollout_budget_gib)
    if current.kv_fixed:
        kv = spare - current.rollout_weights_gib - VLLM_ENGINE_OVERHEAD_GIB
        return (f"lower {key}.rollout.engine_kwargs.vllm.kv_cache_memory_bytes to {int(kv * GIB)} or less"
                if kv >= 1 else None)
    util = math.floor(spare / gpu_gib * 20) / 20
    if util >= 0.2 and util * gpu_gib > current.rollout_weights_gib * 1.5:
        return (f"lower {key}.rollout.gpu_memory_utilization to {util:.2f} "
                f"(a smaller KV cache: fewer sequences generated at once)")
    return None

def fsdp_activation_bytes(shape: ModelShape, tokens: float, checkpointing: bool, logits: bool,
                          fused: bool = False) -> float:
    """Activation memory of one micro-batch's forward and backward on one GPU (measured form); `fused`:
    the log-probs come from verl's chunked kernels, which never hold the full logits."""
    q, kv = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    per_layer = 2 * shape.hidden if checkpointing else 16 * shape.hidden + 12 * q + 6 * kv + 8 * shape.intermediate
    total = tokens * shape.layers * per_layer
    if logits and fused:
        total += min(tokens, FUSED_CHUNK_TOKENS) * shape.vocab * FUSED_LOGIT_BYTES
    elif logits:
        total += tokens * shape.vocab * FSDP_LOGIT_BYTES
    return total


def fsdp_log_prob_bytes(shape: ModelShape, tokens: float, fused: bool) -> float:
    """One forward-only log-prob micro-batch on one GPU: no layer activations are kept without a
    gradient, only the logits chain; with verl's fused kernels, one chunk of it."""
    if fused:
        return min(tokens, FUSED_CHUNK_TOKENS) * shape.vocab * FUSED_LOGIT_BYTES
    return tokens * shape.vocab * LOGPROB_BYTES


def _fsdp_tokens(layout: Layout, plan: ParallelPlan) -> float:
    """Tokens one GPU holds in a micro-batch: with dynamic batch size verl packs up to
    ppo_max_token_len_per_gpu per GPU (a longer sequence goes alone, split over the Ulysses group)."""
    seq = plan.prompt_len + plan.response_len
    if layout.dynamic_bsz or not layout.micro:
        return max(layout.max_tokens, seq / layout.sp)
    return int(layout.micro) * seq / layout.sp


def _fsdp_role(name: str, params: float, layout: Layout, plan: ParallelPlan, shape: ModelShape,
               logits: bool) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(resident between phases, this role's update, this role's optimizer step), GiB."""
    shard = max(layout.shard, 1)
    w, g, o = (params * b / shard / GIB for b in (FSDP_MASTER_BYTES, FSDP_GRAD_BYTES, FSDP_ADAM_BYTES))
    full = {f"{name} weights (fp32)": w, f"{name} gradients (fp32)": g, f"{name} Adam states (fp32)": o}
    # Between steps FSDP frees the gradients (zero_grad sets them to None): weights and Adam stay.
    resident = {f"{name} weights (fp32)": 0.0 if layout.param_offload else w,
                f"{name} Adam states (fp32)": 0.0 if layout.optimizer_offload else o}
    act = fsdp_activation_bytes(shape, _fsdp_tokens(layout, plan), layout.recompute == "full", logits,
                                fused=plan.fused_logprobs) / GIB
    label = (" (fused log-probs)" if plan.fused_logprobs else " (logits included)") if logits else ""
    update = {**full, f"{name} activations{label}": act}
    step = {**full, f"{name} AdamW step (fp32 copy)": params * FSDP_STEP_BYTES / shard / GIB}
    return resident, update, step


def estimate_fsdp(plan: ParallelPlan, shape: ModelShape, gpu_gib: float, critic_shape: ModelShape | None = None,
                  suggest: bool = True) -> MemoryEstimate:
    """Per-GPU memory of each phase on verl's FSDP engine (see the module docstring for the terms)."""
    actor = plan.actor
    resident, update, step = _fsdp_role("actor", shape.params, actor, plan, shape, logits=True)
    ref = shape.params * FSDP_REF_BYTES / max(actor.shard, 1) / GIB
    if plan.use_ref:
        resident["reference weights (bf16)"] = 0.0 if plan.ref_param_offload else ref
    others = {k: v for k, v in resident.items() if not k.startswith("actor")}
    # Each log-prob pass loads its model's weights (an offloaded actor or reference comes back for it).
    forward = "actor log-prob forward" + (" (fused chunk)" if plan.fused_logprobs else " (logits, no gradient)")
    log_prob = {**resident, "actor weights (fp32)": update["actor weights (fp32)"],
                **({"reference weights (bf16)": ref} if plan.use_ref else {}),
                forward: fsdp_log_prob_bytes(shape, actor.log_prob_tokens, plan.fused_logprobs) / GIB}
    phases_parts = [("update", {**others, **update}), ("optimizer step", {**others, **step})]
    if actor.log_prob_tokens:
        phases_parts.append(("log-prob", log_prob))
    if plan.critic is not None:
        c_shape = critic_shape or shape
        c_params = c_shape.params - c_shape.head_params + c_shape.hidden   # a value head replaces the LM head
        c_resident, c_update, c_step = _fsdp_role("critic", c_params, plan.critic, plan, c_shape, logits=False)
        for _, parts in phases_parts:
            parts.update(c_resident)
        phases_parts.append(("critic update", {**resident, **c_update}))
        resident = {**resident, **c_resident}
    label, budget = rollout_share(plan, shape, gpu_gib)
    phases_parts.append(("rollout", {**resident, label: budget}))
    phases = [Phase(name, {**{k: v for k, v in parts.items() if v}, "CUDA context, NCCL, fragmentation": OVERHEAD_GIB})
              for name, parts in phases_parts]
    result = _estimate(plan, shape, gpu_gib, phases, budget)
    if suggest and not result.fits:
        result.suggestion = _suggest_fsdp(plan, shape, gpu_gib, critic_shape, result)
    return result


def _suggest_fsdp(plan: ParallelPlan, shape: ModelShape, gpu_gib: float, critic_shape, current: MemoryEstimate) -> str:
    """The cheapest change, tried in order, after which the FSDP estimate fits."""
    key = "actor_rollout_ref"
    tries: list[tuple[str, ParallelPlan]] = []
    if plan.actor.recompute != "full":
        tries.append((f"turn on gradient checkpointing ({key}.model.enable_gradient_checkpointing=true)",
                      _variant(plan, recompute="full")))
    if plan.use_ref and not plan.ref_param_offload:
        tries.append((f"set {key}.ref.fsdp_config.param_offload=true", dataclasses.replace(plan, ref_param_offload=True)))
    if plan.actor.micro and plan.actor.micro > 1:
        tries.append((f"lower {key}.actor.ppo_micro_batch_size_per_gpu to 1", _variant(plan, micro=1)))
    tries += _smaller_log_prob_micro(plan)
    for sp in (2, 4, 8):
        if sp > plan.actor.sp and plan.world % sp == 0 and shape.heads % sp == 0:
            tries.append((f"set {key}.actor.ulysses_sequence_parallel_size={sp} (splits each sequence over {sp} GPUs)",
                          _variant(plan, sp=sp, dp=plan.world // sp)))
            break
    if not plan.actor.optimizer_offload:
        tries.append((f"set {key}.actor.fsdp_config.optimizer_offload=true", _variant(plan, optimizer_offload=True)))
    for label, variant in tries:
        if estimate_fsdp(variant, shape, gpu_gib, critic_shape, suggest=False).fits:
            return label
    hint = _rollout_hint(current, gpu_gib, key)
    if hint:
        return hint
    return "use more GPUs (FSDP shards the states over all of them) or GPUs with more memory"
