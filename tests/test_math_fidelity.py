"""The labelled MATH fidelity suite (tests/fixtures/math_fidelity*.jsonl, one file per theme): every case
must get its expected verdict, and no case labelled anything but `correct` may be paid."""

import json
from collections import Counter

import pytest

from rewards import compute_score
from tests.conftest import FIXTURES

CASES = [dict(json.loads(line), file=path.stem)
         for path in sorted(FIXTURES.glob("math_fidelity*.jsonl"))
         for line in path.read_text().splitlines() if line.strip()]


def test_suite_is_large_and_covers_every_rule():
    assert len(CASES) >= 300
    rules = Counter(c["rule"] for c in CASES)
    for rule in ("extract", "normalize", "numbers", "symbolic", "lists", "tuples", "intervals", "matrices",
                 "equations", "plus_minus", "complex", "infinity", "choice", "text", "answer_line", "gold",
                 "sources", "gaming"):
        assert rules[rule] >= 2, rule
    assert Counter(c["expected"] for c in CASES)["wrong"] >= 150


@pytest.mark.parametrize("case", CASES, ids=[f"{c['file']}-{c['id']}-{c['rule']}" for c in CASES])
def test_case(case):
    out = compute_score(case["data_source"], case["response"], case["gold"])
    assert out["verdict"] == case["expected"], (case["note"], out)
    assert out["acc"] == (1.0 if case["expected"] == "correct" else 0.0)


def test_no_false_positives():
    paid = [(c["file"], c["id"]) for c in CASES if c["expected"] != "correct"
            and compute_score(c["data_source"], c["response"], c["gold"])["acc"] == 1.0]
    assert paid == []
