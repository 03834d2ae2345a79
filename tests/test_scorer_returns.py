"""A registered scorer that returns verl's own convention (a float, a dict with `score`) is read as
verl reads it; anything else is an `error` verdict that says to return a Result. Never a crash in
the reward call, at any entry point; a scorer that cannot be called is refused when it registers."""

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import rewards.verl as rv
from rewards import Sample, compute_score, register_scorer, score_batch
from rewards.registry import _entries, _lock
from rewards.result import RESULT_KEYS
from tests.helpers.verl_rows import untimed

RETURNS = {
    "test-returns/float-one": 1.0,
    "test-returns/float-half": 0.5,
    "test-returns/np-float": np.float32(1.0),
    "test-returns/int-zero": 0,
    "test-returns/dict": {"score": 1.0, "pred": "7", "extra": "dropped"},
    "test-returns/dict-acc": {"score": 1.0, "acc": False},
    "test-returns/none": None,
    "test-returns/text": "1.0",
    "test-returns/bool": True,  # verl reads a bool as 1.0 / 0.0
    "test-returns/nan": math.nan,
    "test-returns/dict-no-score": {"acc": 1.0},
    "test-returns/dict-text-score": {"score": "1"},
}


@pytest.fixture(scope="module", autouse=True)
def scorers():
    for name, value in RETURNS.items():
        register_scorer(name, scorer=lambda response, gold, extra, settings, value=value: value)
    yield
    with _lock:
        for name in RETURNS:
            _entries.pop(name, None)


def _all_entry_points(name):
    """The same sample through every entry point, from threads and asyncio tasks at once."""
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda f: f(name, "#### 7", "7"), [compute_score, rv.compute_score] * 4))

    async def tasks():
        return await asyncio.gather(*(rv.compute_score_async(name, "#### 7", "7") for _ in range(4)))

    batch = rv.compute_score_batch(data_sources=[name] * 3, solution_strs=["#### 7"] * 3,
                                   ground_truths=["7"] * 3)
    library = [r.to_dict() for r in score_batch([Sample(name, "#### 7", "7")] * 3)]
    return threaded + asyncio.run(tasks()) + batch + library


@pytest.mark.parametrize("name, score, verdict, pred", [
    ("test-returns/float-one", 1.0, "correct", ""),
    ("test-returns/float-half", 0.5, "wrong", ""),       # partial credit is never `correct`
    ("test-returns/np-float", 1.0, "correct", ""),
    ("test-returns/int-zero", 0.0, "wrong", ""),
    ("test-returns/dict", 1.0, "correct", "7"),
    ("test-returns/dict-acc", 1.0, "wrong", ""),          # the dict's own acc wins
    ("test-returns/bool", 1.0, "correct", ""),
])
def test_verl_convention_is_read_as_verl_reads_it(name, score, verdict, pred):
    for out in _all_entry_points(name):
        assert set(untimed(out)) == set(RESULT_KEYS)  # the adapter adds its own time
        assert (out["score"], out["verdict"], out["pred"]) == (score, verdict, pred)


@pytest.mark.parametrize("name, said", [
    ("test-returns/none", "NoneType"), ("test-returns/text", "str"),
    ("test-returns/nan", "not a finite number"), ("test-returns/dict-no-score", "without 'score'"),
    ("test-returns/dict-text-score", "'score' is str"),
])
def test_anything_else_is_an_error_verdict_that_says_return_a_result(name, said):
    for out in _all_entry_points(name):
        assert set(untimed(out)) == set(RESULT_KEYS)  # the adapter adds its own time
        assert (out["verdict"], out["score"], out["acc"]) == ("error", 0.0, 0.0)
    [result] = score_batch([Sample(name, "#### 7", "7")])
    assert "return a Result" in result.reason and said in result.reason and name in result.reason


def test_a_scorer_that_cannot_be_called_is_refused_when_it_registers():
    with pytest.raises(TypeError, match="not a function"):
        register_scorer("test-returns/not-callable", scorer=1.0)
    with pytest.raises(TypeError, match=r"scorer\(response, ground_truth, extra_info, settings\)"):
        register_scorer("test-returns/two-args", scorer=lambda response, gold: 1.0)
    with _lock:
        assert "test-returns/not-callable" not in _entries and "test-returns/two-args" not in _entries
    register_scorer("test-returns/kwargs", scorer=lambda *args, **kwargs: 1.0)  # bindable: accepted
    with _lock:
        _entries.pop("test-returns/kwargs")
