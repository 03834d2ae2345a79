"""A launch on a run's own folders: the checkpoint verl resumes from, the metrics file verl's file logger
writes, and the GPUs the plan is made for (a launch reads them; a plan says what it assumed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli.launch.folders import LOGGER_PATH, metrics_findings, prepare_metrics_file, resume_point
from cli.launch.host import local_gpu_memory
from cli.main import main
from tests.helpers.launch_plans import MODELS, checks, plan_for

pytest.importorskip("verl")
pytestmark = pytest.mark.verl


# ---- the metrics file -------------------------------------------------------------------------

TINY_CONFIG = str(MODELS / "tiny-gsm8k" / "config.json")


def tiny(*overrides: str, **kwargs):
    """The tiny preset's plan, its model's shape from the fixture config (no model on this machine)."""
    return plan_for("tiny-gsm8k-grpo", *overrides, model_config=TINY_CONFIG, **kwargs)


def _logged(*overrides: str):
    return tiny("trainer.logger=[console,file]", *overrides)


def test_verls_file_logger_stops_on_a_folder_that_does_not_exist(tmp_path, monkeypatch):
    """The cause, on verl's own logger: it opens VERL_FILE_LOGGER_PATH and makes no folder."""
    from verl.utils.tracking import FileLogger

    monkeypatch.setenv(LOGGER_PATH, str(tmp_path / "run" / "metrics.jsonl"))
    with pytest.raises(FileNotFoundError):
        FileLogger("p", "e")


def test_the_launch_makes_the_folder_verls_file_logger_writes_into(tmp_path, monkeypatch):
    from verl.utils.tracking import FileLogger

    plan = _logged()
    target = tmp_path / "run" / "metrics.jsonl"
    monkeypatch.chdir(tmp_path)
    env = prepare_metrics_file(plan.cfg, {LOGGER_PATH: "run/metrics.jsonl"})
    assert env == {LOGGER_PATH: str(target)}           # absolute: verl's actors open it from their own cwd
    monkeypatch.setenv(LOGGER_PATH, env[LOGGER_PATH])
    logger = FileLogger("p", "e")
    logger.log({"critic/score/mean": 0.5}, step=1)
    logger.finish()
    assert '"step":1' in target.read_text()


def test_no_file_logger_no_folder(tmp_path):
    plan = tiny()   # the preset logs to the console only
    assert prepare_metrics_file(plan.cfg, {LOGGER_PATH: str(tmp_path / "x" / "m.jsonl")}) == {}
    assert not (tmp_path / "x").exists()


def test_the_plan_says_what_it_will_do_with_the_metrics_file(tmp_path):
    cfg = _logged().cfg
    (found,) = metrics_findings(cfg, {LOGGER_PATH: str(tmp_path / "new" / "m.jsonl")})
    assert found.level == "note" and "the launch makes it" in found.message
    (found,) = metrics_findings(cfg, {LOGGER_PATH: str(tmp_path)})
    assert found.level == "error" and "is a folder" in found.message
    old = tmp_path / "m.jsonl"
    old.write_text('{"step": 1}\n{"step": 2}\n')
    (found,) = metrics_findings(cfg, {LOGGER_PATH: str(old)})
    assert found.level == "warning" and "holds 2 line(s)" in found.message and "m-2.jsonl" in found.message


# ---- resuming ---------------------------------------------------------------------------------

def _fsdp_checkpoint(root: Path, step: int, world: int = 1) -> Path:
    """The files verl 0.9.1's FSDP engine and trainer write for a step (their names, empty contents)."""
    actor = root / f"global_step_{step}" / "actor"
    (actor / "huggingface").mkdir(parents=True)
    for rank in range(world):
        (actor / f"model_world_size_{world}_rank_{rank}.pt").write_bytes(b"")
    (root / f"global_step_{step}" / "data.pt").write_bytes(b"")
    (root / "latest_checkpointed_iteration.txt").write_text(str(step))
    return root / f"global_step_{step}"


def _megatron_checkpoint(root: Path, step: int, tp: int = 2) -> Path:
    import json
    actor = root / f"global_step_{step}" / "actor"
    for sub in ("model/huggingface", "optimizer", "extra"):
        (actor / sub).mkdir(parents=True)
    (actor / "ckpt_contents.json").write_text("{}")
    (actor / "transformer_config.json").write_text(json.dumps({"tensor_model_parallel_size": tp,
                                                              "pipeline_model_parallel_size": 1}))
    (root / "latest_checkpointed_iteration.txt").write_text(str(step))
    return root / f"global_step_{step}"


def test_the_checkpoint_found_is_the_one_verl_loads(tmp_path):
    from verl.utils.checkpoint.checkpoint_manager import find_latest_ckpt_path

    _fsdp_checkpoint(tmp_path, 40)
    _fsdp_checkpoint(tmp_path, 100)
    plan = tiny(f"trainer.default_local_dir={tmp_path}", "trainer.total_training_steps=120")
    saved = resume_point(plan.cfg)
    assert str(saved.folder) == find_latest_ckpt_path(str(tmp_path)) and saved.step == 100
    assert saved.engine == "fsdp" and saved.fsdp_world == 1
    (message,) = checks(plan)["resume"]
    assert f"resumes from {tmp_path}/global_step_100" in message and "steps 101 to 120" in message
    assert plan.ok


def test_a_run_at_its_last_step_says_how_to_train_on(tmp_path):
    _fsdp_checkpoint(tmp_path, 100)
    plan = tiny(f"trainer.default_local_dir={tmp_path}")
    (message,) = checks(plan)["resume"]
    assert not plan.ok and "validate once and stop without training" in message
    assert "trainer.total_training_steps=120" in message


def test_a_fresh_folder_or_resume_disabled_is_a_fresh_start(tmp_path):
    assert "resume" not in checks(tiny(f"trainer.default_local_dir={tmp_path}"))
    _fsdp_checkpoint(tmp_path, 100)
    plan = tiny(f"trainer.default_local_dir={tmp_path}", "trainer.resume_mode=disable")
    assert "resume" not in checks(plan) and plan.ok


def test_a_checkpoint_of_the_other_engine_is_refused(tmp_path):
    _megatron_checkpoint(tmp_path, 40)
    plan = tiny(f"trainer.default_local_dir={tmp_path}")
    (message,) = checks(plan)["resume"]
    assert "saved by verl's megatron engine and this run uses fsdp" in message and "rewards merge" in message


def test_fsdp_shards_of_another_world_size_are_refused(tmp_path):
    _fsdp_checkpoint(tmp_path, 40, world=2)
    plan = tiny(f"trainer.default_local_dir={tmp_path}")
    (message,) = checks(plan)["resume"]
    assert "FSDP shards of 2 GPU(s) and this run has 1" in message


def test_megatron_resumes_at_the_split_it_saved(tmp_path):
    import json
    config = json.loads(Path(TINY_CONFIG).read_text())
    config["vocab_size"] = 384   # `rewards tiny-model --pad-vocab 128`: TP 2 divides the rows
    (tmp_path / "config.json").write_text(json.dumps(config))
    _megatron_checkpoint(tmp_path / "ckpt", 100, tp=2)
    base = ("actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2", f"trainer.default_local_dir={tmp_path / 'ckpt'}",
            "trainer.total_training_steps=120")
    kwargs = dict(strategy="megatron", gpus_per_node=2, model_config=str(tmp_path / "config.json"))
    plan = plan_for("tiny-gsm8k-grpo", *base, **kwargs)
    assert checks(plan)["resume"][0].startswith("resumes from") and plan.ok
    plan = plan_for("tiny-gsm8k-grpo", *base, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1", **kwargs)
    assert "saved at Megatron TP 2 x PP 1 and this run is TP 1 x PP 1" in checks(plan)["resume"][0]


def test_a_resumed_file_log_would_replace_the_first_runs(tmp_path, monkeypatch):
    _fsdp_checkpoint(tmp_path / "ckpt", 100)
    monkeypatch.delenv(LOGGER_PATH, raising=False)
    plan = _logged(f"trainer.default_local_dir={tmp_path / 'ckpt'}", "trainer.total_training_steps=120")
    assert "replaces the earlier run's metrics" in checks(plan)["metrics-file"][0]


# ---- the GPUs a launch plans for ---------------------------------------------------------------

def _fake_nvidia_smi(tmp_path: Path, monkeypatch, *gpus: tuple[str, int]) -> None:
    """An nvidia-smi on PATH listing `gpus` (name, MiB) for `-L` and for --query-gpu."""
    listing = "\n".join(f"GPU {i}: {name} (UUID: GPU-{i:04d})" for i, (name, _) in enumerate(gpus))
    query = "\n".join(f"{i}, GPU-{i:04d}, {name}, {mib}" for i, (name, mib) in enumerate(gpus))
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text("#!/bin/sh\ncase \"$1\" in\n"
                    f"  -L) cat <<'EOF'\n{listing}\nEOF\n;;\n"
                    f"  --query-gpu=*) cat <<'EOF'\n{query}\nEOF\n;;\n"
                    "  *) exit 1;;\nesac\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")


H200, L4 = ("NVIDIA H200", 143771), ("NVIDIA L4", 23034)
TINY = ["train", "tiny-gsm8k-grpo", "--skip-data-check", "--model-config", TINY_CONFIG]


def test_nvidia_smi_is_read_for_the_gpus_cuda_will_use(tmp_path, monkeypatch):
    _fake_nvidia_smi(tmp_path, monkeypatch, H200, L4)
    assert local_gpu_memory({"PATH": os.environ["PATH"]}) == (22.5, "2 x NVIDIA H200, NVIDIA L4, read from nvidia-smi")
    assert local_gpu_memory({"PATH": os.environ["PATH"], "CUDA_VISIBLE_DEVICES": "0"}) == \
        (140.4, "1 x NVIDIA H200, read from nvidia-smi")
    assert local_gpu_memory({"PATH": str(tmp_path / "nowhere")}) is None


def test_a_launch_plans_for_the_gpus_it_finds(tmp_path, monkeypatch, capsys):
    """The launch stops on the GPU count (one found, two asked for), after printing the plan it made."""
    _fake_nvidia_smi(tmp_path, monkeypatch, H200)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert main([*TINY, "--gpus-per-node", "2"]) == 2
    out = capsys.readouterr()
    assert "140.4 GiB each (1 x NVIDIA H200, read from nvidia-smi)" in out.out
    assert "peak: rollout 44.1 of 140.4 GiB -> fits" in out.out   # 26.0 of 80 GiB as planned before
    assert "this machine has 1 GPU(s)" in out.err


def test_a_dry_run_says_what_it_assumed(tmp_path, monkeypatch, capsys):
    _fake_nvidia_smi(tmp_path, monkeypatch, H200)
    assert main([*TINY, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "80 GiB each (assumed: preset tiny-gsm8k-grpo's gpu_memory_gb; a launch on the GPU node reads " \
           "nvidia-smi, or pass --gpu-memory-gb)" in out
    assert main([*TINY, "--dry-run", "--gpu-memory-gb", "141"]) == 0
    assert "141 GiB each (--gpu-memory-gb)" in capsys.readouterr().out


def test_a_smoke_checks_the_full_run_against_the_gpus_it_runs_on(tmp_path, monkeypatch, capsys):
    """Qwen3-8B at TP 4 needs about 45 GiB a GPU: four 22.5 GiB L4s stop the smoke before any GPU work."""
    _fake_nvidia_smi(tmp_path, monkeypatch, L4, L4, L4, L4)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    code = main(["train", "qwen3-8b-grpo", "--smoke", "--skip-data-check", "--smoke-dir", str(tmp_path / "smoke")])
    out = capsys.readouterr().out
    assert code == 1 and "smoke: FAIL before launch" in out and "a GPU has 22.5 GiB" in out
    assert not (tmp_path / "smoke" / "model").exists()


def test_an_emitted_script_makes_the_metrics_folder_first(tmp_path, monkeypatch):
    import subprocess

    monkeypatch.chdir(tmp_path)   # the prelude makes the run's dump folder too, relative to where it was planned
    script = tmp_path / "run.sh"
    assert main([*TINY, "--emit", str(script), "trainer.logger=[console,file]"]) == 0
    body = script.read_text().split("\nset -euo pipefail\n")[1]
    prelude = body.split("python3 -m verl.trainer.main_ppo")[0]
    assert "mkdir -p" in prelude
    target = tmp_path / "run" / "metrics.jsonl"
    subprocess.run(["bash", "-euc", prelude], env={**os.environ, LOGGER_PATH: str(target)}, check=True)
    assert target.parent.is_dir()
    subprocess.run(["bash", "-euc", prelude], env={k: v for k, v in os.environ.items() if k != LOGGER_PATH}, check=True)
