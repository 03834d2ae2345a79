"""`rewards train --emit` writes through the one output path (cli/output.py) and writes a script whose
only commands are the launcher's own, whatever text the preset and the paths hold. Issue 28 items 2, 3, 8
and the printed command's interpreter and quoting."""

from __future__ import annotations

import os
import resource
import shlex
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main

pytest.importorskip("verl")
pytestmark = pytest.mark.verl

ROOT = Path(__file__).resolve().parents[1]
EVIL_DESCRIPTIONS = {
    "literal": "description: |\n  First line.\n  touch PWNED_LITERAL\n",
    "folded": "description: >\n  Qwen3 GRPO.\n\n  Needs: 2 GPUs (80 GB each)\n",
    "crlf": 'description: "one\\rtouch PWNED_CR\\u2028touch PWNED_LS\\x85touch PWNED_NEL"\n',
}


def preset_file(folder: Path, description: str) -> Path:
    path = folder / "mine.yaml"
    path.write_text("extends: qwen3-0.6b-grpo\n" + description, encoding="utf-8")
    return path


def header_of(script: Path) -> list[str]:
    """The script's lines before `set -euo pipefail` (the header, which must be all comments)."""
    text = script.read_text(encoding="utf-8")
    assert text.count("\nset -euo pipefail\n") == 1
    return text.split("\nset -euo pipefail\n")[0].split("\n")


def run_with_stub_python(script: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run the script with `python3` and `ray` as stubs that do nothing, so that only what the script
    itself would do happens."""
    stubs = cwd.parent / "stubs"
    stubs.mkdir(exist_ok=True)
    for name in ("python3", "ray"):
        (stubs / name).write_text("#!/bin/sh\nexit 0\n")
        (stubs / name).chmod(0o755)
    return subprocess.run(["bash", str(script)], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={"PATH": f"{stubs}:/usr/bin:/bin"})


@pytest.mark.parametrize("kind", sorted(EVIL_DESCRIPTIONS))
def test_every_header_line_is_a_comment_whatever_the_description(tmp_path, capsys, kind, monkeypatch):
    monkeypatch.chdir(tmp_path)   # the script makes the run's dump folder, relative to where it was planned
    preset = preset_file(tmp_path, EVIL_DESCRIPTIONS[kind])
    data = tmp_path / "a\ntouch PWNED_PATH\n.parquet"  # a data path holding newlines, missing here
    script = tmp_path / "run.sh"
    assert main(["train", str(preset), "--skip-data-check", "--train-files", str(data), "--emit", str(script)]) == 0
    header = header_of(script)
    assert header[0] == "#!/usr/bin/env bash" and all(line.startswith("# ") for line in header[1:]), header
    body = script.read_text().split("\nset -euo pipefail\n")[1]
    before, command = body.split("python3 -m verl.trainer.main_ppo ", 1)   # after the training-files record
    assert all(line.startswith(("#", "mkdir -p ", "printf ")) for line in before.splitlines() if line), before
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    done = run_with_stub_python(script, work)
    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == [] and not list(tmp_path.glob("PWNED*"))


def test_secrets_from_oc_env_stay_out_of_the_header(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DATA_SECRET", "/s3cr3t-token/train.parquet")
    script = tmp_path / "run.sh"
    assert main(["train", "qwen3-0.6b-grpo", "--skip-data-check", "--emit", str(script),
                 "data.train_files=${oc.env:DATA_SECRET}"]) == 0
    text = script.read_text()
    assert "s3cr3t-token" not in text
    assert "${oc.env:DATA_SECRET}" in text  # the override itself is written as given, for the cluster


@pytest.mark.parametrize("what", ["preset", "data", "data-through-a-link"])
def test_emit_refuses_to_overwrite_an_input(tmp_path, capsys, what):
    preset = preset_file(tmp_path, "description: mine\n")
    data = tmp_path / "train.parquet"
    data.write_bytes(b"PAR1 not really")
    link = tmp_path / "run.sh"
    link.symlink_to(data)
    target = {"preset": preset, "data": data, "data-through-a-link": link}[what]
    before = {p: p.read_bytes() for p in (preset, data)}
    code = main(["train", str(preset), "--skip-data-check", "--train-files", str(data), "--emit", str(target)])
    assert code == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (preset, data)} == before
    assert not stat.S_IMODE(data.stat().st_mode) & 0o111


def test_emit_onto_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path, capsys):
    real = tmp_path / "scripts" / "real.sh"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o700)
    link = tmp_path / "run.sh"
    link.symlink_to(real)
    assert main(["train", "qwen3-0.6b-grpo", "--skip-data-check", "--emit", str(link)]) == 0
    assert link.is_symlink() and real.read_text().startswith("#!/usr/bin/env bash")
    assert stat.S_IMODE(real.stat().st_mode) == 0o700


def test_emit_on_a_full_disk_leaves_the_old_script_and_no_temporary_file(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o755)

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    done = subprocess.run([sys.executable, "-m", "cli.main", "train", "qwen3-0.6b-grpo", "--skip-data-check",
                           "--emit", str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          preexec_fn=small_disk, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "cannot write --emit" in done.stderr
    assert script.read_text() == "#!/bin/sh\necho old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_a_raw_actor_override_warns_that_the_critic_keeps_the_preset_model(tmp_path, capsys):
    import json

    from cli.launch.presets import load_preset

    config = tmp_path / "config.json"
    config.write_text(json.dumps(load_preset("qwen2.5-0.5b-ppo").model_config))
    # Megatron-Bridge for the critic: through mbridge the tied preset model is a plan error of its own
    args = ["train", "qwen2.5-0.5b-ppo", "--skip-data-check", "--dry-run", "--model-config", str(config),
            "critic.megatron.vanilla_mbridge=false"]
    assert main([*args, "actor_rollout_ref.model.path=Qwen/Qwen2.5-1.5B"]) == 0
    out = capsys.readouterr().out
    assert "warning: the critic is Qwen/Qwen2.5-0.5B-Instruct but the actor" in out and "Qwen/Qwen2.5-1.5B" in out
    assert main([*args, "--model", "Qwen/Qwen2.5-1.5B"]) == 0  # --model sets both: nothing to say
    assert "the critic is" not in capsys.readouterr().out


def test_the_printed_command_names_the_interpreter_that_runs_and_quotes_the_ray_line(capsys):
    assert main(["train", "qwen3-0.6b-grpo", "--skip-data-check", "--dry-run"]) == 0
    command = capsys.readouterr().out.split("Command:\n", 1)[1].splitlines()
    assert command[0] == f"{shlex.quote(sys.executable)} -m verl.trainer.main_ppo \\"
    address = "http://head:8265/a b;echo"
    assert main(["train", "qwen3-0.6b-grpo", "--skip-data-check", "--dry-run", "--ray-address", address]) == 0
    command = capsys.readouterr().out.split("Command:\n", 1)[1].splitlines()
    assert shlex.split(command[0].removesuffix(" \\"))[:5] == ["ray", "job", "submit", "--address", address]
