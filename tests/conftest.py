import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# CI machines have 2 cores; keep property tests thorough but bounded.
settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def rewards_cli():
    """Run the `rewards` CLI in-process; returns (exit status, stdout, stderr)."""
    from cli.main import main

    def run(*argv: str, capsys=None):
        return main(list(argv))
    return run
