"""`prepare`: a source dataset → `train.parquet`, `test.parquet` and `manifest.json` in one folder.

The manifest records everything needed to know how a file was made and whether it changed: the
source, family, config, splits, template and system prompt, seed and limit, row counts, every skipped
source row with its reason, and a content hash over the rows (independent of parquet's encoding).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from schemas.verl_row import IMAGE_COLUMN, write_parquet

from . import FAMILIES, Family, FamilyError, convert, find_family, identify, table_family
from .loading import SourceError, is_local, load_splits, select_rows
from .templates import get_template, resolve_system

OUTPUT_FILES = {"train": "train.parquet", "test": "test.parquet"}
MANIFEST = "manifest.json"
MAX_LISTED_SKIPS = 200


class PrepareError(ValueError):
    """A preparation that cannot go ahead; the message says why."""


@dataclass
class PrepareOptions:
    source: str
    out: str
    family: str | None = None
    config: str | None = None
    split: str | None = None
    template: str | None = None
    system: str | None = None
    limit: int | None = None
    seed: int | None = None
    test_size: float | None = None
    data_source: str | None = None
    ability: str = "math"
    allow_unregistered: bool = False
    question_field: str | None = None
    answer_field: str | None = None
    answer_extractor: str = "raw"
    answer_format: str = "boxed"
    keep: tuple[str, ...] = ()
    dedupe: bool = False   # drop rows whose prompt and gold repeat an earlier row's (and test rows found in train)


def prepare(opts: PrepareOptions, progress: Callable[[int, str], Any] | None = None) -> dict[str, Any]:
    """Run the whole preparation; returns the manifest (also written to OUT/manifest.json).

    `progress(total, desc)` is called once per output split and returns an `update(n)` callable.
    """
    opts = _family_name_as_hub_id(opts)
    out = _output_folder(opts.out)
    _refuse_own_input(opts.source, out)
    family = _explicit_family(opts)
    config = _config(opts, family)
    try:
        splits = load_splits(opts.source, config)
    except SourceError as exc:
        raise PrepareError(str(exc)) from exc
    labelled_by_name = True
    if family is None:
        columns = next(iter(splits.values())).column_names if splits else []
        try:
            family, default_source, labelled_by_name = identify(opts.source, columns)
        except FamilyError as exc:
            raise PrepareError(f"{exc} (its columns: {', '.join(columns)})") from exc
    else:
        default_source = family.data_source_for(opts.source)
    data_source = opts.data_source or default_source
    if opts.data_source or not family.keeps_data_source:  # else checked per row once converted
        _check_data_source(data_source, opts, labelled_by_name)
    template = get_template(opts.template or family.default_template)
    plan = _plan(opts, family, list(splits))

    outputs: dict[str, dict[str, Any]] = {}
    all_skipped: list[dict[str, Any]] = []
    all_flagged: list[dict[str, Any]] = []
    results: dict[str, list[dict[str, Any]]] = {}
    for out_split, source_split, indices_filter in plan:
        dataset = _undecoded_images(splits[source_split])
        try:
            dataset, indices = select_rows(dataset, limit=opts.limit, seed=opts.seed)
        except SourceError as exc:
            raise PrepareError(str(exc)) from exc
        if indices_filter is not None:
            keep = indices_filter(len(indices))
            dataset, indices = dataset.select(keep), [indices[i] for i in keep]
        update = progress(len(indices), f"{out_split} ← {source_split}") if progress else None
        converted = convert(dataset, family, data_source=data_source, template=template, split=out_split,
                            source_indices=indices, system=opts.system, ability=opts.ability,
                            progress=update, relabel=bool(opts.data_source))
        results[out_split] = converted.rows
        all_skipped.extend({**s, "source_split": source_split} for s in converted.skipped)
        all_flagged.extend({**s, "source_split": source_split} for s in converted.flagged)
        outputs[OUTPUT_FILES[out_split]] = {"rows": len(converted.rows), "source_split": source_split,
                                            "skipped": len(converted.skipped)}
    repeats = _repeats(results, drop=opts.dedupe)
    for name, rows in results.items():
        outputs[OUTPUT_FILES[name]]["rows"] = len(rows)
    if not any(results.values()):
        reasons = sorted({s["reason"] for s in all_skipped})[:3]
        raise PrepareError(f"{opts.source}: no usable rows" + (f" (e.g. {'; '.join(reasons)})" if reasons else ""))
    sources = sorted({row["data_source"] for rows in results.values() for row in rows})
    for name in set(sources) - {data_source}:  # rows that kept their own data_source
        _check_data_source(name, opts, True)

    digest = hashlib.sha256()
    for rows in results.values():
        for row in rows:
            digest.update(canonical_row(row))
    manifest = {
        "source": opts.source,
        "family": family.name,
        "config": config,
        "data_source": sources[0] if len(sources) == 1 else data_source,
        "data_sources": sources,
        "template": template.name,
        "system": resolve_system(opts.system),
        "seed": opts.seed,
        "limit": opts.limit,
        "test_size": opts.test_size,
        "files": outputs,
        "skipped": len(all_skipped),
        "skipped_rows": all_skipped[:MAX_LISTED_SKIPS],
        "flagged": len(all_flagged),
        "flagged_rows": all_flagged[:MAX_LISTED_SKIPS],
        "repeats": repeats,
        "deduped": opts.dedupe,
        "content_sha256": digest.hexdigest(),
        "created_by": f"verl-rewards {_version()}",
    }
    if family.name == "table":
        manifest["fields"] = {"question": opts.question_field, "answer": opts.answer_field,
                              "extractor": opts.answer_extractor, "keep": list(opts.keep)}
    _write_outputs(out, results, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def _repeats(results: dict[str, list[dict[str, Any]]], drop: bool) -> dict[str, int]:
    """Rows whose prompt and gold repeat an earlier row's, per split, and test rows whose prompt and gold
    are in the training split (DAPO-Math-17k holds each problem many times; a test split cut from such a
    source holds training problems). With `drop` they are left out, the first of each kept."""
    def key(row: dict[str, Any]) -> bytes:
        return canonical_row({k: row.get(k) for k in ("prompt", IMAGE_COLUMN, "reward_model") if k in row})

    counts: dict[str, int] = {}
    seen: dict[str, set[bytes]] = {}
    for name in ("train", "test"):
        rows = results.get(name)
        if rows is None:
            continue
        mine: set[bytes] = set()
        kept, repeated, in_train = [], 0, 0
        for row in rows:
            k = key(row)
            if k in mine:
                repeated += 1
            elif name == "test" and k in seen.get("train", ()):
                in_train += 1
            else:
                mine.add(k)
                kept.append(row)
                continue
            if not drop:
                kept.append(row)
        seen[name] = mine
        counts[name] = repeated
        if name == "test":
            counts["test_in_train"] = in_train
        if drop:
            results[name] = kept
    return counts


def canonical_row(row: dict[str, Any]) -> bytes:
    """Bytes that identify a row's content: sorted-key JSON, image bytes replaced by their hash."""
    if IMAGE_COLUMN in row:
        row = {**row, IMAGE_COLUMN: [hashlib.sha256(im.get("bytes") or b"").hexdigest()
                                     for im in row[IMAGE_COLUMN]]}
    return json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode() + b"\n"


def _explicit_family(opts: PrepareOptions) -> Family | None:
    if opts.family == "table" or (opts.family is None and opts.question_field):
        if not (opts.question_field and opts.answer_field):
            raise PrepareError("a table needs --question-field and --answer-field")
        if not opts.data_source:
            raise PrepareError("a table needs --data-source (the scorer its rows are for; `rewards list`)")
        try:
            return table_family(opts.question_field, opts.answer_field, extractor=opts.answer_extractor,
                                keep=tuple(opts.keep), answer_format=opts.answer_format,
                                template=opts.template or "boxed")
        except ValueError as exc:
            raise PrepareError(str(exc)) from exc
    if opts.family:
        if opts.family not in FAMILIES:
            raise PrepareError(f"unknown family {opts.family!r}; one of {', '.join([*FAMILIES, 'table'])}")
        return FAMILIES[opts.family]
    try:
        return find_family(opts.source)
    except FamilyError:
        return None  # decided from the columns once loaded


def _config(opts: PrepareOptions, family: Family | None) -> str | None:
    """The config to load: explicit, else the family's default when the source has it."""
    if opts.config or family is None or family.default_config is None:
        return opts.config
    if not is_local(opts.source):
        return family.default_config
    path = Path(opts.source)
    if path.is_file() or (path / "dataset_dict.json").exists() or (path / "state.json").exists():
        return None
    import datasets

    try:
        names = datasets.get_dataset_config_names(str(path))
    except Exception:  # a folder the builder cannot inspect: let load_dataset report it
        return None
    return family.default_config if family.default_config in names else None


def _plan(opts: PrepareOptions, family: Family, available: list[str]):
    """(output split, source split, optional row filter) for each file to write."""
    def missing(name: str) -> PrepareError:
        return PrepareError(f"{opts.source} has no split {name!r}; it has {', '.join(available)}")

    if opts.split:
        if opts.split not in available:
            raise missing(opts.split)
        target = "train" if opts.split == "train" else "test"
        if opts.test_size is None:
            return [(target, opts.split, None)]
        train_source = opts.split
    else:
        train_source = family.splits[0] if family.splits[0] in available else None
        if train_source is None and len(available) == 1 and opts.test_size is not None:
            train_source = available[0]
    if opts.test_size is not None:
        if train_source is None:
            raise missing(family.splits[0])
        carve = _carver(opts.test_size, opts.seed)
        return [("train", train_source, lambda n: carve(n)[1]), ("test", train_source, lambda n: carve(n)[0])]
    plan = []
    if train_source is not None:
        plan.append(("train", train_source, None))
    test_source = next((s for s in family.splits[1:] if s in available), None)
    if test_source is not None:
        plan.append(("test", test_source, None))
    if not plan:
        raise PrepareError(f"{opts.source} has none of the splits {', '.join(family.splits)} "
                           f"(it has {', '.join(available)}); choose one with --split")
    return plan


def _carver(test_size: float, seed: int | None):
    """Split n selected rows into (test positions, train positions), reproducibly."""
    import random

    def carve(n: int) -> tuple[list[int], list[int]]:
        count = int(test_size) if test_size >= 1 else round(test_size * n)
        if not 0 < count < n:
            raise PrepareError(f"--test-size {test_size} leaves no train or no test rows out of {n}")
        order = list(range(n))
        random.Random(seed if seed is not None else 0).shuffle(order)
        return sorted(order[:count]), sorted(order[count:])

    return carve


def _check_data_source(data_source: str, opts: PrepareOptions, by_name: bool) -> None:
    """Every data_source written must have a scorer, unless --allow-unregistered."""
    from rewards import UnknownDataSourceError
    from rewards.registry import get_scorer

    try:
        get_scorer(data_source)
    except UnknownDataSourceError as exc:
        if opts.allow_unregistered:
            return
        if not by_name:
            raise PrepareError(
                f"{opts.source}: its columns fit more than one data set, so its rows would be labelled "
                f"with the file's own name, {data_source!r}, which no scorer is registered for; pass "
                f"--data-source NAME (the scorer the rows are for, see `rewards list`) or "
                f"--allow-unregistered") from exc
        raise PrepareError(f"{exc}; pass --allow-unregistered to write it anyway") from exc


def _family_name_as_hub_id(opts: PrepareOptions) -> PrepareOptions:
    """`prepare gsm8k` (a family name, not a local path) means the family's hub data set, openai/gsm8k."""
    family = FAMILIES.get(opts.source)
    if family is None or not family.hub_ids or is_local(opts.source):
        return opts
    return replace(opts, source=family.hub_ids[0], family=opts.family or family.name)


def _output_folder(out: str) -> Path:
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise PrepareError(f"--output {out} is a file; give a folder (train.parquet, test.parquet and "
                           f"{MANIFEST} are written into it)")
    return path


def _refuse_own_input(source: str, out: Path) -> None:
    """The run replaces train.parquet, test.parquet and manifest.json in `out`: a source that is one of
    them (or the folder itself) would be destroyed by the run that reads it."""
    src = Path(source).expanduser()
    if not src.exists():
        return
    src, folder = src.resolve(), out.expanduser().resolve()
    if src == folder or (src.parent == folder and src.name in {*OUTPUT_FILES.values(), MANIFEST}):
        raise PrepareError(f"--output {out} would overwrite the input {source}; write into another folder")


def _write_outputs(out: Path, results: dict[str, list[dict[str, Any]]], manifest: str) -> None:
    """Write every file beside its target first and rename them into place only when all are written,
    so that an interrupted or failed run leaves the previous run's files (or none) and no half file."""
    written: list[tuple[Path, Path]] = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for out_split, rows in results.items():
            target = out / OUTPUT_FILES[out_split]
            written.append((_temporary(target), target))
            write_parquet(rows, written[-1][0])
        target = out / MANIFEST
        written.append((_temporary(target), target))
        written[-1][0].write_text(manifest, encoding="utf-8")
        _clear_previous_run(out)
        for temporary, target in written:
            os.replace(temporary, target)
    except OSError as exc:
        raise PrepareError(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from exc
    finally:
        for temporary, _ in written:
            temporary.unlink(missing_ok=True)


def _temporary(target: Path) -> Path:
    """An unpredictable name beside `target`, created exclusively (a name that could be guessed, such
    as one from the pid, lets a planted symlink redirect the write)."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)  # mkstemp's file is private; the outputs are ordinary files
    os.close(fd)
    return Path(name)


def _clear_previous_run(out: Path) -> None:
    """Remove the files an earlier `prepare` wrote into `out` (its manifest lists them), so that a
    stale test.parquet never sits beside a new train set; refuse output files it did not write."""
    manifest = out / MANIFEST
    owned: set[str] = set()
    if manifest.is_file():
        try:
            owned = set(json.loads(manifest.read_text(encoding="utf-8")).get("files", {}))
        except (ValueError, AttributeError, OSError) as exc:
            raise PrepareError(f"{manifest} is not a manifest written by `rewards prepare` ({exc}); "
                               "remove it or choose another --output") from exc
    strangers = [name for name in OUTPUT_FILES.values() if (out / name).exists() and name not in owned]
    if strangers:
        raise PrepareError(f"{out} already holds {', '.join(strangers)}, which no earlier `rewards prepare` "
                           "manifest lists; remove it or choose another --output")
    for name in owned & set(OUTPUT_FILES.values()):
        (out / name).unlink(missing_ok=True)
    manifest.unlink(missing_ok=True)


def _undecoded_images(dataset: Any) -> Any:
    """Keep image columns as encoded bytes: decoding to PIL and re-encoding would cost time and
    could change the bytes."""
    import datasets

    for name, feature in dataset.features.items():
        inner = getattr(feature, "feature", None)
        if isinstance(feature, datasets.Image) and feature.decode:
            dataset = dataset.cast_column(name, datasets.Image(decode=False))
        elif isinstance(inner, datasets.Image) and inner.decode:
            dataset = dataset.cast_column(name, type(feature)(datasets.Image(decode=False)))
    return dataset


def _version() -> str:
    from rewards import __version__
    return __version__
