"""rewards.verl on its own: signatures, key sets, batch contract, delegation rules, light import.

The tests that run verl's own loader and reward managers are in test_verl_loop.py.
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rewards
from rewards import UnknownDataSourceError
from rewards.result import RESULT_KEYS, TIMING_KEY, VERDICTS, VERL_KEYS
from rewards import verl as rv
from tests.conftest import ROOT
from tests.helpers.verl_rows import untimed

VERL_PARAMS = ["data_source", "solution_str", "ground_truth", "extra_info"]
BATCH_PARAMS = ["data_sources", "solution_strs", "ground_truths", "extra_infos"]


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_import_is_light():
    """verl imports the reward module in every reward worker: no torch, verl or sympy at import."""
    proc = run_python("""
        import sys
        import rewards.verl
        heavy = sorted(m for m in ("torch", "verl", "sympy", "ray", "numpy") if m in sys.modules)
        print(",".join(heavy))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_signatures_match_verl():
    for fn in (rv.compute_score, rv.compute_score_async):
        params = inspect.signature(fn).parameters
        assert list(params)[:4] == VERL_PARAMS
        assert params["extra_info"].default is None
        assert any(p.kind is p.VAR_KEYWORD for p in params.values())
    params = inspect.signature(rv.compute_score_batch).parameters
    assert list(params)[:4] == BATCH_PARAMS
    assert any(p.kind is p.VAR_KEYWORD for p in params.values())
    assert not inspect.iscoroutinefunction(rv.compute_score)
    assert inspect.iscoroutinefunction(rv.compute_score_async)


def test_keyword_call_with_verl_extras():
    """verl calls with keywords, a mutated extra_info and pass-through keywords it owns."""
    out = rv.compute_score(data_source="openai/gsm8k", solution_str="so she pays #### $1,080.",
                           ground_truth="1080", extra_info={"index": 3, "num_turns": None,
                                                            "rollout_reward_scores": {}},
                           reward_router_address=None)
    assert untimed(out) == {"score": 1.0, "acc": 1.0, "format": 1.0, "pred": "1080", "verdict": "correct"}
    assert tuple(out) == VERL_KEYS and out[TIMING_KEY] > 0


def test_settings_arrive_as_keywords():
    flexible = rv.compute_score(data_source="openai/gsm8k", solution_str="The total is 42 apples",
                                ground_truth="42", gsm8k_mode="flexible")
    strict = rv.compute_score(data_source="openai/gsm8k", solution_str="The total is 42 apples",
                              ground_truth="42", gsm8k_mode="strict")
    assert flexible["verdict"] == "correct" and strict["verdict"] == "no_answer"


def test_async_variant_matches_sync():
    args = dict(data_source="openai/gsm8k", solution_str="#### 7", ground_truth="7", extra_info={})
    assert untimed(asyncio.run(rv.compute_score_async(**args))) == untimed(rv.compute_score(**args))


def test_thread_safe_under_concurrency():
    """verl's reward loop calls the sync function from many executor threads at once."""
    cases = [(f"she has {i} left #### {i}", str(i if i % 3 else i + 1)) for i in range(300)]
    serial = [rv.compute_score("openai/gsm8k", r, g) for r, g in cases]
    with ThreadPoolExecutor(max_workers=16) as pool:
        threaded = list(pool.map(lambda c: rv.compute_score(data_source="openai/gsm8k",
                                                            solution_str=c[0], ground_truth=c[1]), cases))
    assert list(map(untimed, threaded)) == list(map(untimed, serial))
    assert sum(r["acc"] for r in serial) == 200


def test_batch_one_result_per_sample_in_order():
    out = rv.compute_score_batch(data_sources=["openai/gsm8k", "gsm8k", "openai/gsm8k"],
                                 solution_strs=["#### 1", "#### 5", "no answer here"],
                                 ground_truths=["1", "2", "3"],
                                 extra_infos=[{"index": 0}, {"index": 1}, {"index": 2}])
    assert [r["verdict"] for r in out] == ["correct", "wrong", "no_answer"]
    assert all(tuple(r) == VERL_KEYS for r in out)


def test_batch_without_extra_infos_and_with_settings():
    out = rv.compute_score_batch(data_sources=["openai/gsm8k"], solution_strs=["it is 9"],
                                 ground_truths=["9"], gsm8k_mode="flexible")
    assert out[0]["verdict"] == "correct"


def test_batch_checks_lengths():
    with pytest.raises(rv.BatchSizeError, match="solution_strs=1.*ground_truths=2"):
        rv.compute_score_batch(data_sources=["openai/gsm8k", "openai/gsm8k"], solution_strs=["#### 1"],
                               ground_truths=["1", "2"])


def test_unknown_everywhere_is_loud():
    """A name neither we nor verl score must stop the run, not pay 0 silently."""
    with pytest.raises(UnknownDataSourceError, match="openai/gsm8k"):
        rv.compute_score(data_source="openai/gsm8kk", solution_str="#### 1", ground_truth="1")
    with pytest.raises(UnknownDataSourceError):
        rv.compute_score_batch(data_sources=["openai/gsm8k", "no-such-set"], solution_strs=["a", "b"],
                               ground_truths=["1", "2"])
    with pytest.raises(UnknownDataSourceError, match="empty"):
        rv.compute_score(data_source="", solution_str="#### 1", ground_truth="1")


@pytest.mark.parametrize("data_source", [None, float("nan"), b"openai/gsm8k", 7])
def test_a_data_source_that_is_not_text_raises_as_the_library_does(data_source):
    """A null in a concatenated parquet must stop the run, not pay `error` / 0 with a warning per
    sample: verl's scorer cannot take it either, so it is never delegated."""
    with pytest.raises(UnknownDataSourceError) as lib:
        rewards.compute_score(data_source, "#### 1", "1")
    for call in (lambda: rv.compute_score(data_source, "#### 1", "1"),
                 lambda: asyncio.run(rv.compute_score_async(data_source, "#### 1", "1")),
                 lambda: rv.compute_score_batch(["openai/gsm8k", data_source], ["#### 1"] * 2, ["1"] * 2)):
        with pytest.raises(UnknownDataSourceError) as exc:
            call()
        assert str(exc.value) == str(lib.value)


def test_without_verl_delegation_is_off_and_loud():
    """With verl not importable, a name only verl knows raises instead of delegating."""
    proc = run_python("""
        import sys
        sys.modules["verl"] = None  # makes `import verl` fail as if it were not installed
        from rewards import UnknownDataSourceError
        from rewards.verl import compute_score, compute_score_batch
        for call in (lambda: compute_score("searchR1_nq", "<answer>x</answer>", {"target": ["x"]}),
                     lambda: compute_score_batch(["searchR1_nq"], ["<answer>x</answer>"], [{"target": ["x"]}])):
            try:
                call()
            except UnknownDataSourceError as exc:
                print("loud:", exc)
        print(compute_score("openai/gsm8k", "#### 2", "2")["verdict"])
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("loud: no scorer") and lines[1].startswith("loud:")
    assert lines[2] == "correct"


# --- mapping verl's own results into our keys -----------------------------------------------

verl_floats = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32),
                        st.sampled_from([0.0, 1.0, -1.0, 0.1, 0.9]), st.integers(-1, 1), st.booleans())
verl_dicts = st.fixed_dictionaries(
    {"score": verl_floats},
    optional={"acc": st.booleans(), "pred": st.one_of(st.none(), st.text(max_size=10), st.integers()),
              "other": st.text(max_size=5)})


@given(st.one_of(verl_floats, verl_dicts))
def test_from_verl_keeps_score_and_our_keys(raw):
    out = rv.from_verl(raw).to_dict()
    assert tuple(out) == RESULT_KEYS
    assert out["score"] == float(raw["score"] if isinstance(raw, dict) else raw)
    assert out["acc"] in (0.0, 1.0) and out["verdict"] in VERDICTS and isinstance(out["pred"], str)
    assert (out["acc"] == 1.0) == (out["verdict"] == "correct")


def test_from_verl_rules():
    assert rv.from_verl(1.0).to_dict()["verdict"] == "correct"
    assert rv.from_verl(0.9).to_dict() == {"score": 0.9, "acc": 0.0, "format": 1.0, "pred": "",
                                           "verdict": "wrong"}
    dapo = rv.from_verl({"score": -1.0, "acc": False, "pred": "12"}).to_dict()
    assert dapo == {"score": -1.0, "acc": 0.0, "format": 1.0, "pred": "12", "verdict": "wrong"}
    assert rv.from_verl({"score": 1.0, "acc": True, "pred": "7"}).to_dict()["acc"] == 1.0


def test_symbolic_checks_from_threads_use_no_signals(monkeypatch):
    """verl calls from executor threads, where `signal` cannot be used: the deadline must not need it."""
    import signal

    def forbidden(*_a, **_k):
        raise AssertionError("signal-based timeouts do not work in verl's reward threads")

    for name in ("signal", "alarm", "setitimer"):
        monkeypatch.setattr(signal, name, forbidden)
    cases = [(r"so \boxed{\frac{x^2-1}{x-1}}", "x+1", "correct"), (r"\boxed{x^2-1}", "(x-1)(x+1)", "correct"),
             (r"\boxed{x^2+1}", "(x-1)(x+1)", "wrong"), (r"\boxed{\sqrt{8}}", r"2\sqrt{2}", "correct")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        outs = list(pool.map(lambda c: rv.compute_score(data_source="lighteval/MATH", solution_str=c[0],
                                                        ground_truth=c[1], timeout=60), cases))
    assert [o["verdict"] for o in outs] == [c[2] for c in cases]


def test_first_call_warms_the_pool_so_a_later_bomb_keeps_its_deadline():
    """In a fresh process: one fast-path sample, then (workers started meanwhile) a sympy bomb
    must come back `timeout` within its 1 s deadline plus 0.5 s, not pay worker start-up."""
    code = r"""
import time
from rewards.verl import compute_score
compute_score("openai/gsm8k", "#### 4", "4")
time.sleep(10)  # worker start-up takes 1-2.5 s on 2 cores; the first call started it in the background
start = time.monotonic()
r = compute_score("lighteval/MATH", r"\boxed{\sum_{k=1}^{9000} k^{k}}", r"7\sqrt{5}", timeout=1.0)
print(r["verdict"], round(time.monotonic() - start, 2))
"""
    out = run_python(code)
    verdict, seconds = out.stdout.split()
    assert verdict == "timeout" and float(seconds) < 1.5, out.stdout + out.stderr
