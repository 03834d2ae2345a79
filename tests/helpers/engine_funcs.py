"""Top-level functions for engine tests: workers import them by module path, as they would a scorer."""

import os
import time


def add(a, b):
    return a + b


def sleep_then(seconds, value):
    time.sleep(seconds)
    return value


def slow_the_first_time(marker, seconds, value):
    """Sleeps `seconds` on the first call for `marker` (a file path it then creates), answers at once
    after: the same call is slow for a leader stuck behind a burst, quick for a follower's own run."""
    if os.path.exists(marker):
        return value
    open(marker, "w").close()
    time.sleep(seconds)
    return value


def spin(seconds):
    """Busy CPU loop (a stuck sympy call looks like this, not like a sleep)."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


def spin_then(seconds, value):
    """`value` after `seconds` of CPU time: a slow but sound sympy check, charged to its budget."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return value


def raise_value_error(message):
    raise ValueError(message)


def allocate_mb(mb):
    block = bytearray(mb * 1024 * 1024)
    return len(block)


def die(code):
    os._exit(code)


def pid():
    return os.getpid()


def unpicklable_result():
    return lambda: None


def big_power(exponent):
    return 10 ** exponent


def bounded_scorer(response, ground_truth, extra_info, settings):
    """A scorer shaped like the MATH one: fast path in-process, `check:` answers in a worker.

    `check:<seconds>:<answer>` sleeps in the worker (a check waiting on nothing) and then compares,
    `compute:<seconds>:<answer>` computes that long first (a slow sympy call); anything else is
    compared in-process.
    """
    from rewards.engine import WorkerTimeout, call_bounded
    from rewards.result import Verdict, correct, failed, wrong

    if response.startswith(("check:", "compute:")):
        how, seconds, answer = response.split(":", 2)
        run = sleep_then if how == "check" else spin_then
        try:
            same = call_bounded(run, float(seconds), answer == ground_truth, timeout=settings.timeout)
        except WorkerTimeout:
            return failed(Verdict.TIMEOUT, "symbolic check exceeded its deadline", pred=answer)
        return correct(answer) if same else wrong(answer)
    return correct(response) if response == ground_truth else wrong(response)


WARMED = False


def mark_warm():
    global WARMED
    WARMED = True


def warmed():
    return WARMED
