"""The suite is deterministic: hypothesis tries the same examples on every run and keeps no database,
and no test draws from an unseeded source, so a failure on a fresh clone repeats everywhere."""

import re

from hypothesis import settings

from tests.conftest import ROOT

# Unseeded sources: the OS's entropy, a fresh uuid, the module-level generators of random and numpy.
UNSEEDED = re.compile(r"os\.urandom|uuid\.uuid[14]\(|\brandom\.(random|randint|choice|choices|shuffle|sample|"
                      r"uniform|getrandbits)\(|np\.random\.(?!default_rng\(\d|seed\(\d|RandomState\(\d)")


def test_hypothesis_is_derandomized_without_a_database_even_where_a_test_sets_its_own_settings():
    for chosen in (settings.default, settings(max_examples=5, deadline=None)):
        assert chosen.derandomize and chosen.database is None


def test_no_test_draws_from_an_unseeded_source():
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*.py"))
             if path.name != "test_determinism.py"
             for n, line in enumerate(path.read_text().splitlines(), 1) if UNSEEDED.search(line)]
    assert not found, f"seed these (random.Random(seed), a fixed uuid): {found}"
