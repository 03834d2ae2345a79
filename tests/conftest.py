from pathlib import Path

import pytest

from tests.helpers.profiles import load_test_profile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

load_test_profile()


@pytest.fixture(scope="session")
def tokenizer_dir(tmp_path_factory):
    """Directory of a small offline BPE tokenizer with a ChatML chat template (see helpers/tokenizer.py)."""
    from tests.helpers.tokenizer import make_tokenizer

    return make_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture(scope="session")
def tokenizer(tokenizer_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tokenizer_dir))
