"""The mutation fuzzer's property for the built-in scorers, judged through the function verl loads
(`rewards.verl.compute_score`): a mutated wrong answer is never paid, a respelt right one is paid,
and no verdict is ever `error`. `make fuzz` and the test suite draw the cases from
`rewards.testing.golds.FAMILIES` and `rewards.testing.wrappers.placed_golds`."""

from __future__ import annotations

from dataclasses import dataclass

from ..verl import compute_score
from .golds import Gold, Mutation


@dataclass(frozen=True)
class Finding:
    """One mutation the scorer judged against the property."""

    family: str
    mutation: str
    kind: str  # "false positive", "false negative" or "error"
    gold: str
    response: str
    verdict: str
    pred: str

    def __str__(self) -> str:
        return (f"{self.kind}: [{self.family} / {self.mutation}] gold {self.gold!r}, "
                f"response {self.response!r} -> {self.verdict} (pred {self.pred!r})")


def judge(gold: Gold, mutation: Mutation) -> Finding | None:
    """The finding for one mutation of `gold`, or None when the scorer treated it as it must."""
    result = compute_score(gold.data_source, mutation.response, gold.gold)
    if result["verdict"] == "error":
        kind = "error"
    elif result["acc"] == 1.0 and not mutation.paid:
        kind = "false positive"
    elif result["acc"] != 1.0 and mutation.paid:
        kind = "false negative"
    else:
        return None
    return Finding(gold.family, mutation.name, kind, gold.gold, mutation.response,
                   result["verdict"], result["pred"])


def findings(gold: Gold) -> list[Finding]:
    """Every finding among `gold`'s mutations."""
    return [f for m in gold.mutations for f in [judge(gold, m)] if f is not None]
