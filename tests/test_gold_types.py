"""Golds of every type a verl row can carry are read by value, once, at the scoring entry."""

import logging
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rewards.verl as rv
from rewards.api import Sample, compute_score, score_batch
from rewards.gold import MAX_GOLD_CHARS, UnusableGold, canonical_gold
from rewards.number_text import parse_number

SOURCES = ["lighteval/MATH", "openai/gsm8k"]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("gold, answer", [
    (np.int64(5), "5"), (np.float64(5.0), "5"), (Fraction(1, 2), "0.5"), (1e20, "100000000000000000000"),
    (7, "7"), (3.3e-06, "0.0000033"), (Decimal("2.50"), "2.5"), (np.array(12), "12"),
    (np.str_("42"), "42"), (np.int32(-3), "-3"), (np.float32(0.5), "0.5"), (np.uint8(200), "200"),
    (np.float32(0.1), "0.1"), (np.float16(2.5), "2.5"), (np.array(0.3, dtype=np.float32), "0.3"),
    (Fraction(-7, 4), "-1.75"), (Decimal("1E+3"), "1000"), (-0.0, "0"),
])
def test_numeric_golds_match_by_value(source, gold, answer):
    response = f"#### {answer}" if source == "openai/gsm8k" else f"\\boxed{{{answer}}}"
    out = compute_score(source, response, gold)
    assert out["verdict"] == "correct", (gold, out)


@pytest.mark.parametrize("value, text", [
    (1e20, "100000000000000000000"), (3.3e-06, "0.0000033"), (5.0, "5"), (np.float64(0.1), "0.1"),
    (np.float32(0.1), "0.1"), (np.float32(1e20), "100000000000000000000"), (Decimal("1.500"), "1.5"), (Fraction(3, 1), "3"), (np.array(2.5), "2.5"), (np.int64(-9), "-9"),
    ("  x+1 ", "  x+1 "), (None, None),
])
def test_canonical_spellings(value, text):
    assert canonical_gold(value) == text


def test_a_5000_digit_integer_gold_is_a_verdict_everywhere():
    big = 10 ** 5000 + 7
    assert canonical_gold(big) == "1" + "0" * 4999 + "7"
    for source in SOURCES:
        out = compute_score(source, "#### 7 \\boxed{7}", big)
        assert out["verdict"] in ("unparsable_gold", "wrong")  # longer than any answer we read
    results = score_batch([Sample("openai/gsm8k", "#### 1", big), Sample("openai/gsm8k", "#### 1", 1)] * 5)
    assert [r.verdict.value for r in results][1::2] == ["correct"] * 5
    outs = rv.compute_score_batch(["lighteval/MATH"] * 2, ["\\boxed{1}"] * 2, [big, True])
    assert [o["verdict"] for o in outs] == ["unparsable_gold", "unparsable_gold"]


@pytest.mark.parametrize("gold", [True, False, np.bool_(True), float("nan"), float("inf"),
                                  Decimal("NaN"), Decimal("-Infinity"), np.float64("nan"), np.float32("inf"),
                                  Decimal("1e999999999"), 10 ** (MAX_GOLD_CHARS + 5)],
                         ids=lambda g: type(g).__name__)
def test_unusable_golds_are_refused_clearly(gold, caplog):
    with pytest.raises(UnusableGold):
        canonical_gold(gold)
    with caplog.at_level(logging.WARNING, logger="rewards"):
        outs = [compute_score(source, "#### 1 \\boxed{1}", gold) for source in SOURCES]
    assert [o["verdict"] for o in outs] == ["unparsable_gold"] * 2


def test_a_boolean_gold_is_logged_once_with_its_reason(caplog):
    from rewards import gold as gold_module

    gold_module._refused.clear()
    with caplog.at_level(logging.WARNING, logger="rewards"):
        for _ in range(3):
            assert compute_score("openai/gsm8k", "#### 1", True)["verdict"] == "unparsable_gold"
    lines = [r.getMessage() for r in caplog.records if "boolean" in r.getMessage()]
    assert len(lines) == 1 and "openai/gsm8k" in lines[0] and "unparsable_gold" in lines[0]


def test_batch_apis_never_raise_on_odd_golds():
    golds = [True, None, {"a": 1}, [1, 2], float("nan"), object(), 10 ** 6000, np.array([1, 2]), b"5"]
    results = score_batch([Sample("lighteval/MATH", "\\boxed{5}", g) for g in golds])
    assert {r.verdict.value for r in results} == {"unparsable_gold"}
    outs = rv.compute_score_batch(["openai/gsm8k"] * len(golds), ["#### 5"] * len(golds), golds)
    assert {o["verdict"] for o in outs} == {"unparsable_gold"}


def test_rewards_does_not_import_numpy():
    code = "import sys, rewards, rewards.api, rewards.gold, rewards.verl; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- properties ----------------------------------------------------------------------------------

finite_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
numpy_scalars = st.one_of(
    st.integers(-2**62, 2**62).map(np.int64), finite_floats.map(np.float64),
    st.integers(0, 255).map(np.uint8), st.integers(-2**62, 2**62).map(np.array))
golds = st.one_of(st.integers(), finite_floats, st.fractions(), numpy_scalars,
                  st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
                      lambda d: abs(d.adjusted()) < 500))


@given(golds)
def test_canonical_gold_is_the_exact_value(gold):
    """The canonical text parses back to the gold's exact value (floats: the shortest repr's)."""
    text = canonical_gold(gold)
    assert isinstance(text, str) and "e" not in text.lower()
    item = gold.item() if hasattr(gold, "item") else gold
    expected = Fraction(repr(item)) if isinstance(item, float) else Fraction(item)
    assert Fraction(text) == expected
    assert canonical_gold(text) == text  # idempotent


@given(golds)
def test_every_numeric_gold_matches_its_own_spelling(gold):
    text = canonical_gold(gold)
    if len(text) > 150:  # GSM8K reads 200 characters after `####`
        return
    assert compute_score("openai/gsm8k", f"#### {text}", gold)["verdict"] == "correct"
    assert parse_number(text) is not None


@given(st.one_of(st.booleans(), st.none(), st.text(max_size=20), st.lists(st.integers(), max_size=3)))
def test_compute_score_returns_a_verdict_for_any_gold(gold):
    for source in SOURCES:
        out = compute_score(source, "#### 1 \\boxed{1}", gold)
        assert out["verdict"] in ("correct", "wrong", "unparsable_gold", "no_answer", "unparsable_pred",
                                  "timeout", "error")


@pytest.mark.verl
@pytest.mark.parametrize("column, golds, answers", [
    (pa.int64(), [5, 7, 10**17], ["5", "7", "100000000000000000"]),
    (pa.float64(), [5.0, 0.5, 1e20], ["5", "0.5", "100000000000000000000"]),
    (pa.float64(), [5, 0.5, 3.3e-06], ["5", "\\frac{1}{2}", "0.0000033"]),  # ints among floats: arrow says double
])
def test_numeric_golds_from_parquet_through_verls_dataset(tmp_path, tokenizer, column, golds, answers):
    """The gold as verl hands it over: a parquet column read by verl 0.9.1's RLHFDataset and its
    collate_fn (what the reward loop's `non_tensor_batch["reward_model"]` holds), then scored
    through each entry point."""
    import asyncio

    import pyarrow.parquet as pq
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    n = len(golds)
    table = pa.table({
        "data_source": ["lighteval/MATH"] * n, "prompt": [[{"role": "user", "content": "q"}]] * n,
        "reward_model": pa.StructArray.from_arrays([pa.array(["rule"] * n), pa.array(golds, column)],
                                                   ["style", "ground_truth"]),
        "extra_info": [{"index": i} for i in range(n)]})
    pq.write_table(table, tmp_path / "rows.parquet")
    dataset = RLHFDataset(str(tmp_path / "rows.parquet"), tokenizer,
                          OmegaConf.create({"max_prompt_length": 512, "cache_dir": str(tmp_path / "cache")}))
    handed = [row["ground_truth"] for row in collate_fn([dataset[i] for i in range(n)])["reward_model"]]
    responses = [f"\\boxed{{{a}}}" for a in answers]
    assert [rv.compute_score("lighteval/MATH", r, g)["verdict"] for r, g in zip(responses, handed)] == ["correct"] * n
    assert [asyncio.run(rv.compute_score_async("lighteval/MATH", r, g))["verdict"]
            for r, g in zip(responses, handed)] == ["correct"] * n
    batch = rv.compute_score_batch(data_sources=["lighteval/MATH"] * n, solution_strs=responses, ground_truths=handed)
    assert [out["verdict"] for out in batch] == ["correct"] * n
    gsm8k = [f"#### {a}" for a in answers if "frac" not in a]
    assert all(rv.compute_score("openai/gsm8k", r, g)["verdict"] == "correct"
               for r, g in zip(gsm8k, [g for g, a in zip(handed, answers) if "frac" not in a]))


@pytest.mark.parametrize("gold", [None, "", [5], ["5"], {"answer": 5}, np.array([5]), b"5", object()])
def test_golds_that_name_no_answer_are_a_verdict_at_every_entry_point(gold):
    import asyncio

    for source in ("lighteval/MATH", "math_dapo", "openai/gsm8k"):
        response = "\\boxed{5} #### 5"
        outs = [rv.compute_score(source, response, gold), asyncio.run(rv.compute_score_async(source, response, gold)),
                rv.compute_score_batch(data_sources=[source], solution_strs=[response], ground_truths=[gold])[0],
                score_batch([Sample(source, response, gold)])[0].to_dict()]
        assert [out["verdict"] for out in outs] == ["unparsable_gold"] * 4
