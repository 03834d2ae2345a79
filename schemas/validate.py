"""Check a verl data file before a launch, naming the file, row and field of every problem.

Checks, in order: the file reads and has verl's columns; every row has a usable `prompt` (a list of
`{role, content}` with string content and a user turn), `data_source` and `reward_model.ground_truth`;
every `data_source` has a registered scorer; every MATH-style gold is well formed (no empty
`\\sqrt{}`, no `+*`: a gold nothing can match) and every gold scores `correct` against itself
through its own scorer; images match their `<image>` placeholders; prompt token lengths under a
tokenizer's chat template against `max_prompt_length`; duplicate prompts in the file and prompts
shared with other files (train/test overlap).

Errors make a launch fail (or silently waste it); warnings deserve a look. Rows count from 0, as in
pandas and in verl's `extra_info.index`. Each check lists at most `MAX_LISTED` rows and counts the rest.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .errors import first_line
from .verl_row import (IMAGE_COLUMN, IMAGE_PLACEHOLDER, RECOMMENDED_COLUMNS, REQUIRED_COLUMNS,
                       ROLES, json_string_literal, read_table)

MAX_LISTED = 20
GOLD_BATCH = 2048  # golds scored per call, so a progress bar moves on large files
Progress = Callable[[int, str], Callable[[int], Any]]


@dataclass(frozen=True)
class Problem:
    """One finding: where (file, row, field) and what."""

    file: str
    row: int | None
    field: str | None
    message: str
    check: str

    def __str__(self) -> str:
        where = [self.file]
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.field:
            where.append(self.field)
        return f"{': '.join(where)}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "row": self.row, "field": self.field, "check": self.check,
                "message": self.message}


@dataclass
class ValidationReport:
    file: str
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    contamination: list[Problem] = field(default_factory=list)
    """Held-out prompts found in a training file: one summary per pair of files, a severity of its own
    (a run can train on it, but its held-out scores then measure memory)."""
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "ok": self.ok, "stats": self.stats,
                "errors": [p.to_dict() for p in self.errors],
                "warnings": [p.to_dict() for p in self.warnings],
                "contamination": [p.to_dict() for p in self.contamination]}


class _Findings:
    """Collects problems, listing at most `listed` per (severity, check, field) (None: all of them) and
    counting all: `stats` gets the totals by check and, per kind, how many were not listed."""

    def __init__(self, report: ValidationReport, listed: int | None = MAX_LISTED):
        self.report = report
        self.listed = listed
        self.counts: Counter = Counter()

    def add(self, severity: str, check: str, row: int | None, fld: str | None, message: str) -> None:
        key = (severity, check, fld)
        self.counts[key] += 1
        if self.listed is None or self.counts[key] <= self.listed:
            target = {"error": self.report.errors, "warning": self.report.warnings,
                      "contamination": self.report.contamination}[severity]
            target.append(Problem(self.report.file, row, fld, message, check))

    def error(self, check, row, fld, message):
        self.add("error", check, row, fld, message)

    def warn(self, check, row, fld, message):
        self.add("warning", check, row, fld, message)

    def contaminated(self, check, fld, message):
        self.add("contamination", check, None, fld, message)

    def close(self) -> None:
        stats = self.report.stats
        for severity in ("error", "warning", "contamination"):
            by_check: Counter = Counter()
            for (s, check, _), n in self.counts.items():
                if s == severity:
                    by_check[check] += n
            stats[f"{severity}_count"] = sum(by_check.values())
            stats[f"{severity}_counts"] = dict(by_check)
        stats["unlisted"] = [{"severity": s, "check": check, "field": fld, "count": n - self.listed}
                             for (s, check, fld), n in self.counts.items()
                             if self.listed is not None and n > self.listed]


@dataclass
class _Options:
    """How `validate_file` was asked to check (see its docstring)."""

    tokenizer: Any
    max_prompt_length: int | None
    against: Sequence[str | Path]
    check_gold: bool
    overlong: str
    chat_template_kwargs: dict[str, Any] | None
    progress: Progress | None
    held_out: Sequence[str | Path] = ()


@dataclass
class _File:
    """What the checks read: the table, its columns as lists, and what earlier checks found."""

    table: Any
    options: _Options
    columns: set[str] = field(init=False)
    rows: int = field(init=False)
    sources: list = field(init=False)
    prompts: list = field(init=False)
    images: list | None = field(init=False)
    usable_prompt: list[bool] = field(default_factory=list)   # filled by `_rows`
    golds: list[str | None] = field(default_factory=list)     # filled by `_rows`
    registered: dict[str, Any] = field(default_factory=dict)  # filled by `_sources`
    keys: list = field(default_factory=list)                   # filled by `_duplicates`

    def __post_init__(self) -> None:
        self.columns, self.rows = set(self.table.column_names), self.table.num_rows
        self.sources, self.prompts = self.column("data_source"), self.column("prompt")
        self.images = self.column(IMAGE_COLUMN) if IMAGE_COLUMN in self.columns else None

    def column(self, name: str) -> list:
        return self.table.column(name).to_pylist() if name in self.columns else [None] * self.rows

    def row_images(self, i: int) -> Any:
        return self.images[i] if self.images is not None else None


Check = Callable[[_Findings, _File], Any]


def validate_file(path: str | Path, *, tokenizer: Any = None, max_prompt_length: int | None = None,
                  against: Sequence[str | Path] = (), check_gold: bool = True, overlong: str = "error",
                  chat_template_kwargs: dict[str, Any] | None = None,
                  progress: Progress | None = None, listed: int | None = MAX_LISTED,
                  held_out: Sequence[str | Path] = ()) -> ValidationReport:
    """Validate one verl parquet (or json/jsonl) file: run `CHECKS` in order.

    `tokenizer` is a tokenizer object or a local path; with `max_prompt_length`, longer prompts are
    errors (`overlong="warn"` makes them warnings, for runs that rely on verl's filtering).
    `against` lists other files (e.g. the validation set) whose prompts must not reappear here.
    `progress(total, desc)` returns an `update(n)` for the two long steps (gold self-check, lengths).
    `listed` caps the problems listed per kind (None lists every one); the counts are always whole.
    `held_out` names files known to hold held-out prompts (a run's validation files), beyond those
    whose rows or name say so (`held_out_file`).
    """
    if overlong not in ("error", "warn"):
        raise ValueError("overlong must be 'error' or 'warn'")
    report = ValidationReport(str(path))
    found = _Findings(report, listed)
    try:
        table = read_table(path)
    except Exception as exc:
        found.error("schema", None, None, f"cannot read the file: {first_line(exc)}")
        found.close()
        return report
    file = _File(table, _Options(tokenizer, max_prompt_length, against, check_gold, overlong,
                                 chat_template_kwargs, progress, [str(h) for h in held_out]))
    for name, check in CHECKS:
        stat = check(found, file)
        if stat is not None:
            report.stats[name] = stat
    found.close()
    return report


# -- the checks, in the order they run; each returns its entry in `report.stats` (None: none) -------

def _rows(found: _Findings, file: _File) -> int:
    """verl's columns, then every row's prompt (and images), gold and extra_info."""
    if file.rows == 0:
        found.error("schema", None, None, "the file has no rows")
    for col in REQUIRED_COLUMNS:
        if col not in file.columns:
            found.error("schema", None, col, "required column is missing (verl reads it for every row)")
    for col in RECOMMENDED_COLUMNS:
        if col not in file.columns:
            found.warn("schema", None, col, "column is missing (verl fills a default)")
    file.usable_prompt = ([_check_prompt(found, i, p, file.row_images(i)) for i, p in enumerate(file.prompts)]
                          if "prompt" in file.columns else [False] * file.rows)
    file.golds = ([_check_reward_model(found, i, r) for i, r in enumerate(file.column("reward_model"))]
                  if "reward_model" in file.columns else [None] * file.rows)
    if "extra_info" in file.columns:
        for i, extra in enumerate(file.column("extra_info")):
            if extra is not None and not isinstance(extra, dict):
                found.error("schema", i, "extra_info", f"must be a mapping, got {type(extra).__name__}")
    return file.rows


def _sources(found: _Findings, file: _File) -> dict[str, int]:
    """Every data_source has a registered scorer: an error per unknown name (first row, count)."""
    from rewards import UnknownDataSourceError
    from rewards.registry import get_scorer

    first: dict[Any, int] = {}
    counts: Counter = Counter()
    for i, source in enumerate(file.sources if "data_source" in file.columns else []):
        if not isinstance(source, str) or not source.strip():
            found.error("data_source", i, "data_source", "missing or empty: no scorer can be chosen")
            continue
        counts[source] += 1
        first.setdefault(source, i)
    for source, row in first.items():
        try:
            file.registered[source] = get_scorer(source)
        except UnknownDataSourceError as exc:
            found.error("data_source", row, "data_source",
                        f"{exc} [{counts[source]} row(s) use it; first is row {row}]")
    return dict(Counter(s for s in file.sources if isinstance(s, str)).most_common())


def _golds(found: _Findings, file: _File) -> dict[str, int] | None:
    """Every gold scores `correct` against itself through its own scorer."""
    if not (file.options.check_gold and file.registered):
        return None
    return _check_golds(found, file.sources, file.golds, file.registered, file.options.progress)


def _image_filter(found: _Findings, file: _File) -> None:
    """verl's overlong filter needs qwen_vl_utils for multimodal rows, or it drops them all."""
    if file.images is not None and any(file.images) and _missing_module("qwen_vl_utils"):
        found.warn("images", None, IMAGE_COLUMN,
                   "qwen_vl_utils is not installed here: verl's overlong filter "
                   "(data.filter_overlong_prompts) would silently drop every multimodal row on this machine")


def _duplicates(found: _Findings, file: _File) -> int:
    """Prompts repeated in the file: a warning, or an error when the repeats disagree on the gold."""
    file.keys = [_prompt_key(p, file.row_images(i)) if file.usable_prompt[i] else None
                 for i, p in enumerate(file.prompts)]
    golds, sources = file.golds, file.sources
    seen: dict[tuple, int] = {}
    duplicates = 0
    for i, key in enumerate(file.keys):
        if key is None:
            continue
        if key not in seen:
            seen[key] = i
            continue
        duplicates += 1
        first = seen[key]
        if golds[i] != golds[first] or sources[i] != sources[first]:
            found.error("duplicate", i, "prompt", f"same prompt as row {first} but a different gold "
                        f"({golds[i]!r} vs {golds[first]!r}) or data_source")
        else:
            found.warn("duplicate", i, "prompt", f"duplicate of row {first}")
    return duplicates


HELD_OUT = {"test", "val", "valid", "validation", "eval", "dev", "heldout"}


def held_out_file(path: str | Path, table: Any) -> bool:
    """A file of held-out prompts: its rows' `extra_info.split` (verl's rows and `rewards prepare`'s carry
    it) is a held-out split, or a word of its name is (`test.parquet`, `math_val.jsonl`)."""
    import re

    if "extra_info" in table.column_names and table.num_rows:
        first = table.column("extra_info")[0].as_py()
        split = first.get("split") if isinstance(first, dict) else None
        if isinstance(split, str) and split.lower() in HELD_OUT:
            return True
    return bool(set(re.split(r"[^a-z]+", Path(str(path)).stem.lower())) & HELD_OUT)


def _overlap(found: _Findings, file: _File) -> dict[str, int] | None:
    """Prompts shared with the `against` files, and `extra_info` types that differ. Held-out prompts in
    a training file are contamination, one summary per pair of files; other sharing (train and train,
    two held-out files) is a warning per row."""
    if not file.options.against:
        return None
    counts = {}
    table = file.table
    known = file.options.held_out
    mine_held_out = found.report.file in known or held_out_file(found.report.file, table)
    own_extra = table.schema.field("extra_info").type if "extra_info" in table.column_names else None
    for other in file.options.against:
        try:
            other_table = read_table(other)
        except Exception as exc:
            found.warn("overlap", None, None, f"cannot read {other} to compare: {first_line(exc)}")
            continue
        if own_extra is not None and "extra_info" in other_table.column_names:
            other_extra = other_table.schema.field("extra_info").type
            clash = type_clash(own_extra, other_extra, "extra_info")
            if clash:
                found.warn("schema", None, "extra_info", f"{clash} in {other}: verl cannot load the two files "
                           f"together (its RLHFDataset concatenates them; a field they share needs one type)")
        other_keys: dict[tuple, int] = {}
        if "prompt" in other_table.column_names:
            other_images = (other_table.column(IMAGE_COLUMN).to_pylist()
                            if IMAGE_COLUMN in other_table.column_names else None)
            for j, prompt in enumerate(other_table.column("prompt").to_pylist()):
                if isinstance(prompt, list) and all(isinstance(m, dict) for m in prompt):
                    other_keys.setdefault(_prompt_key(prompt, other_images[j] if other_images else None), j)
        shared = [i for i, key in enumerate(file.keys) if key is not None and key in other_keys]
        counts[str(other)] = len(shared)
        if not shared:
            continue
        if mine_held_out != (str(other) in known or held_out_file(other, other_table)):
            rows = ", ".join(map(str, shared[:5])) + (f" and {len(shared) - 5} more" if len(shared) > 5 else "")
            what = (f"{len(shared)} of its held-out prompts are in training file {other}" if mine_held_out else
                    f"{len(shared)} prompts of held-out file {other} are in this training file")
            found.contaminated("contamination", "prompt", f"{what} (rows {rows} here): scores on them measure "
                                                          f"memory, not skill; drop them from the training file")
            continue
        for i in shared:
            found.warn("overlap", i, "prompt", f"also in {other} (row {other_keys[file.keys[i]]})")
    return counts


def type_clash(a: Any, b: Any, where: str) -> str | None:
    """Where two files' column types cannot be concatenated, in words, or None. verl 0.9.1's
    RLHFDataset joins its files with `datasets.concatenate_datasets`, which takes the union of two
    structs (GSM8K's `extra_info.answer` beside MATH's `extra_info.solution`: each row gets the
    other's fields as null); only a field both hold with different types (`index` a number in one
    and text in the other) stops it. A null type fits any."""
    import pyarrow as pa

    if a == b or pa.types.is_null(a) or pa.types.is_null(b):
        return None
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        theirs = {f.name: f.type for f in b}
        for mine in a:
            if mine.name in theirs:
                clash = type_clash(mine.type, theirs[mine.name], f"{where}.{mine.name}")
                if clash:
                    return clash
        return None
    return f"`{where}` is {a} here and {b}"


def _lengths(found: _Findings, file: _File) -> dict[str, Any] | None:
    """Prompt token lengths under the tokenizer's chat template, against `max_prompt_length`."""
    o = file.options
    if o.tokenizer is None or "prompt" not in file.columns:
        if o.max_prompt_length is not None:
            found.warn("length", None, "prompt", "max_prompt_length given without a tokenizer: lengths not checked")
        return None
    from rewards.tokenizer import load_tokenizer

    from .prompt_length import TemplateFailure, percentile, prompt_lengths

    tok = load_tokenizer(o.tokenizer, chat_template=True)
    unique: dict[tuple, int] = {}
    order: list[list[dict]] = []
    for i, key in enumerate(file.keys):
        if key is not None and key not in unique:
            unique[key] = len(order)
            order.append(file.prompts[i])
    update = o.progress(len(order), "prompt lengths") if o.progress else None
    try:
        lengths_unique = prompt_lengths(tok, order, o.chat_template_kwargs, update)
    except TemplateFailure as exc:   # verl renders the same template in its dataset and its rollout server
        row = next((i for i, key in enumerate(file.keys) if key is not None and unique[key] == exc.index), None)
        found.add("error", "chat-template", row, "prompt",
                  f"the tokenizer's chat template fails on this prompt ({exc.message}); verl would fail the same way")
        return None
    ordered = sorted(lengths_unique[unique[k]] for k in file.keys if k is not None)
    stats: dict[str, Any] = dict(p50=percentile(ordered, 50), p95=percentile(ordered, 95),
                                 max=ordered[-1] if ordered else 0,
                                 mean=round(sum(ordered) / len(ordered), 1) if ordered else 0.0)
    if file.images is not None:
        stats["note"] = "image tokens not counted: lengths are lower bounds for multimodal rows"
    if o.max_prompt_length is not None:
        over = 0
        for i, key in enumerate(file.keys):
            if key is None:
                continue
            n = lengths_unique[unique[key]]
            if n > o.max_prompt_length:
                over += 1
                found.add("error" if o.overlong == "error" else "warning", "length", i, "prompt",
                          f"{n} tokens under the chat template, over max_prompt_length {o.max_prompt_length} "
                          "(verl would drop or truncate it)")
        stats.update(max_prompt_length=o.max_prompt_length, overlong=over)
    return stats


def _prompt_formats(found: _Findings, file: _File) -> dict[str, dict[str, int]]:
    """Per data_source, its rows and how many prompts ask for each format rule's layout
    (`rewards.format.ASKED_IN_PROMPT`): the launch plan compares them with the run's `format_rule`."""
    from rewards.format import ASKED_IN_PROMPT

    stats: dict[str, dict[str, int]] = {}
    for source, prompt, usable in zip(file.sources, file.prompts, file.usable_prompt):
        if not (isinstance(source, str) and usable):
            continue
        text = "\n".join(str(m.get("content", "")) for m in prompt)
        counts = stats.setdefault(source, {"rows": 0, **dict.fromkeys(ASKED_IN_PROMPT, 0)})
        counts["rows"] += 1
        for rule, marker in ASKED_IN_PROMPT.items():
            counts[rule] += marker in text
    return stats


CHECKS: tuple[tuple[str, Check], ...] = (
    ("rows", _rows),
    ("data_sources", _sources),
    ("prompt_formats", _prompt_formats),
    ("gold", _golds),
    ("images", _image_filter),
    ("duplicates", _duplicates),
    ("overlap", _overlap),
    ("prompt_tokens", _lengths),
)
"""Each check as (its key in `report.stats`, the function); a later check may read what an earlier
one stored on the `_File` (the usable prompts, the golds, the registered scorers, the prompt keys)."""


# -- helpers of the checks -------------------------------------------------------------------

def _check_prompt(found: _Findings, i: int, prompt: Any, row_images: Any) -> bool:
    if prompt is None:
        found.error("schema", i, "prompt", "missing")
        return False
    if isinstance(prompt, str):
        found.error("schema", i, "prompt", "is a string; verl needs a list of {role, content} messages")
        return False
    if not isinstance(prompt, list) or not prompt:
        found.error("schema", i, "prompt", "must be a non-empty list of {role, content} messages")
        return False
    ok, placeholders, has_user = True, 0, False
    for j, message in enumerate(prompt):
        where = f"prompt[{j}]"
        if not isinstance(message, dict):
            found.error("schema", i, where, f"must be a {{role, content}} mapping, got {type(message).__name__}")
            ok = False
            continue
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            found.error("schema", i, f"{where}.role", f"{role!r} is not one of {', '.join(ROLES)}")
            ok = False
        has_user = has_user or role == "user"
        if not isinstance(content, str):
            found.error("schema", i, f"{where}.content",
                        "must be a string (verl fills <image> placeholders in text itself)"
                        if content is not None else "missing")
            ok = False
        elif not content.strip():
            found.error("schema", i, f"{where}.content", "is empty")
            ok = False
        else:
            placeholders += content.count(IMAGE_PLACEHOLDER)
    if ok and not has_user:
        found.error("schema", i, "prompt", "has no user message")
        ok = False
    if row_images is not None or placeholders:
        ok = _check_images(found, i, row_images or [], placeholders) and ok
    return ok


def _check_images(found: _Findings, i: int, row_images: list, placeholders: int) -> bool:
    if len(row_images) != placeholders:
        found.error("images", i, IMAGE_COLUMN, f"{len(row_images)} images but {placeholders} "
                    f"{IMAGE_PLACEHOLDER} placeholders in the prompt (verl asserts they match)")
        return False
    for k, image in enumerate(row_images):
        data = image.get("bytes") if isinstance(image, dict) else None
        if not data:
            if not (isinstance(image, dict) and image.get("path")):
                found.error("images", i, f"{IMAGE_COLUMN}[{k}]", "has neither bytes nor a path")
                return False
            continue
        try:
            from PIL import Image

            Image.open(io.BytesIO(data)).verify()
        except Exception as exc:
            found.error("images", i, f"{IMAGE_COLUMN}[{k}]", f"bytes are not a readable image ({first_line(exc)})")
            return False
    return True


def _check_reward_model(found: _Findings, i: int, reward_model: Any) -> str | None:
    """The gold as text, or None (with an error) when there is none."""
    if not isinstance(reward_model, dict):
        found.error("schema", i, "reward_model", "missing" if reward_model is None else
                    f"must be a mapping with ground_truth, got {type(reward_model).__name__}")
        return None
    style = reward_model.get("style")
    if style not in (None, "rule"):
        found.warn("schema", i, "reward_model.style", f"is {style!r}; rule rewards expect 'rule'")
    gold = reward_model.get("ground_truth")
    if gold is None or (isinstance(gold, str) and not gold.strip()):
        found.error("schema", i, "reward_model.ground_truth", "missing" if gold is None else "is empty")
        return None
    if isinstance(gold, (list, dict)):
        return None  # structured golds (several answers) are the scorer's business; not self-checked
    text = str(gold).strip()
    quoted = json_string_literal(text)
    if quoted is not None:  # it equals itself, so the self-check passes it; no answer ever will
        found.error("gold", i, "reward_model.ground_truth",
                    f"gold {text[:80]!r} still carries JSON quoting (a JSON string written as text, as a "
                    f"mixed-type JSON column is read); the value is {quoted[:80]!r}")
        return None
    return text


def _check_golds(found: _Findings, sources: list[Any], golds: list[str | None],
                 entries: dict[str, Any], progress: Progress | None = None) -> dict[str, int]:
    """Each distinct (data_source, gold) is scored once, as a response, against itself. A scorer that
    reads a format of its own and registers no `gold_response` cannot be handed its gold: its rows
    are counted `unchecked` (stats["gold_unchecked"] per data_source), the other checks still run."""
    from rewards import Sample, score_batch
    from rewards.api import recheck_timeouts, timeouts
    from rewards.math.wellformed import gold_defect


    pairs: dict[tuple[str, str], list[int]] = {}
    for i, (source, gold) in enumerate(zip(sources, golds)):
        if gold is not None and source in entries:
            pairs.setdefault((source, gold), []).append(i)
    tallies: Counter = Counter()
    for source, gold in list(pairs):
        defect = gold_defect(gold) if entries[source].answer_format == "boxed" else None
        if defect:  # it would equal itself as text, and nothing else: every response scores wrong
            rows = pairs.pop((source, gold))
            tallies["malformed"] += len(rows)
            for i in rows:
                found.error("gold", i, "reward_model.ground_truth",
                            f"gold {gold[:80]!r} can never be matched: {defect}")
    responses = {}
    for source, gold in list(pairs):
        try:
            responses[(source, gold)] = entries[source].render_gold(gold)
        except Exception as exc:  # a scorer's own gold_response is user code
            responses[(source, gold)] = None
            for i in pairs[(source, gold)]:
                found.error("gold", i, "reward_model.ground_truth", f"scorer {entries[source].name!r} cannot write "
                            f"gold {gold[:80]!r} as a response (gold_response raised {first_line(exc)})")
            del pairs[(source, gold)]
        if pairs.get((source, gold)) and responses[(source, gold)] is None:  # a format of the scorer's own
            rows = len(pairs.pop((source, gold)))
            tallies["unchecked"] += rows
            unchecked = found.report.stats.setdefault("gold_unchecked", {})
            unchecked[source] = unchecked.get(source, 0) + rows
    keys = list(pairs)
    samples = [Sample(s, responses[(s, g)], g) for s, g in keys]
    update = progress(len(samples), "gold self-check") if progress else None
    results = []
    for start in range(0, len(samples), GOLD_BATCH):
        batch = samples[start:start + GOLD_BATCH]
        with timeouts.muted():  # a gold that times out twice is one warning per row, below
            results.extend(recheck_timeouts(batch, score_batch(batch)))
        if update is not None:
            update(min(GOLD_BATCH, len(samples) - start))
    for (source, gold), result in zip(keys, results):
        verdict = result.verdict.value
        rows = pairs[(source, gold)]
        tallies[verdict] += len(rows)
        if verdict == "correct":
            continue
        if verdict == "timeout":
            for i in rows:
                found.warn("gold", i, "reward_model.ground_truth",
                           f"checking gold {gold[:80]!r} against itself timed out, twice (the second "
                           "time with a longer budget)")
            continue
        what = ("cannot be parsed by" if verdict == "unparsable_gold"
                else f"does not score correct against itself ({verdict}) under")
        reason = f": {result.reason}" if result.reason else ""
        for i in rows:
            found.error("gold", i, "reward_model.ground_truth",
                        f"gold {gold[:80]!r} {what} scorer {entries[source].name!r}{reason}")
    return dict(tallies)


def _prompt_key(prompt: list[dict], row_images: Any) -> tuple:
    """What makes two prompts the same: every (role, content), and the images' bytes."""
    key = tuple((m.get("role"), m.get("content")) for m in prompt)
    if row_images:
        import hashlib

        key += tuple(hashlib.sha1(im.get("bytes") or (im.get("path") or "").encode()).hexdigest()
                     for im in row_images if isinstance(im, dict))
    return key


def _missing_module(name: str) -> bool:
    from importlib.util import find_spec

    return find_spec(name) is None
