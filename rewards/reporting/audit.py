"""A reward audit: where the reward a run was trained with (or another grader's) disagreed with ours.

Each row that carries a previous reward (a verl dump's `score`, kept as `prev_score`; a column the
user names; or another grader's score, `--against`) becomes a `Comparison` with our result. The
`Audit` counts, per data_source and per step:

- "paid but wrong": the previous reward paid (at least `PAID`, half of full credit: verl's 0/1 and
  DAPO's -1/1 rewards both split there) and our verdict is not `correct`;
- "correct but unpaid": our verdict is `correct` and the previous reward did not pay;

each split by cause, our verdict and the answer's shape (shapes.py), with a few example rows; rows
whose verdict is no judgement (`timeout`, `error`, `unparsable_gold`) are counted apart. And the
share of GRPO groups (stats.group_key: uid, per step) in which some sample's advantage sign
(reward above, at or below its group's mean) differs between the two rewards.

Memory: the open groups of the current step and a few examples per cause; a new step closes the
previous step's groups, so a run folder (or any file whose rows carry `step`) streams in flat
memory. Rows with groups and no step are held, two floats each, until `finish`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .shapes import answer_shape
from .stats import EPS, Flag

PAID = 0.5
PAID_WRONG = "paid_but_wrong"
UNPAID_CORRECT = "correct_but_unpaid"
DIRECTIONS = {PAID_WRONG: "paid, but wrong by our judgement", UNPAID_CORRECT: "correct by our judgement, but not paid"}
JUDGEMENTS = frozenset({"correct", "wrong", "no_answer", "unparsable_pred"})
"""Our verdicts that judge the answer; the others (timeout, error, unparsable_gold) say nothing of it."""
EXAMPLES = 3
EXAMPLE_CHARS = 400
MAX_MESSAGES = 5
FLAG_PAID_WRONG = 0.01     # a flag when this share of the judged rows was paid but is wrong ...
FLAG_SIGN_CHANGED = 0.10   # ... or this share of the GRPO groups changes an advantage sign


@dataclass(frozen=True, slots=True)
class Comparison:
    """One row with both rewards: the previous one and our result."""

    data_source: str
    previous: float
    score: float
    verdict: str
    step: int | None = None
    group: tuple | None = None
    pred: str = ""
    response: Any = None
    gold: Any = None
    answer_format: str = "boxed"
    where: str = ""

    @property
    def direction(self) -> str | None:
        """PAID_WRONG, UNPAID_CORRECT, or None when the rewards agree or our verdict judges nothing."""
        if self.verdict not in JUDGEMENTS:
            return None
        paid, correct = self.previous >= PAID, self.verdict == "correct"
        if paid and not correct:
            return PAID_WRONG
        if correct and not paid:
            return UNPAID_CORRECT
        return None


@dataclass
class StepAudit:
    step: int | None
    rows: int = 0
    judged: int = 0
    paid_wrong: int = 0
    unpaid_correct: int = 0
    groups: int = 0
    sign_changed: int = 0

    @property
    def disagreement(self) -> float | None:
        return (self.paid_wrong + self.unpaid_correct) / self.judged if self.judged else None


@dataclass
class SourceAudit:
    """The comparisons of one data_source."""

    data_source: str
    steps: dict[Any, StepAudit] = field(default_factory=dict)
    causes: Counter = field(default_factory=Counter)
    examples: dict[tuple, list[dict[str, Any]]] = field(default_factory=dict)
    open_step: Any = None
    open_groups: dict[tuple, list[tuple[float, float]]] = field(default_factory=dict)

    def add(self, c: Comparison) -> tuple[str, str, str] | None:
        """Count one comparison; its cause (direction, our verdict, answer shape), None if they agree."""
        if c.step != self.open_step:
            self.close_groups()
            self.open_step = c.step
        step = self.steps.get(c.step)
        if step is None:
            step = self.steps[c.step] = StepAudit(c.step)
        step.rows += 1
        if c.group is not None:
            self.open_groups.setdefault(c.group, []).append((c.previous, c.score))
        if c.verdict not in JUDGEMENTS:
            return None
        step.judged += 1
        direction = c.direction
        if direction is None:
            return None
        if direction == PAID_WRONG:
            step.paid_wrong += 1
        else:
            step.unpaid_correct += 1
        cause = (direction, c.verdict, answer_shape(c.response, c.answer_format, c.gold, c.verdict))
        self.causes[cause] += 1
        kept = self.examples.setdefault(cause, [])
        if len(kept) < EXAMPLES:
            kept.append(_example(c))
        return cause

    def close_groups(self) -> None:
        """Count the open groups (those of the step that just ended) into their step, and drop them."""
        step = self.steps.get(self.open_step)
        for members in self.open_groups.values():
            if len(members) < 2 or step is None:
                continue
            step.groups += 1
            step.sign_changed += advantage_signs(m[0] for m in members) != advantage_signs(m[1] for m in members)
        self.open_groups = {}

    def total(self, name: str) -> int:
        return sum(getattr(s, name) for s in self.steps.values())

    def to_dict(self) -> dict[str, Any]:
        judged, groups = self.total("judged"), self.total("groups")
        paid_wrong, unpaid = self.total("paid_wrong"), self.total("unpaid_correct")
        return {
            "rows": self.total("rows"), "judged": judged, "not_judged": self.total("rows") - judged,
            PAID_WRONG: paid_wrong, UNPAID_CORRECT: unpaid,
            "disagreement_rate": (paid_wrong + unpaid) / judged if judged else None,
            "groups": groups, "groups_sign_changed": self.total("sign_changed"),
            "groups_sign_changed_share": self.total("sign_changed") / groups if groups else None,
            "causes": [{"direction": d, "verdict": v, "shape": s, "rows": n, "examples": self.examples[(d, v, s)]}
                       for (d, v, s), n in sorted(self.causes.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0]))],
            "steps": [vars(s) for s in self.steps.values()],
        }


def advantage_signs(rewards) -> tuple[int, ...]:
    """Each sample's GRPO advantage sign: +1 above its group's mean reward, -1 below, 0 at it."""
    values = list(rewards)
    mean = sum(values) / len(values)
    return tuple(0 if abs(v - mean) <= EPS else (1 if v > mean else -1) for v in values)


class Audit:
    """Every comparison of a file or run, by data_source; `reference` names the previous reward."""

    def __init__(self, reference: str) -> None:
        self.reference = reference
        self.sources: dict[str, SourceAudit] = {}
        self.unreadable = 0          # rows whose previous reward is not a number
        self.messages: list[str] = []  # the first few of those, and of the reference grader's errors
        self.finished = False

    def add(self, c: Comparison) -> tuple[str, str, str] | None:
        """Count one comparison (in input order); its cause, or None when the rewards agree."""
        audit = self.sources.get(c.data_source)
        if audit is None:
            audit = self.sources[c.data_source] = SourceAudit(c.data_source)
        return audit.add(c)

    def skip(self, message: str) -> None:
        """A row with a previous reward that cannot be compared (not a number, or the grader failed)."""
        self.unreadable += 1
        if len(self.messages) < MAX_MESSAGES:
            self.messages.append(message)

    def finish(self) -> "Audit":
        if not self.finished:
            for audit in self.sources.values():
                audit.close_groups()
            self.finished = True
        return self

    @property
    def rows(self) -> int:
        return sum(a.total("rows") for a in self.sources.values())

    def to_dict(self) -> dict[str, Any]:
        self.finish()
        return {"reference": self.reference, "paid_at": PAID, "skipped": self.unreadable,
                "skipped_messages": self.messages,
                "sources": {name: a.to_dict() for name, a in self.sources.items()}}

    def flags(self) -> list[Flag]:
        """The findings that belong beside the run's own flags: paid-but-wrong rows (the dangerous
        direction: the run was trained to give those answers) and advantage signs that change."""
        out = []
        for name, a in self.to_dict()["sources"].items():
            if a["judged"] and a[PAID_WRONG] >= FLAG_PAID_WRONG * a["judged"]:
                out.append(Flag(name, "audit_paid_but_wrong",
                                f"{a[PAID_WRONG]} of {a['judged']} judged rows ({a[PAID_WRONG] / a['judged']:.1%}) were "
                                f"paid by {self.reference} and are wrong by our judgement: see the reward audit's causes"))
            share = a["groups_sign_changed_share"]
            if share is not None and share >= FLAG_SIGN_CHANGED:
                out.append(Flag(name, "audit_sign_changes",
                                f"{a['groups_sign_changed']} of {a['groups']} GRPO groups ({share:.0%}) change an "
                                f"advantage sign between {self.reference} and ours: those groups were taught "
                                "the other way"))
        return out

    def lines(self, causes: int = 3) -> list[str]:
        """The summary: per data_source, agreement, both directions, sign changes, every paid-but-wrong
        cause (those answers were taught) and the `causes` largest correct-but-unpaid ones."""
        self.finish()
        out = [f"reward audit: {self.reference} against our verdicts (paid = reward >= {PAID})"]
        for name, a in self.sources.items():
            d = a.to_dict()
            if not d["judged"]:
                out.append(f"  {name}: {d['rows']} rows, none judged by us")
                continue
            groups = (f"; {d['groups_sign_changed']}/{d['groups']} GRPO groups "
                      f"({d['groups_sign_changed_share']:.1%}) change an advantage sign" if d["groups"] else "")
            out.append(f"  {name}: {d['judged']} judged rows, {d['disagreement_rate']:.1%} disagree: "
                       f"paid but wrong {d[PAID_WRONG]}, correct but unpaid {d[UNPAID_CORRECT]}{groups}")
            ranked = sorted(d["causes"], key=lambda c: -c["rows"])
            paid = [c for c in ranked if c["direction"] == PAID_WRONG]  # the dangerous direction: always all
            for cause in paid + [c for c in ranked if c["direction"] != PAID_WRONG][:causes]:
                out.append(f"    {cause['rows']:>7}  {cause['direction']}: {cause['verdict']}, {cause['shape']}")
        if self.unreadable:
            out.append(f"  {self.unreadable} row(s) not compared; first: {self.messages[0]}")
        return out


def _example(c: Comparison) -> dict[str, Any]:
    response = c.response if isinstance(c.response, str) else ""
    tail = response if len(response) <= EXAMPLE_CHARS else "…" + response[-EXAMPLE_CHARS:]
    gold = c.gold if isinstance(c.gold, (str, int, float)) else str(c.gold)
    return {"where": c.where, "step": c.step, "previous": c.previous, "score": c.score, "verdict": c.verdict,
            "pred": c.pred, "gold": gold if not isinstance(gold, str) else gold[:EXAMPLE_CHARS],
            "response_end": tail}
