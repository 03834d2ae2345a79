"""The math span that holds the final box: where it opens and closes, and the prose after it.

A box is read with the whole formula it sits in (`$x = -\\,\\boxed{5}$`), and with the formulas
written next to it with only spaces between (`$\\boxed{5}$ $\\times 10^3$`), which TeX typesets as
one expression, or with one line break where an operator faces it. A formula ends at its closing
delimiter (`$`, `$$`, `\\)`, `\\]`, `\\end{align*}`); no formula crosses a blank line (TeX refuses
one inside math), so only the box's paragraph is scanned, at most `_REACH` characters each side. A
box in no formula (a bare `\\boxed{5}` in prose) is read with the math-like text glued to it on its
line (`-\\boxed{5}`, `\\boxed{5}^2`), up to the first word of prose.

`text_after` is the prose that follows the answer: a full stop inside the math (`$\\boxed{5}.$`,
`\\boxed{81}.\\]`, MATH's own style) ends the answer's sentence, so the text after the formula is
read as the next sentence.
"""

from __future__ import annotations

import re
import threading
from typing import NamedTuple

_REACH = 2000
"""Characters scanned each side of a box for its formula's delimiters (a paragraph is shorter)."""
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_MATH_ENVIRONMENTS = ("equation", "align", "gather", "multline", "eqnarray", "displaymath", "math", "flalign")
# Delimiters and escapes, in the order they must be tried: an escape (`\$`, `\\`) is no delimiter.
_DELIMITER = re.compile(r"\$\$|\$|\\[()\[\]]|\\begin\{([a-zA-Z]+\*?)\}|\\[\\$]")
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_JOIN_GAP = re.compile(r"[ \t]*\n?[ \t]*")   # between formulas read as one: spaces, at most one line break
_STOP_BEFORE_CLOSE = re.compile(r"[^$\n]{0,200}?[.!?]\s*(?:\$|\\[)\]]|\\end\{)")
_STOP = re.compile(r"[.!?]\s*$")


class Span(NamedTuple):
    start: int        # the first formula's opening delimiter
    end: int          # just past the last formula's closing delimiter
    pieces: tuple     # (content start, content end) of each formula read as one, in order
    close: int        # where the last formula's closing delimiter starts
    bare: bool = False  # a box in no formula: the span is the math-like text glued around it


def _formulas(text: str, lo: int, hi: int) -> list[tuple[int, int, int, int]]:
    """The formulas of `text[lo:hi]`: (opener start, content start, content end, closer end) each;
    one still open at `hi` runs to `hi`."""
    found = []
    pos = lo
    while True:
        m = _DELIMITER.search(text, pos, hi)
        if m is None:
            return found
        token = m.group()
        if token.startswith("\\begin"):
            name = m.group(1)
            if name.rstrip("*") not in _MATH_ENVIRONMENTS:
                pos = m.end()
                continue
            closer = f"\\end{{{name}}}"
            inner_start, end = m.start(), text.find(closer, m.end(), hi)  # the environment is read whole
            stop = hi if end < 0 else end + len(closer)
            found.append((m.start(), inner_start, stop, stop))
            pos = stop
        elif token in _CLOSER:
            closer = _CLOSER[token]
            close = _find_closer(text, m.end(), hi, closer)
            if close < 0:
                found.append((m.start(), m.end(), hi, hi))
                return found
            found.append((m.start(), m.end(), close, close + len(closer)))
            pos = close + len(closer)
        else:
            pos = m.end()   # an escape, or a closer with no opener: text


def _find_closer(text: str, pos: int, hi: int, closer: str) -> int:
    while True:
        m = _DELIMITER.search(text, pos, hi)
        if m is None:
            return -1
        if m.group() == closer or (closer == "$" and m.group() == "$$"):
            return m.start()   # `$x$$y$`: the first `$` closes
        pos = m.end()


_last = threading.local()
"""Per thread, the last box's span: the scorer asks for it twice per response (the text after the
answer, then the operand check); a hit is the same string object and the same box."""


def answer_span(text: str, start: int, end: int) -> Span:
    """The formula(s) holding the box at `text[start:end]`, joined with their neighbours."""
    seen = getattr(_last, "span", None)
    if seen is not None and seen[0] is text and seen[1] == start and seen[2] == end:
        return seen[3]
    span = _answer_span(text, start, end)
    _last.span = (text, start, end, span)
    return span


_WRAP_OPEN = re.compile(r"(?:\$\$|\$|\\\(|\\\[)[ \t]*$")
_WRAP_CLOSE = re.compile(r"[ \t]*[.,;]?[ \t]*(\$\$|\$|\\\)|\\\])")
_NEIGHBOUR_AFTER = re.compile(r"[ \t]*\n?[ \t]*(?:\$|\\[(\[])")
_NEIGHBOUR_BEFORE = re.compile(r"(?:\$|\\[)\]])[ \t]*\n?[ \t]*$")


def wrapped(text: str, start: int, end: int) -> Span | None:
    """The usual case, read without a scan: a formula that holds only the box (`$\\boxed{5}$`,
    `\\[\\boxed{5}.\\]`) with no formula next to it."""
    opener = _WRAP_OPEN.search(text, max(0, start - 8), start)
    closer = _WRAP_CLOSE.match(text, end)
    if opener is None or closer is None or _CLOSER.get(opener.group().strip()) != closer.group(1):
        return None
    if opener.start() > 0 and text[opener.start() - 1] in "\\$":
        return None   # `\$\boxed{..}` or `$$` read as `$`: the scan decides
    if _NEIGHBOUR_AFTER.match(text, closer.end()) or _NEIGHBOUR_BEFORE.search(text, max(0, opener.start() - 8), opener.start()):
        return None
    return Span(opener.start(), closer.end(), ((start, closer.start(1)),), closer.start(1))


def _answer_span(text: str, start: int, end: int) -> Span:
    quick = wrapped(text, start, end)
    if quick is not None:
        return quick
    lo = max(0, start - _REACH)
    blank = text.rfind("\n\n", lo, start)
    lo = blank + 2 if blank >= 0 else lo
    after_blank = _BLANK_LINE.search(text, end, min(len(text), end + _REACH))
    hi = after_blank.start() if after_blank else min(len(text), end + _REACH)
    found = _formulas(text, lo, hi)
    at = next((i for i, f in enumerate(found) if f[1] <= start and end <= f[2]), None)
    if at is None:
        a, b = _bare_reach(text, start, end)
        return Span(a, b, ((a, b),), b, True)
    first = last = at
    while first > 0 and _joined(text, found[first - 1], found[first]):
        first -= 1
    while last + 1 < len(found) and _joined(text, found[last], found[last + 1]):
        last += 1
    pieces = tuple((f[1], f[2]) for f in found[first:last + 1])
    return Span(found[first][0], found[last][3], pieces, found[last][2])


_CHUNK = re.compile(r"\S+")
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}|</?[A-Za-z][A-Za-z0-9_-]*>|\*\*|:$")   # or a tag, or emphasis
_BULLET = re.compile(r"[-*+]|\d+[.)]")
_BARE_REACH = 60


def _bare_reach(text: str, start: int, end: int) -> tuple[int, int]:
    """Around a box in prose, the text that still reads as math: the chunks (runs without spaces)
    on its line with no word of prose in them and no Markdown emphasis (`is -\\boxed{5}`,
    `\\frac{1}{\\boxed{2}}`, `\\boxed{5} x + 2`); a bullet that opens the line is not read."""
    line_start = text.rfind("\n", max(0, start - _BARE_REACH), start) + 1 or max(0, start - _BARE_REACH)
    a = start
    chunks = list(_CHUNK.finditer(text, line_start, start))
    glued = chunks and chunks[-1].end() == start
    for i, chunk in enumerate(reversed(chunks)):
        word = chunk.group()
        prose = _PROSE_WORD.search(word)
        if prose and i == 0 and glued:
            a = chunk.start() + max(m.end() for m in _PROSE_WORD.finditer(word))
            break
        if prose or (chunk.start() == line_start and _BULLET.fullmatch(word)):
            break
        a = chunk.start()
    line_end = text.find("\n", end, end + _BARE_REACH)
    hi = line_end if line_end >= 0 else min(len(text), end + _BARE_REACH)
    b = end
    for i, chunk in enumerate(_CHUNK.finditer(text, end, hi)):
        word = chunk.group()
        if not word.strip(".,;:?!"):
            break   # punctuation ends the math: what follows is prose
        prose = _PROSE_WORD.search(word)
        if prose:
            if i == 0 and chunk.start() == end:
                b = chunk.start() + prose.start()
            break
        b = chunk.end()
        if word[-1] in ".,;:?!" and not word.endswith(".."):
            break
    return a, b


# An operator or relation at the edge of a formula: the expression goes on across the gap.
_ENDS_OPEN = re.compile(r"(?:[-+*/=<>^_(\[{,\u2212\u00d7\u00f7]|\\(?:times|cdot|div|pm|mp|left|frac|sqrt|le|ge|leq|geq|neq|approx)"
                        r"(?![a-zA-Z]))\s*$")
_STARTS_OPEN = re.compile(r"\s*(?:[-+*/=<>^_!)\]}'\u2212\u00d7\u00f7]|\\(?:times|cdot|div|pm|mp|right|le|ge|leq|geq|neq|approx)"
                          r"(?![a-zA-Z]))")


def _joined(text: str, first: tuple, second: tuple) -> bool:
    """Two formulas read as one: only spaces between them on one line (TeX sets them side by side),
    or one line break where an operator faces it (`$\\boxed{5}$` then `$\\times 10^3$` on the next
    line); formulas on lines of their own (`$x+y=10$` then `$\\boxed{5}$`) stay apart."""
    gap = _JOIN_GAP.fullmatch(text, first[3], second[0])
    if gap is None:
        return False
    if "\n" not in gap.group():
        return True
    return bool(_ENDS_OPEN.search(text, max(first[1], first[2] - 40), first[2]) or _STARTS_OPEN.match(text, second[1], second[2]))


def text_after(text: str, start: int, end: int) -> str:
    """The text after the box at `text[start:end]`, as prose reads it: the math after the box in its
    own formula, then the text after the formula; when that math ends with a full stop, the
    formula's closing delimiter reads as a space, so the stop ends the answer's sentence."""
    if not _STOP_BEFORE_CLOSE.match(text, end):
        return text[end:]   # no full stop between the box and the formula's end: nothing to change
    span = answer_span(text, start, end)
    if span.bare or span.pieces[-1][0] > end or not _STOP.search(text, end, span.close):
        return text[end:]
    return text[end:span.close] + " " + text[span.end:]
