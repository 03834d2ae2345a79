"""Where a command writes its output: never onto its input, and never a half-written file.

`refuse_overwriting_input` stops `-o` naming the input (by any spelling: relative, through a link, a
step file of the input folder) before anything is read; `replacing_output` writes to a temporary
file beside the target and renames it onto the target only when the command finishes without error.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

from schemas.reader import STEP_FILE

from .errors import CommandError


def refuse_overwriting_input(source: str, output: str | None) -> None:
    """`-o` onto the input (or onto a step file of the input folder) would destroy what is read."""
    if not output or output == "-" or source == "-":
        return
    src, out = Path(source).resolve(), Path(output).resolve()
    same = out == src or (out.exists() and src.exists() and os.path.samefile(out, src))
    inside = src.is_dir() and out.parent == src and STEP_FILE.match(out.name) is not None
    if same or inside:
        raise CommandError(f"-o {output} would overwrite the input {source}; write the results elsewhere")


def replacing_output(stack: ExitStack, path: str) -> TextIO:
    """stdout for '-'; else a temporary file beside `path`, renamed onto it only when every row is
    written, so that an interrupted run leaves no half file (and never touches the input)."""
    if path == "-":
        return sys.stdout
    target = Path(path)
    try:
        handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent or ".",
                                             prefix=f".{target.name}.", suffix=".tmp", delete=False)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from exc
    _umask_mode(handle.fileno())
    stack.callback(_finish, handle, target)
    stack.push(lambda kind, *_: _discard(handle) if kind is not None else None)
    return handle


def _umask_mode(fd: int) -> None:
    """A temporary file is created private (0600); the output is an ordinary file, readable as the
    user's umask says (0644 under the usual 022), like one that `open(path, "w")` creates."""
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)


def _finish(handle, target: Path) -> None:
    if handle.closed:
        return
    handle.close()
    try:
        os.replace(handle.name, target)
    except OSError as exc:
        _discard(handle)
        raise CommandError(f"cannot write {target}: {exc.strerror}") from exc


def _discard(handle) -> None:
    handle.close()
    Path(handle.name).unlink(missing_ok=True)
