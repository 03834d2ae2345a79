"""verl's Hydra overrides as data: one `key=value` per entry, in launch-script order.

verl is configured entirely by Hydra overrides on `ppo_trainer.yaml`; the launcher keeps them as an
ordered list (preset values first, then the launcher's own wiring, then the user's) in which a key
appears once: a later value for the same key replaces the earlier one in place, so the printed
command reads like a published launch script and the last word is always the user's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

# Unquoted Hydra strings may hold these; anything else is single-quoted.
_PLAIN = re.compile(r"^[A-Za-z0-9_./:@+\-]+$")
# Text Hydra would read as a number, bool or null unless quoted.
_TYPED = re.compile(r"^([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|true|false|null|none|inf|nan)$", re.IGNORECASE)
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*(\.[A-Za-z0-9_\-@]+)*$")


class OverrideError(ValueError):
    """An override the user typed is not `key=value` (one sentence)."""


@dataclass(frozen=True)
class Override:
    key: str            # dotted key without Hydra's + / ++ / ~ prefix
    value: str | None   # Hydra value text; None for a deletion (~key)
    prefix: str = ""    # "", "+" (add a key verl's config lacks), "++" (add or replace), "~" (delete)
    source: str = "preset"

    @property
    def text(self) -> str:
        if self.prefix == "~":
            return f"~{self.key}" + (f"={self.value}" if self.value is not None else "")
        return f"{self.prefix}{self.key}={self.value}"


def hydra_value(value: Any) -> str:
    """Write a Python/YAML value in Hydra's override grammar."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{hydra_value(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if _PLAIN.match(text) and not _TYPED.match(text):
        return text
    # Hydra quoted strings: a quote is escaped, and so are backslashes right before a quote or the end.
    body = re.sub(r"(\\*)('|$)", lambda m: m.group(1) * 2 + ("\\'" if m.group(2) else ""), text)
    return "'" + body + "'"


def parse_override(text: str, source: str = "cli") -> Override:
    """`key=value`, `+key=value`, `++key=value` or `~key` exactly as verl's command line takes them."""
    prefix = next((p for p in ("++", "+", "~") if text.startswith(p)), "")
    body = text[len(prefix):]
    key, sep, value = body.partition("=")
    if not sep and prefix != "~":
        raise OverrideError(f"{text!r} is not an override: write key=value, as in verl (e.g. data.train_batch_size=64)")
    key = key.strip()
    if not _KEY.match(key):
        raise OverrideError(f"{key!r} in {text!r} is not a dotted config key such as actor_rollout_ref.rollout.n")
    return Override(key, value if sep else None, prefix, source)


class OverrideList:
    """Ordered overrides, one per key; `set` replaces a key's earlier value where it stood."""

    def __init__(self, items: Iterable[Override] = ()):
        self._items: dict[str, Override] = {}
        for item in items:
            self.set(item)

    def set(self, item: Override) -> None:
        previous = self._items.get(item.key)
        if previous is not None and item.prefix in ("", "++") and previous.prefix == "+":
            # The key is being added by an earlier entry: keep it an addition.
            item = Override(item.key, item.value, "+", item.source)
        self._items[item.key] = item

    def get(self, key: str) -> Override | None:
        return self._items.get(key)

    def __iter__(self) -> Iterator[Override]:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def texts(self) -> list[str]:
        return [item.text for item in self]
