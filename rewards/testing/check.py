"""`check_scorer`: the properties every reward must keep, checked against one scorer.

A scorer is a registered data_source (called as verl calls it, `rewards.verl.compute_score`) or a
function of `(response, ground_truth, extra_info, settings)` (called as a registered one is,
through `rewards.api.judge`: what it raises or returns unreadably is an `error` verdict, a finding).
The checks, each a hypothesis search that shrinks what it finds:

- right answers, placed the way models write them, are paid (their respellings too, unless the
  scorer says it claims no equivalence: `respellings=False`), and the same call twice gives the same
  result;
- a meaning-changing mutation of the gold is never paid, wherever it is placed;
- an answer only inside the thinking, cut off mid-thought or among several candidates is not paid;
- no input (any text, bytes, None, huge or malformed) makes it raise, and every result has the same
  keys and a finite score;
- no call takes longer than `call_seconds`.

The first finding raises `ScorerCheckFailed` with the smallest counterexample as one line.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Verbosity, given, seed, settings as hypothesis_settings, strategies as st
from hypothesis.errors import FlakyFailure

from ..result import Result
from .golds import Gold, Mutation, golds, gsm8k_amounts, text_gold
from .wrappers import SETTLED, AnswerFormat, FORMATS, Wrapper, answer_format, placed, wrappers_for

CHUNK = 25
"""Examples per hypothesis run: the budget is checked between runs."""
PROPERTIES = ("right answers are paid", "wrong answers are not paid", "hidden answers are not paid",
              "any input is survived")


class ScorerCheckFailed(AssertionError):
    """A property the scorer broke; the message is the shrunk counterexample, on one line."""


@dataclass
class CheckReport:
    """What a passing check tried: cases per property, and the seconds it took."""

    scorer: str
    cases: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROPERTIES, 0))
    seconds: float = 0.0

    def __str__(self) -> str:
        counts = ", ".join(f"{prop}: {n}" for prop, n in self.cases.items())
        return f"{self.scorer}: passed ({counts}; {self.seconds:.1f} s)"


class _Found(Exception):
    """Raised inside a property so hypothesis shrinks it; carries the one-line finding."""


def _short(value: Any, limit: int = 240) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 40]}...{text[-30:]} ({len(value) if hasattr(value, '__len__') else '?'} chars)"


# ----------------------------------------------------------------------------------------------
# Calling the scorer.

class _Scorer:
    """One way to call the scorer under check, its results as verl's dict, timed and key-checked."""

    def __init__(self, target: str | Callable, call_seconds: float):
        self.call_seconds = call_seconds
        self.keys: frozenset[str] | None = None
        if isinstance(target, str):
            from ..registry import get_scorer
            from ..verl import compute_score

            self.entry = get_scorer(target)
            self.name = target
            self._call = lambda response, gold: compute_score(target, response, gold, None, timing_key=False)
        elif callable(target):
            from ..api import judge
            from ..registry import ScorerEntry
            from ..settings import Settings

            self.entry = None
            self.name = getattr(target, "__qualname__", None) or repr(target)
            entry, defaults = ScorerEntry(self.name, target), Settings()
            self._call = lambda response, gold: self._read(judge(entry, response, gold, None, defaults))
        else:
            raise TypeError(f"check_scorer takes a data_source name or a scorer function, not {type(target).__name__}")

    def _read(self, result: Result) -> dict[str, Any]:
        self.reason = result.reason
        return result.to_dict()

    def __call__(self, response: Any, gold: str, what: str) -> dict[str, Any]:
        self.reason = ""
        start = time.perf_counter()
        try:
            out = self._call(response, gold)
        except Exception as exc:  # the finding is the exception itself, on one line
            raise _Found(f"{what}: raised {type(exc).__name__}: {str(exc)[:200]} "
                         f"(gold {_short(gold)}, response {_short(response)})") from None
        seconds = time.perf_counter() - start
        if seconds > self.call_seconds:
            raise _Found(f"{what}: one call took {seconds:.1f} s (limit {self.call_seconds:g} s) "
                         f"(gold {_short(gold)}, response {_short(response)})")
        if out.get("verdict") == "error" and isinstance(response, str):  # not text: `error` is the verdict
            raise _Found(f"{what}: verdict error{f' ({self.reason[:200]})' if self.reason else ''} "
                         f"(gold {_short(gold)}, response {_short(response)})")
        keys = frozenset(out)
        if self.keys is None:
            self.keys = keys
        elif keys != self.keys:
            raise _Found(f"{what}: the result's keys {sorted(keys)} differ from {sorted(self.keys)} "
                         f"(gold {_short(gold)}, response {_short(response)})")
        score = out.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise _Found(f"{what}: score {score!r} is not a finite number (gold {_short(gold)}, "
                         f"response {_short(response)})")
        return out


def _paid(out: Mapping[str, Any]) -> bool:
    return out.get("acc", 1.0 if out.get("score", 0) >= 1.0 else 0.0) == 1.0


def _verdict(out: Mapping[str, Any]) -> str:
    return f"{out.get('verdict', '?')} (score {out.get('score')!r}, pred {str(out.get('pred', ''))[:80]!r})"


# ----------------------------------------------------------------------------------------------
# What is drawn.

def _as_gold(value: Any) -> Gold:
    if isinstance(value, Gold):
        return value
    if isinstance(value, str):
        return text_gold(value)
    raise TypeError(f"a gold strategy draws Gold objects (rewards.testing.golds) or texts, not {type(value).__name__}")


def _answered(gold: Gold, paid: bool) -> list[Mutation]:
    return [m for m in gold.mutations if m.paid is paid and m.answer is not None]


def _whole(gold: Gold, fmt: AnswerFormat, paid: bool) -> list[Mutation]:
    """Whole-response mutations, where they are written in the format under check."""
    return [m for m in gold.mutations if m.paid is paid and m.answer is None and gold.answer_format == fmt.name]


# ----------------------------------------------------------------------------------------------
# The call.

def check_scorer(scorer: str | Callable, *, gold: st.SearchStrategy | None = None,
                 answer_format: str | AnswerFormat | Callable[[str], str] | None = None,
                 respellings: bool = True, wrappers: Sequence[Wrapper] = SETTLED,
                 max_examples: int = 100, seconds: float | None = None, call_seconds: float = 10.0,
                 derandomize: bool = True, data_source: str | None = None) -> CheckReport:
    """Check `scorer` against the properties every reward must keep; raise ScorerCheckFailed with
    the shrunk counterexample on one line, or return what was tried.

    `scorer`: a registered data_source name, or a scorer function. `gold`: a strategy of golds
    (`rewards.testing.golds.golds()`, `choice_letters()`, or plain texts such as
    `st.sampled_from("ABCD")`); by default the golds of the scorer's format. `answer_format`: how a
    response states the answer (`boxed`, `gsm8k`, a template such as `"Answer: ({answer})"`, or a
    function); by default the registration's. `respellings=False` for a scorer that claims no
    equivalence (it pays the gold as written only). `wrappers`: `rewards.testing.wrappers.SETTLED`
    (default) or `ALL`. `max_examples` per property; `seconds` bounds the whole check (each property
    gets its share). `derandomize=False` draws fresh examples each run (a search, not a test).
    `data_source`: for a function, the registration whose answer format it reads.

    >>> from rewards.testing import check_scorer
    >>> check_scorer("openai/gsm8k", max_examples=5).cases["wrong answers are not paid"]
    5
    """
    if isinstance(scorer, str) and data_source not in (None, scorer):
        raise ValueError("give the data_source once: check_scorer(NAME) or check_scorer(fn, data_source=NAME)")
    call = _Scorer(scorer, call_seconds)
    if data_source is not None and call.entry is None:
        from ..registry import get_scorer

        call.entry = get_scorer(data_source)
    fmt = _format(answer_format, call.entry)
    gold = gold if gold is not None else _default_golds(fmt)
    report = CheckReport(call.name)
    start = time.monotonic()
    share = None if seconds is None else seconds / len(PROPERTIES)
    first_seed = 0 if derandomize else random.SystemRandom().randrange(2**32)
    checks = {
        PROPERTIES[0]: lambda data: _right(data, call, gold, fmt, respellings, wrappers),
        PROPERTIES[1]: lambda data: _wrong(data, call, gold, fmt, wrappers),
        PROPERTIES[2]: lambda data: _hidden(data, call, gold, fmt, wrappers),
        PROPERTIES[3]: lambda data: _any_input(data, call, gold),
    }
    for i, (prop, body) in enumerate(checks.items()):
        deadline = None if share is None else start + share * (i + 1)
        done, chunk = 0, 0
        try:
            # Runs of CHUNK examples, each from its own fixed seed, so that the budget can end the check
            # between runs (a hypothesis run stops early only at a failure). Every property gets one run
            # at least, even when the properties before it used up their shares on a slow machine.
            while done < max_examples and (done == 0 or deadline is None or time.monotonic() < deadline):
                n = min(CHUNK, max_examples - done)
                run = hypothesis_settings(max_examples=n, derandomize=False, database=None, deadline=None,
                                          verbosity=Verbosity.quiet, report_multiple_bugs=False,
                                          suppress_health_check=list(HealthCheck))(
                    given(st.data())(_property(report, prop, body)))
                seed(first_seed + 1000 * i + chunk)(run)()
                done, chunk = done + n, chunk + 1
        except _Found as found:
            raise ScorerCheckFailed(f"{call.name}: {prop}: {found}") from None
        except FlakyFailure as exc:
            raise ScorerCheckFailed(f"{call.name}: {prop}: the scorer is not deterministic: the same "
                                    f"response was judged two ways ({str(exc).splitlines()[0][:200]})") from None
    report.seconds = time.monotonic() - start
    return report


def _property(report: CheckReport, prop: str, body: Callable) -> Callable:
    """One property as a test function of hypothesis's `data`, counting the cases it checked."""
    def test(data) -> None:
        if body(data):
            report.cases[prop] += 1

    return test


def _format(spec: Any, entry: Any) -> AnswerFormat:
    if spec is not None:
        return answer_format(spec)
    if entry is None:
        return FORMATS["boxed"]
    if entry.gold_response is not None:
        return AnswerFormat(entry.name, entry.gold_response)
    if entry.answer_format in FORMATS:
        return FORMATS[entry.answer_format]
    raise ValueError(f"{entry.name!r} reads a format of its own and says no way to write it: register it with "
                     "gold_response=, or pass answer_format= (`rewards check --answer-format`), a template such as "
                     "\"Answer: ({answer})\"")


def _default_golds(fmt: AnswerFormat) -> st.SearchStrategy:
    if fmt.name == "gsm8k":
        return gsm8k_amounts()
    if fmt.name == "boxed":
        return golds()
    raise ValueError(f"no default golds for the answer format {fmt.name!r}: pass gold= (a strategy of golds, "
                     "e.g. rewards.testing.golds.choice_letters() or st.sampled_from([...]); `rewards check --golds`)")


def _draw_gold(data, gold: st.SearchStrategy) -> Gold:
    return _as_gold(data.draw(gold, label="gold"))


def _wrong_answers(g: Gold) -> list[str]:
    return [m.answer for m in _answered(g, False)] or []


def _right(data, call: _Scorer, gold, fmt: AnswerFormat, respellings: bool, wrappers) -> bool:
    g = _draw_gold(data, gold)
    answers = [("the gold", g.gold)] + ([(m.name, m.answer) for m in _answered(g, True)] if respellings else [])
    whole = _whole(g, fmt, True) if respellings else []
    pick = data.draw(st.integers(0, len(answers) + len(whole) - 1), label="case")
    if pick < len(answers):
        name, answer = answers[pick]
        wrapper = data.draw(st.sampled_from(wrappers_for(fmt, wrappers, paid=True)), label="wrapper")
        response = data.draw(placed(wrapper, fmt, answer, _wrong_answers(g)), label="response")
        where = f"[{g.family} / {name} / {wrapper.name}]"
    else:
        m = whole[pick - len(answers)]
        response, where = m.response, f"[{g.family} / {m.name}]"
    out = call(response, g.gold, f"right answer {where}")
    if not _paid(out):
        raise _Found(f"right answer refused {where}: gold {_short(g.gold)}, response {_short(response)} "
                     f"-> {_verdict(out)}")
    again = call(response, g.gold, f"right answer {where}")
    if again != out:
        raise _Found(f"the same call twice gave {_verdict(out)} then {_verdict(again)} {where}: "
                     f"gold {_short(g.gold)}, response {_short(response)}")
    return True


def _wrong(data, call: _Scorer, gold, fmt: AnswerFormat, wrappers) -> bool:
    g = _draw_gold(data, gold)
    answered, whole = _answered(g, False), _whole(g, fmt, False)
    if not answered and not whole:
        return False
    pick = data.draw(st.integers(0, len(answered) + len(whole) - 1), label="mutation")
    if pick < len(answered):
        m = answered[pick]
        wrapper = data.draw(st.sampled_from(wrappers_for(fmt, wrappers, paid=True)), label="wrapper")
        others = [a for a in _wrong_answers(g) if a != m.answer] or [m.answer]
        response = data.draw(placed(wrapper, fmt, m.answer, others), label="response")
        where = f"[{g.family} / {m.name} / {wrapper.name}]"
    else:
        m = whole[pick - len(answered)]
        response, where = m.response, f"[{g.family} / {m.name}]"
    out = call(response, g.gold, f"wrong answer {where}")
    if _paid(out):
        raise _Found(f"wrong answer paid {where}: gold {_short(g.gold)}, response {_short(response)} "
                     f"-> {_verdict(out)}")
    return True


def _hidden(data, call: _Scorer, gold, fmt: AnswerFormat, wrappers) -> bool:
    g = _draw_gold(data, gold)
    wrong = _wrong_answers(g)
    usable = [w for w in wrappers_for(fmt, wrappers, paid=False) if wrong or not w.needs_wrong]
    if not usable:
        return False
    wrapper = data.draw(st.sampled_from(usable), label="wrapper")
    response = data.draw(placed(wrapper, fmt, g.gold, wrong), label="response")
    where = f"[{g.family} / {wrapper.name}]"
    out = call(response, g.gold, f"hidden answer {where}")
    if _paid(out):
        raise _Found(f"hidden answer paid {where}: gold {_short(g.gold)}, response {_short(response)} "
                     f"-> {_verdict(out)}")
    return True


MALFORMED = ("\\boxed{", "\\boxed{" * 50, "}" * 50 + "\\boxed{}", "<think>" * 20, "</think>" * 20, "#### ",
             "<answer><answer>", "$$$$", "\\frac{1}{" * 100, "\x00", "\ud800", "\\begin{pmatrix}", "\\left(",
             "10^{10^{10^{10}}}", "9" * 5000, "<|im_end|>" * 10)


def _any_input(data, call: _Scorer, gold) -> bool:
    g = _draw_gold(data, gold)
    kind = data.draw(st.sampled_from(["text", "bytes", "None", "huge", "malformed", "gold in noise"]), label="input")
    if kind == "text":
        response: Any = data.draw(st.text(max_size=300), label="text")
    elif kind == "bytes":
        response = data.draw(st.binary(max_size=100), label="bytes")
    elif kind == "None":
        response = None
    elif kind == "huge":
        piece = data.draw(st.sampled_from(["a", "\\boxed{5}, ", "<think>", "#### 1\n", "{", "$", " "]), label="piece")
        response = piece * (2_000_000 // len(piece))
    elif kind == "malformed":
        parts = data.draw(st.lists(st.sampled_from(MALFORMED), min_size=1, max_size=4), label="parts")
        response = "".join(parts)
    else:
        noise = data.draw(st.text(max_size=40), label="noise")
        response = f"{noise}{g.gold}{noise}"
    call(response, g.gold, f"input ({kind})")
    return True
