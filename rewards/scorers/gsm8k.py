"""GSM8K: the answer after `####`, compared exactly as a rational number.

verl's reference scorer clips the response to its last 300 characters before searching, so an
answer followed by a long explanation silently scores 0; we search the whole answer region.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from ..number_text import NUMBER, NUMBER_RE, format_number, number_value, parse_number
from ..prose import denied_before, differs_from, offered_before, plain_tail, taken_back
from ..region import ANSWER_CLOSE, answer_region, answer_tag
from ..registry import register_scorer
from ..result import Result, Verdict, correct, failed, wrong
from ..settings import Settings

MARKER = "####"
# Presentation that may surround the number after `####`: `$`, `\$`, markdown bold, `\boxed{`, `\(`.
_DRESSING = re.compile(r"\\?\$|\*\*|\\boxed\{|\\\(")
_LEADING_NUMBER = re.compile(rf"[ \t]*({NUMBER})")
NO_NUMBER = "no number in the answer"
_LOOKAHEAD = 200  # characters after the marker that may hold the number
# What may follow the number on its line before the words start: `%`, `$`, `**`, `}`, `\)`, a full stop.
_AFTER_DRESSING = re.compile(r"(?:\\?%|\\?\$|\*\*|\}|\\\)|\.(?!\d))*")
# The number goes on (`5x`, `5k`, `5e`, `5²`) or an operator or another number follows (`5^2`, `5 - 6`, `5:00`).
_CONTINUED = re.compile(r"[\w\u00b2\u00b3\u00b9\u00bc-\u00be]|\s*(?:[-+*/^!:~=\u00b1\u00d7\u00f7\u00b7\u2212]|\\[a-zA-Z]|\.\.)")
# `The answer is 5` in an `<answer>` tag: the words that only say an answer follows.
_STATED = re.compile(r"(?i)^(?:the\s+)?(?:final\s+)?answer\s*(?:is\b\s*:?|:)\s*")
_LINE_END = re.compile(r"\n|\.(?=\s|$)")  # the answer's line ends at a line break or a full stop


@register_scorer("openai/gsm8k", "gsm8k", answer_format="gsm8k")
def score_gsm8k(response: str, ground_truth: Any, extra_info: Mapping[str, Any] | None,
                settings: Settings) -> Result:
    """GSM8K: last `#### <number>` (strict) or last number (flexible), exact rational match."""
    gold = gold_value(ground_truth)
    if gold is None:
        return failed(Verdict.UNPARSABLE_GOLD, f"gold {str(ground_truth)[:80]!r} is not a number")
    region = answer_region(response)
    if region is None:
        return failed(Verdict.NO_ANSWER, "cut off inside <think>")
    tagged = answer_tag(region) if settings.format_rule == "think_answer" else None
    mode, after = settings.gsm8k_mode, None
    if tagged is not None:  # the tag holds the answer: read as if it followed `####`, with its guards
        if not tagged.strip():
            return failed(Verdict.NO_ANSWER, "empty <answer> block")
        after = region[region.rfind(ANSWER_CLOSE) + len(ANSWER_CLOSE):]   # read for a take-back, never for the answer
        stated = _STATED.sub('', tagged.strip(), count=1)
        if MARKER in tagged or _LEADING_NUMBER.match(_DRESSING.sub("", stated)):
            region = tagged if MARKER in tagged else f"{MARKER} {stated}"
        else:   # a sentence (`Each friend gets 8 cookies.`): its last number, read as the flexible mode reads it
            region, mode = tagged, "flexible"
    if mode == "strict":
        token, reason = strict_answer(region)
        seen = MARKER in region
    else:
        token, reason = flexible_answer(region)
        seen = reason != NO_NUMBER
    if token is None:
        verdict = Verdict.UNPARSABLE_PRED if seen else Verdict.NO_ANSWER
        return failed(verdict, reason)
    value = number_value(token)
    if value is None:
        return failed(Verdict.UNPARSABLE_PRED, f"{token!r} is not a finite number", token)
    if after is not None and taken_back(after, differs_from(value)):
        return failed(Verdict.UNPARSABLE_PRED, f"the text after </answer> takes it back: {after[:60]!r}")
    pred = format_number(value)
    return correct(pred) if value == gold else wrong(pred)


def strict_answer(region: str) -> tuple[str | None, str]:
    """The number after the last `####`, with the reason when there is none. A short noun phrase
    after it on its line is ignored (`#### 18 dollars`, `#### 5 apples in total`), anything that
    could change or take back the value is not (`5 thousand`, `5 k`, `5 feet two inches`, `5 or 6`,
    `5 (wrong)`, `5 - 6`, `5^2`, `5x`, `5:00`), nor is an answer its clause denies (`I don't think
    #### 5`) or the text after it takes back (`#### 5. Or maybe 6`): rewards.prose."""
    at = region.rfind(MARKER)
    if at < 0:
        return None, "no `####` answer line"
    end = at + len(MARKER) + _LOOKAHEAD
    line, newline, later = region[at + len(MARKER):end].partition("\n")
    tail = _DRESSING.sub("", line) + newline + later  # the answer's line only: a later `\boxed{6}` stays a box
    found = _LEADING_NUMBER.match(tail)
    if found is None:
        return None, f"no number after the last `####`: {region[at:at + 60]!r}"
    shown = region[at:at + 60]
    if denied_before(region, at) or offered_before(region, at, differs_from(number_value(found.group(1)))):
        return None, f"the clause before the last `####` denies it: {region[max(0, at - 60):at + 20]!r}"
    rest = tail[found.end():] + region[end:]
    if not _whole_number(found.group(1), rest, region[max(0, at - 200):at]):
        return None, f"the number after the last `####` is not the whole answer: {shown!r}"
    return found.group(1), ""


def flexible_answer(region: str) -> tuple[str | None, str]:
    """The last number in the region, under the same rules as the strict answer's number: its
    line after it, the clause before it and the text after it must leave it the answer."""
    last = None
    for last in NUMBER_RE.finditer(region):
        pass
    if last is None:
        return None, NO_NUMBER
    if denied_before(region, last.start()) or not _whole_number(last.group(), region[last.end():],
                                                                  region[max(0, last.start() - 200):last.start()]):
        return None, f"the last number is not the whole answer: {region[max(0, last.start() - 40):last.end() + 40]!r}"
    return last.group(), ""


def _whole_number(token: str, rest: str, before: str = "") -> bool:
    """Whether `rest`, the text after the number `token`, leaves it the answer: nothing continues
    the number (`5x`, `5^2`, `5 - 6`), its line holds only a noun phrase, and nothing after takes
    it back (`before`, the text before it, tells whether it is struck through)."""
    line = _LINE_END.split(rest, maxsplit=1)[0]
    line = line[_AFTER_DRESSING.match(line).end():]
    if _CONTINUED.match(line):
        return False
    value = number_value(token)
    return plain_tail(line, value) and not taken_back(rest, differs_from(value), before)


def gold_text(ground_truth: Any) -> str:
    """The answer part of a gold: the text after the last `####` (a full GSM8K solution), else all
    of it. The one reader of a gold's `####`: the scorer, `rewards prepare` and the probe use it."""
    return str(ground_truth).rsplit(MARKER, 1)[-1].strip()


@lru_cache(maxsize=8192)
def _gold_from_text(text: str) -> Fraction | None:
    return parse_number(gold_text(text))


def gold_value(ground_truth: Any) -> Fraction | None:
    """The gold number from a dataset answer (`... #### 72`) or a bare number; parsed once per gold."""
    if isinstance(ground_truth, bool):
        return None
    if isinstance(ground_truth, (int, Fraction)):
        return Fraction(ground_truth)
    if isinstance(ground_truth, float):
        return Fraction(repr(ground_truth)) if ground_truth == ground_truth and abs(ground_truth) != float("inf") else None
    if isinstance(ground_truth, str):
        return _gold_from_text(ground_truth)
    return None
