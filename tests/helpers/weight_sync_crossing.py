"""Two runs' first weight syncs on one machine, through verl 0.9.1's own bucketed transfer (its shared-memory
path, so no GPU): run A's sender binds, run B's sender binds, then run A's vLLM-side receiver connects and
prints what it received. usage: weight_sync_crossing.py FOLDER JOB_A JOB_B

With the same job id (two separate Ray clusters both name their first job 01000000) B's bind removes A's
socket file and A's receiver gets B's tensors; with different job ids (one shared cluster) it gets A's.
Run it in a subprocess: run A's sender is left waiting for good, as in the stalled rehearsals."""

import asyncio
import importlib.util
import os
import sys
import threading
import time
import types

import torch
import verl

# verl.workers.rollout.utils, whose one helper the sender uses, imports ray, fastapi and uvicorn for its
# servers: the same helper stands in for it; the transfer itself is verl's file, loaded by path (its
# package __init__ imports vLLM).
utils = types.ModuleType("verl.workers.rollout.utils")


async def ensure_async_iterator(iterable):
    for item in iterable:
        yield item


utils.ensure_async_iterator = ensure_async_iterator
sys.modules["verl.workers.rollout.utils"] = utils
spec = importlib.util.spec_from_file_location("bucketed_weight_transfer", os.path.join(
    os.path.dirname(verl.__file__), "workers", "rollout", "vllm_rollout", "bucketed_weight_transfer.py"))
transfer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(transfer)
no_accelerator = types.SimpleNamespace(synchronize=lambda: None, ipc_collect=lambda: None, empty_cache=lambda: None)
transfer.get_torch_device = lambda: no_accelerator

folder, job_a, job_b = sys.argv[1:4]


def socket_path(job: str) -> str:   # verl's name: rl-colocate-zmq-<job>-replica-<R>-rank-<K>.sock
    return os.path.join(folder, f"rl-colocate-zmq-{job}-replica-0-rank-0.sock")


def sync(job: str, name: str, width: int) -> None:
    sender = transfer.BucketedWeightSender(f"ipc://{socket_path(job)}", bucket_size_mb=1, use_shm=True)
    asyncio.run(sender.async_send_weights(iter([(name, torch.ones(width))])))


def bound(path: str, other_than: int | None = None) -> int:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if os.path.exists(path) and os.stat(path).st_ino != other_than:
            return os.stat(path).st_ino
        time.sleep(0.01)
    raise SystemExit(f"no sender bound {path}")


threading.Thread(target=sync, args=(job_a, "run_a.weight", 1024), daemon=True).start()
first = bound(socket_path(job_a))
threading.Thread(target=sync, args=(job_b, "run_b.weight", 512), daemon=True).start()
bound(socket_path(job_b), other_than=first if job_b == job_a else None)
received = []
transfer.BucketedWeightReceiver(f"ipc://{socket_path(job_a)}", torch.device("cpu"), use_shm=True).receive_weights(
    lambda weights, last: received.extend(f"{name} {tuple(t.shape)}" for name, t in weights))
print("received:", "; ".join(received), flush=True)
os._exit(0)   # run B's sender (different jobs) or run A's (same job) still waits for a receiver
