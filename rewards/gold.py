"""Gold answers as text: every scalar a verl row can carry becomes one canonical spelling, once.

Why here and not in each scorer: parquet and pandas hand the reward function `np.int64(5)`,
`np.float64(5.0)`, 0-d arrays or Python floats where the dataset had a number, and `str()` of
those is the wrong spelling (`1e+20` reads as 1*e + 20, `str()` of a 5,000-digit int raises).
So the scoring entry turns each into the exact decimal it stands for before any scorer sees it:

| gold | text |
|---|---|
| `str`, `np.str_` | unchanged |
| `int`, `np.int64`, 0-d integer array | its decimal digits, at any length |
| `float`, `np.float64`, `np.float32` | the shortest decimal that round-trips at its own precision, without exponent: `1e20` -> `100000000000000000000`, `3.3e-06` -> `0.0000033`, `5.0` -> `5` |
| `Decimal` | its exact value without exponent |
| `Fraction` | `p/q` (`p` when q = 1) |
| `bool`, `np.bool_` | refused: `True` is no answer, and 1/0 would pay silently |
| NaN, infinity, more than `MAX_GOLD_CHARS` digits | refused |

Anything else (None, lists, dicts) is passed through unchanged for the scorer to judge. numpy is
never imported: its types are recognised by their module name and unwrapped with `.item()`.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from fractions import Fraction
from typing import Any

log = logging.getLogger("rewards")

MAX_GOLD_CHARS = 100_000
"""Longer numbers are refused before they are spelled out (`Decimal('1e999999999')` would be a
gigabyte); every scorer refuses far shorter answers anyway."""


class UnusableGold(ValueError):
    """The gold is of a type or value that names no answer; the sample's verdict is `unparsable_gold`."""


def canonical_gold(value: Any) -> Any:
    """The gold as canonical text (see the table above), or `value` unchanged when it is not a
    scalar we know. Raises UnusableGold for booleans, NaN, infinities and oversized numbers."""
    value = _unwrap_numpy(value)
    if isinstance(value, str):
        return value if type(value) is str else str(value)
    if isinstance(value, bool):
        raise UnusableGold(f"gold is the boolean {value!r}, not an answer (check the dataset's "
                           "ground_truth column)")
    if isinstance(value, int):
        return _integer_text(value)
    if isinstance(value, Fraction):
        top = _integer_text(value.numerator)
        return top if value.denominator == 1 else f"{top}/{_integer_text(value.denominator)}"
    if isinstance(value, float):
        return _decimal_text(Decimal(repr(value)), value)
    if isinstance(value, Decimal):
        return _decimal_text(value, value)
    return value


def _unwrap_numpy(value: Any) -> Any:
    """A numpy scalar or 0-d array as the Python scalar it holds; anything else unchanged."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        dtype = getattr(value, "dtype", None)
        if getattr(dtype, "kind", "") == "f" and dtype.itemsize < 8:
            # float32/float16: the shortest decimal at the gold's own precision; widening to a
            # Python float first would spell np.float32(0.1) as 0.10000000149011612.
            return Decimal(str(value))
        try:
            return value.item()
        except (AttributeError, ValueError, TypeError):
            return value
    return value


def _integer_text(n: int) -> str:
    if n.bit_length() * 0.30103 > MAX_GOLD_CHARS + 1:  # decimal digits, to within one
        raise UnusableGold(f"gold integer has more than {MAX_GOLD_CHARS} digits")
    try:
        return str(n)
    except ValueError:  # past Python's int-to-str digit limit (4,300): decimal has none
        return format(Decimal(n), "f")


def _decimal_text(number: Decimal, shown: Any) -> str:
    """Exact fixed-point text, trailing zeros dropped (no `normalize()`: it rounds to the
    context's 28 digits)."""
    if not number.is_finite():
        raise UnusableGold(f"gold is {shown!r}, not a finite number")
    sign, digits, exponent = number.as_tuple()
    if len(digits) + abs(exponent) > MAX_GOLD_CHARS:
        raise UnusableGold(f"gold number {shown!r} has more than {MAX_GOLD_CHARS} digits written out")
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text.lstrip("-") in ("0", "") else text


_refused: set[str] = set()


def refusal_logged(exc: UnusableGold, data_source: str) -> str:
    """The refusal's message, logged once per kind of refusal (a dataset repeats its mistake on
    every row; one line says it)."""
    message = str(exc)
    kind = f"{data_source}:{message.split(' ', 3)[:3]}"
    if kind not in _refused:
        _refused.add(kind)
        log.warning("rewards: %s: %s; such samples are `unparsable_gold` (reward 0)", data_source, message)
    return message
