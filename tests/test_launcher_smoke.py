"""`rewards train PRESET --smoke`: the rehearsal's plan composes with verl for every preset, its
failures are named in one sentence, and the process it starts is always ended."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap

import pytest

from cli.launch import smoke
from cli.launch.presets import load_preset, preset_names
from cli.main import main
from tests.helpers.launch_plans import PRESET_MODEL, model_dirs, gsm8k_files  # noqa: F401 (fixtures)

pytest.importorskip("verl")
pytest.importorskip("transformers")

VISION = {name for name in PRESET_MODEL if "-vl-" in name}


@pytest.mark.parametrize("name", sorted(set(preset_names()) - VISION))
def test_smoke_plan_of_every_text_preset_composes_and_verl_accepts_it(name, gsm8k_files, model_dirs, tmp_path,
                                                                     capsys):
    train, val = gsm8k_files
    local = ["--model", str(model_dirs["tiny-gsm8k"])] if name.startswith("tiny") else []   # a local-path preset
    if name == "qwen2.5-0.5b-ppo":   # its Megatron critic reads lm_head.weight: an untied copy, as the preset says
        local = [f"critic.model.path={_untied_config(model_dirs[PRESET_MODEL[name]], tmp_path / 'untied')}"]
    command = _smoke_command(name, train, val, tmp_path, capsys, *local)
    if name == "qwen2.5-0.5b-ppo":   # the shrunk critic is untied too, beside the shrunk actor
        assert command["critic.model.path"] == str(tmp_path / "critic")
        assert json.loads((tmp_path / "critic" / "config.json").read_text())["tie_word_embeddings"] is False
    assert command["trainer.total_training_steps"] == str(smoke.STEPS)
    assert command["trainer.default_local_dir"] == str(tmp_path / "checkpoints")
    assert command["trainer.resume_mode"] == "disable"
    assert command["actor_rollout_ref.model.path"] == str(tmp_path / "model")
    preset = load_preset(name)
    for key in ("algorithm.adv_estimator", "actor_rollout_ref.rollout.name", "actor_rollout_ref.rollout.n"):
        assert command[key] == str(preset.overrides[key]).lower()      # the preset's own recipe is kept
    shrunk = json.loads((tmp_path / "model" / "config.json").read_text())
    assert shrunk["num_hidden_layers"] == smoke.LAYERS
    assert shrunk["hidden_size"] == shrunk["num_attention_heads"] * smoke.HEAD_DIM
    assert shrunk["model_type"] == preset.model_config["model_type"]


@pytest.fixture(scope="module")
def diagram_files(tmp_path_factory):
    """Drawn geometry3k-shaped rows (`rewards tiny-data --images`), prepared as the hub's geometry3k is."""
    root = tmp_path_factory.mktemp("diagrams")
    assert main(["tiny-data", str(root / "raw.parquet"), "--images", "-n", "40", "--seed", "2"]) == 0
    assert main(["prepare", str(root / "raw.parquet"), "-o", str(root), "--test-size", "8", "--seed", "0", "-q"]) == 0
    return root / "train.parquet", root / "test.parquet"


@pytest.mark.parametrize("name", sorted(VISION))
def test_smoke_plan_of_every_vision_preset_composes_and_verl_accepts_it(name, diagram_files, tmp_path, capsys):
    """Nothing of the model is on this machine: it is shrunk from the preset's record of its config, with
    the tiny tokenizer carrying Qwen2.5-VL's image tokens and its image processor's settings."""
    train, val = diagram_files
    command = _smoke_command(name, train, val, tmp_path, capsys)
    assert command["trainer.total_training_steps"] == str(smoke.STEPS)
    assert command["actor_rollout_ref.model.path"] == str(tmp_path / "model")
    assert command["data.image_key"] == "images"
    preset = load_preset(name)
    for key in ("algorithm.adv_estimator", "actor_rollout_ref.rollout.name", "actor_rollout_ref.rollout.n",
                "actor_rollout_ref.rollout.tensor_model_parallel_size"):
        assert command[key] == str(preset.overrides[key]).lower()
    if preset.strategy == "megatron":
        assert command["actor_rollout_ref.actor.megatron.tensor_model_parallel_size"] == "2"
    shrunk = json.loads((tmp_path / "model" / "config.json").read_text())
    assert shrunk["model_type"] == "qwen2_5_vl" and shrunk["num_hidden_layers"] == smoke.LAYERS
    assert shrunk["vision_config"]["num_heads"] % 2 == 0 and shrunk["num_key_value_heads"] % 2 == 0
    for name_ in ("preprocessor_config.json", "chat_template.json", "tokenizer.json", "model.safetensors"):
        assert (tmp_path / "model" / name_).is_file()


def test_smoke_uses_the_models_own_tokenizer_when_it_is_here(model_dirs, gsm8k_files, tmp_path, capsys):
    train, val = gsm8k_files
    own = model_dirs["Qwen2.5-0.5B-Instruct"]
    code = main(["train", "qwen2.5-0.5b-ppo", "--smoke", "--dry-run", "--model", str(own), "--strategy", "fsdp",
                 "--train-files", str(train), "--val-files", str(val), "--smoke-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"the model's own tokenizer ({own})" in out
    assert (tmp_path / "model" / "tokenizer_config.json").read_bytes() == (own / "tokenizer_config.json").read_bytes()
    shrunk = json.loads((tmp_path / "model" / "config.json").read_text())
    assert shrunk["vocab_size"] == json.loads((own / "config.json").read_text())["vocab_size"]


def test_a_broken_full_plan_fails_the_smoke_before_any_gpu(gsm8k_files, model_dirs, tmp_path, capsys):
    train, val = gsm8k_files
    code = main(["train", "tiny-gsm8k-grpo", "--smoke", "--train-files", str(train), "--val-files", str(val),
                 "--model", str(model_dirs["tiny-gsm8k"]), "--smoke-dir", str(tmp_path), "data.train_batch_size=3"])
    assert code == 1
    out = capsys.readouterr().out
    assert out.startswith("smoke: FAIL before launch:") and "train_batch_size" in out
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize("log, kind", [
    ("(TaskRunner pid=812) AttributeError: Object not found in module: object_name='compute_scor', "
     "module_path='pkg://rewards.verl'.", "the reward function does not import"),
    ("ModuleNotFoundError: No module named 'rewards.nope'", "the reward function does not import"),
    ("(TaskRunner pid=3) KeyError: 'reward_model'", "the data does not fit verl's row schema"),
    ("jinja2.exceptions.TemplateError: System role not supported", "the chat template fails on the prompts"),
    ("omegaconf.errors.ConfigAttributeError: Key 'bogus' is not in struct", "a config key or value verl refuses"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "out of GPU memory"),
    ("ValueError: No available memory for the cache blocks.", "out of GPU memory"),
    ("RuntimeError: something else broke", "verl failed"),
    # a vLLM replica's rendezvous port taken during its start-up (verl issue 6677's log line)
    ("(vLLMHttpServer pid=6840) (Worker pid=7181) ERROR 06-09 17:58:55 [multiproc_executor.py:852] "
     "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
     "port: 32847, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
     "a port was taken while vLLM started (a race with another engine or run starting at the same time; run it "
     "again, or start runs on one machine a minute apart)"),
])
def test_first_failure_names_the_cause(log, kind):
    noise = "INFO 12:00 vllm starting\nUserWarning: ModuleNotFoundError is only a warning here\nTraceback (most recent call last):\n"
    failure = smoke.first_failure(noise + log + "\nRuntimeError: a later consequence", reward_module="rewards.verl")
    assert failure is not None and failure.kind == kind
    assert "pid=" not in failure.line


def test_another_modules_import_error_is_not_blamed_on_the_reward():
    failure = smoke.first_failure("ModuleNotFoundError: No module named 'flash_attn'", reward_module="rewards.verl")
    assert failure.kind == "a package the run needs is missing"


def _script(tmp_path, body: str) -> list[str]:
    path = tmp_path / "fake_verl.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def test_run_smoke_passes_only_after_every_step_and_a_checkpoint(tmp_path):
    argv = _script(tmp_path, f"""
        import os, sys
        print("step:1 - critic/score/mean:0.1"); print("step:2 - critic/score/mean:0.2")
        os.makedirs(os.path.join({str(tmp_path)!r}, "checkpoints", "global_step_2"))
    """)
    result = smoke.run_smoke(argv, tmp_path, timeout_s=60)
    assert result.ok and result.steps == 2, result.summary()
    assert result.summary().startswith("smoke: pass")


def test_run_smoke_without_a_checkpoint_is_a_failure(tmp_path):
    argv = _script(tmp_path, 'print("step:1 - x:1"); print("step:2 - x:1")')
    result = smoke.run_smoke(argv, tmp_path, timeout_s=60)
    assert not result.ok and "no checkpoint" in result.summary()


def test_run_smoke_reports_the_first_failure_of_the_run(tmp_path):
    argv = _script(tmp_path, """
        import sys
        print("(TaskRunner pid=1) KeyError: 'reward_model'", flush=True)
        print("RuntimeError: worker died", flush=True)
        sys.exit(1)
    """)
    result = smoke.run_smoke(argv, tmp_path, timeout_s=60)
    assert not result.ok
    assert result.failure.kind == "the data does not fit verl's row schema"
    assert "KeyError: 'reward_model'" in result.summary()


def test_run_smoke_ends_the_whole_process_group_at_its_timeout(tmp_path):
    pid_file = tmp_path / "child.pid"
    argv = _script(tmp_path, f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(300)
    """)
    result = smoke.run_smoke(argv, tmp_path, timeout_s=3)
    assert not result.ok and "did not finish" in result.summary()
    import os
    child = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.kill(child, 0)
            import time
            time.sleep(0.1)


def test_shrunk_config_keeps_grouped_attention_and_per_layer_lists():
    qwen3 = {"model_type": "qwen3", "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
             "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28, "max_window_layers": 28,
             "layer_types": ["full_attention"] * 28, "vocab_size": 151936}
    out = smoke.shrunk_config(qwen3)
    assert (out["num_attention_heads"], out["num_key_value_heads"], out["head_dim"]) == (4, 2, 64)
    assert out["layer_types"] == ["full_attention"] * 2 and out["max_window_layers"] == 2
    assert out["vocab_size"] == 151936
    with pytest.raises(smoke.SmokeError, match="this model is 'qwen3'"):
        smoke.shrunk_config({**qwen3, "vision_config": {}})


LOGS = __import__("pathlib").Path(__file__).resolve().parent / "fixtures" / "verl_logs"


@pytest.mark.parametrize("log, kind, says", [
    ("no-rm-run.log", "the data does not fit verl's row schema", "KeyError: 'reward_model'"),
    ("badtpl-run.log", "the chat template fails on the prompts",
     "jinja2.exceptions.TemplateError: user turns are not supported"),
    ("q25.log", "a package the run needs is missing", "FlashAttention2 has been toggled on"),
])
def test_first_failure_on_real_verl_logs(log, kind, says):
    """Error lines of verl 0.9.1 runs on an H100 that failed on purpose (a training file without
    reward_model, a chat template that raises, a PPO critic without flash-attn): the sentence is the
    error's own, with no colour codes, actor prefix or traceback code line."""
    failure = smoke.first_failure((LOGS / log).read_text(encoding="utf-8"), reward_module="rewards.verl")
    assert failure.kind == kind
    assert failure.line.startswith(says.split(":")[0]) or says in failure.line, failure.line
    assert says in failure.line and "\x1b" not in failure.line and "pid=" not in failure.line


def test_steps_are_counted_from_verls_step_lines_only():
    log = (LOGS / "tiny-pass.log").read_text(encoding="utf-8")
    assert smoke.steps_done(log) == 2
    assert smoke.steps_done("(TaskRunnerV1 pid=1) step:1 - timing_s/step:5.2 - x:1") == 1


def test_a_model_path_naming_tiny_keeps_its_own_tokenizers_prompt_room(model_dirs, gsm8k_files, tmp_path, capsys):
    """Whether the byte-level tokenizer stood in was read from the message text: a model folder whose
    path holds 'tiny' (the tiny preset's own) had its prompt room multiplied by 6."""
    train, val = gsm8k_files
    code = main(["train", "tiny-gsm8k-grpo", "--smoke", "--json", "--model", str(model_dirs["tiny-gsm8k"]),
                 "--train-files", str(train), "--val-files", str(val), "--smoke-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    command = json.loads(out[out.index("{"):])["command"]
    assert "data.max_prompt_length=320" in command


def _untied_config(model_dir, out):
    """A folder like model_dir whose config says untied (what `rewards untie` writes, without weights)."""
    shutil.copytree(model_dir, out)
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "tie_word_embeddings": False}))
    return out


def test_a_smoke_of_a_tied_critic_fails_before_launch_with_the_plans_sentence(gsm8k_files, tmp_path, capsys):
    train, val = gsm8k_files
    code = main(["train", "qwen2.5-0.5b-ppo", "--smoke", "--train-files", str(train), "--val-files", str(val),
                 "--smoke-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "smoke: FAIL before launch" in out and "rewards untie" in out


def _smoke_command(name, train, val, smoke_dir, capsys, *flags) -> dict[str, str]:
    """The `key=value` overrides of a smoke plan that composed without an error."""
    code = main(["train", name, "--smoke", "--json", "--train-files", str(train), "--val-files", str(val),
                 "--smoke-dir", str(smoke_dir), *flags])
    out = capsys.readouterr().out
    plan = json.loads(out[out.index("{"):])
    assert code == 0, plan["findings"]
    assert plan["ok"] and not [f for f in plan["findings"] if f["level"] == "error"]
    return dict(arg.split("=", 1) for arg in plan["command"][3:] if "=" in arg)


@pytest.mark.parametrize("tp, grouped, heads, kv_heads", [(1, True, 4, 2), (2, True, 8, 4), (4, True, 16, 8),
                                                          (2, False, 4, 4), (4, False, 8, 8)])
def test_every_rank_of_the_widest_split_holds_two_key_value_heads(tp, grouped, heads, kv_heads):
    """The shrunk model keeps the real presets' shape, two key/value heads a rank or more, and its grouping.
    (The weight-sync failures once blamed on one head a rank were two runs crossing: test_launcher_host.)"""
    config = {"model_type": "qwen3", "num_attention_heads": 32, "num_key_value_heads": 8 if grouped else 32,
              "head_dim": 128, "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36}
    out = smoke.shrunk_config(config, tp)
    assert (out["num_attention_heads"], out["num_key_value_heads"]) == (heads, kv_heads)
    assert out["num_key_value_heads"] // tp == 2 and out["hidden_size"] == heads * smoke.HEAD_DIM


def test_a_run_that_states_a_failure_and_then_waits_forever_is_stopped(tmp_path, monkeypatch):
    """A vLLM worker's error at the first weight sync left verl waiting (the H200 rehearsal of
    qwen3-8b-grpo, still silent 8 minutes later): after STALL_S without output the rehearsal ends it."""
    monkeypatch.setattr(smoke, "STALL_S", 1.0)
    monkeypatch.setattr(smoke, "POLL_S", 0.2)
    argv = _script(tmp_path, """
        import time
        print("(Worker_TP1 pid=4) ERROR 11-27 07:38:41 [multiproc_executor.py:1000] RuntimeError: start (128) "
              "+ length (128) exceeds dimension size (128).", flush=True)
        time.sleep(300)
    """)
    result = smoke.run_smoke(argv, tmp_path, timeout_s=60)
    assert not result.ok   # ended by the stall rule (its sentence below), not by the 60 s timeout
    assert "exceeds dimension size" in result.summary() and "verl did not exit" in result.summary()


def test_silence_without_a_stated_failure_is_waited_out(tmp_path, monkeypatch):
    """A quiet phase (a model loading, vLLM compiling) is not a failure: only the timeout ends it."""
    monkeypatch.setattr(smoke, "STALL_S", 0.5)
    monkeypatch.setattr(smoke, "POLL_S", 0.1)
    argv = _script(tmp_path, f"""
        import os, time
        print("loading", flush=True); time.sleep(2)
        print("step:1 - x:1"); print("step:2 - x:1")
        os.makedirs(os.path.join({str(tmp_path)!r}, "checkpoints", "global_step_2"))
    """)
    assert smoke.run_smoke(argv, tmp_path, timeout_s=60).ok


def test_a_smoke_beside_another_verl_run_fails_before_launch(gsm8k_files, model_dirs, tmp_path, monkeypatch, capsys):
    """The rehearsal starts its own Ray: beside another verl trainer its weight syncs would cross (the
    4x H200 rehearsals that stalled or loaded another model's tensors), so it stops with the launch's sentence."""
    import cli.launch.env
    import cli.launch.host

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    monkeypatch.setattr(cli.launch.env, "requirements", lambda cfg, vision=False: [])
    monkeypatch.setattr(cli.launch.host, "running_trainers", lambda: [31337])
    monkeypatch.setattr(cli.launch.host.os, "cpu_count", lambda: 64)   # Ray's CPUs are enough here
    monkeypatch.setattr(smoke, "run_smoke", lambda *a, **k: pytest.fail("verl was launched"))
    train, val = gsm8k_files
    code = main(["train", "tiny-gsm8k-grpo", "--smoke", "--model", str(model_dirs["tiny-gsm8k"]), "--train-files",
                 str(train), "--val-files", str(val), "--smoke-dir", str(tmp_path / "smoke")])
    out = capsys.readouterr().out
    assert code == 1 and "smoke: FAIL before launch: another verl trainer runs on this machine (pid 31337)" in out
