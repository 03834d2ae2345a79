"""The plan as text: what will run where, how memory is spent, and every finding."""

from __future__ import annotations

from .findings import ERROR, NOTE, WARNING
from .plan import Plan, describe_run


def render_plan(plan: Plan) -> str:
    lines = [f"Plan: {describe_run(plan)} (from preset {plan.request.preset.name})", ""]
    row = lambda label, text: lines.append(f"  {label:<10} {text}")
    if plan.shape:
        row("model", f"{plan.model}: {plan.shape.describe()}")
        row("", f"(config: {plan.model_source})")
    p = plan.parallel
    if p:
        request = plan.request
        source = (request.gpu_memory_source or ("--gpu-memory-gb" if request.gpu_memory_gb else
                  f"assumed: preset {request.preset.name}'s gpu_memory_gb; a launch on the GPU node reads nvidia-smi, "
                  f"or pass --gpu-memory-gb"))
        row("cluster", f"{p.nnodes} node(s) x {p.gpus_per_node} GPU(s) = {p.world} GPUs, {plan.gpu_memory_gb:g} GiB each "
                       f"({source})")
        for layout in (p.actor, p.critic):
            if layout is None:
                continue
            offload = [name for name, on in (("params", layout.param_offload), ("optimizer", layout.optimizer_offload)) if on]
            vpp = f" (VPP {layout.vpp})" if layout.vpp else ""
            if layout.strategy == "megatron":
                row(layout.role, f"Megatron TP {layout.tp} x PP {layout.pp}{vpp} x CP {layout.cp} -> DP {layout.dp}; "
                                 f"offload: {', '.join(offload) or 'none'}; recompute: {layout.recompute or 'none'}")
            else:
                row(layout.role, f"{layout.strategy.upper()} sharded over {layout.shard} GPU(s), Ulysses SP {layout.sp} "
                                 f"-> DP {layout.dp}; offload: {', '.join(offload) or 'none'}; gradient checkpointing: "
                                 f"{'on' if layout.recompute == 'full' else 'off'}")
        if p.use_ref:
            row("reference", f"same split as the actor; weights offloaded: {'yes' if p.ref_param_offload else 'no'}")
        share = (f"KV cache fixed at {p.rollout_kv_bytes / 2**30:.2f} GiB (kv_cache_memory_bytes; vLLM then ignores "
                 f"gpu_memory_utilization)" if p.rollout_kv_bytes is not None
                 else f"gpu_memory_utilization {p.rollout_util:g}")
        row("rollout", f"{p.rollout_name or '?'} TP {p.rollout_tp}, {p.rollout_replicas} replica(s), {share}")
        actor = p.actor
        if actor.dp:
            micro = f", micro-batch {actor.micro} per GPU" if actor.micro else ", dynamic micro-batches"
            per_rank = actor.mini * p.n // actor.dp
            row("batches", f"{p.train_batch} prompts x n={p.n} = {p.responses_per_step} responses per step; "
                           f"mini-batch {actor.mini} prompts ({actor.mini * p.n} responses, {per_rank} per DP rank{micro}); "
                           f"{p.train_batch // max(actor.mini, 1)} update(s) per step")
        row("lengths", f"prompt {p.prompt_len} + response {p.response_len} tokens")
    mem = plan.memory
    if mem:
        lines.append("")
        basis = ("FSDP terms calibrated on an H100, log-probs on an H200" if p and p.actor.strategy != "megatron"
                 else "Megatron terms measured on H200s")
        lines.append(f"  memory per GPU (GiB, estimate: {basis}; see docs/launcher.md)")
        names = [ph.name for ph in mem.phases]
        labels = sorted(dict.fromkeys(label for ph in mem.phases for label in ph.parts),
                        key=lambda label: label.startswith("CUDA context"))   # the fixed term last
        lines.append("    " + f"{'':<42}" + "".join(f"{n:>15}" for n in names))
        for label in labels:
            lines.append("    " + f"{label:<42}" + "".join(
                f"{ph.parts[label]:>15.2f}" if label in ph.parts else f"{'-':>15}" for ph in mem.phases))
        lines.append("    " + f"{'total':<42}" + "".join(f"{ph.total:>15.2f}" for ph in mem.phases))
        verdict = "fits" if mem.fits else "does NOT fit"
        lines.append(f"    peak: {mem.peak.name} {mem.peak.total:.1f} of {mem.gpu_gib:g} GiB -> {verdict}; rollout weights "
                     f"{mem.rollout_weights_gib:.2f} GiB per GPU, KV cache for ~{mem.kv_sequences} full-length sequences per replica")
        if mem.suggestion:
            lines.append(f"    to fit: {mem.suggestion}")
    if plan.data:
        lines.append("")
        for summary in plan.data:
            row("data", summary.describe())
    lines.append("")
    row("reward", "reward.custom_reward_function.path=pkg://rewards.verl (compute_score)")
    if plan.reward_kwargs:
        row("", "reward_kwargs: " + ", ".join(f"{k}={v!r}" for k, v in plan.reward_kwargs.items()))
    for source, settings in plan.reward_settings.items():
        shown = ", ".join(f"{k}={v!r}" for k, v in settings.items()) or "package defaults (accuracy only)"
        row("", f"{source}: {shown}")
    lines.append("")
    counts = {level: sum(f.level == level for f in plan.findings) for level in (ERROR, WARNING, NOTE)}
    lines.append(f"Findings: {counts[ERROR]} error(s), {counts[WARNING]} warning(s), {counts[NOTE]} note(s)")
    order = {ERROR: 0, WARNING: 1, NOTE: 2}
    for finding in sorted(plan.findings, key=lambda f: order[f.level]):
        lines.append(f"  {finding}")
    return "\n".join(lines)
