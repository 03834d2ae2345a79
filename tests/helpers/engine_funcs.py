"""Top-level functions for engine tests: workers import them by module path, as they would a scorer."""

import os
import time


def add(a, b):
    return a + b


def sleep_then(seconds, value):
    time.sleep(seconds)
    return value


def spin(seconds):
    """Busy CPU loop (a stuck sympy call looks like this, not like a sleep)."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


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
