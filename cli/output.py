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

import gzip
import io
import json
import os
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
    for source in inputs:
        if source is None or str(source) in ("", "-"):
            continue
        src = Path(source).expanduser()
        same = out.resolve() == src.resolve() or _same_file(out, src)
        inside = src.is_dir() and out.resolve().parent == src.resolve() and STEP_FILE.match(out.name) is not None
        if same or inside:
            raise CommandError(f"{flag} {output} would overwrite the input {source}; write elsewhere")


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
    try:
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise CommandError(f"cannot write {flag} {path}: {exc.strerror or exc}") from None
    raw = os.fdopen(fd, "wb")
    sink = _Guarded(_text(raw, zipped), f"{flag} {path}", (raw, Path(temporary)))
    stack.callback(_finish, sink, target, mode)
    stack.push(lambda kind, *_: _discard(sink) if kind is not None else None)  # runs first: on error, no rename
    return sink


def open_rows(stack: ExitStack, path: str, *, flag: str = "-o",
              inputs: Iterable[str | os.PathLike | None] = ()) -> Callable[[Mapping[str, Any]], None]:
    """A `write(row)` onto `path` by the rules above: `.parquet` collects the rows and writes them as
    one table when the command finishes (`rows_table`: held in memory until then); anything else
    streams JSON lines (`.gz`: gzip)."""
    parquet = path != "-" and Path(path).suffix.lower() == PARQUET.suffixes[0]
    sink = open_output(stack, path, PARQUET if parquet else JSON_LINES, flag=flag, inputs=inputs)
    if not parquet:
        return lambda row: _write_json_line(sink, row)
    rows: list[Mapping[str, Any]] = []
    stack.push(lambda kind, *_: sink.write_bytes(_parquet_bytes(rows)) if kind is None else None)  # before the rename
    return rows.append


def rows_table(rows: list[Mapping[str, Any]]):
    """The rows as an arrow table: every key a column (in first-seen order), a row without it null.
    A column arrow cannot type as one (text in one row, a mapping in another; a lone surrogate) is
    the JSON text of each value, as the JSON lines output spells it."""
    import pyarrow as pa

    columns = {}
    for name in dict.fromkeys(key for row in rows for key in row):
        values = [row.get(name) for row in rows]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            columns[name] = pa.array([None if v is None else json.dumps(v, default=json_form) for v in values],
                                     pa.string())
    return pa.table(columns)


def _parquet_bytes(rows: list[Mapping[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = pa.BufferOutputStream()  # built in memory by Arrow; written to the target by the one sink
    pq.write_table(rows_table(rows), out)
    return out.getvalue().to_pybytes()


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
