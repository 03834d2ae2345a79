"""The largest page of a parquet column chunk, read from the page headers without decompressing.

pyarrow decompresses and decodes a whole data page at once, so a single cell of 512 MB (a 17 KB zstd
file) costs several times that in memory before a row can be looked at. Pages of ordinary files are
about 1 MB (a page holds many values and grows past its target size only to fit one larger value),
so the reader asks here for the largest uncompressed page of any column chunk bigger than its cell
limit, and does not hand a row group with a larger page to pyarrow at all.

The page headers are Thrift compact-protocol structs (parquet-format's `PageHeader`: field 2 is
`uncompressed_page_size`, field 3 `compressed_page_size`), each followed by its page's bytes.
"""

from __future__ import annotations

from typing import IO

MAX_PAGES = 1_000_000   # a chunk with more pages than this is not scanned to the end
MAX_DEPTH = 32          # nested structs in a header (a real one has 3 levels)


class PageHeaderError(ValueError):
    """A page header that cannot be read (the file is damaged)."""


def largest_page(handle: IO[bytes], start: int, length: int) -> int:
    """The largest uncompressed page size among the pages stored in bytes [start, start + length)."""
    largest, position, end = 0, start, start + length
    for _ in range(MAX_PAGES):
        if position >= end:
            break
        handle.seek(position)
        reader = _Compact(handle)
        uncompressed, compressed = reader.page_sizes()
        if compressed < 0 or uncompressed < 0:
            raise PageHeaderError(f"a page header at byte {position} gives a negative size")
        largest = max(largest, uncompressed)
        position += reader.consumed + compressed
    return largest


class _Compact:
    """Just enough of Thrift's compact protocol to read two fields of a struct and skip the rest."""

    def __init__(self, handle: IO[bytes]):
        self.handle, self.consumed = handle, 0

    def page_sizes(self) -> tuple[int, int]:
        sizes = {2: -1, 3: -1}
        field = 0
        while True:
            head = self._byte()
            if head == 0:  # the struct's stop field
                return sizes[2], sizes[3]
            kind, delta = head & 0x0F, head >> 4
            field = field + delta if delta else _zigzag(self._varint())
            if field in sizes and kind == 5:  # i32
                sizes[field] = _zigzag(self._varint())
            else:
                self._skip(kind, 0)

    def _byte(self) -> int:
        data = self.handle.read(1)
        if not data:
            raise PageHeaderError("a page header runs past the end of the file")
        self.consumed += 1
        return data[0]

    def _varint(self) -> int:
        value = shift = 0
        while True:
            byte = self._byte()
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise PageHeaderError("a varint in a page header is too long")

    def _skip(self, kind: int, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise PageHeaderError("a page header is nested too deep")
        if kind in (1, 2):  # booleans live in the field header
            return
        if kind == 3:
            self._byte()
        elif kind in (4, 5, 6):
            self._varint()
        elif kind == 7:
            self._advance(8)
        elif kind == 8:
            self._advance(self._varint())
        elif kind in (9, 10):
            head = self._byte()
            count = head >> 4 if head >> 4 != 15 else self._varint()
            for _ in range(count):
                self._skip_element(head & 0x0F, depth + 1)
        elif kind == 11:
            count = self._varint()
            if count:
                types = self._byte()
                for _ in range(count):
                    self._skip_element(types >> 4, depth + 1)
                    self._skip_element(types & 0x0F, depth + 1)
        elif kind == 12:
            field = 0
            while (head := self._byte()) != 0:
                field = field + (head >> 4) if head >> 4 else _zigzag(self._varint())
                self._skip(head & 0x0F, depth + 1)
        else:
            raise PageHeaderError(f"unknown type {kind} in a page header")

    def _skip_element(self, kind: int, depth: int) -> None:
        if kind in (1, 2):  # a boolean element of a list takes one byte
            self._byte()
        else:
            self._skip(kind, depth)

    def _advance(self, n: int) -> None:
        self.handle.seek(n, 1)
        self.consumed += n


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)
