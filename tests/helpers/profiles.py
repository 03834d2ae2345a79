"""The hypothesis profiles, in one place: the test suite's (`ci`, `dev`) and the long search's (`fuzz`).

Tests are deterministic: a fixed seed (`derandomize`) and no example database, so a run on a
laptop draws what CI draws and a failure reproduces anywhere. Searching for new failures is the
job of `make fuzz` (tests/fuzz/search.py), whose profile draws fresh random examples each run.
CI machines have 2 cores: property tests are thorough but bounded. How fast inputs are generated
depends on the machine's load, not on our code, so that health check is off (the others stay on).
"""

import os

from hypothesis import HealthCheck, settings

_shared = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
settings.register_profile("ci", max_examples=200, derandomize=True, **_shared)
settings.register_profile("dev", max_examples=100, derandomize=True, **_shared)
settings.register_profile("fuzz", max_examples=1000, derandomize=False, **_shared)


def load_test_profile() -> None:
    """`ci` under CI (the `CI` variable set), else `dev`."""
    settings.load_profile("ci" if os.environ.get("CI") else "dev")
