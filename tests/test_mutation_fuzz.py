"""Verdicts under attack: golds of every shape, each mutated so that its meaning changes (never
paid) or respelt so that it stays (paid, where docs/scoring-policy.md says so), and answers placed
the way models write them (paid) or hide them (not paid); no verdict is ever `error`. The golds,
mutations and wrappers are `rewards.testing`; this file draws them with the suite's fixed seed, and
`make fuzz` searches further with fresh seeds, the unsettled wrappers included."""

import pytest
from hypothesis import find, given, settings, strategies as st

from rewards.testing.golds import FAMILIES
from rewards.testing.verdicts import findings
from rewards.testing.wrappers import PLACED, WRAPPERS

SETTLED_PLACED = {f"placed: {w.name}": PLACED[f"placed: {w.name}"] for w in WRAPPERS if w.settled}


# The suite's profile gives the seed and turns the database off; the count is bounded here so that
# the file stays under a minute on a loaded 2-core machine (`make fuzz` draws thousands per family).
@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=60)
@given(data=st.data())
def test_mutations_are_judged_by_meaning(family, data):
    gold = data.draw(FAMILIES[family], label="gold")
    found = findings(gold)
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("family", sorted(SETTLED_PLACED))
@settings(max_examples=30)
@given(data=st.data())
def test_answers_are_judged_where_they_are_placed(family, data):
    gold = data.draw(SETTLED_PLACED[family], label="gold")
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
