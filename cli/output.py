"""Where a command writes: one path for every output (`-o` of score, report and merge, `train --emit`).

Rows (`score -o`) go out by the target's extension (`open_rows`): `.parquet` is one parquet table,
anything else JSON lines (gzip for `.gz`), with the same columns either way.

What `open_output` does with each kind of target (docs/cli.md states the same rules):
- `-`: standard output.
- a name that does not exist, or a regular file (also through a symlink, whose target is replaced and
  whose link stays): the data goes to a temporary file beside it, with an unpredictable name created
  exclusively, its mode set (an existing file's own mode, else the umask's) before it is renamed onto
  the target, only when the command finishes. A failed, interrupted or terminated run leaves the old
  file (or nothing) and no temporary file.
- anything else (a device such as /dev/null, a FIFO, a terminal, /dev/stdout, /proc/self/fd/N, a
  process substitution): opened and written directly, streaming; it keeps its kind.
- a folder, or one of the command's inputs (by any spelling: relative, through a link, a step file of
  the input folder): refused before anything is read.
- the name's extension must fit what the command writes: `.gz` is gzip where the format allows it;
  `.parquet` for JSON lines, `.yaml` for a script and the like are refused, never written as another format.
A write that fails (a full disk) is one line naming the output, exit status 2 (a CommandError).
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import pickle
import stat
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, TextIO

from schemas.reader import STEP_FILE
from schemas.rollouts import json_form, json_line

from .errors import CommandError
from .terminal import Wrapper, unfiltered

# Names of streams: renaming onto them would replace the link, not write to the stream it names.
DIRECT_ROOTS = ("/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr")
MAX_LINK_HOPS = 40


@dataclass(frozen=True)
class Format:
    """What a command writes: its name in messages, the extensions that fit it, whether `.gz` is
    honoured (gzip) and whether the file is made executable."""

    name: str
    suffixes: tuple[str, ...]
    gzip: bool = False
    executable: bool = False


JSON_LINES = Format("JSON lines", (".jsonl", ".json", ".ndjson", ".txt"), gzip=True)
HTML = Format("an HTML page", (".html", ".htm"))
SCRIPT = Format("a bash script", (".sh", ".bash"), executable=True)
PARQUET = Format("parquet", (".parquet",))
# Extensions that name a format: a target ending in one its command does not write is refused.
KNOWN_SUFFIXES = frozenset({".jsonl", ".json", ".ndjson", ".txt", ".html", ".htm", ".sh", ".bash", ".parquet",
                            ".csv", ".tsv", ".arrow", ".yaml", ".yml", ".py", ".gz", ".bz2", ".xz", ".zst",
                            ".zip", ".tar", ".pt", ".safetensors", ".bin"})


def refuse_overwriting_input(source: str, output: str | None, flag: str = "-o") -> None:
    """`-o` onto an input (or onto a step file of an input folder) would destroy what is read."""
    refuse_inputs(output, [source], flag)


def refuse_inputs(output: str | None, inputs: Iterable[str | os.PathLike | None], flag: str = "-o") -> None:
    """Refuse an output that is one of `inputs` (by any spelling), before anything is read."""
    if not output or output == "-":
        return
    out = Path(output).expanduser()
    where = _resolved(out, f"{flag} {output}")
    for source in inputs:
        if source is None or str(source) in ("", "-"):
            continue
        src = Path(source).expanduser()
        try:
            there = src.resolve()
        except (RuntimeError, OSError):  # an input that is a link loop: the reader says so
            continue
        same = where == there or _same_file(out, src)
        inside = src.is_dir() and where.parent == there and STEP_FILE.match(out.name) is not None
        if same or inside:
            raise CommandError(f"{flag} {output} would overwrite the input {source}; write elsewhere")


def _resolved(path: Path, named: str) -> Path:
    """`path` with its links followed; a loop of symbolic links is one CommandError (exit 2)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: pathlib's "Symlink loop" before 3.13
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise CommandError(f"cannot write {named}: {exc.strerror or exc}") from None
        raise CommandError(f"{named} is a loop of symbolic links; name a file") from None


def open_output(stack: ExitStack, path: str, fmt: Format = JSON_LINES, *, flag: str = "-o",
                inputs: Iterable[str | os.PathLike | None] = ()) -> TextIO:
    """A text stream onto `path` by the rules above; the stack's exit finishes it (the rename) or,
    when the block raised, discards it. Raises CommandError for a target that is refused."""
    if path == "-":
        return _Guarded(real_stdout(), "standard output", None)
    if not path.strip():
        raise CommandError(f"{flag}: the output name is empty")
    refuse_inputs(path, inputs, flag)
    target = Path(path).expanduser()
    _resolved(target, f"{flag} {path}")
    if _is_direct(target):
        try:  # appended, never truncated: `-o /dev/stdout >> log` keeps what log held
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
            stream = open(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n")
        except OSError as exc:
            raise CommandError(f"cannot write {flag} {path}: {exc.strerror or exc}") from None
        sink = _Guarded(stream, f"{flag} {path}", None)
        stack.callback(_close_direct, sink)
        return sink
    target = _final_target(target)
    if target.is_dir():
        raise CommandError(f"{flag} {path} is a folder; name a file")
    zipped = _check_suffix(target, fmt, flag, path)
    mode = _mode_for(target, fmt.executable)
    _remove_stale_temporaries(target)
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=_temporary_prefix(target) + f"{os.getpid()}.",
                                         suffix=".tmp")
    except OSError as exc:
        raise CommandError(f"cannot write {flag} {path}: {exc.strerror or exc}") from None
    raw = os.fdopen(fd, "wb")
    sink = _Guarded(_text(raw, zipped), f"{flag} {path}", (raw, Path(temporary)))
    stack.callback(_finish, sink, target, mode)
    stack.push(lambda kind, *_: _discard(sink) if kind is not None else None)  # runs first: on error, no rename
    return sink


def open_rows(stack: ExitStack, path: str, *, flag: str = "-o",
              inputs: Iterable[str | os.PathLike | None] = ()) -> Callable[[Mapping[str, Any]], None]:
    """A `write(row)` onto `path` by the rules above: `.parquet` is written in row groups when the
    command finishes (`ParquetRows`: memory stays flat however many rows); anything else streams
    JSON lines (`.gz`: gzip)."""
    parquet = path != "-" and Path(path).suffix.lower() == PARQUET.suffixes[0]
    sink = open_output(stack, path, PARQUET if parquet else JSON_LINES, flag=flag, inputs=inputs)
    if not parquet:
        return lambda row: _write_json_line(sink, row)
    rows = stack.enter_context(ParquetRows(dir=None if _is_direct(Path(path).expanduser()) else
                                           _final_target(Path(path).expanduser()).parent))
    stack.push(lambda kind, *_: rows.write_to(sink) if kind is None else None)  # before the rename
    return rows.append


ROW_GROUP = 16_384
"""Rows in one parquet row group: what is held in memory at a time."""


class ParquetRows:
    """Rows collected for a parquet table without holding them: each group of ROW_GROUP rows is
    pickled to an anonymous temporary file (gone with the process, however it ends) as it fills,
    with the arrow type each column takes in it. At the end every column gets one type (`_column_type`)
    and the groups are read back one at a time and written as row groups."""

    def __init__(self, dir: Path | None = None):
        self._spill = tempfile.TemporaryFile(dir=dir)
        self._group: list[Mapping[str, Any]] = []
        self._types: dict[str, set] = {}  # column -> the arrow types its groups took (JSON_TEXT: none)

    def __enter__(self) -> "ParquetRows":
        return self

    def __exit__(self, *_: Any) -> None:
        self._spill.close()

    def append(self, row: Mapping[str, Any]) -> None:
        self._group.append(row)
        if len(self._group) >= ROW_GROUP:
            self._spill_group()

    def _spill_group(self) -> None:
        import pyarrow as pa

        for name in dict.fromkeys(key for row in self._group for key in row):
            seen = self._types.setdefault(name, set())
            if JSON_TEXT in seen:
                continue
            try:
                kind = pa.array([row.get(name) for row in self._group]).type
            except (pa.ArrowException, TypeError, ValueError, OverflowError):
                kind = JSON_TEXT
            if kind != pa.null():
                seen.add(kind)
        pickle.dump(self._group, self._spill, protocol=pickle.HIGHEST_PROTOCOL)
        self._group = []

    def write_to(self, sink: "_Guarded") -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._group:
            self._spill_group()
        types = {name: _column_type(seen) for name, seen in self._types.items()}
        schema = pa.schema([(name, pa.string() if kind == JSON_TEXT else kind) for name, kind in types.items()])
        as_json = {name for name, kind in types.items() if kind == JSON_TEXT}
        self._spill.seek(0)
        with pq.ParquetWriter(_BytesTo(sink), schema) as writer:
            while True:
                try:
                    group = pickle.load(self._spill)
                except EOFError:
                    break
                writer.write_table(_group_table(group, schema, as_json), row_group_size=ROW_GROUP)


JSON_TEXT = "json"
"""A column arrow cannot type as one (text in one row, a mapping in another; a lone surrogate):
each of its values is written as its JSON text, as the JSON lines output spells it."""


def _column_type(seen: set) -> Any:
    """The one arrow type of a column over all its row groups: the type its groups agree on, a
    float for integers and floats, else JSON_TEXT; null when it holds no value at all."""
    import pyarrow as pa

    if not seen:
        return pa.null()
    if JSON_TEXT not in seen:
        if len(seen) == 1:
            return next(iter(seen))
        if seen <= {pa.int64(), pa.float64()}:
            return pa.float64()
    return JSON_TEXT


def _group_table(group: list[Mapping[str, Any]], schema: Any, as_json: set[str]) -> Any:
    """One row group as an arrow table of `schema` (a row without a column: null)."""
    import pyarrow as pa

    columns = []
    for field in schema:
        values = [row.get(field.name) for row in group]
        if field.name in as_json:
            values = [None if v is None else json.dumps(v, default=json_form) for v in values]
        columns.append(pa.array(values, field.type))
    return pa.Table.from_arrays(columns, schema=schema)


class _BytesTo:
    """What ParquetWriter writes into: the output's one sink, which names its write errors."""

    closed = False

    def __init__(self, sink: "_Guarded"):
        self._sink = sink

    def write(self, data: Any) -> int:
        self._sink.write_bytes(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def _write_json_line(sink: TextIO, row: Mapping[str, Any]) -> None:
    try:
        sink.write(json_line(row) + "\n")
    except UnicodeEncodeError:  # a lone surrogate ("\\ud800" in the input): keep it as an escape
        sink.write(json_line(row, ascii=True) + "\n")


def write_output(path: str, text: str, fmt: Format, *, flag: str = "-o",
                 inputs: Iterable[str | os.PathLike | None] = ()) -> Path | None:
    """Write a whole text by the rules above; the path written (None for standard output)."""
    with ExitStack() as stack:
        open_output(stack, path, fmt, flag=flag, inputs=inputs).write(text)
    return None if path == "-" else Path(path).expanduser()


def real_stdout() -> TextIO:
    """The process's standard output for data (`-o -`), past the terminal filter of cli/terminal.py."""
    return unfiltered(sys.stdout)


# -- the rules ------------------------------------------------------------------------------------

def _is_direct(target: Path) -> bool:
    """A target written in place: not a regular file or a missing name, or a stream's name reached
    through a link (/dev/stdout, /proc/self/fd/1: renaming onto those replaces the link, not the stream)."""
    hop = Path(os.path.abspath(target))
    for _ in range(MAX_LINK_HOPS):
        if str(hop).startswith(DIRECT_ROOTS):
            return True
        if not hop.is_symlink():
            break
        hop = Path(os.path.abspath(hop.parent / os.readlink(hop)))
    try:
        kind = os.stat(target).st_mode
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return not (stat.S_ISREG(kind) or stat.S_ISDIR(kind))


def _final_target(target: Path) -> Path:
    """Where the rename goes: through a symlink to its target, so that the link stays a link."""
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def _check_suffix(target: Path, fmt: Format, flag: str, given: str) -> bool:
    """Whether to gzip; refuses an extension that names another format."""
    suffixes = [s.lower() for s in target.suffixes]
    zipped = bool(suffixes) and suffixes[-1] == ".gz"
    inner = suffixes[-2] if zipped and len(suffixes) > 1 else (None if zipped else (suffixes[-1] if suffixes else None))
    wanted = " or ".join(f"{s}{'(.gz)' if fmt.gzip else ''}" for s in fmt.suffixes[:2])
    if zipped and not fmt.gzip:
        raise CommandError(f"{flag} {given}: this command writes {fmt.name}, not gzip; name it {wanted}")
    if inner in KNOWN_SUFFIXES and inner not in fmt.suffixes:
        raise CommandError(f"{flag} {given}: this command writes {fmt.name}, not {inner[1:]}; name it {wanted}")
    return zipped


def _mode_for(target: Path, executable: bool) -> int:
    """An existing file keeps its mode (a 0600 output stays 0600); a new one gets the umask's."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = (0o777 if executable else 0o666) & ~mask
    if executable:
        mode |= (mode & 0o444) >> 2  # executable by whoever may read it
    return mode


def _temporary_prefix(target: Path) -> str:
    """The start of a temporary's name beside `target`: `.NAME.`, then the writer's pid and an
    unpredictable part (`.NAME.<pid>.<random>.tmp`)."""
    return f".{target.name}."


def _remove_stale_temporaries(target: Path) -> None:
    """Temporaries beside `target` left by a run that was killed (SIGKILL, a power cut: nothing
    of it could clean up): removed by the next run, when the pid in the name is no running process
    and the file is ours. A link planted at such a name is removed, never followed."""
    prefix = _temporary_prefix(target)
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):].partition(".")[0]
        if not pid.isdigit() or _running(int(pid)):
            continue
        path = target.parent / name
        try:
            if os.lstat(path).st_uid == os.geteuid():
                os.unlink(path)
        except OSError:
            pass


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


# -- the streams ----------------------------------------------------------------------------------

def _text(raw: io.BufferedWriter, zipped: bool) -> TextIO:
    inner = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if zipped else raw
    # A lone surrogate (a file name that is not UTF-8, in a page title) is written as its escape.
    return io.TextIOWrapper(inner, encoding="utf-8", errors="backslashreplace", newline="\n", write_through=False)


class _Guarded(Wrapper):
    """A text stream whose write errors (a full disk, a reader gone) are one CommandError naming the
    output, so that no command prints a traceback or counts it as "no row could be scored"."""

    def __init__(self, stream: TextIO, name: str, temporary: tuple[io.BufferedWriter, Path] | None):
        super().__init__(stream)
        self.name_shown, self.temporary = name, temporary

    def write(self, text: str) -> int:
        with self._named_errors():
            return self.stream.write(text)

    def flush(self) -> None:
        with self._named_errors():
            self.stream.flush()

    def write_bytes(self, data: bytes) -> None:
        """Bytes (a parquet file) after whatever text was written."""
        with self._named_errors():
            self.stream.flush()
            self.stream.buffer.write(data)

    @contextmanager
    def _named_errors(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:  # the reader left: cli.main stops quietly
            raise
        except OSError as exc:
            raise CommandError(f"cannot write {self.name_shown}: {exc.strerror or exc}") from None


def _close_direct(sink: _Guarded) -> None:
    try:
        sink.flush()
    finally:
        try:
            sink.stream.close()
        except OSError:
            pass


def _finish(sink: _Guarded, target: Path, mode: int) -> None:
    raw, temporary = sink.temporary
    if raw.closed:  # discarded: the block raised
        return
    try:
        sink.stream.flush()
        if isinstance(sink.stream.buffer, gzip.GzipFile):
            sink.stream.buffer.close()  # writes the gzip trailer; leaves `raw` open
        raw.flush()
        os.fsync(raw.fileno())
        os.fchmod(raw.fileno(), mode)  # the mode is right before the name appears
        _keep_owner(raw.fileno(), target)
        raw.close()
        os.replace(temporary, target)
    except OSError as exc:
        _discard(sink)
        raise CommandError(f"cannot write {sink.name_shown}: {exc.strerror or exc}") from None


def _keep_owner(fd: int, target: Path) -> None:
    """Run as root over another user's file, the new file keeps that user as its owner."""
    try:
        info = os.stat(target)
        if os.geteuid() == 0 and (info.st_uid, info.st_gid) != (0, 0):
            os.fchown(fd, info.st_uid, info.st_gid)
    except OSError:
        pass


def _discard(sink: _Guarded) -> None:
    raw, temporary = sink.temporary
    for stream in (sink.stream, raw):
        try:
            stream.close()
        except (OSError, ValueError):
            pass
    temporary.unlink(missing_ok=True)
