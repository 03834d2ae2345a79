"""A module whose import costs ~1.5 s of CPU (a heavy scorer's imports): a worker imports it before
its first call to `answer`, and that import must not be charged to the call's budget."""

import time

_end = time.process_time() + 1.5
while time.process_time() < _end:
    pass


def answer(value):
    return value
