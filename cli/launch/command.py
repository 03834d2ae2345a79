"""The verl command: printed one override per line, written as a script, or run.

Locally the command runs as a subprocess of this process (verl starts or joins a Ray cluster itself:
on a node of a cluster started with `ray start`, `ray.init()` joins it). On an existing cluster,
`ray job submit --address ...` runs it on the head node, where verl sees every node's GPUs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from ..output import SCRIPT, write_output
from ..terminal import printable

INDENT = "    "


def render_command(argv: Sequence[str]) -> str:
    """`python3 -m verl.trainer.main_ppo \\` then one shell-quoted override per line."""
    head = shlex.join(argv[:3])
    lines = [head] + [INDENT + shlex.quote(arg) for arg in argv[3:]]
    return " \\\n".join(lines)


def render_script(argv: Sequence[str], header: Sequence[str], ray_address: str | None = None,
                  prelude: Sequence[str] = ()) -> str:
    """A bash script running the command; arguments given to the script are appended as overrides.
    `prelude`: shell lines run first (folders verl expects to exist)."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    comments = [f"# {printable(line)}".rstrip() for text in header for line in str(text).splitlines() or [""]]
    lines = ["#!/usr/bin/env bash", f"# Written by `rewards train` on {stamp}.", *comments,
             "# Extra verl overrides given to this script are appended (the last value of a key wins):",
             "#   ./run.sh trainer.total_epochs=2",
             "set -euo pipefail", "", *prelude]
    prefix = ray_submit_argv(ray_address, []) if ray_address else []
    first = len(prefix) + 3   # the submit prefix and `python3 -m verl.trainer.main_ppo` share the first line
    quoted = [shlex.quote(a) for a in [*prefix, *argv]] + ['"$@"']
    command = " ".join(quoted[:first]) + "".join(f" \\\n{INDENT}{q}" for q in quoted[first:])
    return "\n".join(lines) + command + "\n"


def write_script(path: str, text: str, inputs: Sequence[str | os.PathLike | None] = ()) -> Path | None:
    """Write the script by cli/output.py's rules (an input is refused, a regular file is replaced
    atomically, made executable before the rename); the path written."""
    return write_output(path, text, SCRIPT, flag="--emit", inputs=inputs)


def ray_submit_argv(address: str, argv: Sequence[str], no_wait: bool = False) -> list[str]:
    return ["ray", "job", "submit", "--address", address, *(["--no-wait"] if no_wait else []), "--", *argv]


def local_argv(argv: Sequence[str]) -> list[str]:
    """Run verl with this interpreter (the one that has verl and this package installed)."""
    return [sys.executable, *argv[1:]] if argv and argv[0] == "python3" else list(argv)


def count_local_gpus() -> int | None:
    """GPUs `nvidia-smi` lists on this machine; None when it cannot tell."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def run(argv: Sequence[str]) -> int:
    """Run the command in the foreground, passing its output through; returns its exit status."""
    try:
        return subprocess.call(list(argv))
    except FileNotFoundError:
        print(f"rewards train: {argv[0]} was not found on PATH", file=sys.stderr)
        return 127
