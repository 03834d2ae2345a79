"""`rewards train` from the command line: dry run, script emission, JSON, refusal to launch a bad plan."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cli.launch.command import local_argv, ray_submit_argv, render_command
from cli.main import main

pytest.importorskip("verl")
pytestmark = pytest.mark.verl

BASE = ["train", "qwen3-0.6b-grpo", "--skip-data-check"]


def test_list_presets(capsys):
    assert main(["train", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("qwen3-0.6b-grpo", "qwen3-0.6b-drgrpo", "qwen3-8b-grpo", "qwen2.5-0.5b-ppo", "qwen2.5-vl-3b-geo3k-grpo"):
        assert name in out


def test_dry_run_prints_plan_and_one_override_per_line(capsys):
    assert main([*BASE, "--dry-run", "data.train_batch_size=8", "--nnodes", "1", "trainer.total_epochs=3"]) == 0
    out = capsys.readouterr().out
    assert "Plan: Qwen3-0.6B-Base GRPO on gsm8k/train.parquet, Megatron TP 2 x PP 1 on 2 GPU(s) (from preset qwen3-0.6b-grpo)" \
        in out and "peak: rollout" in out
    command = out.split("Command:\n", 1)[1].strip().splitlines()
    assert command[0] == f"{shlex.quote(sys.executable)} -m verl.trainer.main_ppo \\"  # the interpreter that runs
    assert "    model_engine=megatron \\" in command
    assert "    data.train_batch_size=8 \\" in command            # replaced in place, once
    assert sum("data.train_batch_size=" in line for line in command) == 1
    assert command[-1].strip() in ("reward.custom_reward_function.name=compute_score", "trainer.total_epochs=3",
                                   "+reward.custom_reward_function.reward_kwargs.data_source_key=true")
    assert all(line.endswith(" \\") for line in command[:-1])


def test_emit_writes_an_executable_script(tmp_path, capsys):
    script = tmp_path / "run.sh"
    assert main([*BASE, "--emit", str(script), "trainer.total_epochs=2"]) == 0
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert os.stat(script).st_mode & stat.S_IXUSR
    assert "reward.custom_reward_function.path=pkg://rewards.verl" in text
    assert "trainer.total_epochs=2" in text and '"$@"' in text
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0


def test_emit_for_a_ray_cluster(tmp_path):
    script = tmp_path / "submit.sh"
    assert main([*BASE, "--emit", str(script), "--ray-address", "http://head:8265"]) == 0
    text = script.read_text()
    assert "ray job submit --address http://head:8265 -- python3 -m verl.trainer.main_ppo" in text
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0


def test_a_bad_plan_is_not_launched_or_written(tmp_path, capsys):
    script = tmp_path / "run.sh"
    code = main([*BASE, "--emit", str(script), "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=3"])
    assert code == 2
    captured = capsys.readouterr()
    assert "error: TP 3 does not divide the model's 16 attention heads" in captured.out
    assert "not launched" in captured.err
    assert not script.exists()


def test_json_plan(capsys):
    assert main([*BASE, "--json", "--dry-run", "--gpu-memory-gb", "24"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["ok"] and plan["memory"]["fits"] and plan["parallel"]["dp"] == 1
    assert plan["command"][:3] == ["python3", "-m", "verl.trainer.main_ppo"]


def test_unknown_preset(capsys):
    assert main(["train", "qwen3-0.6b-grpp"]) == 2
    assert "did you mean qwen3-0.6b-grpo" in capsys.readouterr().err


def test_not_an_override(capsys):
    assert main([*BASE, "--dry-run", "~"]) == 2


def test_launch_refuses_a_machine_with_too_few_gpus(tmp_path, monkeypatch, capsys):
    """Only the GPUs are faked: an nvidia-smi that lists one GPU, for a run that needs two per node."""
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA L4 (UUID: GPU-0)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    assert main(BASE) == 2
    assert "this machine has 1 GPU(s) but the run asks for trainer.n_gpus_per_node=2" in capsys.readouterr().err


def test_command_helpers():
    argv = ["python3", "-m", "verl.trainer.main_ppo", "a=1", "trainer.logger=[console]"]
    assert render_command(argv) == "python3 -m verl.trainer.main_ppo \\\n    a=1 \\\n    'trainer.logger=[console]'"
    assert local_argv(argv)[0] == sys.executable
    assert ray_submit_argv("http://h:8265", argv, no_wait=True)[:7] == \
        ["ray", "job", "submit", "--address", "http://h:8265", "--no-wait", "--"]


def test_from_prepare_to_a_checked_dry_run(tmp_path, tokenizer_dir, capsys):
    """The documented path: `rewards prepare` writes the data, `rewards train --dry-run` checks it."""
    import shutil

    root = Path(__file__).resolve().parent / "fixtures"
    assert main(["prepare", str(root / "hub" / "openai" / "gsm8k"), "--out", str(tmp_path / "gsm8k"), "-q"]) == 0
    model = tmp_path / "Qwen3-0.6B-Base"
    shutil.copytree(tokenizer_dir, model)
    shutil.copy(root / "models" / "Qwen3-0.6B-Base" / "config.json", model / "config.json")
    capsys.readouterr()
    assert main(["train", "qwen3-0.6b-grpo", "--model", str(model), "--dry-run",
                 "--train-files", str(tmp_path / "gsm8k" / "train.parquet"),
                 "--val-files", str(tmp_path / "gsm8k" / "test.parquet")]) == 0
    out = capsys.readouterr().out
    assert "data_source openai/gsm8k" in out and "prompt tokens p50" in out
    assert "Findings: 0 error(s), 0 warning(s)" in out
    assert f"actor_rollout_ref.model.path={model}" in out


def test_launch_refuses_a_node_without_megatron(tmp_path, monkeypatch, capsys):
    """Two (fake) GPUs are enough, but this CPU machine has no megatron-core: the launch stops before verl."""
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA L4 (UUID: GPU-0)'\necho 'GPU 1: NVIDIA L4 (UUID: GPU-1)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    from importlib.util import find_spec
    if find_spec("megatron") is not None:
        pytest.skip("megatron-core is installed here")
    assert main(BASE) == 2
    assert "this machine lacks megatron-core" in capsys.readouterr().err


def test_launch_refuses_a_machine_with_fewer_cpus_than_verl_reserves(tmp_path, monkeypatch, capsys):
    """Ray, started by verl with every CPU of the machine, would wait forever for a placement group it
    cannot place (seen: a 2-GPU run given 14 CPUs hung before its first step); the launch says so."""
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA L4 (UUID: GPU-0)'\necho 'GPU 1: NVIDIA L4 (UUID: GPU-1)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    import cli.launch.command
    import cli.launch.env
    monkeypatch.setattr(cli.launch.env, "requirements", lambda cfg, vision=False: [])      # as if every package were here
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    monkeypatch.setattr(cli.launch.command, "run", lambda argv: pytest.fail("verl was launched"))
    assert main(BASE) == 2
    err = capsys.readouterr().err
    assert "this machine gives Ray 8 CPUs but verl reserves 16" in err and "num_cpus to at least 16" in err


def test_launch_refuses_to_start_a_second_ray_cluster_beside_another_verl_run(tmp_path, monkeypatch, capsys):
    """Two runs with separate Ray clusters on one machine share verl's weight-sync socket names (both jobs
    are 01000000): on a 4x H200 node one run's vLLM loaded another's 512-wide tensor into a 1024-wide
    parameter, and others stalled. The launch names the other trainer and the ways out."""
    fake = tmp_path / "bin" / "nvidia-smi"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA L4 (UUID: GPU-0)'\necho 'GPU 1: NVIDIA L4 (UUID: GPU-1)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))   # no `ray start` cluster here
    import cli.launch.command
    import cli.launch.env
    import cli.launch.host
    monkeypatch.setattr(cli.launch.env, "requirements", lambda cfg, vision=False: [])
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(cli.launch.host, "running_trainers", lambda: [4242])
    monkeypatch.setattr(cli.launch.command, "run", lambda argv: pytest.fail("verl was launched"))
    assert main(BASE) == 2
    err = capsys.readouterr().err
    assert "another verl trainer runs on this machine (pid 4242)" in err and "ray start --head" in err


@pytest.fixture(scope="module")
def mix(tmp_path_factory):
    """GSM8K (6 train rows) and MATH (3 train rows) prepared from the hub fixtures: a mix to train on."""
    root, hub = tmp_path_factory.mktemp("mix"), Path(__file__).resolve().parent / "fixtures" / "hub"
    for name, source in (("gsm8k", "openai/gsm8k"), ("math", "DigitalLearningGmbH/MATH-lighteval")):
        assert main(["prepare", str(hub / source), "-o", str(root / name), "-q"]) == 0
    return root


@pytest.mark.parametrize("form", ["flags", "verl_list", "override"])
def test_a_mix_of_data_files_is_checked_file_by_file(mix, form, capsys):
    """--train-files takes several files (or verl's [a,b]), as data.train_files=[a,b] does: each file
    is checked, the batch size against their rows together (6 + 3 = 9 >= 8), and verl gets the list."""
    train = [str(mix / "gsm8k" / "train.parquet"), str(mix / "math" / "train.parquet")]
    val = [str(mix / "gsm8k" / "test.parquet"), str(mix / "math" / "test.parquet")]
    files = {"flags": ["--train-files", *train, "data.train_batch_size=4", "--val-files", *val],
             "verl_list": ["--train-files", f"[{','.join(train)}]", "--val-files", f"[{','.join(val)}]"],
             "override": [f"data.train_files=[{','.join(train)}]", f"data.val_files=[{','.join(val)}]"]}[form]
    capsys.readouterr()
    assert main(["train", "qwen3-0.6b-grpo", "--dry-run", *files, "data.train_batch_size=8"]) == 0
    out = capsys.readouterr().out
    for name, rows in zip(train + val, (6, 3, 3, 2)):
        assert f"  data       {name}: {rows} rows" in out
    assert "error:" not in out and "data.train_batch_size=8 \\" in out and "data.train_batch_size=4" not in out
    assert f"data.train_files=[{','.join(train)}]" in out and f"data.val_files=[{','.join(val)}]" in out


def test_a_missing_file_of_a_mix_is_named_alone(mix, capsys):
    present, missing = str(mix / "gsm8k" / "train.parquet"), str(mix / "nowhere.parquet")
    assert main(["train", "qwen3-0.6b-grpo", "--dry-run", "--train-files", present, missing,
                 "--val-files", str(mix / "gsm8k" / "test.parquet"), "data.train_batch_size=4"]) == 2
    out = capsys.readouterr().out
    assert f"error: train file {missing} does not exist: write it with `rewards prepare SOURCE -o {mix}`" in out
    assert f"  data       {present}: 6 rows" in out


def test_tokenizer_checks_prompt_lengths_when_only_the_config_is_here(tmp_path, capsys, tokenizer_dir):
    """--model-config gives the shape; --tokenizer the prompt lengths (without it they go unchecked)."""
    from tests.helpers.launch_plans import MODELS, verl_rows

    verl_rows(8).to_parquet(tmp_path / "train.parquet")
    verl_rows(4).to_parquet(tmp_path / "test.parquet")
    args = ["train", "qwen3-0.6b-grpo", "--json", "--model-config", str(MODELS / "Qwen3-0.6B-Base" / "config.json"),
            "--train-files", str(tmp_path / "train.parquet"), "--val-files", str(tmp_path / "test.parquet")]
    main(args)
    unchecked = json.loads(capsys.readouterr().out)
    assert any("prompt lengths were not checked" in f["message"] for f in unchecked["findings"])
    main([*args, "--tokenizer", str(tokenizer_dir)])
    checked = json.loads(capsys.readouterr().out)
    assert checked["run"] == "Qwen3-0.6B-Base GRPO on openai/gsm8k, Megatron TP 2 x PP 1 on 2 GPU(s)"
    assert not any("prompt lengths were not checked" in f["message"] for f in checked["findings"])
    assert checked["data"][0]["prompt_tokens"]["max"] > 0
    assert main([*args, "--tokenizer", str(tmp_path)]) == 2
    assert "holds no tokenizer" in capsys.readouterr().out
