"""The one reader of row files: JSONL, gzip JSONL, verl parquet, and folders of verl step dumps.

`rewards score`, `report` and `probe` read their input here (and `validate`'s table reader names a
bad JSON line through it), so that every command accepts the same files and reports a bad line the
same way. Two promises:

- Never lose a row. Every input line yields exactly one `InputRow`, in order. A line that cannot be
  read (bytes that are not UTF-8, invalid or truncated JSON, JSON nested too deep to parse, an integer
  longer than Python reads, a blank line) is an `InputRow` whose `error` names the file, the line and
  the column; its `text` keeps what was there. Lines are split on `\\n` only (a raw CR inside a string
  stays in its line) and a UTF-8 byte-order mark at the start of the file is skipped.
- A file that cannot be read at all (missing, a folder that holds no step dumps, UTF-16, binary, a
  damaged parquet or gzip stream) raises `UnreadableFile` with one line naming the file.

Limits, so that memory is bounded by them and not by the input (docs/cli.md states them):
- a line longer than MAX_LINE_BYTES (64 MB) is not read: its row is an error row that says so (the
  rest of the line is skipped in small pieces, never held);
- a parquet row whose cells hold more than MAX_ROW_BYTES (64 MB) is an error row; a row group with
  a page larger than that (one huge cell: pyarrow would decompress it whole) is not read, and each
  of its rows is an error row that says why;
- after MAX_ERROR_RUN (1,000) unreadable lines in a row, the rest of that run (a million blank lines
  in a 1 KB gzip) is one error row counting them, not one row each.

The format is decided by content, not by name: gzip and parquet by their magic bytes, so `x.jsonl`
that is really gzip still reads. A folder is read as verl's `trainer.rollout_data_dir` /
`validation_data_dir` dumps: its `<step>.jsonl` files in step order, each row tagged with its step.
Reading is streamed (one line or one parquet batch at a time), so memory does not grow with the file.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import zlib
from pathlib import Path
from typing import IO, Any, Iterator, NamedTuple

from .errors import first_line

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
STEP_FILE = re.compile(r"^(\d+)\.jsonl$")
PARQUET_BATCH = 1024
MAX_LINE_BYTES = 64 * 2**20
MAX_ROW_BYTES = 64 * 2**20
MAX_ERROR_RUN = 1000
SKIP_PIECE = 2**20  # the rest of an over-long line is read and dropped this much at a time
SHOWN = 200  # characters of an over-long line kept in its error row
DECODER = json.JSONDecoder(strict=False)  # a raw tab or CR inside a string is kept, not an error; built once
SNIFF = 8192  # bytes looked at to call a file binary
TEXT_BYTES = bytes([9, 10, 13, *range(32, 256)])  # what a text file is made of; the rest are control bytes


class UnreadableFile(ValueError):
    """The whole file cannot be read; the message is one line that names it."""


class InputRow(NamedTuple):
    """One line (or parquet row) of input.

    `value` is the parsed JSON value (usually a dict; any JSON value is passed on, callers decide),
    or None when `error` is set. `where` is "FILE line N" (lines count from 1) or "FILE row N"
    (parquet rows count from 0, as pandas and verl's `extra_info.index` do). `text` is the raw line
    for error rows (undecodable bytes shown as `\\xNN`), else None. `step` is the verl step of a
    dump file read from a folder, else None.
    """

    where: str
    value: Any = None
    error: str | None = None
    text: str | None = None
    step: int | None = None

    @property
    def problem(self) -> str | None:
        """Why this is no row object, in one line naming where (its read error, or a JSON value that
        is not an object); None for a JSON object. Every command words a bad row this one way."""
        if self.error is not None:
            return self.error
        if not isinstance(self.value, dict):
            return f"{self.where}: expected a JSON object, got {type(self.value).__name__}"
        return None


def read_rows(path: str | Path, *, stdin: IO[bytes] | None = None) -> Iterator[InputRow]:
    """Every row of the file, folder or ('-') standard input, in order. Raises UnreadableFile.

    The checks that can fail for the whole file run before the first row is produced, except for a
    gzip or parquet stream damaged in the middle, which raises where the damage is found.
    """
    if str(path) == "-":
        stream = _text_stream(stdin if stdin is not None else sys.stdin.buffer, "<stdin>")
        return _stream_rows(stream, "<stdin>", None)
    if not str(path).strip():  # Path("") is the current folder: say what was given instead
        raise UnreadableFile("the input file name is empty")
    path = Path(path)
    if path.is_dir():
        return _folder_rows(path, _step_files(path))
    raw = _open(path)
    if _peek(raw, 4) == PARQUET_MAGIC:
        raw.close()
        return _parquet_rows(path)
    return _closing(raw, _stream_rows(_text_stream(raw, str(path)), str(path), None))


def count_rows(path: str | Path) -> int | None:
    """How many rows `read_rows(path)` yields, where the file says so cheaply (a progress bar's
    percentage and time left): a parquet file's metadata, or the line breaks of a plain JSON lines
    file (read at disk speed, with no parsing); None for gzip, standard input, a folder, or a file
    that cannot be opened (reading it reports that)."""
    if str(path) == "-" or Path(path).is_dir():
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            if head == PARQUET_MAGIC:
                import pyarrow.parquet as pq

                handle = arrow_file(path)
                try:
                    return pq.ParquetFile(handle).metadata.num_rows
                finally:
                    handle.close()
            if head[:2] == GZIP_MAGIC:
                return None
            f.seek(0)
            lines, last = 0, b"\n"
            for chunk in iter(lambda: f.read(1 << 24), b""):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
            return lines + (last != b"\n")
    except Exception:   # whatever it is, reading the rows names it
        return None


def parse_line(data: bytes, where: str, step: int | None = None) -> InputRow:
    """One line of JSONL (without its `\\n`) as an InputRow; an error row when it does not parse."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InputRow(where, error=f"{where}: not UTF-8 (byte 0x{data[exc.start]:02x} at byte column "
                                     f"{exc.start + 1}; save the file as UTF-8)",
                        text=data.decode("utf-8", "backslashreplace"), step=step)
    try:
        return InputRow(where, DECODER.decode(text), None, None, step)
    except json.JSONDecodeError as exc:
        if not text.strip():
            return InputRow(where, error=f"{where}: blank line", text=text, step=step)
        reason = f"invalid JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"
    except RecursionError:
        reason = "invalid JSON (nested too deep to read)"
    except ValueError as exc:  # an integer longer than Python's int-from-text limit
        reason = f"invalid JSON ({str(exc).split(';')[0]})"
    return InputRow(where, error=f"{where}: {reason}", text=text, step=step)


# -- sources ------------------------------------------------------------------------------------

def _open(path: Path) -> IO[bytes]:
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise UnreadableFile(f"cannot open {path}: no such file") from None
    except OSError as exc:
        raise UnreadableFile(f"cannot open {path}: {exc.strerror or exc}") from None
    return raw


def _text_stream(raw: IO[bytes], name: str) -> IO[bytes]:
    """The bytes of JSON lines: `raw` itself, or unzipped when it starts with gzip's magic bytes.
    Raises UnreadableFile (closing `raw`) when they look like UTF-16 or a binary file."""
    try:
        stream = gzip.GzipFile(fileobj=raw, mode="rb") if _peek(raw, 2) == GZIP_MAGIC else raw
        _check_text(stream, name)
    except UnreadableFile:
        raw.close()
        raise
    return stream


def _peek(stream: IO[bytes], n: int) -> bytes:
    """The first n bytes, leaving the stream where it was (works on pipes, which cannot seek)."""
    if hasattr(stream, "peek"):
        return stream.peek(n)[:n]
    head = stream.read(n)
    stream.seek(0)
    return head


def _stream_rows(stream: IO[bytes], name: str, step: int | None) -> Iterator[InputRow]:
    number = 0
    run, past = 0, None  # unreadable lines in a row; the first one past MAX_ERROR_RUN
    try:
        for number, (data, size) in enumerate(_bounded_lines(stream), start=1):
            if number == 1 and data.startswith(UTF8_BOM):
                data = data[len(UTF8_BOM):]
            where = f"{name} line {number}"
            if size is not None:
                row = InputRow(where, error=f"{where}: longer than the {MAX_LINE_BYTES // 2**20} MB limit of one "
                                            f"line ({size:,} bytes); not read",
                               text=data[:SHOWN].decode("utf-8", "backslashreplace") + "...", step=step)
            else:
                row = parse_line(data, where, step)
            if row.error is None:
                if past is not None:
                    yield _run_row(name, past, number - 1, number - past[0], step)
                run, past = 0, None
                yield row
                continue
            run += 1
            if run <= MAX_ERROR_RUN:
                yield row
            elif past is None:
                past = (number, row.error)
        if past is not None:
            yield _run_row(name, past, number, number + 1 - past[0], step)
    except (OSError, EOFError, zlib.error) as exc:  # gzip stream damaged or cut short
        raise UnreadableFile(f"{name}: cannot read past line {number}: {first_line(exc)}") from None


def _bounded_lines(stream: IO[bytes]) -> Iterator[tuple[bytes, int | None]]:
    """(line without its line ending, None), or (its first bytes, its size) for a line longer than
    MAX_LINE_BYTES, which is skipped in pieces. Lines end at `\n` only; a CR before it is dropped."""
    while data := stream.readline(MAX_LINE_BYTES + 1):
        if len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            size, piece = len(data), data
            while piece and not piece.endswith(b"\n"):
                piece = stream.readline(SKIP_PIECE)
                size += len(piece)
            yield data[:SHOWN * 4], size - piece.endswith(b"\n")
            continue
        if data.endswith(b"\n"):
            data = data[:-1]
            if data.endswith(b"\r"):  # a CRLF file: the CR belongs to the line ending
                data = data[:-1]
        yield data, None


def _run_row(name: str, past: tuple[int, str], last: int, count: int, step: int | None) -> InputRow:
    """One error row for the unreadable lines of a run past MAX_ERROR_RUN (`past`: the first of them,
    and its error), so that a file of a million blank lines is not a million rows."""
    where = f"{name} lines {past[0]}-{last}"
    reason = past[1].split(": ", 1)[-1]
    return InputRow(where, error=f"{where}: {count:,} more unreadable lines after {MAX_ERROR_RUN:,} in a row, "
                                 f"not listed one by one (the first: {reason})", step=step)


def _check_text(stream: IO[bytes], name: str) -> None:
    try:
        head = _peek(stream, SNIFF)
    except (OSError, EOFError, zlib.error) as exc:
        raise UnreadableFile(f"{name}: damaged gzip stream ({first_line(exc)})") from None
    if head.startswith(UTF16_BOMS):
        raise UnreadableFile(f"{name}: the file is UTF-16; save it as UTF-8 JSON lines")
    controls = len(head.translate(None, TEXT_BYTES))
    if controls > max(2, len(head) // 20):  # JSON lines hold few raw control bytes; UTF-16 and binaries many
        utf16 = head.count(0) * 3 > len(head)  # ASCII text as UTF-16: every other byte is 0
        kind = "UTF-16 without a byte-order mark" if utf16 else "binary"
        raise UnreadableFile(f"{name}: not a JSON lines file ({kind}?); save it as UTF-8 JSON lines")


def _closing(raw: IO[bytes], rows: Iterator[InputRow]) -> Iterator[InputRow]:
    try:
        yield from rows
    finally:
        raw.close()


def _step_files(folder: Path) -> list[tuple[int, Path]]:
    steps = sorted((int(m.group(1)), p) for p in folder.iterdir()
                   if p.is_file() and (m := STEP_FILE.match(p.name)))
    if not steps:
        raise UnreadableFile(f"{folder} is a folder without verl step dumps (<step>.jsonl); "
                             "give a file, or the folder of trainer.rollout_data_dir")
    return steps


def _folder_rows(folder: Path, steps: list[tuple[int, Path]]) -> Iterator[InputRow]:
    for step, path in steps:
        raw = _open(path)
        yield from _closing(raw, _stream_rows(_text_stream(raw, str(path)), str(path), step))


def arrow_file(path: str | Path):
    """`path` opened as Arrow's own file, for every pyarrow reader. Never a Python file object:
    Arrow reads one, and frees the bytes it read, on its own I/O threads, which must take the GIL,
    and a thread still doing so while the interpreter exits aborts the process ("terminate called
    without an active exception", exit 134, after the work is done). The name goes as bytes, so a
    name that is not UTF-8 opens too."""
    import pyarrow as pa

    try:
        return pa.OSFile(os.fsencode(path))
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else (
            os.strerror(exc.errno) if exc.errno else first_line(exc))
        raise UnreadableFile(f"cannot open {path}: {reason}") from None


def _parquet_rows(path: Path) -> Iterator[InputRow]:
    import pyarrow.parquet as pq

    handle = arrow_file(path)
    try:
        parquet = pq.ParquetFile(handle)
    except Exception as exc:
        handle.close()
        raise UnreadableFile(f"{path}: not a readable parquet file ({first_line(exc)})") from None
    return _closing(handle, _parquet_batches(parquet, path))


def _parquet_batches(parquet, path: Path) -> Iterator[InputRow]:
    name, index = str(path), 0
    try:
        for group in range(parquet.metadata.num_row_groups):
            too_big = _oversized_page(parquet.metadata.row_group(group), path)
            if too_big:
                for _ in range(parquet.metadata.row_group(group).num_rows):
                    where = f"{name} row {index}"
                    yield InputRow(where, error=f"{where}: not read: {too_big}")
                    index += 1
                continue
            for batch in parquet.iter_batches(batch_size=PARQUET_BATCH, row_groups=[group]):
                for row in _batch_rows(batch):
                    where = f"{name} row {index}"
                    yield InputRow(where, value=row) if not isinstance(row, int) else InputRow(
                        where, error=f"{where}: its cells hold {row:,} bytes, over the "
                                     f"{MAX_ROW_BYTES // 2**20} MB limit of one row; not read")
                    index += 1
    except Exception as exc:  # pyarrow raises its own types for damaged pages
        raise UnreadableFile(f"{name}: cannot read past row {index}: {first_line(exc)}") from None


def _oversized_page(group, path: Path) -> str | None:
    """Why a row group is not read (a page over MAX_ROW_BYTES, which pyarrow would decompress whole),
    or None. Only column chunks over the limit in all are scanned (schemas/parquet_pages.py)."""
    from .parquet_pages import largest_page

    for j in range(group.num_columns):
        column = group.column(j)
        if column.total_uncompressed_size <= MAX_ROW_BYTES:
            continue
        start = column.data_page_offset
        if column.has_dictionary_page and column.dictionary_page_offset:
            start = min(start, column.dictionary_page_offset)
        with open(path, "rb") as handle:
            page = largest_page(handle, start, column.total_compressed_size)
        if page > MAX_ROW_BYTES:
            return (f"column `{column.path_in_schema}` has a page of {page:,} bytes in this row group, over the "
                    f"{MAX_ROW_BYTES // 2**20} MB limit of one cell (no row of the group is read)")
    return None


def _batch_rows(batch) -> Iterator[Any]:
    """The batch's rows as dicts; a row whose cells hold more than MAX_ROW_BYTES is its size instead."""
    if batch.nbytes <= MAX_ROW_BYTES:
        yield from batch.to_pylist()
        return
    for i in range(batch.num_rows):
        row = batch.slice(i, 1)
        yield row.nbytes if row.nbytes > MAX_ROW_BYTES else row.to_pylist()[0]
