"""Which part of a response is judged.

Policy (docs/scoring-policy.md): when the response contains `</think>`, only the text after the last
`</think>` is judged, so an answer that appears only while thinking earns nothing. A `<think>` still
open at the end, wherever it opened (the first thought, or one re-opened after a `</think>`), means
the response stopped mid-thought: there is no answer, whatever any earlier text said. A response that
starts inside the thought because the chat template pre-filled `<think>` (Qwen3, R1-distill) has a
`</think>` without an opening tag, and is judged after it like any other.

Size rules, decided before any work, so that no response holds the caller whatever the policy emits:
- only the last `MAX_REGION_CHARS` characters of the region are judged. Every step after this one
  (box scanning, `####` and number search, stated answers) is then bounded by a constant (10 MB of
  `\\boxed{5}, ` costs as much as 100 KB of it);
- a response longer than `MAX_RESPONSE_CHARS` is degenerate: the steps that would read all of it
  read its tail instead (special tokens are cleaned from the region's tail only; the repetition
  share is measured on the tail) and it fails any format rule. Below that size the whole-response
  steps are regex passes over at most `MAX_RESPONSE_CHARS`; above it only C-speed `rfind`/`in` run.
"""

from __future__ import annotations

import re
import threading

# Chat-template and tokenizer markers that leak into decoded text when special tokens are kept:
# `<|im_end|>`, `<|endoftext|>`, `<｜end▁of▁sentence｜>`, `</s>`, `<eos>`, `<end_of_turn>`.
SPECIAL_TOKEN = re.compile(r"<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>|</s>|<eos>|<end_of_turn>|<\|?eot_id\|?>")

MAX_REGION_CHARS = 100_000
"""The judged tail of the answer region (~25k tokens): far more than any final answer and the text
after it, small enough that the slowest extraction over it takes milliseconds."""

MAX_RESPONSE_CHARS = 400_000
"""Longer responses are degenerate (~100k tokens, past any verl `max_response_length` in use): see
the size rules above. A regex pass over this many characters of `<` takes tens of milliseconds."""

# Every SPECIAL_TOKEN alternative starts with one of these; C-speed `in` checks skip the regex,
# whose cost is one match attempt per `<`, for text that holds none (`"< " * N` took 0.5 s per 10 MB).
_TOKEN_STARTS = ("<|", "<｜", "</s>", "<eos>", "<end_of_turn>", "<eot_id")

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
ANSWER_OPEN = "<answer>"
ANSWER_CLOSE = "</answer>"


_last = threading.local()
"""Per thread, the last response cleaned and its clean text. The scorer, the format rule and
shaping each ask for one response's clean text; remembering the last (by identity, so a hit costs
nothing, and a string held here cannot be confused with a new one) cleans it once per sample."""


def strip_special_tokens(text: str) -> str:
    """Replace leaked special tokens with a line break: they carry no answer, and they end what came
    before them (`#### 72<|endoftext|>Human: ...` must not read as `72Human`)."""
    seen = getattr(_last, "clean", None)
    if seen is not None and (text is seen[0] or text is seen[1]):
        return seen[1]
    leaked = "<" in text and any(start in text for start in _TOKEN_STARTS)   # every token opens with `<`
    clean = SPECIAL_TOKEN.sub("\n", text) if leaked else text
    _last.clean = (text, clean)
    return clean


def answer_region(response: str) -> str | None:
    """The text that holds the answer (at most its last `MAX_REGION_CHARS` characters), or None
    when the response ends inside a `<think>` (the last opener comes after the last `</think>`)."""
    long = len(response) > MAX_RESPONSE_CHARS
    text = response if long else strip_special_tokens(response)
    close = text.rfind(THINK_CLOSE)
    if text.rfind(THINK_OPEN) > close:  # `<think>plan</think> <think>Candidate: \boxed{5}.`: unfinished
        return None
    start = close + len(THINK_CLOSE) if close >= 0 else 0
    if long:  # the tags are found in the raw text; only the judged tail is cleaned
        return strip_special_tokens(text[max(start, len(text) - 2 * MAX_REGION_CHARS):])[-MAX_REGION_CHARS:]
    return text[max(start, len(text) - MAX_REGION_CHARS):]


def answer_tag(region: str) -> str | None:
    """The content of the region's last closed `<answer>...</answer>` block, or None when it has
    none. Under `format_rule=think_answer` that content is the answer (docs/scoring-policy.md,
    "Answer tags"); the scorer still reads it with every guard it applies to any answer."""
    close = region.rfind(ANSWER_CLOSE)
    start = region.rfind(ANSWER_OPEN, 0, close) if close >= 0 else -1
    return None if start < 0 else region[start + len(ANSWER_OPEN):close]
