import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# CI machines have 2 cores; keep property tests thorough but bounded. How fast inputs are generated
# depends on the machine's load, not on our code, so that health check is off (the others stay on).
_shared = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=200, **_shared)
settings.register_profile("dev", max_examples=100, **_shared)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory):
    """Directory of a small offline BPE tokenizer with a ChatML chat template (see helpers/tokenizer.py)."""
    from tests.helpers.tokenizer import make_tokenizer

    return make_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture(scope="session")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))
