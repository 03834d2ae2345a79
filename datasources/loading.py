"""Load a raw dataset from a hub id, a local file, or a local folder, through `datasets`.

Every source goes through the `datasets` library so that a local copy behaves exactly like the hub
dataset it mirrors: a hub id (`openai/gsm8k`), a folder in the hub repository's layout (with its
README configs or `data/train-*.parquet` style names), a `save_to_disk` folder, or one
json/jsonl/parquet/csv file. Offline, a hub id fails with one sentence saying what to pass instead.
"""

from __future__ import annotations

import logging
import random
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rewards.hub import OFFLINE_HINT, hub_unreachable
from schemas.errors import first_line

FILE_BUILDERS = {".json": "json", ".jsonl": "json", ".parquet": "parquet", ".csv": "csv", ".arrow": "arrow"}
SPLIT_NAMES = ("train", "test", "validation")


class SourceError(ValueError):
    """A source that cannot be loaded; the message says why and what to do."""


class EmptySource(SourceError):
    """A source file with no rows at all (the commands exit 1 for an empty input, not 2)."""


def is_local(source: str) -> bool:
    return Path(source).expanduser().exists()


def load_splits(source: str, config: str | None = None) -> Any:
    """A `datasets.DatasetDict` of every split the source has."""
    import datasets

    if not source.strip():  # Path("") is the current folder
        raise SourceError("the source is empty: give a hub id, or a local file or folder")
    path = Path(source).expanduser()
    if path.is_file():
        builder = FILE_BUILDERS.get(_suffix(path))
        if builder is None:
            raise SourceError(f"{source}: unsupported file type; use one of {', '.join(FILE_BUILDERS)}")
        if _is_empty(path):
            raise EmptySource(f"{source}: the file is empty")
        split = path.stem if path.stem in SPLIT_NAMES else "train"
        try:
            with _quiet_library_log():  # its "Failed to load JSON" lines repeat what we say in one line
                return _call(source, lambda: datasets.load_dataset(builder, data_files={split: str(path)}))
        except SourceError:
            if _suffix(path) == ".jsonl":
                _name_the_bad_line(path)
            raise

    if path.is_dir():
        if (path / "dataset_dict.json").exists() or (path / "state.json").exists():
            loaded = _call(source, lambda: datasets.load_from_disk(str(path)))
            if isinstance(loaded, datasets.Dataset):
                loaded = datasets.DatasetDict({"train": loaded})
            return loaded
        return _call(source, lambda: datasets.load_dataset(str(path), config))
    if "/" not in source or source.startswith((".", "/", "~")):
        raise SourceError(f"{source}: no such file or folder, and not a hub id of the form owner/name")
    offline = hub_unreachable()
    if offline:  # fail in seconds, not after the hub client's retries
        raise SourceError(f"cannot load {source!r} from the Hugging Face Hub ({offline}): {OFFLINE_HINT} (when "
                          f"it was downloaded before), or pass a local file or folder")
    return _call(source, lambda: datasets.load_dataset(source, config), hub=True)


def select_rows(dataset: Any, *, limit: int | None = None, seed: int | None = None) -> tuple[Any, list[int]]:
    """A seeded shuffle (when `seed` is given) then the first `limit` rows; returns the rows and
    their original indices in the split, so every output row can be traced back to its source row."""
    order = list(range(len(dataset)))
    if seed is not None:
        random.Random(seed).shuffle(order)
    if limit is not None:
        if limit < 0:
            raise SourceError(f"--limit must be positive, got {limit}")
        order = order[:limit]
    if order == list(range(len(dataset))):
        return dataset, order
    return dataset.select(order), order


def _call(source: str, load, hub: bool = False):
    try:
        return load()
    except StopIteration:  # what the json and csv builders raise on a file with no rows
        raise SourceError(f"{source}: no rows") from None
    except (ConnectionError, OSError) as exc:
        if hub:
            raise SourceError(
                f"cannot load {source!r} from the Hugging Face Hub ({first_line(exc)}); when offline, "
                f"download it elsewhere and pass the local file or folder instead "
                f"(a hub-layout folder, a save_to_disk folder, or a json/jsonl/parquet/csv file)") from exc
        raise SourceError(f"{source}: cannot load ({first_line(exc)})") from exc
    except ValueError as exc:  # a config name the source does not have, an unreadable file
        raise SourceError(f"{source}: {first_line(exc)}") from exc
    except Exception as exc:  # DatasetNotFoundError and friends
        name = type(exc).__name__
        if hub and ("NotFound" in name or "Offline" in name):
            raise SourceError(
                f"cannot load {source!r} from the Hugging Face Hub ({name}: {first_line(exc)}); pass a "
                f"local file or folder of the same shape instead") from exc
        raise SourceError(f"{source}: {name}: {first_line(exc)}") from exc


@contextmanager
def _quiet_library_log():
    import datasets

    level = datasets.logging.get_verbosity()
    datasets.logging.set_verbosity(logging.CRITICAL)
    try:
        yield
    finally:
        datasets.logging.set_verbosity(level)


def _name_the_bad_line(path: Path) -> None:
    """`datasets` says only that generating the split failed: name the first line that is not a
    JSON object (bytes that are not UTF-8, a truncated line), as every other command does."""
    from schemas.reader import UnreadableFile, read_rows

    try:
        for item in read_rows(path):
            if item.problem is not None:
                raise SourceError(item.problem)
    except UnreadableFile as exc:
        raise SourceError(str(exc)) from None


def _is_empty(path: Path, sniff: int = 1 << 16) -> bool:
    """No bytes, or (for a small file) only whitespace."""
    size = path.stat().st_size
    if size == 0:
        return True
    if size > sniff:
        return False
    with open(path, "rb") as handle:
        return not handle.read().strip()


def _suffix(path: Path) -> str:
    return path.suffix.lower()
