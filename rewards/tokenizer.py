"""The one tokenizer loader: shaping counts response tokens with it, `rewards validate` prompt tokens.

`transformers` is imported here and only when a tokenizer is actually asked for (it costs seconds).
Loading failures become one-sentence `TokenizerError`s that name the path.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from .forksafe import ForkSafeLock
from .hub import OFFLINE_HINT, hub_unreachable


class TokenizerError(ValueError):
    """The tokenizer cannot be loaded, or lacks the chat template the caller needs."""


def load_tokenizer(path_or_tokenizer: Any, *, chat_template: bool = False) -> Any:
    """A tokenizer from a local folder (or a hub name already in the local cache), or the object given.

    With `chat_template=True` a tokenizer without one is refused: verl applies it to every prompt.
    """
    tok = _load(path_or_tokenizer) if isinstance(path_or_tokenizer, str) else path_or_tokenizer
    if chat_template and not getattr(tok, "chat_template", None):
        raise TokenizerError(f"the tokenizer at {path_or_tokenizer!r} has no chat template; verl applies "
                             "one to every prompt, so lengths cannot be measured")
    return tok


_loading = ForkSafeLock()


def cached_tokenizer(path: str) -> Any:
    """`load_tokenizer(path)`, loaded once per process (shaping asks for it on every sample).

    Under a lock: verl's reward threads all ask at once on the first batch, and `lru_cache` would
    let each of them import transformers and load the files concurrently (a lazy-import race)."""
    with _loading:
        return _cached(path)


@lru_cache(maxsize=4)
def _cached(path: str) -> Any:
    return _load(path)


def _load(path: str) -> Any:
    try:
        from transformers import AutoTokenizer  # heavy: only when a tokenizer is asked for
    except ModuleNotFoundError as exc:  # the core install has no transformers (it comes with verl)
        if exc.name != "transformers":
            raise
        raise TokenizerError(f"cannot load a tokenizer from {path!r}: counting tokens needs transformers "
                             "(pip install transformers, or the `verl` extra)") from None

    if path.startswith((".", "/", "~")) and not Path(path).expanduser().is_dir():
        raise TokenizerError(f"cannot load a tokenizer from {path!r}: no such folder")
    offline = None if Path(path).expanduser().is_dir() else hub_unreachable()
    try:
        # The hub unreachable: the local cache only, at once (the hub client retries for ~50 s otherwise).
        return AutoTokenizer.from_pretrained(path, **({"local_files_only": True} if offline else {}))
    except Exception as exc:  # OSError, ValueError, missing files: one sentence for the user
        text = str(exc).strip()
        reason = text.splitlines()[0][:300] if text else type(exc).__name__
        if offline:
            reason = f"it is not in the local cache and the hub is unreachable ({offline}); {OFFLINE_HINT} once it is"
        raise TokenizerError(f"cannot load a tokenizer from {path!r}: {reason}") from exc
