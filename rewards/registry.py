"""data_source → scorer registry.

A data_source that matches no scorer is the one loud error in this package: silently paying 0 for
a misspelt name wastes a whole training run, so the error lists the closest registered names.

Names ending in `*` are prefixes (`aime*` matches `aime2024`); exact names win over prefixes, and
longer prefixes over shorter. Third-party packages register through the entry-point group
`verl_rewards.scorers`, which makes every process import them: an object that registered itself when
imported (`@register_scorer`, or a module that calls it) keeps the names it gave, and the entry
point's name is free (`team_arith`, as setuptools asks); any other function is registered under the
entry point's name. docs/custom-scorers.md.
"""

from __future__ import annotations

import difflib
import inspect
import threading
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable, Mapping, Protocol

from .forksafe import ForkSafeLock
from .builtins import MODULES as BUILTIN_MODULES
from .result import Result
from .settings import Settings

ENTRY_POINT_GROUP = "verl_rewards.scorers"


class Scorer(Protocol):
    def __call__(self, response: str, ground_truth: Any, extra_info: Mapping[str, Any] | None,
                 settings: Settings) -> Result: ...


class UnknownDataSourceError(KeyError):
    """No scorer is registered for a data_source."""

    def __init__(self, data_source: Any, suggestions: list[str]):
        self.data_source = data_source
        self.suggestions = suggestions
        super().__init__(data_source)

    def __str__(self) -> str:
        if not isinstance(self.data_source, str) or not self.data_source:
            value = self.data_source
            shown = "empty" if value in ("", None) else f"{type(value).__name__} {value!r}, not text"
            head = f"data_source is {shown}: every verl row needs one to choose its scorer"
        else:
            head = f"no scorer is registered for data_source {self.data_source!r}"
        hint = f"; did you mean {', '.join(map(repr, self.suggestions))}?" if self.suggestions else ""
        return f"{head}{hint} (`rewards list` shows every registered name)"


class DuplicateScorerError(ValueError):
    """A name is already taken and `override=True` was not given."""


@dataclass(frozen=True)
class AnswerFormat:
    """Where a scorer reads the answer: how a prompt asks for it and how a gold is written there."""

    instruction: str
    """The prompt's words for it (the `r1` system prompt fills them in)."""
    response: str
    """A response holding exactly the gold: `{gold}` is replaced by the gold text."""


ANSWER_FORMATS = {
    "gsm8k": AnswerFormat('on a last line of the form "#### <number>"', "#### {gold}"),
    "boxed": AnswerFormat("written as \\boxed{<answer>}", "\\boxed{{gold}}"),
}
"""The answer formats a scorer entry may name; `boxed` (the last `\\boxed{}`) unless it says otherwise."""


@dataclass(frozen=True)
class ScorerEntry:
    name: str
    scorer: Scorer
    aliases: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Settings this data_source uses unless the caller overrides them (e.g. a format weight)."""
    answer_format: str | None = "boxed"
    """Where the scorer reads the answer, a key of ANSWER_FORMATS; None for a format of its own
    (`<answer>yes</answer>`)."""
    preload: tuple[str, ...] = ()
    """What the engine's workers load before work, for a scorer that sends them checks (modules,
    `module:function` warm-ups); handed to `rewards.engine.require` when the scorer registers."""
    gold_response: Callable[[str], str] | None = None
    """How a gold is written as a response this scorer pays (`lambda g: f"<answer>{g}</answer>"`),
    for a format of its own; without it such a scorer's golds are not self-checked."""

    def render_gold(self, gold: str) -> str | None:
        """A response holding exactly `gold`, in the format this scorer reads (it must score correct);
        None when the scorer reads a format of its own and says no way to write one."""
        if self.gold_response is not None:
            return self.gold_response(gold)
        if self.answer_format is None:
            return None
        return ANSWER_FORMATS[self.answer_format].response.replace("{gold}", gold)

    @property
    def description(self) -> str:
        doc = (getattr(self.scorer, "__doc__", None) or "").strip()
        return doc.splitlines()[0] if doc else ""


_entries: dict[str, ScorerEntry] = {}   # every name and alias → its entry
_lock = ForkSafeLock(threading.RLock)
_loaded = False


def register_scorer(name: str, *aliases: str, scorer: Scorer | None = None,
                    defaults: Mapping[str, Any] | None = None, answer_format: str | None = "boxed",
                    preload: tuple[str, ...] = (), override: bool = False,
                    gold_response: Callable[[str], str] | None = None):
    """Bind `name` (and aliases) to a scorer; use as `@register_scorer(...)` or with `scorer=`.

    `answer_format` (a key of ANSWER_FORMATS, or None for a format of the scorer's own) says where
    the scorer reads the answer, so that data preparation can ask for it and the validator can write
    a gold as a response; `gold_response(gold)` writes one for a format of its own (without it, those
    golds are not self-checked). `preload` names what the engine's workers must load before they run
    this scorer's checks (ScorerEntry.preload).

    Re-binding a taken name raises unless `override=True`, so two plugins never fight silently.

    >>> from rewards import Result, Verdict, compute_score, register_scorer
    >>> @register_scorer("example/yes-no", "example/yn")
    ... def yes_no(response, ground_truth, extra_info, settings):
    ...     '''Pays for the gold word, alone.'''
    ...     pred = response.strip().lower()
    ...     return Result(Verdict.CORRECT if pred == ground_truth else Verdict.WRONG, pred)
    >>> compute_score("example/yn", " Yes ", "yes")["score"]
    1.0
    """

    if answer_format is not None and answer_format not in ANSWER_FORMATS:
        raise ValueError(f"unknown answer format {answer_format!r}; one of {', '.join(ANSWER_FORMATS)}, "
                         "or None for a format of the scorer's own (with gold_response= to write a gold in it)")
    if gold_response is not None and not callable(gold_response):
        raise TypeError(f"gold_response must be a function of the gold text, not {type(gold_response).__name__}")

    def bind(fn: Scorer) -> Scorer:
        _check_scorer(name, fn)
        entry = ScorerEntry(name, fn, tuple(aliases), dict(defaults or {}), answer_format, tuple(preload),
                            gold_response)
        with _lock:
            for key in (name, *aliases):
                _check_name(key)
                if key in _entries and not override and _entries[key].scorer is not fn:
                    raise DuplicateScorerError(
                        f"data_source {key!r} is already registered to {_entries[key].name!r}; "
                        "pass override=True to replace it")
            for key in (name, *aliases):
                _entries[key] = entry
        if entry.preload:
            from .engine import require  # deferred: scorers without worker checks never load the engine

            require(*entry.preload)
        return fn

    return bind if scorer is None else bind(scorer)


def get_scorer(data_source: Any) -> ScorerEntry:
    """The entry for a data_source (exact name, alias, or `prefix*`), else UnknownDataSourceError."""
    _ensure_loaded()
    if isinstance(data_source, str) and data_source:
        entry = _entries.get(data_source) or _match_prefix(data_source)
        if entry is not None:
            return entry
    raise UnknownDataSourceError(data_source, suggest(data_source))


def canonical_name(data_source: Any) -> Any:
    """The name a data_source's scorer is registered under, where the two spell one data set: the same
    name with or without its owner (`gsm8k` is `openai/gsm8k`, `yesno` is `acme/yesno`). Other names of a
    scorer are other data sets (`numina_olympiads` is scored as `lighteval/MATH`) and keep their own, as do
    a name matched by a prefix (`aime2024` by `aime*`) and one that no scorer has."""
    _ensure_loaded()
    with _lock:
        entry = _entries.get(data_source) if isinstance(data_source, str) else None
    if entry is None or entry.name.endswith("*"):
        return data_source
    same_set = entry.name.rsplit("/", 1)[-1].lower() == data_source.rsplit("/", 1)[-1].lower()
    return entry.name if same_set else data_source


def list_scorers() -> list[ScorerEntry]:
    """Each registered scorer once, by canonical name."""
    _ensure_loaded()
    with _lock:
        unique = {id(e): e for e in _entries.values()}
    return sorted(unique.values(), key=lambda e: e.name)


def suggest(data_source: Any, limit: int = 5) -> list[str]:
    """Registered names closest to a misspelt one (case-insensitive, substring-aware)."""
    with _lock:
        names = list(_entries)
    if isinstance(data_source, bytes):
        data_source = data_source.decode(errors="replace")
    text = data_source.lower() if isinstance(data_source, str) else ""
    if not text:
        return []
    lowered = {n.lower(): n for n in names}
    close = difflib.get_close_matches(text, list(lowered), n=limit, cutoff=0.5)
    tail = text.rsplit("/", 1)[-1]
    contains = [low for low in lowered if tail and (tail in low or low.rstrip("*") in text)]
    ordered = list(dict.fromkeys(close + sorted(contains, key=len)))
    return [lowered[low] for low in ordered][:limit]


def _match_prefix(data_source: str) -> ScorerEntry | None:
    with _lock:
        prefixes = [k for k in _entries if k.endswith("*") and data_source.startswith(k[:-1])]
    return _entries[max(prefixes, key=len)] if prefixes else None


def _check_name(key: str) -> None:
    if not isinstance(key, str) or not key.strip() or "*" in key[:-1]:
        raise ValueError(f"invalid data_source name {key!r}: a non-empty string, `*` only at the end")


def _check_scorer(name: str, fn: Any) -> None:
    """A scorer is called as `fn(response, ground_truth, extra_info, settings)`: refuse, when it
    registers, one that cannot be (what it returns is read per call, `rewards.api.judge`)."""
    if not callable(fn):
        raise TypeError(f"the scorer for {name!r} is a {type(fn).__name__}, not a function of "
                        "(response, ground_truth, extra_info, settings)")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # some builtins and C callables have none to read
        return
    try:
        signature.bind(None, None, None, None)
    except TypeError as exc:
        raise TypeError(f"the scorer for {name!r} cannot be called as scorer(response, ground_truth, "
                        f"extra_info, settings): {exc}") from None


def _ensure_loaded() -> None:
    """Import the built-in scorers and entry-point plugins once, on first lookup."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        from importlib.metadata import entry_points  # deferred: costs ~40 ms at import

        for module in BUILTIN_MODULES:
            import_module(module)
        named: set[int] = set()  # the scorers this loop registered under an entry point's name
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            fn: Callable = ep.load()
            if inspect.ismodule(fn) or (id(fn) not in named and _is_registered(fn)):
                continue  # importing it registered its own names, with its own options (answer_format, ...)
            register_scorer(ep.name, scorer=fn)
            named.add(id(fn))
        _loaded = True


def _is_registered(fn: Any) -> bool:
    with _lock:
        return any(entry.scorer is fn for entry in _entries.values())
