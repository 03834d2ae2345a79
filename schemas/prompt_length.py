"""Prompt lengths in tokens, counted the way verl counts them before training.

verl (`RLHFDataset.maybe_filter_out_long_prompts`) applies the tokenizer's chat template with the
generation prompt and counts the token ids, without adding special tokens twice. We do the same, but
render each distinct prompt once and tokenize the rendered texts in one batch call, which the fast
(Rust) tokenizers run in parallel. Image placeholders are counted as their text; the image tokens a
vision processor adds are not, so multimodal lengths are lower bounds. The tokenizer comes from
`rewards.tokenizer.load_tokenizer(..., chat_template=True)`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

BATCH = 4096


def prompt_lengths(tokenizer: Any, prompts: Sequence[list[dict[str, str]]],
                   chat_template_kwargs: dict[str, Any] | None = None,
                   update: Callable[[int], Any] | None = None) -> list[int]:
    """Token count of each prompt under the tokenizer's chat template, with the generation prompt.
    `update(n)` is told of every batch done (a progress bar)."""
    kwargs = dict(chat_template_kwargs or {})
    lengths: list[int] = []
    for start in range(0, len(prompts), BATCH):
        chunk = [list(p) for p in prompts[start:start + BATCH]]
        try:
            texts = tokenizer.apply_chat_template(chunk, add_generation_prompt=True, tokenize=False, **kwargs)
        except Exception as exc:   # a template error is raised by the template's own code: any type
            raise TemplateFailure(start + _first_failing(tokenizer, chunk, kwargs), exc) from None
        ids = tokenizer(texts, add_special_tokens=False, return_attention_mask=False)["input_ids"]
        lengths.extend(len(x) for x in ids)
        if update is not None:
            update(len(chunk))
    return lengths


class TemplateFailure(ValueError):
    """The chat template raised on a prompt (`index`: the first such prompt)."""

    def __init__(self, index: int, cause: BaseException):
        self.index = index
        self.message = f"{type(cause).__name__}: {cause}"
        super().__init__(f"prompt {index}: {self.message}")


def _first_failing(tokenizer: Any, chunk: list, kwargs: dict[str, Any]) -> int:
    for i, prompt in enumerate(chunk):
        try:
            tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False, **kwargs)
        except Exception:
            return i
    return 0


def percentile(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank percentile of already sorted values (0 for none)."""
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * q // 100))  # ceil(n*q/100), at least 1
    return int(sorted_values[int(rank) - 1])
