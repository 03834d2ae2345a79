"""What the CLI prints is text for a person: control characters from the data never reach the terminal.

A data_source name or a response may hold ANSI/OSC escape sequences (colour, cursor moves, a window
title, a hyperlink), a carriage return that overwrites the line before it, or bidirectional overrides
that reorder what is shown. `cli.main` wraps stdout and stderr in `Printable` for the length of a
command, so every message and summary is stripped of them; data written with `-o -` goes past the
filter (cli/output.py takes `unfiltered(sys.stdout)`), byte for byte.
"""

from __future__ import annotations

import io
from typing import TextIO

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embedding/override/isolate marks.
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0),
             *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
STRIP = dict.fromkeys(_CONTROLS)
STRIP_KEEP_CR = {k: v for k, v in STRIP.items() if k != 0x0D}  # stderr: progress bars redraw with \r


def printable(text: str) -> str:
    """`text` without control characters (tab and newline kept)."""
    return text.translate(STRIP)


class Wrapper(io.TextIOBase):
    """A text stream passing what is written on to `stream` (the base of this filter and of
    cli/output.py's write-error guard)."""

    def __init__(self, stream: TextIO):
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        try:
            return self.stream.isatty()
        except ValueError:  # asked at exit (ray's colorama does) after the stream underneath was closed
            return False

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return self.stream.encoding

    @property
    def errors(self) -> str | None:
        return getattr(self.stream, "errors", None)


class Printable(Wrapper):
    """A text stream that strips control characters from what is written to `stream`."""

    def __init__(self, stream: TextIO, keep_cr: bool = False):
        super().__init__(stream)
        self.table = STRIP_KEEP_CR if keep_cr else STRIP

    def write(self, text: str) -> int:
        text = text.translate(self.table)
        try:
            self.stream.write(text)
        except UnicodeEncodeError:  # a file name that is not UTF-8 (a lone surrogate): shown as an escape
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def __getattr__(self, name: str):  # buffer, mode, ... of the stream underneath
        return getattr(self.stream, name)


def unfiltered(stream: TextIO) -> TextIO:
    """The stream underneath a `Printable` (itself otherwise)."""
    return stream.stream if isinstance(stream, Printable) else stream
