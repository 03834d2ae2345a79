"""Verdicts under attack: golds of every shape, each mutated so that its meaning changes (never
paid) or respelt so that it stays (paid, where docs/scoring-policy.md says so); no verdict is ever
`error`. The golds and mutations are in tests/fuzz/strategies.py; this file draws them with the
suite's fixed seed, and `make fuzz` searches further with fresh seeds."""

import pytest
from hypothesis import find, given, settings, strategies as st

from tests.fuzz.strategies import FAMILIES
from tests.fuzz.verdicts import findings


# The suite's profile gives the seed and turns the database off; the count is bounded here so that
# the file stays under a minute on a loaded 2-core machine (`make fuzz` draws thousands per family).
@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=60)
@given(data=st.data())
def test_mutations_are_judged_by_meaning(family, data):
    gold = data.draw(FAMILIES[family], label="gold")
    found = findings(gold)
    assert not found, "\n".join(map(str, found))


def test_each_family_has_meaning_changing_mutations():
    """The property is only as strong as its mutations: every family's simplest gold has some."""
    changing, preserving = set(), set()
    for family, strategy in FAMILIES.items():
        gold = find(strategy, lambda g: True, settings=settings(database=None))
        assert any(not m.paid for m in gold.mutations), family
        changing |= {(family, m.name) for m in gold.mutations if not m.paid}
        preserving |= {(family, m.name) for m in gold.mutations if m.paid}
    assert len(changing) >= 150 and len(preserving) >= 40, (len(changing), len(preserving))
