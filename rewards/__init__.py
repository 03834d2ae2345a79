"""verl-rewards: rule rewards for verl math training that are correct, fast and safe.

`compute_score` has verl's reward-function signature. Importing this package stays light (no
sympy, torch or verl) so that verl's workers and the CLI start quickly.

The package exports what users call; the rest lives in its own module: the registry's lookups in
`rewards.registry`, the result key and verdict lists in `rewards.result`, the worker pool in
`rewards.engine`, one-scorer judging in `rewards.api`.
"""

from .api import Sample, compute_score, score_batch, score_batch_async
from .registry import DuplicateScorerError, UnknownDataSourceError, register_scorer
from .result import Result, Verdict
from .settings import Settings, SettingsError

__all__ = [
    "compute_score", "score_batch", "score_batch_async", "Sample", "register_scorer",
    "Result", "Verdict", "Settings",
    "UnknownDataSourceError", "SettingsError", "DuplicateScorerError",
]
__version__ = "0.1.0"
