"""The shape of a response's answer, named so that a reward audit can say why two rewards disagree.

When the reward a run was trained with and our verdict disagree on a row, the usual reason is how
the answer was written: `#### $1,080`, no `\\boxed{}`, two boxes, a unit, an answer before a long
tail that a scorer clipped away. `answer_shape` names the first of `SHAPES` that fits the response
(the order puts the shapes that decide most rewards first); it describes the text, it does not
re-judge it. Every check is a bounded scan of the answer region (rewards/region.py) or of the
extracted answer, so a pathological response costs no more than scoring it did.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..math.extract import last_box, last_statement
from ..region import THINK_CLOSE, answer_region
from ..scorers.gsm8k import MARKER, gold_text

VERL_GSM8K_CLIP = 300  # verl 0.9.1 gsm8k._SOLUTION_CLIP_CHARS: it reads only the last 300 characters

SHAPES: dict[str, str] = {
    "cut_off": "the response ends inside <think> or inside an unclosed \\boxed{ (cut at the length limit)",
    "answer_in_think": "an answer (`####` or \\boxed) only inside <think>...</think>, none after it",
    "no_marker": "no `####` answer line",
    "boxed_missing": "no \\boxed{} (an answer stated in words)",
    "several_boxes": "two or more \\boxed{} with different contents",
    "clipped": f"the `####` answer starts more than {VERL_GSM8K_CLIP} characters before the end "
               f"(verl's GSM8K scorer reads only the last {VERL_GSM8K_CLIP})",
    "dollar": "a `$` or `\\$` at the answer",
    "marker_spacing": "`####` not followed by one space and the number (`####5`, `#### \\n5`)",
    "not_whole_answer": "more follows the number (an operator, another number), or the answer hedges (`5 or 6`)",
    "thousands_separator": "digit groups in the answer (1,080; 1{,}080; 1\\,080; 1 080)",
    "unit": "a unit with the answer (`\\text{cm}`, `^\\circ`, `%`, `dollars`)",
    "equivalent_spelling": "the gold's value spelt another way (1080.0; 0.5 for \\frac{1}{2})",
    "same_spelling": "the answer is spelt as the gold is",
    "other": "none of the above",
}
"""Each shape and what it means, in the order `answer_shape` tries them."""

_LINE = 200            # characters after `####` read as its answer line
_MAX_BOXES = 8         # boxes walked back for `several_boxes`

_VERL_MARKER = re.compile(r"#### -?[0-9.,]")  # what verl's strict regex needs after the marker
_DOLLAR = re.compile(r"\\?\$")
_GROUPS = re.compile(r"\d{1,3}(?:(?:,|\{,\}|\\,|\\ |~| |\u2009|\u202f)\d{3})+(?!\d)")
_LATEX_UNIT = re.compile(r"\\(?:text|mbox|mathrm|textrm|operatorname)\s*\{|\^\s*\{?\\circ|°|\\?%")
_NUMBER_THEN = re.compile(r"\s*(?:\\?\$|\*\*)?\s*-?[\d.,]*\d(.*)")
_WORD = re.compile(r"[A-Za-z]{2,}")
_MORE = re.compile(r"[\d=+*/^×÷]|\s-|\bor\b")
_OR = re.compile(r"\bor\b")
_SPACES = re.compile(r"\s+|\\[,;!: ]|\\?\$")


class Answer:
    """What the shape checks look at, found once: the region, the answer's text and where it starts."""

    def __init__(self, response: str, answer_format: str) -> None:
        self.response = response
        self.gsm8k = answer_format == "gsm8k"
        self.region = answer_region(response)
        self.text: str | None = None
        self.start = -1  # index of the answer in `region`
        self.box = None
        if self.region is None:
            return
        if self.gsm8k:
            at = self.region.rfind(MARKER)
            if at >= 0:
                self.start = at
                after = self.region[at + len(MARKER):at + len(MARKER) + _LINE]
                line = after.split("\n", 1)[0]
                self.text = line if line.strip() else after.strip().split("\n", 1)[0]  # `####` then a new line
            return
        self.box = last_box(self.region)
        if self.box is not None:
            self.start, self.text = self.box.start, self.box.content
            return
        stated = last_statement(self.region)
        if stated is not None:
            self.text, self.start = stated


def answer_shape(response: Any, answer_format: str, gold: Any, verdict: str) -> str:
    """The first of SHAPES that fits `response` (an answer in `answer_format`: "gsm8k" or "boxed"),
    given the gold and our verdict on it."""
    if not isinstance(response, str):
        return "other"
    answer = Answer(response, answer_format)
    for name, fits in _CHECKS:
        if fits(answer, gold, verdict):
            return name
    if _same_text(answer, gold):
        return "same_spelling"
    return "equivalent_spelling" if verdict == "correct" else "other"


def _cut_off(a: Answer, gold, verdict) -> bool:
    return a.region is None or (a.box is not None and a.box.content is None)


def _answer_in_think(a: Answer, gold, verdict) -> bool:
    close = a.response.rfind(THINK_CLOSE)
    if close < 0 or a.region is None:
        return False
    marks = (MARKER,) if a.gsm8k else ("\\boxed", "\\fbox")
    before = a.response[:close]
    return any(m in before for m in marks) and not any(m in a.region for m in marks)


def _no_marker(a: Answer, gold, verdict) -> bool:
    return a.gsm8k and a.text is None


def _boxed_missing(a: Answer, gold, verdict) -> bool:
    return not a.gsm8k and a.box is None


def _several_boxes(a: Answer, gold, verdict) -> bool:
    if a.box is None:
        return False
    contents, box = {a.box.content}, a.box
    for _ in range(_MAX_BOXES):
        box = last_box(a.region, box.start)
        if box is None:
            break
        contents.add(box.content)
    return len(contents) > 1


def _clipped(a: Answer, gold, verdict) -> bool:
    return a.gsm8k and len(a.response) - a.response.rfind(MARKER) > VERL_GSM8K_CLIP


def _dollar(a: Answer, gold, verdict) -> bool:
    return a.text is not None and bool(_DOLLAR.search(a.text))


def _marker_spacing(a: Answer, gold, verdict) -> bool:
    return a.gsm8k and a.text is not None and not _VERL_MARKER.match(a.region, a.start)


def _not_whole_answer(a: Answer, gold, verdict) -> bool:
    if a.text is None:
        return False
    if not a.gsm8k:
        return bool(_OR.search(a.text))
    found = _NUMBER_THEN.match(a.text)
    return found is not None and bool(_MORE.search(found.group(1)))


def _thousands(a: Answer, gold, verdict) -> bool:
    return a.text is not None and bool(_GROUPS.search(a.text))


def _unit(a: Answer, gold, verdict) -> bool:
    if a.text is None:
        return False
    if _LATEX_UNIT.search(a.text):
        return True
    if a.gsm8k:
        found = _NUMBER_THEN.match(a.text)
        return found is not None and bool(_WORD.search(found.group(1)))
    return False


def _same_text(a: Answer, gold: Any) -> bool:
    if a.text is None or gold is None:
        return False
    expected = gold_text(gold) if a.gsm8k else str(gold)
    return _SPACES.sub("", a.text).rstrip(".") == _SPACES.sub("", expected)


_CHECKS: tuple[tuple[str, Callable[[Answer, Any, str], bool]], ...] = (
    ("cut_off", _cut_off), ("answer_in_think", _answer_in_think), ("no_marker", _no_marker),
    ("boxed_missing", _boxed_missing), ("several_boxes", _several_boxes), ("clipped", _clipped),
    ("dollar", _dollar), ("marker_spacing", _marker_spacing), ("not_whole_answer", _not_whole_answer),
    ("thousands_separator", _thousands), ("unit", _unit),
)
