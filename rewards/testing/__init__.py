"""Property-based tests for a reward: golds of every shape, what changes or keeps their meaning,
responses placed the way models write them, and `check_scorer`, one call for your own pytest.

    from rewards.testing import check_scorer

    def test_my_scorer():
        check_scorer("my/data_source")          # or check_scorer(my_scorer_function, gold=...)

`golds` draws the golds with their mutations, `wrappers` places an answer in a response, `check`
runs the properties. It needs hypothesis: `pip install verl-rewards[testing]` (docs/custom-scorers.md).
"""

try:
    import hypothesis  # noqa: F401
except ImportError as exc:  # the optional extra is missing: say how to get it
    raise ImportError("rewards.testing needs hypothesis: pip install verl-rewards[testing]") from exc

from . import golds, wrappers
from .check import CheckReport, ScorerCheckFailed, check_scorer
from .golds import FAMILIES, Gold, Mutation
from .wrappers import ALL, SETTLED, AnswerFormat, Wrapper

__all__ = ["check_scorer", "ScorerCheckFailed", "CheckReport", "golds", "wrappers", "FAMILIES", "Gold",
           "Mutation", "AnswerFormat", "Wrapper", "SETTLED", "ALL"]
