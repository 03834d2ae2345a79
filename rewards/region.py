"""Which part of a response is judged.

Policy (docs/scoring-policy.md): when the response contains `</think>`, only the text after the last
`</think>` is judged, so an answer that appears only while thinking earns nothing. A `<think>` that is
opened and never closed means generation was cut off mid-thought: there is no answer. A response that
starts inside the thought because the chat template pre-filled `<think>` (Qwen3, R1-distill) has a
`</think>` without an opening tag, and is judged after it like any other.
"""

from __future__ import annotations

import re

# Chat-template and tokenizer markers that leak into decoded text when special tokens are kept:
# `<|im_end|>`, `<|endoftext|>`, `<｜end▁of▁sentence｜>`, `</s>`, `<eos>`, `<end_of_turn>`.
SPECIAL_TOKEN = re.compile(r"<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>|</s>|<eos>|<end_of_turn>|<\|?eot_id\|?>")

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def strip_special_tokens(text: str) -> str:
    """Remove leaked special tokens; they carry no answer and confuse extractors."""
    if "<" not in text:
        return text
    return SPECIAL_TOKEN.sub("", text)


def answer_region(response: str) -> str | None:
    """The text that holds the answer, or None when the response was cut off inside `<think>`."""
    text = strip_special_tokens(response)
    close = text.rfind(THINK_CLOSE)
    if close >= 0:
        return text[close + len(THINK_CLOSE):]
    if THINK_OPEN in text:
        return None
    return text
