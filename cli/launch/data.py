"""The data files and the reward wiring, checked before launch.

The file checks are `schemas.validate.validate_file` (the same checks as `rewards validate`): columns,
prompts, a registered scorer for every data_source, golds that score correct against themselves,
prompt token lengths under the model's chat template. This module only decides what they mean for
this run: verl 0.9.1 does not raise on an overlong prompt whatever `data.truncation` says (its agent
loop left-truncates it, cutting off the start of the question), so with `truncation=error` and no
`filter_overlong_prompts` an overlong prompt is an error here, before any GPU is paid for.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .findings import Finding, error, note, warning

MAX_LISTED = 5
REWARD_PATH = "pkg://rewards.verl"
REWARD_NAME = "compute_score"


@dataclass
class DataSummary:
    file: str
    rows: int = 0
    data_sources: dict[str, int] = field(default_factory=dict)
    prompt_tokens: dict[str, Any] = field(default_factory=dict)
    prompt_formats: dict[str, dict[str, int]] = field(default_factory=dict)
    checked: bool = False

    def describe(self) -> str:
        if not self.checked:
            return f"{self.file}: not checked"
        sources = ", ".join(f"{name} ({count})" for name, count in self.data_sources.items()) or "none"
        text = f"{self.file}: {self.rows} rows; data_source {sources}"
        tokens = self.prompt_tokens
        if tokens:
            text += f"; prompt tokens p50 {tokens.get('p50')} / p95 {tokens.get('p95')} / max {tokens.get('max')}"
        return text


def tokenizer_dir(model_dir: Path | None) -> Path | None:
    """The model's local directory when it holds a tokenizer (for prompt lengths)."""
    if model_dir is None:
        return None
    if any((model_dir / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json", "vocab.json")):
        return model_dir
    return None


def data_files(value: Any) -> list[str]:
    """The files of `data.train_files` / `data.val_files` (or of --train-files / --val-files): one
    path, a list (verl reads several and concatenates them), or verl's list form written as text,
    `[a.parquet,b.parquet]` (quotes around a name are dropped)."""
    if value is None:
        return []
    if not isinstance(value, str) and hasattr(value, "__iter__"):  # a list, or omegaconf's ListConfig
        return [name for item in value for name in data_files(item)]
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]"):
        return [name.strip().strip("'\"") for name in text[1:-1].split(",") if name.strip().strip("'\"")]
    return [text] if text else []


def check_data(files: Mapping[str, str | list[str]], cfg: Any,
               tokenizer: Path | None) -> tuple[list[DataSummary], list[Finding]]:
    """Validate the train and val files for this run (each of a role's files against the others verl
    joins it with and, for training, the validation files; then the role's rows together for the
    batch sizes); findings are one sentence each."""
    findings: list[Finding] = []
    summaries: list[DataSummary] = []
    filtering = bool(cfg.data.get("filter_overlong_prompts"))
    files = {role: data_files(names) for role, names in files.items()}
    present = {role: [str(Path(n).expanduser()) for n in names if Path(n).expanduser().is_file()]
               for role, names in files.items()}
    for role, names in files.items():
        mine = []
        for raw in names:
            against = [n for n in present[role] if n != str(Path(raw).expanduser())]
            against += present.get("val", []) if role == "train" else []
            mine.append(_check_file(role, raw, against, cfg, tokenizer, findings, held_out=present.get("val", [])))
        summaries.extend(mine)
        if mine and all(s.checked for s in mine):
            together = DataSummary(" + ".join(s.file for s in mine), rows=sum(s.rows for s in mine), prompt_tokens={
                "overlong": sum(int(s.prompt_tokens.get("overlong", 0)) for s in mine)})
            findings.extend(_size_findings(role, together.file, together, cfg, filtering))
    return summaries, list(dict.fromkeys(findings))  # a role's files share some findings (lengths not checked)


def _check_file(role: str, raw: str, against: list[str], cfg: Any, tokenizer: Path | None,
                findings: list[Finding], held_out: list[str] = ()) -> DataSummary:
    """One data file through `validate_file` (the run's validation files are its held-out ones, whatever
    their rows or names say); its findings appended."""
    from schemas.validate import validate_file

    max_len = int(cfg.data.max_prompt_length)
    filtering = bool(cfg.data.get("filter_overlong_prompts"))
    truncation = str(cfg.data.get("truncation", "error"))
    path = Path(raw).expanduser()
    summary = DataSummary(str(raw))
    if path.is_dir():
        findings.append(error("data-missing", f"{role} file {raw} is a folder: set data.{role}_files to "
                                              f"parquet files"))
        return summary
    if not path.exists():
        findings.append(error("data-missing", f"{role} file {raw} does not exist: write it with "
                                              f"`rewards prepare SOURCE -o {path.parent}`, or pass "
                                              f"--skip-data-check if it exists only on the cluster"))
        return summary
    report = validate_file(path, tokenizer=str(tokenizer) if tokenizer else None,
                           max_prompt_length=max_len if tokenizer else None,
                           against=against, overlong="warn", held_out=held_out)
    validate = shlex.join(["rewards", "validate", str(raw), *(["--against", *against] if against else [])])
    summary.checked = True
    summary.rows = int(report.stats.get("rows", 0))
    summary.data_sources = dict(report.stats.get("data_sources") or {})
    summary.prompt_tokens = dict(report.stats.get("prompt_tokens") or {})
    summary.prompt_formats = dict(report.stats.get("prompt_formats") or {})
    for problem in report.errors[:MAX_LISTED]:
        findings.append(error(f"data-{problem.check}", f"{problem} (fix the file, or rebuild it with rewards prepare)"))
    total = int(report.stats.get("error_count", len(report.errors)))  # report.errors lists at most 20 per kind
    if total > MAX_LISTED:
        findings.append(error("data", f"{raw} has {total - MAX_LISTED} more problems: "
                                      f"`{validate}` lists them all"))
    findings.extend(_length_findings(role, raw, summary, max_len, filtering, truncation, tokenizer))
    if summary.prompt_tokens.get("note"):
        findings.append(note("data-length", f"{raw}: {summary.prompt_tokens['note']}"))
    for source, n in report.stats.get("gold_unchecked", {}).items():
        findings.append(note("data-gold", f"{raw}: {n} {source} gold(s) not self-checked: its scorer reads a "
                                          f"format of its own and registers no gold_response to write a gold in it"))
    other = [p for p in report.warnings if p.check not in ("length",)
             and not (not filtering and _about_the_overlong_filter(p))]
    counts = dict(report.stats.get("warning_counts") or {})
    moot = sum(1 for p in report.warnings if p.check != "length" and p not in other)   # the filter's, when off
    total = sum(n for check, n in counts.items() if check != "length") - moot
    if other:   # the count is validate's own: every warning, not only the ones it lists
        findings.append(warning("data-warnings", f"{raw} has {total} warning(s), e.g. {other[0]}; "
                                                 f"`{validate}` lists them"))  # --against: the overlap
    for problem in report.contamination:
        findings.append(warning("data-contamination", f"{problem}; `{validate}` shows it"))
    return summary


def _about_the_overlong_filter(problem: Any) -> bool:
    """validate's warning that verl's overlong filter would drop multimodal rows: moot when the run turns it off."""
    return problem.check == "images" and "filter_overlong_prompts" in str(problem)


def _size_findings(role: str, raw: str, summary: DataSummary, cfg: Any, filtering: bool) -> list[Finding]:
    """verl drops the last partial training batch (drop_last) and asserts both loaders are non-empty,
    but only after the cluster has started: "Train dataloader is empty!". Say it here, with both numbers."""
    rows = summary.rows - (int(summary.prompt_tokens.get("overlong", 0)) if filtering else 0)
    after = " after data.filter_overlong_prompts drops the overlong ones" if rows != summary.rows else ""
    if role == "train":
        batch = int(cfg.data.get("train_batch_size") or 0)
        if rows < batch:
            return [error("data-size", f"{raw} has {rows} training rows{after}, fewer than one batch of "
                                       f"data.train_batch_size={batch}, so verl would stop with 'Train dataloader is "
                                       f"empty!' once the cluster is up: lower data.train_batch_size to at most "
                                       f"{max(rows, 1)} or use more rows")]
        return []
    if rows < 1:
        return [error("data-size", f"{raw} has no validation rows{after}, so verl would stop with 'Validation "
                                   f"dataloader is empty!' once the cluster is up: use a validation file with rows")]
    return []


def _length_findings(role: str, raw: str, summary: DataSummary, max_len: int, filtering: bool,
                     truncation: str, tokenizer: Path | None) -> list[Finding]:
    tokens = summary.prompt_tokens
    if tokenizer is None:
        level = warning if not filtering else note
        return [level("data-length", f"{role} prompt lengths were not checked because the model's tokenizer is "
                                     f"not on this machine; download the model or pass --model PATH so "
                                     f"data.max_prompt_length={max_len} can be checked")]
    over, longest = int(tokens.get("overlong", 0)), tokens.get("max", 0)
    if not over:
        return []
    share = f"{over} of {summary.rows} {role} prompts are longer than data.max_prompt_length={max_len} (longest {longest} tokens)"
    if filtering:
        level = error if over == summary.rows else warning
        return [level("data-length", f"{share}; data.filter_overlong_prompts=true will drop them")]
    if truncation == "error":
        return [error("truncation", f"{share} and data.truncation=error allows none (verl 0.9.1 would silently "
                                    f"left-truncate them): raise data.max_prompt_length to {longest} or set "
                                    f"data.filter_overlong_prompts=true")]
    return [warning("data-length", f"{share}; they will be truncated ({truncation})")]


def check_reward(reward_kwargs: Mapping[str, Any], data_sources: list[str]) -> list[Finding]:
    """The reward settings verl will pass (`reward_kwargs`) must be ones the scorers know and accept."""
    from rewards.registry import UnknownDataSourceError, get_scorer
    from rewards.settings import FIELDS, VERL_PASSTHROUGH, SettingsError, make_settings

    findings: list[Finding] = []
    unknown = sorted(set(reward_kwargs) - FIELDS - VERL_PASSTHROUGH)
    for key in unknown:
        import difflib
        close = difflib.get_close_matches(key, sorted(FIELDS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        findings.append(error("reward-kwargs", f"reward setting {key!r}{hint} is not one the scorers know, so it would "
                                               f"change nothing: known settings are {', '.join(sorted(FIELDS))}"))
    known = {k: v for k, v in reward_kwargs.items() if k in FIELDS}
    for source in data_sources or [None]:
        try:
            defaults = get_scorer(source).defaults if source else {}
        except UnknownDataSourceError:
            continue   # the data check reports it, naming the row
        try:
            make_settings(defaults, known)
        except (SettingsError, TypeError, ValueError) as exc:
            where = f" for data_source {source}" if source else ""
            findings.append(error("reward-kwargs", f"the reward settings{where} are rejected: {exc}"))
    return findings


def effective_settings(reward_kwargs: Mapping[str, Any], data_sources: list[str]) -> dict[str, dict[str, Any]]:
    """Per data_source, the settings that differ from the package defaults (what the scorer will use)."""
    import dataclasses

    from rewards.registry import get_scorer
    from rewards.settings import FIELDS, Settings, make_settings

    base = Settings()
    known = {k: v for k, v in reward_kwargs.items() if k in FIELDS}
    result = {}
    for source in data_sources:
        try:
            settings = make_settings(get_scorer(source).defaults, known)
        except Exception:
            continue
        result[source] = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)
                          if getattr(settings, f.name) != getattr(base, f.name)}
    return result


# Where the answer goes under each rule, and a prepared template whose prompt asks for that layout.
_LAYOUT = {"think_boxed": ("`<think>` then a `\\boxed{}` answer", "think_box"),
           "think_answer": ("`<think>` then `<answer>` tags", "r1_tags")}


def check_prompt_format(summaries: list[DataSummary], settings: Mapping[str, Mapping[str, Any]]) -> list[Finding]:
    """A format rule the prompts never ask for pays format 0 to nearly every sample (`rewards prepare
    --template r1` asks for the answer after `</think>`, not for `<answer>` tags); prompts that ask
    for `<answer>` tags under another rule get answers the scorer does not read there."""
    findings: list[Finding] = []
    for summary in summaries:
        for source, counts in summary.prompt_formats.items():
            rule, rows = settings.get(source, {}).get("format_rule", "none"), counts["rows"]
            asked = counts.get(rule, rows)
            if rule in _LAYOUT and asked < rows:
                layout, template = _LAYOUT[rule]
                share = "none" if asked == 0 else f"only {asked}"
                findings.append(warning("format-prompt", (
                    f"{summary.file}: format_rule={rule} pays {source} rows for {layout}, but {share} of its {rows} "
                    f"prompts ask for that, so most samples will score format 0: write the prompts with "
                    f"`rewards prepare --template {template}` (or name that layout in your own), or change format_rule")))
            tagged = counts.get("think_answer", 0)
            if rule != "think_answer" and tagged:
                findings.append(warning("format-prompt", (
                    f"{summary.file}: {tagged} of {rows} {source} prompts ask for <answer> tags, but format_rule is "
                    f"{rule}: the scorer reads an answer in the tags only under format_rule=think_answer, so "
                    f"set it (reward.custom_reward_function.reward_kwargs.format_rule=think_answer)")))
    return findings
