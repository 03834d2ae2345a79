"""`pip install verl-rewards[testing]`, then `import rewards.testing`: the wheel is built from this tree
and installed into a fresh virtual environment.

Offline (every test run): the wheel declares the `testing` extra; installed alone it imports
`rewards` and says which extra `rewards.testing` needs; with the extra's packages installed from
wheels of this environment's own copies (`--no-index`), `rewards.testing` imports and checks a
scorer. With the package index (`network`, `make check-install`): the whole
`pip install 'verl-rewards[testing]'`, dependencies included, in a fresh environment.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import ROOT

pytestmark = pytest.mark.slow
SOURCES = ("pyproject.toml", "README.md", "rewards", "cli", "datasources", "schemas")
CHECK = """
from rewards import Result, Verdict
from rewards.testing import check_scorer
from hypothesis import strategies as st

def exact(response, ground_truth, extra_info, settings):
    found = response.strip().rsplit("Answer: ", 1)
    pred = found[-1].strip() if len(found) == 2 else ""
    return Result(Verdict.CORRECT if pred == ground_truth else Verdict.NO_ANSWER if not pred else Verdict.WRONG, pred)

import rewards.testing
print(rewards.testing.__file__)
check_scorer(exact, gold=st.sampled_from("ABCD"), answer_format="Answer: {answer}", max_examples=5,
             wrappers=[w for w in rewards.testing.SETTLED if w.name in ("the answer alone", "several candidates")])
print("checked")
"""


def pip(*args: str, python: Path) -> subprocess.CompletedProcess:
    """This environment's pip, installing into the environment of `python`."""
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python), *args],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built from a copy of its sources (no build folder left in the tree)."""
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(path, src / name)
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-w", str(out), str(src)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    (path,) = out.glob("verl_rewards-*.whl")
    return path


def fresh_env(root: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(root)
    return root / "bin" / "python"


def test_the_wheel_declares_the_testing_extra_and_ships_the_module(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = next(z.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert {"rewards/testing/__init__.py", "rewards/testing/check.py", "rewards/testing/golds.py",
            "rewards/testing/wrappers.py", "cli/check.py"} <= names
    assert "Provides-Extra: testing" in meta
    extra = [Requirement(line.split(":", 1)[1]) for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    assert [r.name for r in extra if r.marker and r.marker.evaluate({"extra": "testing"})
            and not r.marker.evaluate({"extra": ""})] == ["hypothesis"]


def wheel_of_installed(name: str, out: Path) -> Path:
    """A wheel of a distribution installed here, from its own files and dist-info (no download)."""
    dist = metadata.distribution(name)
    tags = [line.split(":", 1)[1].strip().split("-") for line in dist.read_text("WHEEL").splitlines()
            if line.startswith("Tag:")]
    tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))  # py2.py3-none-any
    path = out / f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for f in dist.files or ():
            rel = str(f)
            if rel.startswith("..") or "__pycache__" in rel or not f.locate().is_file():
                continue
            z.write(f.locate(), rel)
    return path


def requirement_closure(name: str) -> set[str]:
    """`name` and every distribution it requires here, markers evaluated for this interpreter."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for text in metadata.requires(current) or ():
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name.lower())
    return seen


def test_a_fresh_environment_imports_rewards_testing_once_the_extra_is_installed(wheel, tmp_path):
    python = fresh_env(tmp_path / "env")
    done = pip("install", "--no-deps", "--no-index", str(wheel), python=python)
    assert done.returncode == 0, done.stderr[-2000:]
    plain = subprocess.run([str(python), "-c", "import rewards, rewards.testing"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
    assert plain.returncode == 1 and "pip install verl-rewards[testing]" in plain.stderr.splitlines()[-1]

    house = tmp_path / "wheels"
    house.mkdir()
    for name in requirement_closure("hypothesis"):
        wheel_of_installed(name, house)
    done = pip("install", "--no-index", "--find-links", str(house), "hypothesis", python=python)
    assert done.returncode == 0, done.stderr[-2000:]
    checked = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert checked.returncode == 0, checked.stderr[-2000:]
    module, status = checked.stdout.split()
    assert module.startswith(str(tmp_path / "env")) and status == "checked"


@pytest.mark.network
def test_pip_installs_the_testing_extra_from_the_index(wheel, tmp_path):
    python = fresh_env(tmp_path / "env")
    done = pip("install", f"verl-rewards[testing] @ {wheel.as_uri()}", python=python)
    assert done.returncode == 0, done.stderr[-2000:]
    checked = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert checked.returncode == 0 and checked.stdout.split()[-1] == "checked", checked.stderr[-2000:]
