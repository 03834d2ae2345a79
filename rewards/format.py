"""Format checks: did the response follow the output template the prompt asked for?

Format rewards are where policies cheat first, so each rule below says what it pays for and how it
can be gamed. Only the response is judged (verl passes the decoded response alone; a tag the prompt
shows is never credited). Leaked special tokens are removed first (`strip_special_tokens`).

Rules (setting `format_rule`):
- `think_boxed` (EasyR1's math prompt): a `<think>...</think>` block, then a `\\boxed{}` answer
  after it. Pays for reasoning kept apart from a boxed final answer.
- `think_answer` (the DeepSeek-R1 template): `<think>...</think>` then `<answer>...</answer>`.
  Pays for the R1 two-block layout.

Modes (setting `format_mode`):
- `strict` (default): tags exactly once and in order; `<think>` first (only whitespace before it);
  a thought that is not blank; `think_boxed`: a closed, non-empty `\\boxed{}` after `</think>` and
  no `<answer>` tags; `think_answer`: after `</think>` only `<answer>X</answer>` with X not blank and
  nothing after `</answer>`. Gaming left open: a one-word thought passes; any box content passes; several boxes
  pass (multi-part answers are boxed separately; hedging between boxes is the accuracy check's job).
- `lenient`: spaces inside tags are tolerated (`< think >`, seen from Qwen2.5-VL-32B); a `<think>`
  before the last `</think>`, possibly empty or repeated, with text before it; the answer (a non-empty
  box, or a non-blank `<answer>` block) after the last `</think>`, with anything after it. Gaming
  left open: empty thoughts, repeated or echoed tags, trailing text.

Both modes pay nothing for an answer only inside `<think>` (the answer must follow the last
`</think>`), for a thought that never closed (the model was cut off), nor for a response longer
than `MAX_RESPONSE_CHARS` (rewards/region.py: a degenerate response, refused before any reading).

Pre-filled templates (setting `think_prefilled`): Qwen3 and R1-distill chat templates end the prompt
with `<think>`, so the response starts inside the thought and holds `</think>` without `<think>`.
`auto` (default) accepts that shape as a think block; `yes` requires it (a second `<think>` in the
response is then a repeated tag in strict mode); `no` requires the response to open `<think>` itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .region import ANSWER_CLOSE, ANSWER_OPEN, MAX_RESPONSE_CHARS, THINK_CLOSE, THINK_OPEN, strip_special_tokens

FORMAT_RULES = ("none", "think_boxed", "think_answer")
ASKED_IN_PROMPT = {"think_boxed": "\\boxed", "think_answer": ANSWER_CLOSE}
"""What a prompt that asks for each rule's layout names: where the answer goes. (`<think>` is not
required there: a chat template may open the thought itself.) The launch plan flags a rule whose
prompts never name it, and prompts that ask for `<answer>` tags under another rule."""
FORMAT_MODES = ("strict", "lenient")
THINK_PREFILLED = ("auto", "yes", "no")
# `< think >`, `</ answer>`: spacing some models put inside tags (lenient mode only). One way to
# match the spaces (not `<\s*/?\s*`), so a `<` before a long run of whitespace is not quadratic.
_SPACED_TAG = re.compile(r"<\s*(?:(/)\s*)?(think|answer)\s*>")
# A tag with at least one space; searched first, so the rewrite (one replacement per tag: seconds
# for megabytes of `<think>`) runs only on the rare response that has such a tag.
_SPACE_IN_TAG = re.compile(r"<\s+(?:/\s*)?(?:think|answer)\s*>|</\s+(?:think|answer)\s*>|</?(?:think|answer)\s+>")


@dataclass(frozen=True, slots=True)
class FormatCheck:
    """Outcome of a format rule: passed or not, and why not (for `rewards score` readers)."""

    ok: bool
    reason: str = ""

    @property
    def score(self) -> float:
        return 1.0 if self.ok else 0.0


PASS = FormatCheck(True)


def check_format(response: str, rule: str, mode: str = "strict", prefilled: str = "auto") -> FormatCheck:
    """Judge one response against a format rule; never raises on model text."""
    if rule == "none":
        return PASS
    if rule not in FORMAT_RULES or mode not in FORMAT_MODES or prefilled not in THINK_PREFILLED:
        raise ValueError(f"unknown format rule/mode/prefill: {rule!r}, {mode!r}, {prefilled!r}")
    if not isinstance(response, str):
        return FormatCheck(False, "response is not text")
    if len(response) > MAX_RESPONSE_CHARS:
        return _fail(f"response longer than {MAX_RESPONSE_CHARS:,} characters (degenerate)")
    text = strip_special_tokens(response)
    if mode == "strict":
        return _strict(text, rule, prefilled)
    if _SPACE_IN_TAG.search(text):
        text = _SPACED_TAG.sub(r"<\1\2>", text)
    return _lenient(text, rule, prefilled)


def _fail(reason: str) -> FormatCheck:
    return FormatCheck(False, reason)


def _strict(text: str, rule: str, prefilled: str) -> FormatCheck:
    opens, closes = text.count(THINK_OPEN), text.count(THINK_CLOSE)
    if closes == 0:
        return _fail("no </think>" if opens == 0 else "<think> never closed (cut off)")
    if closes > 1:
        return _fail("</think> repeated")
    close = text.index(THINK_CLOSE)
    if opens == 0:
        if prefilled == "no":
            return _fail("no <think> (think_prefilled=no: the response must open it)")
        thought = text[:close]
    elif opens > 1:
        return _fail("<think> repeated")
    elif prefilled == "yes":
        return _fail("<think> repeated (the chat template already opened it)")
    else:
        start = text.index(THINK_OPEN)
        if text[:start].strip():
            return _fail("text before <think>")
        if start > close:
            return _fail("</think> before <think>")
        thought = text[start + len(THINK_OPEN):close]
    if not thought.strip():
        return _fail("empty think block")
    rest = text[close + len(THINK_CLOSE):]
    if rule == "think_boxed":
        return _strict_boxed(text, rest)
    return _strict_answer(text, rest)


def _strict_boxed(text: str, rest: str) -> FormatCheck:
    if any(tag in text for tag in (ANSWER_OPEN, ANSWER_CLOSE)):
        return _fail("<answer> tags in a think-and-box response")
    return _boxed(rest)


def _strict_answer(text: str, rest: str) -> FormatCheck:
    if text.count(ANSWER_OPEN) != 1 or text.count(ANSWER_CLOSE) != 1:
        return _fail("<answer> and </answer> must each appear exactly once")
    body = rest.strip()
    if not body.startswith(ANSWER_OPEN):
        return _fail("text between </think> and <answer>" if ANSWER_OPEN in rest else "no <answer> after </think>")
    if not body.endswith(ANSWER_CLOSE):
        return _fail("text after </answer>")
    if not body[len(ANSWER_OPEN):-len(ANSWER_CLOSE)].strip():
        return _fail("empty <answer> block")
    return PASS


def _lenient(text: str, rule: str, prefilled: str) -> FormatCheck:
    close = text.rfind(THINK_CLOSE)
    if close < 0:
        return _fail("no </think>" if THINK_OPEN not in text else "<think> never closed (cut off)")
    opened = THINK_OPEN in text[:close]
    if prefilled == "no" and not opened:
        return _fail("no <think> before </think> (think_prefilled=no)")
    rest = text[close + len(THINK_CLOSE):]
    if rule == "think_boxed":
        return _boxed(rest)
    blocks = _answer_blocks(rest)
    if not blocks:
        return _fail("no <answer>...</answer> after the last </think>")
    return PASS if any(b.strip() for b in blocks) else _fail("empty <answer> block")


def _answer_blocks(text: str) -> list[str]:
    """The contents of successive `<answer>...</answer>` blocks.

    Found with `str.find`, not a lazy regex: the regex retried from every unclosed `<answer>` to
    the end of the text, so a response that repeats the tag took seconds.
    """
    blocks = []
    pos = 0
    while (start := text.find(ANSWER_OPEN, pos)) >= 0:
        start += len(ANSWER_OPEN)
        end = text.find(ANSWER_CLOSE, start)
        if end < 0:  # no later `<answer>` can close either
            break
        blocks.append(text[start:end])
        pos = end + len(ANSWER_CLOSE)
    return blocks


def _boxed(region: str) -> FormatCheck:
    """The last `\\boxed{}` after `</think>` must be closed and hold something (MATH's extractor)."""
    from .math.extract import last_boxed  # imported on first use: scorers that never box skip it

    content = last_boxed(region)
    if content is None:
        return _fail("no closed \\boxed{} after </think>")
    return PASS if content.strip() else _fail("empty \\boxed{}")
