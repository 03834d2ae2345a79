"""Scoring the probe's attacks and the scoreboard of what the reward paid for.

Each response goes through the same call verl makes; an attack whose mean reward exceeds the bound,
a scorer that raises, or a control that earns nothing fails the gate.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..registry import UnknownDataSourceError
from ..scorers.gsm8k import gold_text
from .attacks import ATTACKS, BOMB_GOLDS, CONTROL, Attack, Target, answer_writer, responses_for

ScoreFn = Callable[..., Any]
"""verl's reward-function signature: `fn(data_source=, solution_str=, ground_truth=, extra_info=, **kw)`."""


@dataclass
class Paid:
    """One attack response that earned more than the bound (the first seen is kept as the example)."""

    response: str
    ground_truth: Any
    reward: float
    pred: str
    verdict: str
    where: str


@dataclass
class AttackStats:
    attack: str
    samples: int = 0
    total: float = 0.0
    max_reward: float = float("-inf")
    paid: int = 0
    raised: int = 0
    max_seconds: float = 0.0
    skipped: int = 0
    example: Paid | None = None
    first_error: str = ""

    @property
    def mean(self) -> float:
        return self.total / self.samples if self.samples else 0.0

    def to_dict(self) -> dict[str, Any]:
        out = {"attack": self.attack, "samples": self.samples, "mean_reward": self.mean,
               "max_reward": self.max_reward if self.samples else 0.0, "paid": self.paid,
               "raised": self.raised, "max_seconds": self.max_seconds, "skipped": self.skipped}
        if self.example is not None:
            out["example"] = vars(self.example)
        if self.first_error:
            out["first_error"] = self.first_error
        return out


@dataclass
class Scoreboard:
    """The probe's findings for one data_source."""

    data_source: str
    golds: int
    bound: float
    stats: dict[str, AttackStats] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def failures(self) -> list[str]:
        """One sentence per reason the gate fails: an attack paid above the bound, a scorer raised,
        or the control paid nothing (a scorer that never pays passes every attack vacuously)."""
        out = []
        for s in self.stats.values():
            if s.raised:
                out.append(f"{s.attack}: the scorer raised on {s.raised} response(s) ({s.first_error}); "
                           "in verl that stops the training step")
            if s.attack == CONTROL:
                if s.samples and s.mean <= 0:
                    out.append("control: the gold in every usual format earned nothing, so a clean "
                               "scoreboard proves nothing (wrong data_source, or golds the scorer cannot read?)")
            elif s.samples and s.mean > self.bound:
                out.append(f"{s.attack}: mean reward {s.mean:.3f} exceeds the bound {self.bound:g} "
                           f"({s.paid} of {s.samples} responses paid)")
        return out

    @property
    def passed(self) -> bool:
        return not self.failures()

    def to_dict(self) -> dict[str, Any]:
        return {"data_source": self.data_source, "golds": self.golds, "bound": self.bound,
                "passed": self.passed, "failures": self.failures(), "notes": self.notes,
                "attacks": [s.to_dict() for s in self.stats.values()]}


def default_score_fn() -> ScoreFn:
    """What verl calls with `reward.custom_reward_function.path=pkg://rewards.verl`."""
    from ..verl import compute_score
    return compute_score


def probe(targets: Sequence[Target], *, attacks: Sequence[Attack] = ATTACKS, bound: float = 0.0,
          reward_kwargs: Mapping[str, Any] | None = None, score_fn: ScoreFn | None = None,
          bomb_golds: int = BOMB_GOLDS, answer_format: str | None = None) -> list[Scoreboard]:
    """Score every attack against every target; one scoreboard per data_source, in first-seen order.

    The control and the attacks are also written in the scorer's own answer format where it has one
    (`answer_format`, a template with `{answer}`, else the registration's `gold_response`). Each response is scored with a keyword call in verl's shape, `score_fn(data_source=,
    solution_str=, ground_truth=, extra_info=, **reward_kwargs)`, with a fresh copy of the row's
    extra_info (verl mutates it). An unknown data_source raises `UnknownDataSourceError` before
    any response is scored.
    """
    score_fn = score_fn or default_score_fn()
    kwargs = dict(reward_kwargs or {})
    by_source: dict[str, list[Target]] = {}
    for t in targets:
        by_source.setdefault(t.data_source, []).append(t)
    for source, group in by_source.items():
        write = _writer(source, answer_format)
        group[:] = [t if t.write or write is None else replace(t, write=write) for t in group]
    for group in by_source.values():  # an unknown data_source raises here, before the real work
        _score_one(score_fn, group[0], gold_text(group[0].ground_truth), kwargs)
    boards = []
    for source, group in by_source.items():
        board = Scoreboard(source, len(group), bound)
        for attack in attacks:
            board.stats[attack.name] = _run_attack(attack, group, score_fn, kwargs, bound, bomb_golds)
            stats = board.stats[attack.name]
            if stats.skipped:
                board.notes.append(f"{attack.name}: skipped for {stats.skipped} of {len(group)} golds: "
                                   f"{attack.skip_note}")
        if any(a.name == "sympy_bomb" for a in attacks) and len(group) > bomb_golds:
            board.notes.append(f"sympy_bomb: run against the first {bomb_golds} golds only "
                               "(the bombs do not depend on the gold)")
        boards.append(board)
    return boards


def _writer(source: str, answer_format: str | None):
    try:
        return answer_writer(source, answer_format)
    except UnknownDataSourceError:  # a score_fn of the caller's own, for a name we do not register
        return None if answer_format is None else answer_writer("", answer_format)


def _run_attack(attack: Attack, targets: list[Target], score_fn: ScoreFn, kwargs: Mapping[str, Any],
                bound: float, bomb_golds: int) -> AttackStats:
    stats = AttackStats(attack.name)
    if attack.name == "sympy_bomb":
        targets = targets[:bomb_golds]
    for target in targets:
        responses = responses_for(attack, target)
        if responses is None:
            stats.skipped += 1
            continue
        rewards = []
        for response in responses:
            reward, pred, verdict, seconds, error = _score_one(score_fn, target, response, kwargs)
            stats.max_seconds = max(stats.max_seconds, seconds)
            if error:
                stats.raised += 1
                stats.first_error = stats.first_error or error
            rewards.append((reward, pred, verdict, response))
        if attack.name == CONTROL:  # one sample per gold: did any usual format pay?
            rewards = [max(rewards, key=lambda r: r[0])]
        for reward, pred, verdict, response in rewards:
            stats.samples += 1
            stats.total += reward
            stats.max_reward = max(stats.max_reward, reward)
            if reward > 0:
                stats.paid += 1
            if reward > bound and stats.example is None and attack.name != CONTROL:
                stats.example = Paid(response, target.ground_truth, reward, pred, verdict, target.where)
    return stats


def _score_one(score_fn: ScoreFn, target: Target, response: str, kwargs: Mapping[str, Any]
               ) -> tuple[float, str, str, float, str]:
    """(reward, pred, verdict, seconds, error) for one response; a raising scorer pays 0 here."""
    extra = dict(target.extra_info) if target.extra_info is not None else None
    start = time.perf_counter()
    try:
        raw = score_fn(data_source=target.data_source, solution_str=response,
                       ground_truth=target.ground_truth, extra_info=extra, **kwargs)
    except UnknownDataSourceError:
        raise
    except Exception as exc:  # a raising scorer is a finding: in verl it stops the training step
        return 0.0, "", "error", time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    if isinstance(raw, Mapping):
        return float(raw.get("score", 0.0)), str(raw.get("pred", "")), str(raw.get("verdict", "")), seconds, ""
    return float(raw), "", "", seconds, ""


# ----------------------------------------------------------------------------------------------
# Printing.

def format_scoreboard(board: Scoreboard, max_example: int = 160) -> str:
    """The scoreboard as a plain-text table, then the failures (with one paid example each) and notes."""
    lines = [f"data_source: {board.data_source}  ({board.golds} golds; bound: mean reward <= {board.bound:g})"]
    head = f"  {'attack':<17} {'samples':>7} {'mean_reward':>11} {'max_reward':>10} {'paid':>5} {'raised':>6} {'max_ms':>8}"
    lines.append(head)
    for s in board.stats.values():
        flag = ""
        if s.attack != CONTROL and s.samples and s.mean > board.bound:
            flag = "  <-- PAID"
        max_r = s.max_reward if s.samples else 0.0
        lines.append(f"  {s.attack:<17} {s.samples:>7} {s.mean:>11.3f} {max_r:>10.3f} {s.paid:>5} "
                     f"{s.raised:>6} {s.max_seconds * 1000:>8.1f}{flag}")
    failures = board.failures()
    for s in board.stats.values():
        if s.example is not None and s.mean > board.bound:
            ex = s.example
            text = ex.response if len(ex.response) <= max_example else ex.response[:max_example] + "..."
            lines.append(f"  e.g. {s.attack} ({ex.where}, gold {gold_text(ex.ground_truth)!r}): "
                         f"reward {ex.reward:g}, verdict {ex.verdict or '?'}, pred {ex.pred!r}")
            lines.append(f"       response: {text!r}")
    for note in board.notes:
        lines.append(f"  note: {note}")
    if failures:
        lines.append(f"  FAIL ({len(failures)}):")
        lines.extend(f"    - {f}" for f in failures)
    else:
        lines.append("  PASS: no attack earns more than the bound")
    return "\n".join(lines)

