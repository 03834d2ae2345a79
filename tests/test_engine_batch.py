"""Batch scoring over the engine: order, deadlines per sample, thread safety, asyncio."""

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from rewards import Sample, compute_score, engine, register_scorer, score_batch, score_batch_async
from rewards.engine.batch import map_ordered, round_robin
from tests.helpers.engine_funcs import bounded_scorer

SOURCE = "test/engine-bounded"


@pytest.fixture(scope="module", autouse=True)
def pool_and_scorer():
    register_scorer(SOURCE, scorer=bounded_scorer, override=True)
    engine.configure(workers=2, memory_mb=512, inline=False)
    engine.warm_up()
    yield
    engine.shutdown()


@given(st.lists(st.integers(), max_size=60), st.integers(1, 6))
@hsettings(max_examples=40, deadline=None)
def test_map_ordered_keeps_input_order(items, threads):
    assert map_ordered(lambda x: x * 2, items, threads) == [x * 2 for x in items]
    order = round_robin([x % 3 for x in items])
    assert map_ordered(lambda x: x * 2, items, threads, order) == [x * 2 for x in items]


def test_map_ordered_spreads_slow_items_over_threads():
    start = time.monotonic()
    out = map_ordered(lambda x: time.sleep(0.2) or x, list(range(8)), threads=8)
    assert out == list(range(8)) and time.monotonic() - start < 1.0


def test_map_ordered_reraises_the_first_failure():
    def boom(x):
        if x == 13:
            raise KeyError(x)
        return x
    with pytest.raises(KeyError):
        map_ordered(boom, list(range(40)), threads=3)


def test_batch_results_come_back_in_input_order_with_bounded_checks_in_parallel():
    samples = [Sample(SOURCE, f"check:1.0:{i}" if i % 15 == 0 else str(i), str(i if i % 3 else -1))
               for i in range(60)]
    expected = ["correct" if i % 3 else "wrong" for i in range(60)]
    start = time.monotonic()
    results = score_batch(samples, timeout=5)
    elapsed = time.monotonic() - start
    assert [r.verdict.value for r in results] == expected
    assert [r.pred for r in results] == [str(i) for i in range(60)]
    assert elapsed < 3.5  # four 1 s checks on two workers: about 2 s, not 4 s


def test_one_stuck_sample_times_out_alone():
    """A check that never answers (it waits, using no CPU) ends at the wall-clock backstop; the
    rest of the batch is judged beside it."""
    samples = [Sample(SOURCE, "check:60:1", "1")] + [Sample(SOURCE, str(i), str(i)) for i in range(50)]
    engine.warm_up()
    before = engine.stats().timeouts
    results = score_batch(samples, timeout=0.5)
    assert results[0].verdict.value == "timeout"
    assert all(r.verdict.value == "correct" for r in results[1:])
    assert engine.stats().timeouts == before + 1


def test_unknown_data_source_raises_before_any_work():
    from rewards import UnknownDataSourceError
    with pytest.raises(UnknownDataSourceError):
        score_batch([Sample(SOURCE, "1", "1"), Sample("no/such-source", "1", "1")])


def _mixed_calls():
    calls = []
    for i in range(120):
        if i % 4 == 0:
            calls.append((SOURCE, f"check:0.01:{i % 7}", str(i % 5)))
        elif i % 4 == 1:
            calls.append((SOURCE, str(i % 3), str(i % 2)))
        elif i % 4 == 2:
            calls.append(("openai/gsm8k", f"so the total is #### {i % 9}", str(i % 4)))
        else:
            calls.append(("openai/gsm8k", f"She has {i} apples.\n#### {i:,}", str(i)))
        # MATH: fast-path answers and answers only sympy can settle (run in the workers)
        k = i % 6 + 2
        calls.append(("lighteval/MATH", f"So $\\boxed{{\\frac{{{k}}}{{{2 * k}}}}}$.", "\\frac{1}{2}"))
        calls.append(("lighteval/MATH", f"Thus $\\boxed{{\\sqrt{{{k * k * 2}}}}}$.", f"{k}\\sqrt{{2}}"))
        calls.append(("lighteval/MATH", f"Thus $\\boxed{{(x+{k})(x-1)}}$.", f"x^2+{k - 1}x-{k + (i % 2)}"))
    return calls


def test_compute_score_from_16_threads_equals_sequential_calls():
    calls = _mixed_calls()
    sequential = [compute_score(*c, timeout=10) for c in calls]
    barrier = threading.Barrier(16)

    def one(c):
        return compute_score(*c, timeout=10)

    def worker(chunk):
        barrier.wait()
        return [one(c) for c in chunk]

    chunks = [calls[k::16] for k in range(16)]
    with ThreadPoolExecutor(16) as ex:
        parts = list(ex.map(worker, chunks))
    threaded = [None] * len(calls)
    for k, part in enumerate(parts):
        threaded[k::16] = part
    assert threaded == sequential
    assert {r["verdict"] for r in sequential} == {"correct", "wrong"}
    math = [r["verdict"] for c, r in zip(calls, sequential) if c[0] == "lighteval/MATH"]
    assert math.count("correct") > math.count("wrong") > 0


def test_score_batch_equals_sequential_compute_score():
    calls = _mixed_calls()
    sequential = [compute_score(*c, timeout=10) for c in calls]
    batched = score_batch([Sample(*c) for c in calls], timeout=10, threads=4)
    assert [r.to_dict() for r in batched] == sequential


def test_round_robin_takes_one_of_each_gold_before_repeats():
    keys = ["a"] * 3 + ["b"] * 2 + ["c"]
    assert round_robin(keys) == [0, 3, 5, 1, 4, 2]
    assert sorted(round_robin(keys)) == list(range(6))


def test_score_batch_async_does_not_block_the_event_loop():
    samples = [Sample(SOURCE, "check:0.4:1", "1"), Sample(SOURCE, "check:0.4:2", "3")] * 2

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        results = await score_batch_async(samples, timeout=5)
        task.cancel()
        return results, ticks

    results, ticks = asyncio.run(main())
    assert [r.verdict.value for r in results] == ["correct", "wrong"] * 2
    assert ticks >= 30


def test_score_batch_async_raises_unknown_sources_at_once():
    from rewards import UnknownDataSourceError
    with pytest.raises(UnknownDataSourceError):
        asyncio.run(score_batch_async([Sample("no/such-source", "1", "1")]))
