"""Running `rewards` as a user does (a fresh process) and checking that a failure is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rewards(*args, cwd=None, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *map(str, args)], cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=300, preexec_fn=preexec,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})


def one_line_error(done: subprocess.CompletedProcess, status: int = 2) -> str:
    """The one `rewards ...:` line of a failed run (exit `status`, no traceback)."""
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("rewards ")]
    assert len(lines) == 1, done.stderr
    return lines[0]
