"""The `>>>` examples in the public entry points' docstrings run, and every entry point has one.

They run in a fresh interpreter: the examples register a scorer and start the engine, which must
not leak into the other tests' process-wide registry.
"""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

PUBLIC = {
    "rewards.api": ["compute_score", "score_batch", "score_batch_async"],
    "rewards.registry": ["register_scorer"],
    "rewards.result": ["Result", "Verdict"],
    "rewards.settings": ["Settings"],
    "rewards.verl": ["compute_score", "compute_score_async", "compute_score_batch"],
}


def test_every_public_entry_point_has_an_example():
    import importlib

    import rewards

    missing = [f"{module}.{name}" for module, names in PUBLIC.items() for name in names
               if ">>>" not in (getattr(importlib.import_module(module), name).__doc__ or "")]
    assert missing == []
    exported = {name for names in PUBLIC.values() for name in names}
    assert set(rewards.__all__) - exported <= {"Sample", "UnknownDataSourceError", "SettingsError",
                                               "DuplicateScorerError"}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_docstring_examples_run(module):
    code = (f"import doctest, {module} as m, sys; r = doctest.testmod(m); "
            "sys.exit(1 if r.failed or not r.attempted else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
