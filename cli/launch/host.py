"""The launching machine itself: enough CPUs for the Ray that verl starts on it, and no other verl run
on it whose weight syncs would cross this one's.

verl 0.9.1 hands new weights from the trainer to the colocated vLLM workers through a ZMQ socket
named `/tmp/rl-colocate-zmq-<Ray job id>-replica-<R>-rank-<K>.sock`; each sync removes whatever file
has that name and binds its own. The job id keeps runs apart inside one Ray cluster, but every
separate Ray cluster numbers its first job 01000000, so two runs on one machine, each with its own
Ray, sync through the same file names: one run's vLLM loads the other's tensors, or its trainer
waits for good. Seen on a 4x H200 node with several rehearsals side by side (a 512-wide tensor of a
shrunk model loaded into a 1024-wide one; vocabulary and shape assertions; stalls after "ready to
fit"; tests/helpers/weight_sync_crossing.py replays it on verl's own transfer code); each of those
runs alone, or one at a time, is unaffected. A run with a /tmp of its own (a container, a private
mount namespace) has sockets of its own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .findings import Finding, error
from .parallel import ray_cpus_finding

TRAINER = b"verl.trainer.main_ppo"


def running_trainers(proc: Path = Path("/proc")) -> list[int]:
    """Process ids of verl trainers running on this machine (other than this process) that see this
    process's /tmp, where the sockets live; one whose /tmp cannot be inspected counts."""
    found = []
    here = _identity(proc / "self" / "root" / "tmp")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:   # gone meanwhile, or not ours to read
            continue
        theirs = _identity(entry / "root" / "tmp")
        if TRAINER in argv and (theirs is None or here is None or theirs == here):
            found.append(int(entry.name))
    return sorted(found)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def joins_shared_cluster(cfg: Any, environ: dict[str, str] | None = None) -> bool:
    """Whether verl's ray.init joins a cluster every launch here shares (so job ids differ): RAY_ADDRESS
    is set, or `ray start` left its address file, and the run does not force its own (address=local)."""
    environ = os.environ if environ is None else environ
    address = str(((cfg.get("ray_kwargs") or {}).get("ray_init") or {}).get("address") or "")
    if address == "local":
        return False
    if address or environ.get("RAY_ADDRESS"):
        return True
    ray_tmp = Path(environ.get("RAY_TMPDIR", "/tmp")) / "ray"
    return (ray_tmp / "ray_current_cluster").is_file()


def concurrent_run_finding(cfg: Any, pids: list[int], shared: bool) -> Finding | None:
    """An error when another verl trainer runs here and this launch starts a Ray cluster of its own."""
    if not pids or shared:
        return None
    named = ", ".join(str(p) for p in pids[:3]) + (" ..." if len(pids) > 3 else "")
    return error("other-run", f"another verl trainer runs on this machine (pid {named}): two runs with separate Ray "
                              f"clusters share verl's weight-sync sockets (/tmp/rl-colocate-zmq-01000000-...), so "
                              f"one run's vLLM can load the other's weights or wait for good; run one at a time, or "
                              f"both in one Ray cluster (`ray start --head`, then launch with --ray-address or "
                              f"without ray_kwargs.ray_init.address=local)")


def machine_findings(cfg: Any) -> list[Finding]:
    """This machine's checks before verl starts on it (a launch, a smoke): Ray's CPUs against what verl
    reserves (unless ray_init.num_cpus is set), then another verl run's weight syncs."""
    explicit = ((cfg.get("ray_kwargs") or {}).get("ray_init") or {}).get("num_cpus")
    found = [] if explicit is not None else [ray_cpus_finding(cfg, os.cpu_count(), "this machine")]
    found.append(concurrent_run_finding(cfg, running_trainers(), joins_shared_cluster(cfg)))
    return [f for f in found if f is not None]


def local_gpu_memory(environ: dict[str, str] | None = None) -> tuple[float, str] | None:
    """(GiB of the smallest GPU a launch here would use, what was read), from nvidia-smi: the GPUs that
    CUDA_VISIBLE_DEVICES names (indices or UUIDs), else all; None when nvidia-smi is absent or says
    nothing readable. A launch plans for these GPUs, not for the preset's assumed size (an H200 run
    planned for 80 GiB cards predicted 29 GiB and used 47: vLLM's share is a fraction of the card)."""
    import shutil
    import subprocess

    environ = os.environ if environ is None else environ
    if shutil.which("nvidia-smi", path=environ.get("PATH")) is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30, env={**os.environ, **environ})
    except (OSError, subprocess.SubprocessError):
        return None
    gpus = []
    for line in out.stdout.splitlines() if out.returncode == 0 else ():
        fields = [f.strip() for f in line.split(",")]
        try:
            gpus.append((fields[0], fields[1], ",".join(fields[2:-1]), float(fields[-1]) / 1024))
        except (IndexError, ValueError):
            continue
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() != "":
        wanted = [v.strip() for v in visible.split(",") if v.strip()]
        gpus = [g for g in gpus if g[0] in wanted or any(g[1].startswith(w) for w in wanted if w.startswith(("GPU-", "MIG-")))]
    if not gpus:
        return None
    smallest = min(gpus, key=lambda g: g[3])
    names = sorted({g[2] for g in gpus})
    return round(smallest[3], 1), f"{len(gpus)} x {', '.join(names)}, read from nvidia-smi"
