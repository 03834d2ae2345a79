"""verl-rewards: rule rewards for verl math training that are correct, fast and safe.

`compute_score` has verl's reward-function signature. Importing this package stays light (no
sympy, torch or verl) so that verl's workers and the CLI start quickly.
"""

from .api import Sample, compute_score, judge, score_batch, score_batch_async
from .engine import WorkerCrashed, WorkerError, WorkerTimeout, call_bounded
from .registry import (DuplicateScorerError, ScorerEntry, UnknownDataSourceError, get_scorer,
                       list_scorers, register_scorer)
from .result import RESULT_KEYS, VERDICTS, Result, Verdict
from .settings import Settings, SettingsError

__all__ = [
    "compute_score", "score_batch", "score_batch_async", "judge", "Sample",
    "call_bounded", "WorkerTimeout", "WorkerCrashed", "WorkerError",
    "register_scorer", "get_scorer", "list_scorers", "ScorerEntry",
    "UnknownDataSourceError", "DuplicateScorerError",
    "Result", "Verdict", "RESULT_KEYS", "VERDICTS", "Settings", "SettingsError",
]
__version__ = "0.1.0"
