"""The documented install lines: GPU nodes keep verl 0.9.1's own pins, CPU machines use constraints.txt.

The GPU line is resolved by pip's resolver in dry-run mode against the package index (`network`:
minutes, since pip fetches each wheel to read its metadata; `make check-install`, run by CI). The
checks below it need no network and run with every test run.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from tests.conftest import ROOT

DOCS = (ROOT / "README.md", ROOT / "docs" / "verl.md")
BLOCK = re.compile(r"<!-- install: (\w+) -->\n```bash\n(.*?)```", re.S)
VERL_EXTRA = "vllm"


def install_lines(kind: str) -> list[str]:
    """Every `pip install` line of the docs' `install: KIND` blocks (comments dropped)."""
    lines = []
    for doc in DOCS:
        for found in BLOCK.finditer(doc.read_text()):
            if found.group(1) == kind:
                lines += [line.split("  #")[0].strip() for line in found.group(2).splitlines()
                          if line.startswith("pip install")]
    return lines


def gpu_line() -> list[str]:
    lines = set(install_lines("gpu"))
    assert len(lines) == 1, f"README.md and docs/verl.md must give one GPU-node line, found {sorted(lines)}"
    return shlex.split(lines.pop())


def verl_extra_pins(extra: str) -> dict[str, Requirement]:
    """verl 0.9.1's own requirements under one extra, from its installed metadata."""
    pins = {}
    for text in metadata.requires("verl") or ():
        req = Requirement(text)
        if req.marker is not None and req.marker.evaluate({"extra": extra}) and not req.marker.evaluate({"extra": ""}):
            pins[req.name.lower()] = req
    return pins


def test_gpu_nodes_install_without_the_cpu_constraints():
    args = gpu_line()
    assert args[:2] == ["pip", "install"] and "-c" not in args and "--constraint" not in args
    assert f"verl[{VERL_EXTRA}]==0.9.1" in args
    for line in install_lines("cpu"):  # the CPU lines are the ones that pin torch
        assert "torch" in line or "constraints.txt" in line


@pytest.mark.verl
def test_constraints_contradict_verls_extra_and_our_own_pins_do_not():
    """Why the lines differ: constraints.txt's torch is not verl's; pyproject's pins all fit verl's."""
    verl = verl_extra_pins(VERL_EXTRA)
    assert "torch" in verl, "verl's metadata has no torch pin under its vllm extra"
    constraints = {Requirement(line).name.lower(): Requirement(line)
                   for line in (ROOT / "constraints.txt").read_text().splitlines()
                   if line.strip() and not line.startswith("#")}
    torch_pin = next(iter(verl["torch"].specifier)).version
    assert not constraints["torch"].specifier.contains(torch_pin)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for text in project["dependencies"]:
        ours = Requirement(text)
        theirs = verl.get(ours.name.lower())
        exact = [s.version for s in ours.specifier if s.operator == "=="]
        if theirs is not None and exact:
            assert theirs.specifier.contains(exact[0]), f"{ours} contradicts verl's {theirs}"


def _index_reachable() -> str | None:
    """None when pip can read verl's versions from the configured index, else why not."""
    try:
        probe = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "verl"],
                               capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "pip could not reach the package index within 120 s"
    if probe.returncode != 0 or "0.9.1" not in probe.stdout:
        tail = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        return f"the package index cannot be reached or has no verl 0.9.1 ({tail[:200]})"
    return None


@pytest.mark.network
@pytest.mark.slow
def test_the_gpu_line_resolves_against_verls_vllm_extra(tmp_path):
    """pip's resolver, dry run, as on a fresh node (`--ignore-installed`): the documented line resolves
    and installs verl's torch, not constraints.txt's."""
    reason = _index_reachable()
    if reason is not None:
        pytest.skip(reason)
    args = gpu_line()[2:]
    report = tmp_path / "report.json"
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                          "--report", str(report), *args], cwd=ROOT, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stderr[-3000:]
    chosen = {item["metadata"]["name"].lower(): item["metadata"]["version"]
              for item in json.loads(report.read_text())["install"]}
    pins = verl_extra_pins(VERL_EXTRA)
    assert chosen["verl"] == "0.9.1" and chosen["verl-rewards"]
    for name in ("torch", "vllm"):
        assert pins[name].specifier.contains(chosen[name]), (name, chosen[name], str(pins[name]))
    assert chosen["antlr4-python3-runtime"] == "4.9.3"
