"""The launching machine's own check: another verl trainer whose weight syncs would cross this run's."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from cli.launch.host import concurrent_run_finding, joins_shared_cluster, running_trainers


def _proc(root, pid: int, *argv: str):
    (root / str(pid)).mkdir()
    (root / str(pid) / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")


def test_running_trainers_are_found_by_verls_entry_point(tmp_path):
    _proc(tmp_path, 11, "python3", "-m", "verl.trainer.main_ppo", "trainer.nnodes=1")
    _proc(tmp_path, 12, "python3", "-m", "verl.trainer.main_ppo_fork")          # another module
    _proc(tmp_path, 13, "grep", "verl.trainer.main_ppo x")                       # the name inside one argument
    _proc(tmp_path, os.getpid(), "python3", "-m", "verl.trainer.main_ppo")      # this process itself
    (tmp_path / "self").mkdir()
    (tmp_path / "14").mkdir()                                                     # no cmdline readable
    assert running_trainers(tmp_path) == [11]
    assert running_trainers(tmp_path / "absent") == []


def test_a_trainer_with_a_tmp_of_its_own_cannot_cross(tmp_path):
    """The sockets live in /tmp: a trainer in another mount namespace with a /tmp of its own (a container,
    `unshare -m` with a private /tmp) is no neighbour; one whose /tmp is this one's is."""
    proc, private = tmp_path / "proc", tmp_path / "private"
    proc.mkdir(), (tmp_path / "tmp").mkdir(), private.mkdir()
    (proc / "self").mkdir()
    (proc / "self" / "root").symlink_to(tmp_path)        # this process's /tmp: tmp_path/tmp
    for pid, root in ((21, tmp_path), (22, None)):
        _proc(proc, pid, "python3", "-m", "verl.trainer.main_ppo")
        if root is not None:
            (proc / str(pid) / "root").symlink_to(root)   # its root: where its /tmp resolves
    (private / "tmp").mkdir()
    _proc(proc, 23, "python3", "-m", "verl.trainer.main_ppo")
    (proc / "23" / "root").symlink_to(private)            # a /tmp of its own
    assert running_trainers(proc) == [21, 22]   # 22: its root cannot be read, so it counts


def _cfg(address=None):
    return OmegaConf.create({"ray_kwargs": {"ray_init": {"address": address}}})


def test_a_shared_ray_cluster_keeps_job_ids_apart(tmp_path):
    env = {"RAY_TMPDIR": str(tmp_path)}
    assert not joins_shared_cluster(_cfg(), env)                              # verl's ray.init starts its own
    assert joins_shared_cluster(_cfg(), {**env, "RAY_ADDRESS": "10.0.0.1:6379"})
    assert joins_shared_cluster(_cfg("10.0.0.1:6379"), env)
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "ray_current_cluster").write_text("10.0.0.1:6379")     # what `ray start --head` leaves
    assert joins_shared_cluster(_cfg(), env)
    assert not joins_shared_cluster(_cfg("local"), {**env, "RAY_ADDRESS": "10.0.0.1:6379"})   # forced its own


def test_the_finding_only_when_another_run_and_a_cluster_of_its_own():
    assert concurrent_run_finding(_cfg(), [], shared=False) is None
    assert concurrent_run_finding(_cfg(), [7], shared=True) is None
    finding = concurrent_run_finding(_cfg(), [7, 8, 9, 10], shared=False)
    assert finding.level == "error" and "(pid 7, 8, 9 ...)" in finding.message
    assert "rl-colocate-zmq-01000000" in finding.message and "--ray-address" in finding.message


@pytest.mark.parametrize("job_b, gets", [("01000000", "run_b.weight (512,)"), ("02000000", "run_a.weight (1024,)")])
def test_two_runs_first_syncs_cross_under_one_job_id(job_b, gets):
    """The mechanism, on verl 0.9.1's own weight transfer: two runs whose Ray clusters both named their job
    01000000 share a socket name, and the second sender's bind hands the first run's vLLM the second run's
    tensors (the H200 rehearsal: a 512-wide tensor loaded into a 1024-wide parameter); with distinct job ids,
    as in one shared cluster, each run gets its own."""
    pytest.importorskip("verl")
    pytest.importorskip("zmq")
    script = Path(__file__).resolve().parent / "helpers" / "weight_sync_crossing.py"
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:   # a socket path fits 107 characters
        done = subprocess.run([sys.executable, str(script), folder, "01000000", job_b],
                              capture_output=True, text=True, timeout=120)
    assert f"received: {gets}" in done.stdout, done.stderr[-2000:]
