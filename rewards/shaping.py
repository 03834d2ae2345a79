"""Shaping terms added to the reward: DAPO's soft overlong penalty, a length penalty, a repetition penalty.

Each term is a penalty: a number <= 0 that is added to the score, so its key in the result holds
exactly what it took away. A term depends only on the response text (and its length), never on
whether the answer was right, so two responses of the same length and text features receive the
same shaping and the correct one is never pushed below the wrong one by it.

Lengths follow verl's DAPO reward manager, which counts response tokens. A reward function only sees
the decoded text, so the length comes from, in order: `extra_info["response_length"]` (tokens, when
the caller supplies it); a tokenizer named by the `length_tokenizer` setting (the decoded text is
re-encoded: this omits the end-of-sequence token verl counts and can differ by a few tokens where
sampling chose a non-canonical split); or, with `length_unit=chars`, the number of characters.
"""

from __future__ import annotations

import re
from numbers import Integral
from typing import Any, Mapping

from .forksafe import ForkSafeLock
from .region import MAX_RESPONSE_CHARS, strip_special_tokens
from .settings import Settings, SettingsError
from .tokenizer import cached_tokenizer

LENGTH_KEY = "response_length"  # extra_info key a caller may fill with the token count

OVERLONG_KEY = "overlong_penalty"
LENGTH_PENALTY_KEY = "length_penalty"
REPETITION_KEY = "repetition_penalty"


def overlong_penalty(length: int, max_resp_len: int, buffer_len: int, factor: float = 1.0) -> float:
    """DAPO's soft overlong punishment, in [-factor, 0].

    No penalty up to `max_resp_len - buffer_len`; inside the last `buffer_len` positions it falls
    linearly to `-factor` at `max_resp_len` (verl: `min(-(L - expected) / buffer * factor, 0)`).
    Past `max_resp_len` (possible only for approximate lengths) it stays at `-factor`, as in the
    DAPO paper, instead of growing without bound.
    """
    expected = max_resp_len - buffer_len
    exceed = length - expected
    if exceed <= 0:
        return 0.0
    return 0.0 - factor * min(exceed / buffer_len, 1.0)


def length_penalty(length: int, max_resp_len: int, coef: float) -> float:
    """A linear cost for length, `-coef * L / max_resp_len`, in [-coef, 0]."""
    return 0.0 - coef * min(max(length, 0) / max_resp_len, 1.0)


def repetition_fraction(text: str, ngram: int) -> float:
    """Share of word n-grams that repeat an earlier one: 0 for fresh text, near 1 for a loop.

    A response longer than `MAX_RESPONSE_CHARS` is measured on its last `MAX_RESPONSE_CHARS`
    characters (a loop runs to the end of the response), so the cost is bounded: reading all of
    10 MB took 0.4 s."""
    if len(text) > MAX_RESPONSE_CHARS:
        text = text[-MAX_RESPONSE_CHARS:]
    words = strip_special_tokens(text).split()
    total = len(words) - ngram + 1
    if total <= 1:
        return 0.0
    unique = len(set(zip(*(words[i:] for i in range(ngram)))))  # zip stops at the last full n-gram
    return 1.0 - unique / total


def repetition_penalty(text: str, ngram: int, coef: float) -> float:
    """`-coef * repetition_fraction`, in [-coef, 0]: degenerate loops cost up to `coef`."""
    return 0.0 - coef * repetition_fraction(text, ngram)


def shaping_enabled(settings: Settings) -> bool:
    return bool(settings.overlong_buffer_len or settings.length_penalty or settings.repetition_penalty)


def shaping_terms(response: str, extra_info: Mapping[str, Any] | None, settings: Settings) -> dict[str, float]:
    """The enabled terms by key; the same keys for every sample judged with these settings."""
    terms: dict[str, float] = {}
    if settings.overlong_buffer_len or settings.length_penalty:
        length = response_length(response, extra_info, settings)
        if settings.overlong_buffer_len:
            terms[OVERLONG_KEY] = overlong_penalty(length, settings.max_resp_len, settings.overlong_buffer_len,
                                                   settings.overlong_penalty_factor)
        if settings.length_penalty:
            terms[LENGTH_PENALTY_KEY] = length_penalty(length, settings.max_resp_len, settings.length_penalty)
    if settings.repetition_penalty:
        terms[REPETITION_KEY] = repetition_penalty(response, settings.repetition_ngram, settings.repetition_penalty)
    return terms


def response_length(response: str, extra_info: Mapping[str, Any] | None, settings: Settings) -> int:
    """The response length in the unit of `settings.length_unit` (see the module docstring).

    A token-unit run with neither a supplied length nor a tokenizer is a configuration error and
    raises `SettingsError`: guessing would silently shift every penalty.
    """
    if settings.length_unit == "chars":
        return len(response)
    given = extra_info.get(LENGTH_KEY) if isinstance(extra_info, Mapping) else None
    if isinstance(given, Integral) and not isinstance(given, bool) and given >= 0:  # numpy ints too
        return int(given)
    if settings.length_tokenizer:
        return count_tokens(response, settings.length_tokenizer, enough=settings.max_resp_len)
    raise SettingsError(
        "length shaping counts tokens, but this sample has no extra_info['response_length'] and no "
        "length_tokenizer is set: pass length_tokenizer=<the policy's tokenizer path> or length_unit=chars")


def count_tokens(text: str, tokenizer_path: str, enough: int | None = None) -> int:
    """Token count of the decoded response under the policy's tokenizer (no special tokens added).

    With `enough` (`max_resp_len`, where every length term reaches its bound), a long text is
    encoded by prefixes of 1, 2, 4, ... 64 characters per token of `enough`, and a prefix holding more
    than `enough + 1` tokens is counted in place of the whole: the terms are the same, and encoding
    is bounded by `enough` rather than by the text (10 MB took 9-50 s, under a lock every reward
    thread shares). Only a text past 64 characters per token is encoded whole.
    """
    tokenizer = cached_tokenizer(tokenizer_path)
    if enough is not None:
        size = enough + 2
        while size < len(text) and size <= 64 * (enough + 2):
            head = _encoded_length(tokenizer, text[:size])
            if head > enough + 1:  # a cut word adds at most one token to a prefix
                return head
            size *= 2
    return _encoded_length(tokenizer, text)


def _encoded_length(tokenizer: Any, text: str) -> int:
    with _encode_lock:  # a fast tokenizer raises "Already borrowed" when threads share it
        try:
            return len(tokenizer.encode(text, add_special_tokens=False))
        except (TypeError, UnicodeError):  # a lone surrogate is no UTF-8: the tokenizer refuses it
            valid = _SURROGATE.sub("\ufffd", text)  # counted as the replacement character decode emits
            return len(tokenizer.encode(valid, add_special_tokens=False))


_SURROGATE = re.compile("[\ud800-\udfff]")


_encode_lock = ForkSafeLock()

