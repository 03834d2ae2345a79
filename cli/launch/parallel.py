"""Parallelism and batch arithmetic, checked the way verl 0.9.1 and Megatron-Core check it at run time.

On verl's FSDP engine (`fsdp`/`fsdp2`) every GPU holds a shard of the weights and runs its own
micro-batches: DP = world / Ulysses sequence-parallel size, the states are sharded over
`fsdp_config.fsdp_size` GPUs (-1: all of them), and Ulysses splits attention heads, so the
heads must divide by it. The batch rules below hold for both engines.

The rules, each with where verl (or Megatron) enforces it:
- world = trainer.nnodes x trainer.n_gpus_per_node; DP = world / (TP x PP x CP)
  (`verl/utils/config.py::validate_config`: world divisible by TP x PP x CP);
- attention heads and KV heads (query groups) divisible by TP, layers by PP x VPP (Megatron-Core's
  TransformerConfig and model builders); the vocabulary (config.json's vocab_size) divisible by TP:
  Megatron splits the embedding and output rows evenly (`VocabUtility.vocab_range_from_global_vocab_size`)
  and neither bridge pads the vocabulary on verl's path (mbridge is built without
  make_vocab_size_divisible_by, Megatron-Bridge's should_pad_vocab is off); the rollout engine's TP x DP x PP divides the world
  (`verl/workers/rollout/llm_server.py`), and its TP divides the heads (vLLM/SGLang);
- without dynamic batch size, per role (actor, critic):
  (train_batch_size x n) % (DP x micro) == 0 (validate_config), train_batch_size >= mini
  (ActorConfig.validate), train_batch_size % mini == 0 (`tensordict_utils.make_iterator`),
  (mini x n) % DP == 0 (`engine_workers.train_mini_batch`), (mini x n / DP) % micro == 0
  (`engine/utils.py::prepare_micro_batches`), and with VPP the micro-batch count divisible by PP
  (Megatron's microbatch_group_size_per_vp_stage);
- micro-batch sizes for the rollout's and the reference's log-prob passes must be set (validate_config).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import re
from math import gcd
from typing import Any

from .findings import Finding, error, note, warning
from .model import ModelShape

GROUP_ESTIMATORS = {"grpo", "grpo_passk", "grpo_vectorized", "rloo", "rloo_vectorized", "opo", "gdpo"}
ACTOR = "actor_rollout_ref.actor"
ROLLOUT = "actor_rollout_ref.rollout"


@dataclass
class Layout:
    """How one Megatron role (actor or critic) is split over the GPUs."""

    role: str
    tp: int
    pp: int
    cp: int
    vpp: int | None
    ep: int
    dp: int
    param_offload: bool
    optimizer_offload: bool
    recompute: str | None        # Megatron recompute_granularity: None, "selective" or "full"
    mini: int                    # prompts per mini-batch
    micro: int | None            # responses per micro-batch per GPU (None with dynamic batch size)
    dynamic_bsz: bool
    strategy: str = "megatron"   # megatron, fsdp or fsdp2
    sp: int = 1                  # FSDP: Ulysses sequence-parallel size
    shard: int = 0               # FSDP: GPUs one copy of the states is sharded over
    max_tokens: int = 16384      # with dynamic batch size: tokens per GPU per micro-batch
    log_prob_tokens: float = 0.0  # actor: tokens per GPU in the largest old or reference log-prob micro-batch
    log_prob_dynamic: bool = False  # ... set by a token budget (log_prob_use_dynamic_bsz), not a sample count


@dataclass
class ParallelPlan:
    world: int
    nnodes: int
    gpus_per_node: int
    actor: Layout
    critic: Layout | None
    use_ref: bool
    ref_param_offload: bool
    rollout_name: str
    rollout_tp: int
    rollout_world: int
    rollout_replicas: int
    rollout_util: float
    rollout_kv_bytes: int | None  # vLLM's engine_kwargs.vllm.kv_cache_memory_bytes: a fixed KV cache per GPU
    fused_logprobs: bool         # verl's fused kernels compute the actor's log-probs (no full logits)
    train_batch: int
    n: int
    prompt_len: int
    response_len: int
    findings: list[Finding] = field(default_factory=list)

    @property
    def responses_per_step(self) -> int:
        return self.train_batch * self.n


def need_critic(cfg: Any) -> bool:
    """verl's rule (`verl/trainer/ppo/utils.py::need_critic`): critic.enable, else only for GAE."""
    enable = cfg.critic.get("enable")
    return bool(enable) if enable is not None else cfg.algorithm.adv_estimator == "gae"


def need_reference(cfg: Any) -> bool:
    """verl's rule: a reference policy is loaded for a KL loss or an in-reward KL penalty."""
    return bool(cfg.algorithm.get("use_kl_in_reward", False) or cfg.actor_rollout_ref.actor.use_kl_loss)


def _layout(role: str, section: Any, world: int, mini: int) -> Layout:
    m = section.megatron
    tp, pp, cp = int(m.tensor_model_parallel_size), int(m.pipeline_model_parallel_size), int(m.context_parallel_size)
    vpp = m.get("virtual_pipeline_model_parallel_size")
    model_parallel = tp * pp * cp
    recompute = (m.get("override_transformer_config") or {}).get("recompute_granularity")
    return Layout(role=role, tp=tp, pp=pp, cp=cp, vpp=int(vpp) if vpp else None,
                  ep=int(m.get("expert_model_parallel_size") or 1),
                  dp=world // model_parallel if model_parallel and world % model_parallel == 0 else 0,
                  param_offload=bool(m.param_offload), optimizer_offload=bool(m.optimizer_offload),
                  recompute=recompute, mini=int(mini),
                  micro=section.get("ppo_micro_batch_size_per_gpu"), dynamic_bsz=bool(section.get("use_dynamic_bsz")))


def _fsdp_layout(role: str, section: Any, engine: Any, model: Any, world: int, mini: int) -> Layout:
    """An FSDP role: `engine` is its fsdp_config (the critic's is `critic.fsdp`), `model` its HF model section."""
    sp = int(section.get("ulysses_sequence_parallel_size") or engine.get("ulysses_sequence_parallel_size") or 1)
    size = int(engine.get("fsdp_size") or -1)
    return Layout(role=role, tp=1, pp=1, cp=1, vpp=None, ep=1,
                  dp=world // sp if sp >= 1 and world % sp == 0 else 0,
                  param_offload=bool(engine.param_offload), optimizer_offload=bool(engine.optimizer_offload),
                  recompute="full" if model.get("enable_gradient_checkpointing") else None, mini=int(mini),
                  micro=section.get("ppo_micro_batch_size_per_gpu"), dynamic_bsz=bool(section.get("use_dynamic_bsz")),
                  strategy=str(section.strategy), sp=sp, shard=world if size < 1 else min(size, world),
                  max_tokens=int(section.get("ppo_max_token_len_per_gpu") or 16384))


def _log_prob_tokens(cfg: Any, use_ref: bool, split: int) -> tuple[float, bool]:
    """Tokens one GPU holds in the largest forward-only micro-batch, and whether a token budget sets
    it: the old log-probs (`rollout.log_prob_*`) and the reference's (`ref.log_prob_*`), each at full
    length and split over the `split` GPUs that share a sequence (Megatron's CP, FSDP's Ulysses), or
    the budget with dynamic batch size, which verl scales by that split and so holds per GPU."""
    seq = int(cfg.data.max_prompt_length) + int(cfg.data.max_response_length)
    sections = [cfg.actor_rollout_ref.rollout] + ([cfg.actor_rollout_ref.ref] if use_ref else [])
    tokens, dynamic = 0.0, False
    for section in sections:
        if section.get("log_prob_use_dynamic_bsz"):
            tokens = max(tokens, int(section.get("log_prob_max_token_len_per_gpu") or 16384), seq / split)
            dynamic = True
        elif section.get("log_prob_micro_batch_size_per_gpu"):
            tokens = max(tokens, int(section.log_prob_micro_batch_size_per_gpu) * seq / split)
    return tokens, dynamic


def plan_parallel(cfg: Any, shape: ModelShape, available_gpus: int | None = None) -> ParallelPlan:
    """The split of actor, critic and rollout over the cluster, with every rule that fails."""
    nnodes, per_node = int(cfg.trainer.nnodes), int(cfg.trainer.n_gpus_per_node)
    world = nnodes * per_node
    rollout = cfg.actor_rollout_ref.rollout
    actor_cfg = cfg.actor_rollout_ref.actor
    critic_on = need_critic(cfg)
    fsdp = str(actor_cfg.strategy) != "megatron"
    if fsdp:
        actor = _fsdp_layout("actor", actor_cfg, actor_cfg.fsdp_config, cfg.actor_rollout_ref.model, world,
                             actor_cfg.ppo_mini_batch_size)
        critic = _fsdp_layout("critic", cfg.critic, cfg.critic.fsdp, cfg.critic.model, world,
                              cfg.critic.ppo_mini_batch_size) if critic_on else None
        ref_offload = bool(cfg.actor_rollout_ref.ref.fsdp_config.param_offload)
    else:
        actor = _layout("actor", actor_cfg, world, actor_cfg.ppo_mini_batch_size)
        critic = _layout("critic", cfg.critic, world, cfg.critic.ppo_mini_batch_size) if critic_on else None
        ref_offload = bool(cfg.actor_rollout_ref.ref.megatron.param_offload)
    actor.log_prob_tokens, actor.log_prob_dynamic = _log_prob_tokens(cfg, need_reference(cfg), actor.cp * actor.sp)
    plan = ParallelPlan(
        world=world, nnodes=nnodes, gpus_per_node=per_node, actor=actor, critic=critic,
        use_ref=need_reference(cfg),
        ref_param_offload=ref_offload,
        rollout_name=str(rollout.name) if not _missing(rollout, "name") else "",
        rollout_tp=int(rollout.tensor_model_parallel_size),
        rollout_world=int(rollout.tensor_model_parallel_size) * int(rollout.data_parallel_size)
        * int(rollout.pipeline_model_parallel_size),
        rollout_replicas=0, rollout_util=float(rollout.gpu_memory_utilization), rollout_kv_bytes=None,
        fused_logprobs=bool(cfg.actor_rollout_ref.model.get("use_fused_kernels")),
        train_batch=int(cfg.data.train_batch_size), n=int(rollout.n),
        prompt_len=int(cfg.data.max_prompt_length), response_len=int(cfg.data.max_response_length),
    )
    plan.rollout_replicas = world // plan.rollout_world if plan.rollout_world and world % plan.rollout_world == 0 else 0
    out = plan.findings
    _check_cluster(plan, available_gpus, out)
    explicit = (cfg.get("ray_kwargs") or {}).get("ray_init", {}).get("num_cpus")
    cpus = ray_cpus_finding(cfg, int(explicit), "ray_kwargs.ray_init.num_cpus") if explicit is not None else None
    if cpus is not None:
        out.append(cpus)
    for layout in (plan.actor, plan.critic):
        if layout is not None:
            (_check_fsdp_split if fsdp else _check_split)(layout, plan, shape, out)
    _check_rollout(cfg, plan, shape, out)
    plan.rollout_kv_bytes = _kv_cache_bytes(cfg, plan, out)
    _check_algorithm(cfg, plan, out)
    for layout in (plan.actor, plan.critic):
        if layout is not None:   # with no valid DP (a split the world does not divide) the rules without DP still run
            _check_batches(layout, plan, out)
    _check_log_prob_micro(cfg, plan, out)
    return plan


def _missing(node: Any, key: str) -> bool:
    from omegaconf import OmegaConf
    return OmegaConf.is_missing(node, key)


def _check_cluster(plan: ParallelPlan, available: int | None, out: list[Finding]) -> None:
    if plan.nnodes < 1 or plan.gpus_per_node < 1:
        out.append(error("cluster", f"trainer.nnodes ({plan.nnodes}) and trainer.n_gpus_per_node "
                                    f"({plan.gpus_per_node}) must both be at least 1"))
    if available is not None and available < plan.world:
        out.append(error("gpu-count", f"the run asks for trainer.nnodes x trainer.n_gpus_per_node = {plan.nnodes} x "
                                      f"{plan.gpus_per_node} = {plan.world} GPUs but only {available} are available, "
                                      f"and Ray would wait for the missing ones forever: lower --nnodes/--gpus-per-node"))
    elif available is not None and available > plan.world:
        out.append(note("gpu-count", f"{available} GPUs are available and the run uses {plan.world} of them"))


# CPUs verl 0.9.1 reserves in Ray before its first step: the TaskRunner actor (1), under the V1 trainer the
# TransferQueue controller (1) and its storage units (1 each), and one placement-group bundle of
# ResourcePoolManager's max_colocate_count (3) CPUs per GPU. Ray waits for a bundle it cannot place, with
# no error: a 2-GPU Megatron run given ray_init.num_cpus=14 (16 needed) hung at "worker group kwargs"
# on an H200 node, while a 1-GPU run (13 needed) ran.
TASK_RUNNER_CPUS = 1
CPUS_PER_GPU_BUNDLE = 3


def ray_cpus_needed(cfg: Any) -> int:
    """CPUs one node's Ray must have for verl to place every actor of a single-node run."""
    queue = 0
    if cfg.trainer.get("use_v1", True):
        storage = cfg.get("transfer_queue", {}).get("backend", {}).get("SimpleStorage", {})
        queue = 1 + int(storage.get("num_data_storage_units", 8))
    return TASK_RUNNER_CPUS + queue + CPUS_PER_GPU_BUNDLE * int(cfg.trainer.n_gpus_per_node)


def ray_cpus_finding(cfg: Any, cpus: int | None, source: str) -> Finding | None:
    """An error when a single-node run's Ray has fewer CPUs than verl reserves (`source` says where the
    count came from); None when it has enough, when the count is unknown, or for a multi-node cluster."""
    if cpus is None or int(cfg.trainer.nnodes) != 1:
        return None
    needed = ray_cpus_needed(cfg)
    if cpus >= needed:
        return None
    gpus = int(cfg.trainer.n_gpus_per_node)
    queue = needed - TASK_RUNNER_CPUS - CPUS_PER_GPU_BUNDLE * gpus
    parts = ["1 for the task runner"] + ([f"{queue} for the V1 trainer's transfer queue"] if queue else [])
    parts.append(f"{CPUS_PER_GPU_BUNDLE} per GPU x {gpus}")
    return error("ray-cpus", f"{source} gives Ray {cpus} CPUs but verl reserves {needed} before the first step "
                             f"({', '.join(parts)}), and Ray waits for the rest forever without an error: set "
                             f"ray_kwargs.ray_init.num_cpus to at least {needed}")


def _tp_choices(shape: ModelShape, world: int, pp: int, cp: int) -> list[int]:
    common = gcd(gcd(shape.heads, shape.kv_heads), shape.vocab)
    return [t for t in range(1, common + 1) if common % t == 0 and world % (t * pp * cp) == 0] or [1]


def _check_split(layout: Layout, plan: ParallelPlan, shape: ModelShape, out: list[Finding]) -> None:
    key = "actor_rollout_ref.actor.megatron" if layout.role == "actor" else "critic.megatron"
    tp, pp, cp = layout.tp, layout.pp, layout.cp
    needed = tp * pp * cp
    choices = ", ".join(map(str, _tp_choices(shape, plan.world, pp, cp)))
    if min(tp, pp, cp) < 1:
        out.append(error("parallel-size", f"{key} sizes must be at least 1 (TP {tp}, PP {pp}, CP {cp})"))
        return
    if plan.world < needed:
        out.append(error("too-few-gpus", f"the {layout.role} needs TP {tp} x PP {pp} x CP {cp} = {needed} GPUs for one model "
                                         f"copy but the cluster has {plan.world} (trainer.nnodes x trainer.n_gpus_per_node): "
                                         f"add GPUs or lower {key}.tensor_model_parallel_size (TP that fits: {choices})"))
    elif plan.world % needed:
        out.append(error("world-divides", f"{plan.world} GPUs cannot be split into {layout.role} model copies of TP {tp} x "
                                          f"PP {pp} x CP {cp} = {needed} GPUs (verl requires n_gpus divisible by it): "
                                          f"use a GPU count that is a multiple of {needed}"))
    if shape.heads % tp:
        out.append(error("tp-heads", f"TP {tp} does not divide the model's {shape.heads} attention heads, so Megatron "
                                     f"cannot split them: set {key}.tensor_model_parallel_size to one of {choices}"))
    elif shape.kv_heads % tp:
        out.append(error("tp-kv-heads", f"TP {tp} does not divide the model's {shape.kv_heads} KV heads (query groups), "
                                        f"so Megatron cannot split them: set {key}.tensor_model_parallel_size to one of {choices}"))
    if shape.vocab % tp:
        out.append(error("tp-vocab", f"TP {tp} does not divide the model's vocabulary of {shape.vocab} rows, which "
                                     f"Megatron splits evenly over TP and verl's bridges do not pad (the workers stop with "
                                     f"'{shape.vocab} is not divisible by {tp}'): set {key}.tensor_model_parallel_size to "
                                     f"one of {choices}, or pad the model's vocab_size to a multiple of {tp} (hub models "
                                     f"pad to a multiple of 64 or 128)"))
    if shape.vision and shape.vision.heads % tp:
        out.append(warning("tp-vision-heads", f"TP {tp} does not divide the vision tower's {shape.vision.heads} heads; "
                                              f"if building the model fails, use a TP that divides {shape.vision.heads}"))
    if tp > plan.gpus_per_node:
        out.append(warning("tp-across-nodes", f"{layout.role} TP {tp} spans more than one node of {plan.gpus_per_node} GPUs; "
                                              f"tensor parallelism across the network is very slow, prefer PP across nodes"))
    stages = pp * (layout.vpp or 1)
    if shape.layers % stages:
        what = f"PP {pp} x VPP {layout.vpp} = {stages}" if layout.vpp else f"PP {pp}"
        out.append(error("pp-layers", f"{what} does not divide the model's {shape.layers} layers into equal pipeline stages: "
                                      f"pick {key}.pipeline_model_parallel_size (x virtual size) dividing {shape.layers}"))
    if layout.vpp and layout.vpp > 1:
        if pp < 2:
            out.append(error("vpp-needs-pp", f"{key}.virtual_pipeline_model_parallel_size={layout.vpp} needs "
                                             f"pipeline_model_parallel_size of at least 2, not {pp}"))
        out.append(warning("vpp-bridge", f"virtual pipeline stages with the model bridge (use_mbridge) have broken "
                                         f"model building in some Megatron-Bridge/mbridge versions; if the workers fail "
                                         f"to build the model, set {key}.virtual_pipeline_model_parallel_size=null"))
    if shape.experts and shape.experts % layout.ep:
        out.append(error("ep-experts", f"expert parallel size {layout.ep} does not divide the model's {shape.experts} "
                                       f"experts: set {key}.expert_model_parallel_size to a divisor of {shape.experts}"))


def _check_fsdp_split(layout: Layout, plan: ParallelPlan, shape: ModelShape, out: list[Finding]) -> None:
    """Ulysses sequence parallelism: verl splits attention heads over it and needs it to divide the world."""
    key = "actor_rollout_ref.actor" if layout.role == "actor" else "critic"
    sp = layout.sp
    if sp < 1:
        out.append(error("parallel-size", f"{key}.ulysses_sequence_parallel_size must be at least 1, not {sp}"))
        return
    if plan.world % sp:
        out.append(error("world-divides", f"{plan.world} GPUs cannot be split into Ulysses groups of {sp}: set "
                                          f"{key}.ulysses_sequence_parallel_size to a divisor of {plan.world}"))
    if shape.heads % sp:
        fits = ", ".join(str(s) for s in range(1, shape.heads + 1) if shape.heads % s == 0 and plan.world % s == 0)
        out.append(error("sp-heads", f"Ulysses size {sp} does not divide the model's {shape.heads} attention heads, "
                                     f"which verl splits over it: set {key}.ulysses_sequence_parallel_size to one of {fits}"))
    if layout.shard and plan.world % layout.shard:
        out.append(error("world-divides", f"fsdp_size {layout.shard} does not divide the {plan.world} GPUs: set "
                                          f"{key}'s fsdp_size to -1 (all GPUs) or a divisor of {plan.world}"))


def _check_rollout(cfg: Any, plan: ParallelPlan, shape: ModelShape, out: list[Finding]) -> None:
    if not plan.rollout_name:
        out.append(error("rollout-name", "set actor_rollout_ref.rollout.name to vllm or sglang (verl 0.9.1 has no "
                                         "other rollout for Megatron training)"))
    if plan.rollout_world < 1 or plan.world % plan.rollout_world:
        out.append(error("rollout-divides", f"the rollout engine's TP x DP x PP = {plan.rollout_world} GPUs per replica "
                                            f"does not divide the {plan.world} GPUs: set "
                                            f"actor_rollout_ref.rollout.tensor_model_parallel_size to a divisor of {plan.world}"))
    if plan.rollout_tp and shape.heads % plan.rollout_tp:
        out.append(error("rollout-tp-heads", f"rollout TP {plan.rollout_tp} does not divide the model's {shape.heads} "
                                             f"attention heads, which vLLM and SGLang require: change "
                                             f"actor_rollout_ref.rollout.tensor_model_parallel_size"))
    if not 0 < plan.rollout_util < 1:
        out.append(error("rollout-memory", f"actor_rollout_ref.rollout.gpu_memory_utilization must be between 0 and 1, "
                                           f"not {plan.rollout_util}"))


KV_BYTES_KEY = "actor_rollout_ref.rollout.engine_kwargs.vllm.kv_cache_memory_bytes"
_SIZE = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|[kmgtKMGT])?")
_MULTIPLIER = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
               "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _kv_cache_bytes(cfg: Any, plan: ParallelPlan, out: list[Finding]) -> int | None:
    """vLLM's fixed KV cache per GPU, which makes it ignore gpu_memory_utilization. A suffix is read as
    vLLM's parser reads it; `M`, `G`, `T` mean powers of 1,024 in some vLLM versions and of 1,000 in
    others, and are taken as the larger."""
    if plan.rollout_name != "vllm":
        return None
    value = ((cfg.actor_rollout_ref.rollout.get("engine_kwargs") or {}).get("vllm") or {}).get("kv_cache_memory_bytes")
    if value is None:
        return None
    match = None if isinstance(value, bool) else _SIZE.fullmatch(str(value).strip())
    size = int(float(match.group(1)) * _MULTIPLIER.get(match.group(2), 1)) if match else 0
    if size < 1:
        out.append(error("rollout-memory", f"{KV_BYTES_KEY}={value!r} is not a size vLLM reads: give bytes "
                                           f"(4294967296) or a number with k, M, G or Gi (4Gi)"))
        return None
    return size


def _check_algorithm(cfg: Any, plan: ParallelPlan, out: list[Finding]) -> None:
    estimator = str(cfg.algorithm.adv_estimator)
    if estimator in GROUP_ESTIMATORS and plan.n < 2:
        out.append(error("group-size", f"{estimator} compares responses within a group, so with "
                                       f"actor_rollout_ref.rollout.n={plan.n} every advantage is zero: set n to 2 or more"))
    if plan.train_batch < 1 or plan.n < 1:
        out.append(error("batch-size", f"data.train_batch_size ({plan.train_batch}) and actor_rollout_ref.rollout.n "
                                       f"({plan.n}) must be at least 1"))


def _check_batches(layout: Layout, plan: ParallelPlan, out: list[Finding]) -> None:
    """verl's batch rules for one role, reporting the first that fails (the rest follow from it)."""
    prefix = ACTOR if layout.role == "actor" else "critic"
    train, n, dp, mini, micro = plan.train_batch, plan.n, layout.dp, layout.mini, layout.micro
    if mini < 1:
        out.append(error("batch-divides", f"{prefix}.ppo_mini_batch_size must be at least 1, not {mini}"))
        return
    if train < mini:
        out.append(error("batch-divides", f"data.train_batch_size ({train}) is smaller than {prefix}.ppo_mini_batch_size "
                                          f"({mini}): lower the mini-batch or raise the batch"))
        return
    if train % mini:
        out.append(error("batch-divides", f"data.train_batch_size ({train}) is not a multiple of "
                                          f"{prefix}.ppo_mini_batch_size ({mini}), so the last mini-batch would be ragged: "
                                          f"make the batch a multiple of the mini-batch"))
        return
    if not dp:
        return
    if (mini * n) % dp:
        out.append(error("batch-divides", f"a mini-batch of {mini} prompts x n={n} = {mini * n} responses cannot be split "
                                          f"evenly over data-parallel size {dp}: make {prefix}.ppo_mini_batch_size x "
                                          f"rollout.n a multiple of {dp}"))
        return
    if layout.dynamic_bsz:
        return
    if micro is None:
        out.append(error("micro-batch", f"set {prefix}.ppo_micro_batch_size_per_gpu (or {prefix}.use_dynamic_bsz=true): "
                                        f"verl needs one of them to cut mini-batches into micro-batches"))
        return
    micro = int(micro)
    per_rank = mini * n // dp
    if micro < 1 or per_rank % micro:
        out.append(error("batch-divides", f"each GPU gets {per_rank} responses per mini-batch ({mini} prompts x n={n} / "
                                          f"DP {dp}), which {prefix}.ppo_micro_batch_size_per_gpu={micro} does not divide: "
                                          f"pick a micro-batch that divides {per_rank}"))
        return
    if (train * n) % (dp * micro):
        out.append(error("batch-divides", f"data.train_batch_size x n = {train * n} is not divisible by DP {dp} x "
                                          f"micro-batch {micro} = {dp * micro}, which verl's validate_config requires"))
        return
    if layout.vpp and layout.vpp > 1 and (per_rank // micro) % layout.pp:
        out.append(error("batch-divides", f"with virtual pipeline stages Megatron needs the {per_rank // micro} "
                                          f"micro-batches per mini-batch to be a multiple of PP {layout.pp}: change "
                                          f"{prefix}.ppo_micro_batch_size_per_gpu"))


def _check_log_prob_micro(cfg: Any, plan: ParallelPlan, out: list[Finding]) -> None:
    if cfg.actor_rollout_ref.actor.get("use_dynamic_bsz"):
        return
    sections = [(ROLLOUT, cfg.actor_rollout_ref.rollout)]
    if plan.use_ref:
        sections.append(("actor_rollout_ref.ref", cfg.actor_rollout_ref.ref))
    for name, section in sections:
        per_gpu, total = section.get("log_prob_micro_batch_size_per_gpu"), section.get("log_prob_micro_batch_size")
        if per_gpu is None and total is None:
            out.append(error("micro-batch", f"set {name}.log_prob_micro_batch_size_per_gpu: verl's validate_config "
                                            f"refuses to start without it (use_dynamic_bsz is off)"))
        elif per_gpu is not None and total is not None:
            out.append(error("micro-batch", f"remove {name}.log_prob_micro_batch_size: verl refuses it next to "
                                            f"{name}.log_prob_micro_batch_size_per_gpu"))
