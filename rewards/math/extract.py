"""Where a MATH answer sits in a response: the last `\\boxed{}`, else a stated final answer.

The last box wins because models correct themselves ("... \\boxed{4}. Wait, that is wrong ...
\\boxed{5}"). Boxes are read with brace balancing (LaTeX escapes such as `\\{` do not count), so
`\\boxed{\\frac{1}{2}}` is read whole; `\\boxed 7` (no braces) is read up to the next space or `$`.

This module owns the brace scanner (`BRACE_TOKEN`, `matching_brace`). The other walkers over
brackets in an answer, and the rule each applies:

| walker | counts | escapes | why |
|---|---|---|---|
| `matching_brace` (boxes; `normalize`'s argument rewrites), `wellformed` (a gold's balance) | `{` `}` | any `\\x` is skipped: `\\{`, `\\}`, `\\\\` never count | TeX grouping: a set brace `\\{` is text, not a group; one token regex, so a megabyte costs C speed |
| `structure.split_top`, `structure`'s outer-bracket test | `(` `[` `{` with any closer, and `\\{` `\\}` | any other `\\x` is skipped | answer structure: intervals mix brackets (`[1,2)`), a set `\\{1,2\\}` is a level whose commas are inside it |
| `normalize`'s plain-text rewrite (`sqrt(2)`, `2**(1/4)`) | `(` `)` | none | text outside LaTeX has no escapes |
| `scorers.boxed.within_limits`, `cost` | `{` `(` `[` against `}` `)` `]` | none (`cost` reads `\\name` as one command) | size guards before any parsing: counting an escaped brace only refuses sooner |
| `labels.is_label` | as many `{` as `}` | none | a label is at most 40 characters of a narrow grammar |

Only the scanner reads model text of any length, in one pass (the degenerate-output tests time
it); the others read an extracted answer (at most `scorers.boxed.MAX_ANSWER_CHARS` long) or a gold.
"""

from __future__ import annotations

import re
import threading
from typing import NamedTuple

from ..number_text import NUMBER_WORDS, VALUE_WORDS
from ..prose import denied_before, differs_from_text, remark_after, taken_back

_BARE_END = re.compile(r"[\s$]")
_BLANKS = re.compile(r"[ \t]*")
BRACE_TOKEN = re.compile(r"\\.|[{}]", re.S)
"""What brace matching looks at: braces, and escapes (`\\{`, `\\}`, `\\\\`), which it skips."""
# What may stand between boxes that belong to one answer: `\boxed{3}, \boxed{5}`, `\boxed{3} and \boxed{5}`.
# Math delimiters, spacing commands and `\text{ and }` (R1-style `\quad \text{and} \quad`, or
# `\text{ for part (a) and }`) count as separators too; any other word ends the answer.
_JOINER = re.compile(r"(?:[\s$,;.]|\\[()\[\]]|\\q?quad(?![a-zA-Z])|\\[,;: ]|and|or"
                     r"|\\text\{\s*(?:for\s+part\s+\(?[a-z0-9]\)?\s*)?(?:and|or|,)?\s*\})*")
_FINAL = re.compile(r"(?i)\b(?:final answer|the answer)\s*(?:is|:)\s*:?[ \t]*([^\n]*)")
_ANSWER_LINE = re.compile(r"(?i)\banswer\s*:[ \t]*(?:\*\*)?[ \t]*(?:\n\s*(?=\S))?([^\n]*)")   # `Answer:` then its value, or the value on the next line
_MATH_SPAN = re.compile(r"^\$\$?(.+?)\$\$?|^\\\((.+?)\\\)|^\\\[(.+?)\\\]")
# After a stated math span, another span, a number or a value-changing word means the span is not the answer.
_QUALIFIED = re.compile(r"[\d$]|\\[(\[]|\.\.")  # `..`: `$85$...` goes on
_WORD = re.compile(r"[A-Za-z]+")
# A closing remark after the answer: a parenthesis, a bracket, a dash aside, or a clause that opens with `which`, `since`
# or `because` (`17 (the smallest such prime)`, `10 [segments]`, `1001, which is not prime`).
_REMARK = re.compile(r"(?<=\S)\s*(?:\(([^()]*)\)|\[([^\[\]]*)\]|,\s*((?:which|since|because)\b[^,]*)|"
                     r"\s[\u2014\u2013]\s*([^\u2014\u2013]*))\s*$")   # also a dash aside: `2 \u2014 the only value`
# A sentence ends at a full stop (not that of `i.e.`, `e.g.`, `approx.`, `vs.`) or where a reason or
# a wish starts; a relative clause (`, which is 20`) is part of it, so a value there qualifies the span.
_SENTENCE_END = re.compile(r"(?<!\bi\.e)(?<!\be\.g)(?<!\bapprox)(?<!\bvs)(?<!\.)\.(?:\s|$)|\s(?:I hope|because|since)\b")
# A label just before a box (`y_1 = \boxed{…}`, `\( y_2 = \boxed{…}`): boxes that each carry one are
# joined across it, and keep it (`y_1 = \boxed{a} \text{ and } y_2 = \boxed{b}` is `y_1=a, y_2=b`).
_BOX_LABEL = re.compile(r"(?<![A-Za-z\\])([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)\s*=\s*(?:\\[(\[]\s*|\$\s*)?$")
_LABEL_WINDOW = 40
# In a gold, boxes are one answer unless a sentence ends between them (`\boxed{1} papers and
# \boxed{2} bins` is `1, 2`): a gold never corrects itself, so words between its boxes name parts.
_GOLD_BREAK = re.compile(r"[.!?](?:\s|$)|\n\s*\n")
_GOLD_GAP = 200
# JSON written twice doubles every backslash: `\\boxed{\\frac{3}{4}}`.
_SINGLE_COMMAND = re.compile(r"(?<!\\)\\[a-zA-Z]")
_DOUBLED_COMMAND = re.compile(r"(?<!\\)\\\\[a-zA-Z]")
# A box whose closing brace was escaped by a stray backslash (`\boxed{185\}` at the end of a response).
_STRAY_CLOSE_TAIL = " \t\n$."


class Box(NamedTuple):
    start: int          # index of the backslash of `\boxed`
    end: int            # index just past the box
    content: str | None  # None when the box is opened but never closed


def last_boxed(text: str) -> str | None:
    """Content of the last `\\boxed{...}` / `\\fbox{...}` (or `\\boxed 7`); None when there is none
    or when the last one is never closed (a response cut off mid-answer has no answer)."""
    box = last_box(text)
    return None if box is None else box.content


_last = threading.local()
"""Per thread, the last text whose last box was read, and that box. The MATH scorer reads the box
of the answer region and the `think_boxed` format rule the box of the same text after `</think>`:
remembering the last one reads it once per sample. A hit is an equal string (a C-speed compare,
identity first), never a box scan."""


def last_box(text: str, before: int | None = None) -> Box | None:
    """The last box command starting before `before`, with its span; a box nested in another
    (`\\boxed{\\boxed{12}}`) is read as the outer one."""
    if before is None:
        seen = getattr(_last, "box", None)
        if seen is not None and text == seen[0]:
            return seen[1]
        box = _outermost(text, None)
        _last.box = (text, box)
        return box
    return _outermost(text, before)


def _outermost(text: str, before: int | None) -> Box | None:
    box = _last_box_command(text, before)
    while box is not None and box.content is not None:
        outer = _enclosing_box(text, box)
        if outer is None:
            break
        box = outer
    return box


def _last_box_command(text: str, before: int | None) -> Box | None:
    end = len(text) if before is None else before
    while True:
        at = _rfind_command(text, end)
        if at < 0:
            return None
        box = _read_box(text, at)
        if box is not None:
            return box
        end = at  # `\boxedtext` or similar: not a box command; look further back


def _rfind_command(text: str, end: int) -> int:
    """Start of the last `\\boxed` or `\\fbox` that ends by `end`, or -1.

    One backward scan for `box` (in both names) that stops at the nearest command: searching for
    each name on its own rescans the whole prefix for the name that is absent, which made walking
    back over a response of thousands of boxes quadratic.
    """
    while True:
        at = text.rfind("box", 0, end)
        if at < 0:
            return -1
        if at >= 1 and text.startswith("\\boxed", at - 1) and at + 5 <= end:
            return at - 1
        if at >= 2 and text.startswith("\\fbox", at - 2):
            return at - 2
        end = at + 2  # the next candidate starts before this one


def _argument_at(text: str, at: int) -> int | None:
    """Where the argument of the box command at `at` starts (its `{`, or the first character of
    `\\boxed 7`); None when `at` starts no box command (`\\boxedtext`, `\\boxed7`)."""
    name_end = at + (6 if text.startswith("\\boxed", at) else 5)
    if name_end < len(text) and text[name_end].isalpha():
        return None
    i = _BLANKS.match(text, name_end).end()
    if i < len(text) and text[i] != "{" and i == name_end:  # `\boxed7` is not LaTeX; `\boxed 7` is
        return None
    return i


def _read_box(text: str, at: int) -> Box | None:
    i = _argument_at(text, at)
    if i is None:
        return None
    if i >= len(text):
        return Box(at, len(text), None)
    if text[i] != "{":
        return _bare_box(text, at, i)
    close = matching_brace(text, i)
    if close < 0:
        return _stray_close(text, at, i)
    return Box(at, close + 1, text[i + 1:close])


def _stray_close(text: str, at: int, i: int) -> Box:
    """`\\boxed{185\\}` ending the text: the `\\}` closes the box (a backslash typed before it), when
    nothing in the box opens a set `\\{` it could close and every other brace is balanced. Any
    other unclosed box has no content (a response cut off mid-answer)."""
    end = len(text.rstrip(_STRAY_CLOSE_TAIL))
    if end - 2 > i and text.startswith("\\}", end - 2) and text[end - 3] != "\\":
        inner = text[i + 1:end - 2]
        if "\\{" not in inner and _scan_braces(inner, 0, len(inner), 1) == (-1, 1):
            return Box(at, end, inner)
    return Box(at, len(text), None)


def _bare_box(text: str, at: int, i: int) -> Box:
    stop = _BARE_END.search(text, i)
    j = stop.start() if stop else len(text)
    return Box(at, j, text[i:j])


def _enclosing_box(text: str, box: Box) -> Box | None:
    """The box command just before `box` when it encloses `box`, else None.

    Why not read that command's box from its start: in `\\boxed{\\boxed{...{1}...}}` every level
    would rescan everything inside it (quadratic in the depth; minutes at depth 100,000). Here
    only the text between the two commands' starts is scanned, then onwards from `box.end`: the
    walk out through any number of levels reads each character about once.
    """
    end = box.start
    while True:
        at = _rfind_command(text, end)
        if at < 0:
            return None
        i = _argument_at(text, at)
        if i is not None:
            break
        end = at  # not a box command; look further back
    if i >= len(text):
        return None
    if text[i] != "{":
        outer = _bare_box(text, at, i)
        return outer if outer.end >= box.end else None
    close, depth = _scan_braces(text, i + 1, box.start, 1)
    if close >= 0:
        return None  # it closes before `box` starts
    close, _ = _scan_braces(text, box.end, len(text), depth)
    if close < 0:
        return None  # never closed: the inner box stands
    return Box(at, close + 1, text[i + 1:close])


def matching_brace(text: str, open_at: int) -> int:
    """Index of the `}` closing the `{` at `open_at`, or -1; `\\{`, `\\}` and `\\\\` are skipped."""
    return _scan_braces(text, open_at + 1, len(text), 1)[0]


def _scan_braces(text: str, start: int, stop: int, depth: int) -> tuple[int, int]:
    """Walk the braces of `text[start:stop]` from `depth`: the index of the `}` that brings the
    depth to 0 (and 0), or -1 and the depth at `stop`. A regex jumps over everything else, so
    plain text (a megabyte of digits) costs C speed, not a Python step per character."""
    for token in BRACE_TOKEN.finditer(text, start, stop):
        ch = token.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return token.start(), 0
    return -1, depth


def boxed_answer(text: str, box: Box | None = None, gold: bool = False, value=None) -> tuple[str | None, bool]:
    """The final boxed answer and whether any box command was seen.

    Boxes that stand side by side with only separators between them are one answer
    (`\\boxed{3}, \\boxed{5}` and `\\boxed{3} \\boxed{5}` are the list `3, 5`, so boxing every
    option is a list, never a hit), as are boxes that each follow a label (`x = \\boxed{3},
    y = \\boxed{5}`, labels kept); any words in between end the answer, so a self-correction
    never merges with what it corrects. In a `gold`, only a sentence's end does (see _GOLD_BREAK).
    A box written with doubled backslashes throughout (`\\\\boxed{\\\\frac{3}{4}}`) is read with single
    ones. `box` is `last_box(text)` when the caller has it already. With `value` (a box's content to
    its exact quantity, or None), boxes side by side that all hold one quantity are one answer
    (`\\boxed{0.5}` or `\\boxed{\\frac12}`), read from the last of them.
    """
    box = box or last_box(text)
    if box is None:
        return None, False
    if box.content is None:
        return None, True
    doubled = box.start > 0 and text[box.start - 1] == "\\"
    boxes = [box]
    while True:
        prev = last_box(text, box.start)
        if prev is None or prev.content is None:
            break
        between = text[prev.end:box.start]
        if not (_JOINER.fullmatch(between) or gold and _gold_joiner(between)):
            named = _BOX_LABEL.search(between, max(0, len(between) - _LABEL_WINDOW))  # `y = \boxed{5}`
            if not (named and _label_before(text, prev.start) and _JOINER.fullmatch(between, 0, named.start())):
                break
        boxes.append(prev)
        box = prev
    answer = _joined(text, boxes[::-1], value)
    if doubled and _DOUBLED_COMMAND.search(answer) and not _SINGLE_COMMAND.search(answer):
        answer = answer.replace("\\\\", "\\")
    return answer, True


def _joined(text: str, boxes: list[Box], value=None) -> str:
    """Boxes of one answer as a list, each once; with their labels when every box has one."""
    if len(boxes) == 1 or value is not None and _one_value(boxes, value):
        return boxes[-1].content
    labels = []
    for b in boxes:  # stops at the first box without a label: most joined boxes have none
        labels.append(_label_before(text, b.start))
        if not labels[-1]:
            return ", ".join(dict.fromkeys(b.content for b in boxes))
    return ", ".join(dict.fromkeys(f"{label}={b.content}" for label, b in zip(labels, boxes)))


def _one_value(boxes: list[Box], value) -> bool:
    """Boxes side by side that all hold one number (`\\boxed{15\\frac{39}{40}}, or
    \\boxed{\\frac{639}{40}}`): one answer in two spellings, not a list of candidates."""
    values = {value(b.content) for b in boxes}
    return len(values) == 1 and None not in values


def _gold_joiner(between: str) -> bool:
    """Words between a gold's boxes that name parts (`papers and`), not a sentence's end or a word
    that changes or denies a value (`\\boxed{1} no \\boxed{2}`)."""
    return len(between) <= _GOLD_GAP and not _GOLD_BREAK.search(between) and not any(
        w.lower() in VALUE_WORDS for w in _WORD.findall(between))


def _label_before(text: str, at: int) -> str | None:
    found = _BOX_LABEL.search(text[max(0, at - _LABEL_WINDOW):at])
    return found.group(1) if found else None


def last_statement(text: str, answer_line: bool = False) -> tuple[str, int] | None:
    """A final answer stated in words: the last "the final answer is X" (or, for DAPO-style
    sources, an `Answer: X` line), trimmed to its math span or its sentence, with the index where
    the statement starts (to tell which answer came last). A statement its clause denies (`I don't
    think the answer is 7`) or the text after it takes back (`... is $7$. Actually no, ...`) states
    nothing: its answer is `""` (rewards.prose)."""
    pattern = _ANSWER_LINE if answer_line else _FINAL
    found = None
    for found in pattern.finditer(text):
        pass
    if found is None:
        return None
    answer, after = split_statement(found.group(1))
    if denied_before(text, found.start()) or taken_back(after + text[found.end():], differs_from_text(answer),
                                                          text[max(0, found.start() - 200):found.start()]):
        return "", found.start()
    return answer, found.start()


def split_statement(tail: str) -> tuple[str, str]:
    """The answer a statement's tail holds, and the text of the tail after it:
    `$\\frac12$. I hope it is correct.` -> (`\\frac12`, `. I hope it is correct.`); `7 apples.` -> (`7 apples`, `.`)."""
    tail = tail.strip().strip("*").strip()
    restated = _FINAL.search(tail)  # `Answer: the final answer is $5$`
    if restated:
        tail = restated.group(1).strip().strip("*").strip()
    box = last_box(tail)
    if box is not None and box.content is not None:
        return box.content, tail[box.end:]
    span = _MATH_SPAN.match(tail)
    if span:
        after = tail[span.end():]
        clause = after[:stop.start()] if (stop := _SENTENCE_END.search(after)) else after
        if not _QUALIFIED.search(clause) and not any(
                w.lower() in VALUE_WORDS or w.lower() in NUMBER_WORDS for w in _WORD.findall(clause)):
            return next(g for g in span.groups() if g is not None).strip(), after
        # `$5$ or $6$`, `$5$ thousand`, `$5$, which is 20`: the span is not the whole answer, so the sentence is read
    stop = _SENTENCE_END.search(tail)
    answer, after = (tail[:stop.start()] if stop else tail).strip(), tail[stop.start():] if stop else ""
    remark = _REMARK.search(answer)
    if remark and remark_after(answer[:remark.start()], next(g for g in remark.groups() if g is not None)):   # `17 (the smallest such prime)`: a remark, not the value
        return answer[:remark.start()].strip(), answer[remark.start():] + after
    return answer, after
