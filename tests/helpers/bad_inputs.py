"""A corpus of every class of bad input line users have, for the commands that read row files.

Each case is (name, raw line bytes without the `\\n`, whether the row must score); `corpus_file`
writes them one per line between good rows, so a test can check rows out == lines in, order kept.
"""

from __future__ import annotations

import json
from pathlib import Path

GOOD = json.dumps({"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": "3"}).encode()


def _row(response: str) -> bytes:
    return json.dumps({"data_source": "openai/gsm8k", "response": response, "ground_truth": "3"}).encode()


LINE_CASES: list[tuple[str, bytes, bool]] = [
    ("latin-1 byte", b'{"data_source": "openai/gsm8k", "response": "caf\xe9 #### 3", "ground_truth": "3"}', False),
    ("lone surrogate escape", _row("\ud800 #### 3"), True),
    ("nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000, False),
    ("integer over 4,300 digits", b'{"data_source": "openai/gsm8k", "response": "#### 3", "ground_truth": '
     + b"7" * 5000 + b"}", False),
    ("truncated line", _row("#### 3")[:30], False),
    ("raw CR inside a string", _row("x\ry #### 3").replace(b"\\r", b"\r"), True),
    ("blank line", b"", False),
    ("JSON that is not an object", b"[1, 2]", False),
    ("NUL byte in a line", b'{"a": "\x00"}', False),
    ("unknown data_source", json.dumps({"data_source": "nope/none", "response": "#### 3",
                                        "ground_truth": "3"}).encode(), False),
]


def corpus_file(path: Path, bom: bool = True) -> tuple[list[str], list[bool]]:
    """Write GOOD, then each case followed by GOOD; a UTF-8 BOM before line 1 and a CRLF line ending
    on the last line. Returns the case name of every line ('good' for GOOD) and whether it scores."""
    names, scores, lines = ["good"], [True], [GOOD]
    for name, data, ok in LINE_CASES:
        names += [name, "good"]
        scores += [ok, True]
        lines += [data, GOOD]
    body = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines[:-1]) + b"\n" + lines[-1] + b"\r\n"
    path.write_bytes(body)
    return names, scores


WHOLE_FILE_CASES: dict[str, bytes] = {
    "utf-16 with BOM": '{"a": 1}\n'.encode("utf-16"),
    "utf-16 without BOM": '{"a": 1}\n'.encode("utf-16-le"),
    "binary": bytes(range(256)) * 4,
}
