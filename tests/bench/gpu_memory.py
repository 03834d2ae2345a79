"""GPU memory of one FSDP training step, measured term by term, for the launcher's memory model.

    python tests/bench/gpu_memory.py --out DIR            # on a CUDA GPU: every setting below
    python tests/bench/gpu_memory.py --tiny --out DIR     # on the CPU: a 2-layer model, checks the code runs
    torchrun --nproc_per_node 2 tests/bench/gpu_memory.py --sharded --out DIR   # states sharded over 2 GPUs

Each setting builds a random-initialised model from a published config.json (tests/bench/configs/),
runs two optimizer steps of two micro-batches each (the second step is the steady state verl repeats:
Adam states exist, gradients accumulate) and reads torch.cuda's allocator counters around each part:
- params: bytes after the model is built (fp32 master weights for `fsdp2`, bf16 for `bf16`);
- grads: bytes the first backward leaves behind; optimizer: bytes AdamW's first step leaves behind;
- activations: the peak of a forward + backward over what was allocated before it (logits included);
- logits: the same for the output layer and the loss alone (bf16 logits, upcast to fp32, log-softmax,
  gather, backward): vocab x tokens terms that dominate small models;
- peak: the allocator's peak over the whole steady-state step.
Modes: `fsdp2` is verl's FSDP engine on one rank (fully_shard per decoder layer and the root, fp32
master weights, bf16 compute, fp32 gradient reduction, AdamW); `bf16` keeps weights, gradients and
AdamW states in bf16 (the probe the issue quotes); `fsdp2-critic` is `fsdp2` with verl's critic head
(a hidden x 1 value head in place of the vocabulary-sized output layer, a squared-error loss). Gradient checkpointing is transformers' non-reentrant
one, as verl turns it on. Qwen2.5-VL-3B is measured as its language model (same decoder, same vocabulary);
its vision tower adds parameters the planner counts exactly but is not run here.
With --sharded (under torchrun) the FSDP settings below run with the states sharded over every GPU,
each row recording the world size and the largest peak of any rank: the check of the estimate's
division of the states by the FSDP group.
Writes DIR/gpu_memory.json (gpu_memory_sharded.json) and prints a table last. A setting that fails (out of memory) is recorded
with its error, and the run goes on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
MIB = 2 ** 20

# (model config, mode, micro-batch, tokens per sequence, gradient checkpointing)
SETTINGS = [
    *(("qwen2.5-0.5b-instruct", "fsdp2", m, s, gc) for m, s in ((4, 1024), (8, 2048)) for gc in (False, True)),
    *(("qwen3-0.6b-base", "fsdp2", m, s, gc) for m, s in ((4, 1024), (4, 1536), (8, 2048)) for gc in (False, True)),
    *(("qwen2.5-0.5b-instruct", "fsdp2-critic", 4, 1024, gc) for gc in (False, True)),
    ("qwen2.5-vl-3b-instruct", "fsdp2", 1, 3072, True),
    ("qwen2.5-vl-3b-instruct", "fsdp2", 2, 3072, True),
    *(("qwen2.5-0.5b-instruct", "bf16", m, s, gc) for m, s in ((4, 1024), (8, 2048)) for gc in (False, True)),
    *(("qwen3-0.6b-base", "bf16", m, s, gc) for m, s in ((4, 1024), (8, 2048)) for gc in (False, True)),
    ("qwen2.5-vl-3b-instruct", "bf16", 2, 3072, True),
    ("qwen2.5-vl-3b-instruct", "bf16", 2, 3072, False),
]
SHARDED_SETTINGS = [
    ("qwen2.5-0.5b-instruct", "fsdp2", 4, 1024, True),
    ("qwen2.5-0.5b-instruct", "fsdp2-critic", 4, 1024, True),
    ("qwen3-0.6b-base", "fsdp2", 4, 1536, False),
    ("qwen2.5-vl-3b-instruct", "fsdp2", 2, 3072, True),
    ("qwen2.5-vl-3b-instruct", "fsdp2", 1, 3072, True),
]
TINY = {"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512, "tie_word_embeddings": True,
        "max_position_embeddings": 256}


class Meter:
    """The allocator's counters on CUDA; on the CPU (the --tiny check) every reading is 0."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()

    def now(self) -> int:
        self.sync()
        return torch.cuda.memory_allocated() if self.cuda else 0

    def reset_peak(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()

    def peak(self) -> int:
        self.sync()
        return torch.cuda.max_memory_allocated() if self.cuda else 0

    def reserved_peak(self) -> int:
        return torch.cuda.max_memory_reserved() if self.cuda else 0


def text_config(raw: dict):
    """A transformers config for the model's language decoder (Qwen2.5-VL's is a Qwen2 decoder)."""
    import transformers
    raw = {k: v for k, v in raw.items() if k not in ("architectures", "torch_dtype", "transformers_version")}
    kind = raw.get("model_type")
    if kind == "qwen2_5_vl":
        raw = {k: v for k, v in raw.items() if k not in ("vision_config", "rope_scaling") and not k.endswith("token_id")
               or k in ("bos_token_id", "eos_token_id")}
        kind = raw["model_type"] = "qwen2"
    cls = {"qwen2": transformers.Qwen2Config, "qwen3": transformers.Qwen3Config}[kind]
    cfg = cls(**raw)
    cfg.use_cache = False
    cfg._attn_implementation = "sdpa"
    return cfg


def init_distributed(device: torch.device) -> tuple[int, int]:
    """(rank, world): torchrun's when it started us, else a group of one (FSDP2 needs a process group)."""
    import torch.distributed as dist
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    if not dist.is_initialized():
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29533")
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo", rank=rank, world_size=world)
    return rank, world


def max_over_ranks(value: float, device: torch.device) -> float:
    import torch.distributed as dist
    if dist.get_world_size() == 1:
        return value
    t = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


class ValueModel(torch.nn.Module):
    """A critic as verl builds one: the decoder and a one-output head (no vocabulary-sized layer)."""

    def __init__(self, decoder, hidden: int):
        super().__init__()
        self.model = decoder
        self.score = torch.nn.Linear(hidden, 1, bias=False)

    def forward(self, input_ids):
        return self.score(self.model(input_ids=input_ids).last_hidden_state).squeeze(-1)

    def gradient_checkpointing_enable(self, **kwargs):
        self.model.gradient_checkpointing_enable(**kwargs)


def build(cfg, mode: str, device: torch.device):
    import transformers
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    qwen3 = cfg.model_type == "qwen3"
    torch.manual_seed(0)
    with torch.device(device):
        if mode == "fsdp2-critic":
            model = ValueModel((transformers.Qwen3Model if qwen3 else transformers.Qwen2Model)(cfg), cfg.hidden_size)
        else:
            model = (transformers.Qwen3ForCausalLM if qwen3 else transformers.Qwen2ForCausalLM)(cfg)
    if mode == "bf16":
        return model.to(torch.bfloat16)
    model = model.float()
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.model.layers:
        fully_shard(layer, mp_policy=policy, reshard_after_forward=True)
    fully_shard(model, mp_policy=policy, reshard_after_forward=True)
    return model


def token_logprob_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """verl's policy-loss input without flash-attn's fused kernel: fp32 log-softmax of the logits, gathered."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    return -logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1).mean()


def micro_step(model, ids: torch.Tensor) -> None:
    out = model(input_ids=ids)
    if isinstance(out, torch.Tensor):      # the critic's values
        loss = (out.float() ** 2).mean() / 2
    else:
        loss = token_logprob_loss(out.logits[:, :-1], ids[:, 1:]) / 2
    loss.backward()


def measure_logits(cfg, micro: int, seq: int, device: torch.device, meter: Meter) -> int:
    """Peak of the output layer and the loss alone, forward and backward, over what existed before."""
    weight = torch.randn(cfg.vocab_size, cfg.hidden_size, device=device, dtype=torch.bfloat16, requires_grad=True)
    hidden = torch.randn(micro, seq, cfg.hidden_size, device=device, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, cfg.vocab_size, (micro, seq - 1), device=device)
    weight.grad = torch.zeros_like(weight)          # as in training: the head's gradient already exists
    before = meter.now()
    meter.reset_peak()
    logits = hidden @ weight.t()
    token_logprob_loss(logits[:, :-1], labels).backward()
    peak = meter.peak() - before
    del weight, hidden, labels, logits
    return peak


def measure(name: str, mode: str, micro: int, seq: int, gc: bool, device: torch.device, raw: dict) -> dict:
    meter = Meter(device)
    cfg = text_config(raw)
    row = {"model": name, "mode": mode, "micro_batch": micro, "seq_len": seq, "tokens": micro * seq,
           "gradient_checkpointing": gc, "layers": cfg.num_hidden_layers, "hidden": cfg.hidden_size,
           "vocab": cfg.vocab_size}
    base = meter.now()
    model = build(cfg, mode, device)
    model.train()
    if gc:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    row["n_params"] = sum(p.numel() for p in model.parameters())
    row["params_mib"] = (meter.now() - base) / MIB
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6, weight_decay=0.01)
    ids = [torch.randint(0, cfg.vocab_size, (micro, seq), device=device) for _ in range(2)]

    # Step 1: gradients, then Adam's states appear.
    start = meter.now()
    micro_step(model, ids[0])
    row["grads_mib"] = (meter.now() - start) / MIB
    micro_step(model, ids[1])
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    row["optimizer_mib"] = (meter.now() - start) / MIB

    # Step 2, the steady state: activation peak of a micro-batch over what was there, and the step's peak.
    meter.reset_peak()
    before = meter.now()
    t0 = time.perf_counter()
    micro_step(model, ids[0])
    row["activations_first_mib"] = (meter.peak() - before) / MIB
    mid = meter.now()
    meter.reset_peak()
    micro_step(model, ids[1])
    row["activations_mib"] = (meter.peak() - mid) / MIB
    peak_backward = meter.peak()
    meter.reset_peak()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    peak_optimizer = meter.peak()
    meter.sync()
    row["step_seconds"] = time.perf_counter() - t0
    row["peak_mib"] = (max(peak_backward, peak_optimizer) - base) / MIB
    row["peak_phase"] = "backward" if peak_backward >= peak_optimizer else "optimizer step"
    row["reserved_peak_mib"] = meter.reserved_peak() / MIB
    del model, optimizer, ids
    _free(device)
    row["logits_mib"] = 0.0 if mode == "fsdp2-critic" else measure_logits(cfg, micro, seq, device, meter) / MIB
    return row


def _free(device: torch.device) -> None:
    import gc as collector
    collector.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--tiny", action="store_true", help="a 2-layer model on the CPU: checks that the code runs")
    parser.add_argument("--only", help="run only settings whose model name contains this")
    parser.add_argument("--sharded", action="store_true", help="the FSDP settings sharded over every rank (torchrun)")
    args = parser.parse_args()
    local = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cpu") if args.tiny else torch.device("cuda", local)
    if device.type == "cuda":
        torch.cuda.set_device(local)
    rank, world = init_distributed(device)
    import transformers
    meta = {"torch": torch.__version__, "transformers": transformers.__version__, "python": platform.python_version(),
            "device": torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu",
            "device_total_mib": torch.cuda.get_device_properties(0).total_memory / MIB if device.type == "cuda" else 0,
            "world": world}
    modes = ("fsdp2", "fsdp2-critic") if args.sharded else ("fsdp2", "fsdp2-critic", "bf16")
    settings = ([("tiny", mode, 2, 32, gc) for mode in modes for gc in (False, True)] if args.tiny
                else SHARDED_SETTINGS if args.sharded else SETTINGS)
    out_name = "gpu_memory_sharded.json" if args.sharded else "gpu_memory.json"
    rows = []
    for name, mode, micro, seq, gc in settings:
        if args.only and args.only not in name:
            continue
        raw = TINY if name == "tiny" else json.loads((CONFIGS / f"{name}.json").read_text())
        try:
            row = measure(name, mode, micro, seq, gc, device, raw)
            row["world"] = world
            row["peak_mib_rank0"] = row["peak_mib"]
            row["peak_mib"] = max_over_ranks(row["peak_mib"], device)
        except Exception as exc:   # an out-of-memory setting is a result, not the end of the run
            row = {"model": name, "mode": mode, "micro_batch": micro, "seq_len": seq, "tokens": micro * seq,
                   "gradient_checkpointing": gc, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            traceback.print_exc(limit=3)
            _free(device)
        rows.append(row)
        if rank:
            continue
        print(json.dumps(row), flush=True)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / out_name).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    if rank:
        return 0
    print(f"\n{meta}")
    print(f"{'model':<24}{'mode':<13}{'micro x seq':>12}{'gc':>4}{'params':>9}{'grads':>9}{'adam':>9}"
          f"{'act':>9}{'logits':>9}{'peak':>9}  MiB")
    for r in rows:
        if "error" in r:
            print(f"{r['model']:<24}{r['mode'][:12]:<13}{r['micro_batch']:>5} x {r['seq_len']:<5}{'y' if r['gradient_checkpointing'] else 'n':>4}  {r['error'][:60]}")
            continue
        print(f"{r['model']:<24}{r['mode'][:12]:<13}{r['micro_batch']:>5} x {r['seq_len']:<5}{'y' if r['gradient_checkpointing'] else 'n':>4}"
              f"{r['params_mib']:>9.0f}{r['grads_mib']:>9.0f}{r['optimizer_mib']:>9.0f}{r['activations_mib']:>9.0f}"
              f"{r['logits_mib']:>9.0f}{r['peak_mib']:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
