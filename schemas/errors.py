"""Exceptions from libraries (pyarrow, datasets, transformers) as the short text of a one-line error."""

from __future__ import annotations


def first_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of the exception's message, at most `limit` characters; its type name when empty."""
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else type(exc).__name__
