"""The scoring-settings flags shared by `score`, `probe` and `report`: one table, one way.

Each flag maps to the rewards.settings field of the same name (dashes for underscores); an unset
flag leaves the data_source's registered default in force.
"""

from __future__ import annotations

import re
from typing import Any


def _flags() -> list[tuple[str, dict[str, Any]]]:
    from rewards.format import FORMAT_MODES, FORMAT_RULES, THINK_PREFILLED
    from rewards.settings import GSM8K_MODES, LENGTH_UNITS

    return [
        ("gsm8k_mode", dict(flag="--mode", choices=GSM8K_MODES, help="GSM8K answer extraction mode")),
        ("timeout", dict(type=float, help="per-sample budget for a symbolic check, in seconds of its own CPU time (default 5)")),
        ("format_rule", dict(choices=FORMAT_RULES, help="format the response must follow")),
        ("format_weight", dict(type=float, help="w in score = (1-w)*acc + w*format, 0..0.5")),
        ("format_mode", dict(choices=FORMAT_MODES, help="strict (default) or lenient format check")),
        ("think_prefilled", dict(choices=THINK_PREFILLED, help="the chat template opened <think> itself")),
        ("max_resp_len", dict(type=int, help="maximum response length (verl's data.max_response_length)")),
        ("overlong_buffer_len", dict(type=int, help="DAPO soft overlong buffer length (0: off)")),
        ("overlong_penalty_factor", dict(type=float, help="DAPO overlong penalty at max-resp-len")),
        ("length_penalty", dict(type=float, help="linear length penalty coefficient (0: off)")),
        ("repetition_penalty", dict(type=float, help="penalty for a fully repeated response (0: off)")),
        ("repetition_ngram", dict(type=int, help="word n-gram size for the repetition share")),
        ("length_unit", dict(choices=LENGTH_UNITS, help="count response length in tokens or chars")),
        ("length_tokenizer", dict(help="tokenizer path to count response tokens")),
        ("verdict_keys", dict(action="store_const", const=True,
                              help="add one 0/1 key per failure verdict (verdict_timeout, ...) to each result")),
    ]


def add_settings_flags(parser) -> None:
    """Add every scoring-settings flag to `parser`, in one argument group."""
    group = parser.add_argument_group(
        "scoring settings (unset: the data_source's defaults; see docs/scoring-policy.md)")
    for name, spec in _flags():
        spec = dict(spec)
        flag = spec.pop("flag", "--" + name.replace("_", "-"))
        group.add_argument(flag, dest=name, **spec)


def flag_words(message: str) -> str:
    """A rewards.settings message as the command line spells it: `format_weight` -> `--format-weight`
    (the library names its keyword arguments, which a CLI user never typed)."""
    for name, spec in _flags():
        flag = spec.get("flag", "--" + name.replace("_", "-"))
        message = re.sub(rf"(?<![\w-]){name}(?![\w-])", flag, message)
    return message


def settings_from(args) -> dict[str, Any]:
    """The settings given on the command line, as compute_score keyword arguments; a
    --length-tokenizer is loaded here, so that a bad path is one line before any row is scored."""
    settings = {name: getattr(args, name, None) for name, _ in _flags()}
    if settings["length_tokenizer"]:
        load_length_tokenizer(settings["length_tokenizer"])
    return settings


def load_length_tokenizer(path: str) -> None:
    """Load (and keep, for the scorers) the tokenizer that counts response tokens, in this thread:
    a path that cannot be loaded is a usage error, not an exception in the middle of scoring."""
    from rewards.tokenizer import TokenizerError, cached_tokenizer

    from .errors import CommandError

    try:
        cached_tokenizer(path)
    except TokenizerError as exc:
        raise CommandError(f"--length-tokenizer: {exc}") from None
