"""Prompt lengths in tokens, counted the way verl counts them before training.

verl (`RLHFDataset.maybe_filter_out_long_prompts`) applies the tokenizer's chat template with the
generation prompt and counts the token ids, without adding special tokens twice. We do the same, but
render each distinct prompt once and tokenize the rendered texts in one batch call, which the fast
(Rust) tokenizers run in parallel. Image placeholders are counted as their text; the image tokens a
vision processor adds are not, so multimodal lengths are lower bounds.
"""

from __future__ import annotations

from typing import Any, Sequence

BATCH = 4096


class TokenizerError(ValueError):
    """The tokenizer cannot be loaded or has no chat template."""


def load_tokenizer(path_or_tokenizer: Any) -> Any:
    """A tokenizer object from a local path (or hub name already in the local cache), or as given."""
    if not isinstance(path_or_tokenizer, str):
        return path_or_tokenizer
    from pathlib import Path

    from transformers import AutoTokenizer

    from .errors import first_line

    if path_or_tokenizer.startswith((".", "/", "~")) and not Path(path_or_tokenizer).expanduser().is_dir():
        raise TokenizerError(f"cannot load a tokenizer from {path_or_tokenizer!r}: no such folder")
    try:
        tok = AutoTokenizer.from_pretrained(path_or_tokenizer)
    except Exception as exc:  # OSError, ValueError, missing files: one sentence for the user
        raise TokenizerError(f"cannot load a tokenizer from {path_or_tokenizer!r}: {first_line(exc)}") from exc
    if not getattr(tok, "chat_template", None):
        raise TokenizerError(f"the tokenizer at {path_or_tokenizer!r} has no chat template; verl applies "
                             "one to every prompt, so lengths cannot be measured")
    return tok


def prompt_lengths(tokenizer: Any, prompts: Sequence[list[dict[str, str]]],
                   chat_template_kwargs: dict[str, Any] | None = None) -> list[int]:
    """Token count of each prompt under the tokenizer's chat template, with the generation prompt."""
    kwargs = dict(chat_template_kwargs or {})
    lengths: list[int] = []
    for start in range(0, len(prompts), BATCH):
        chunk = [list(p) for p in prompts[start:start + BATCH]]
        texts = tokenizer.apply_chat_template(chunk, add_generation_prompt=True, tokenize=False, **kwargs)
        ids = tokenizer(texts, add_special_tokens=False, return_attention_mask=False)["input_ids"]
        lengths.extend(len(x) for x in ids)
    return lengths


def percentile(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank percentile of already sorted values (0 for none)."""
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n*q/100), at least 1
    return int(sorted_values[int(rank) - 1])
