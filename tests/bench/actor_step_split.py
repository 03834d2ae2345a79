"""verl 0.9.1's own actor worker, in this process: the trainer's old log-prob and update on one
GRPO-shaped batch (256 responses, prompt 320 / response 48), as `rewards train tiny-gsm8k-grpo` sets
the actor up, so that two settings can be timed back to back on the same GPU.

    python tests/bench/actor_step_split.py MODEL                                   # as planned
    python tests/bench/actor_step_split.py MODEL actor_rollout_ref.model.use_fused_kernels=false

MODEL is a `rewards tiny-model` folder; extra arguments are verl overrides for the plan. Needs a CUDA
GPU with verl 0.9.1 and its wheels (no Ray, no vLLM engine is started). Prints the first update's
loss and gradient norm (the same computation either way) and the median of 5 timed passes of each.
The figures are in docs/measurements.md ("Step time").
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cli.launch.plan import Request, make_plan          # noqa: E402
from cli.launch.presets import load_preset              # noqa: E402

RESPONSES, PROMPT, RESPONSE = 256, 320, 48


def grpo_batch():
    from verl.protocol import DataProto
    gen = torch.Generator().manual_seed(0)
    prompt_len = torch.randint(30, 60, (RESPONSES,), generator=gen)
    response_len = torch.randint(8, 20, (RESPONSES,), generator=gen)
    prompts = torch.zeros(RESPONSES, PROMPT, dtype=torch.long)
    responses = torch.zeros(RESPONSES, RESPONSE, dtype=torch.long)
    mask = torch.zeros(RESPONSES, PROMPT + RESPONSE, dtype=torch.long)
    for i in range(RESPONSES):
        p, r = int(prompt_len[i]), int(response_len[i])
        prompts[i, PROMPT - p:] = torch.randint(3, 250, (p,), generator=gen)
        responses[i, :r] = torch.randint(3, 250, (r,), generator=gen)
        mask[i, PROMPT - p:PROMPT + r] = 1
    batch = DataProto.from_dict(tensors=dict(
        prompts=prompts, responses=responses, input_ids=torch.cat([prompts, responses], 1), attention_mask=mask,
        position_ids=torch.clamp(torch.cumsum(mask, 1) - 1, min=0), response_mask=mask[:, PROMPT:],
        advantages=torch.randn(RESPONSES, RESPONSE, generator=gen),
        old_log_probs=-torch.rand(RESPONSES, RESPONSE, generator=gen)))
    batch.meta_info.update(temperature=1.0, global_token_num=mask.sum(-1).tolist())
    return batch


def main(model: str, overrides: list[str]) -> None:
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29561"))
    plan = make_plan(Request(preset=load_preset("tiny-gsm8k-grpo"), model=model, overrides=overrides,
                             check_data=False))
    cfg = plan.cfg
    print("use_fused_kernels:", cfg.actor_rollout_ref.model.use_fused_kernels, flush=True)
    import verl.trainer.ppo.ray_trainer as ray_trainer
    from verl.workers.engine_workers import ActorRolloutRefWorker

    torch.distributed.init_process_group("nccl", rank=0, world_size=1)
    worker = ActorRolloutRefWorker(config=cfg.actor_rollout_ref, role="actor")
    worker.init_model()

    class Trainer:   # the trainer's own two methods, calling this worker instead of a Ray group
        config, distillation_config, actor_rollout_wg = cfg, None, worker
        _compute_old_log_prob = ray_trainer.RayPPOTrainer._compute_old_log_prob
        _update_actor = ray_trainer.RayPPOTrainer._update_actor

    ray_trainer.is_distillation_enabled = lambda _cfg: False
    trainer, batch = Trainer(), grpo_batch()
    trainer._compute_old_log_prob(batch)
    first = trainer._update_actor(batch).meta_info["metrics"]
    print("first update:", {k: v for k, v in first.items() if k in ("actor/pg_loss", "actor/grad_norm")})
    for name, run in (("old_log_prob", lambda: trainer._compute_old_log_prob(batch)),
                      ("update_actor", lambda: trainer._update_actor(batch))):
        times = []
        for _ in range(5):
            torch.cuda.synchronize()
            start = time.perf_counter()
            run()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        print(f"{name}: median {statistics.median(times):.3f} s  runs {' '.join(f'{t:.3f}' for t in times)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
