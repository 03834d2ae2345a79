"""Each row's data set in a training dump that has none, from a record of the run's training files.

verl 0.9.1's default (V1) trainer writes training dumps (`trainer.rollout_data_dir`) with `input`,
`output`, `gts`, `score`, `step` and `uid` only: no data_source, and none of the reward's keys (so no
`scored_data_source` either). `rewards train` writes `data_sources.json` into that folder when it
launches (or emits) a run: the training files and the data_sources each holds. A dump row is then
labelled by the training rows it can come from: those with its gold (`gts`, verl's copy of
`reward_model.ground_truth`), and where golds are shared across data sets, those whose user
messages are in its decoded prompt (`input`). A row that matches no data set, or more than one,
stays unlabelled (then `--data-source`, if given, applies).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

RECORD = "data_sources.json"


def record_text(train_files: list[str], data_sources: Mapping[str, Mapping[str, int]]) -> str:
    """The record of a run's training files (absolute paths) and the data_sources each holds
    (`{file: {data_source: rows}}`; empty where the files were not read), as one line of JSON."""
    absolute = {f: str(Path(f).expanduser().resolve()) for f in train_files}
    record = {"train_files": list(absolute.values()),
              "data_sources": {absolute[f]: dict(s) for f, s in data_sources.items() if f in absolute}}
    return json.dumps(record)


class SourceIndex:
    """Which data set a dump row comes from, by its gold and, where golds are shared, its prompt."""

    def __init__(self, single: str | None = None, by_gold: dict[str, list[tuple[str, tuple[str, ...]]]] | None = None):
        self.single = single
        self.by_gold = by_gold or {}
        self._seen: dict[tuple[str, str], str | None] = {}

    def label(self, row: Mapping[str, Any]) -> str | None:
        if self.single is not None:
            return self.single
        gold = _gold_key(row.get("gts"))
        prompt = row.get("input")
        prompt = prompt if isinstance(prompt, str) else ""
        key = (gold, prompt)
        if key not in self._seen:   # a GRPO group's n responses share both
            self._seen[key] = self._find(gold, prompt)
        return self._seen[key]

    def _find(self, gold: str, prompt: str) -> str | None:
        candidates = self.by_gold.get(gold, [])
        sources = {source for source, _ in candidates}
        if len(sources) == 1:
            return next(iter(sources))
        matched = {source for source, texts in candidates if texts and all(t in prompt for t in texts)}
        return next(iter(matched)) if len(matched) == 1 else None


class RecordProblem(ValueError):
    """The record names training files this machine cannot read (one sentence)."""


def load_index(folder: str | Path) -> SourceIndex | None:
    """The index for a dump folder with a record; None without one. Raises RecordProblem when a run of
    several data sets names training files that are not here."""
    path = Path(folder) / RECORD
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        files = [str(f) for f in record.get("train_files") or []]
        known = record.get("data_sources") or {}
    except (OSError, ValueError, AttributeError) as exc:
        raise RecordProblem(f"{path}: cannot read it ({exc})") from None
    sources = {s for f in files for s in (known.get(f) or {})}
    if len(sources) == 1 and all(f in known for f in files):
        return SourceIndex(single=next(iter(sources)))
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        raise RecordProblem(f"{path} names training files not on this machine ({', '.join(missing[:3])}), so the "
                            f"dump's rows cannot be told apart by data set")
    by_gold: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    for source, gold, texts in _training_rows(files):
        if (source, gold, texts) not in seen:   # a data set that repeats its problems is indexed once
            seen.add((source, gold, texts))
            by_gold.setdefault(gold, []).append((source, texts))
    every = {source for entries in by_gold.values() for source, _ in entries}
    return SourceIndex(single=next(iter(every))) if len(every) == 1 else SourceIndex(by_gold=by_gold)


def labelled(rows: Iterable[Any], index: SourceIndex | None) -> Iterator[Any]:
    """The rows, each one without a data_source given the one the index finds (as `data_source`)."""
    from .rollouts import data_source_of

    for item in rows:
        row = item.value
        if index is not None and item.problem is None and not data_source_of(row):
            found = index.label(row)
            if found:
                row["data_source"] = found
        yield item


def _training_rows(files: list[str]) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """(data_source, gold key, user message texts) of every training row."""
    from .verl_row import read_table

    for name in files:
        table = read_table(name)
        columns = [c for c in ("data_source", "reward_model", "prompt") if c in table.column_names]
        if "data_source" not in columns:
            continue
        for batch in table.select(columns).to_batches():
            for row in batch.to_pylist():
                gold = row.get("reward_model")
                gold = gold.get("ground_truth") if isinstance(gold, dict) else None
                yield str(row["data_source"]), _gold_key(gold), _user_texts(row.get("prompt"))


def _user_texts(prompt: Any) -> tuple[str, ...]:
    if not isinstance(prompt, list):
        return ()
    return tuple(m["content"].strip() for m in prompt
                 if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str)
                 and m["content"].strip())


def _gold_key(gold: Any) -> str:
    return gold if isinstance(gold, str) else json.dumps(gold, sort_keys=True, default=str)
