"""Answers too costly to evaluate, recognised from their text before they reach a worker.

sympy evaluates integer powers and factorials eagerly, so `10^{10^{10^{10}}}` or `9999999!`
would hold a worker until its deadline and be killed there: seconds of a worker for a verdict
known in advance, while sound answers queue behind it. The rule below decides from the text alone,
in one pass, so a sample's verdict is the same whether it is judged alone or among thousands
(docs/verl.md, "Scheduling"). An answer is refused (verdict `timeout`, reason given) when it holds

- a power of numbers whose value has more than `MAX_DIGITS` decimal digits
  (`2^{10^{8}}`, `10^{10^{10}}`, `3^{3^{3^{3}}}`), exponents evaluated the same way (towers);
- a factorial of a number whose value has more than `MAX_DIGITS` digits (`9999999!`, `(10^{100})!`);
- an exponent above `MAX_SYMBOLIC_EXPONENT` on anything that is not a number (`x^{100000}`,
  `(x+1)^{10^{6}}`, `\\sum_{k=1}^{10^{12}}`: a sum's upper limit is read like an exponent;
  `\\exp(x)` is `e^{x}`, so plain-text `exp(10**100)` and `e^{10^{100}}` get one verdict);
- a sum or product of more than `MAX_NESTED_TERMS` terms followed by another `\\sum`, `\\prod` or
  `\\int` (`\\sum_{k=1}^{9000} k^{7} \\cdot \\prod_{j=1}^{40} (x+j)`: the parser makes the second
  part of the first one's body, and sympy evaluates it term by term; it held a worker to its
  deadline while sound answers queued, issue 23).

Measured in a warm worker: `2^{10^{7}}` (3 million digits) 0.18 s, `50000!` 0.15 s, `x^{100000}`
0.56 s; `3^{3^{3^{3}}}` does not finish in 20 s. Sizes are estimated in log10 with floats (an
order-of-magnitude rule; nothing is computed exactly).
"""

from __future__ import annotations

import math
import re

from ..number_text import E_NOTATION, MAX_EXPONENT

MAX_DIGITS = 10_000_000
MAX_SYMBOLIC_EXPONENT = 10_000

_LOG10_E = math.log10(math.e)


class _Refused(Exception):
    def __init__(self, reason: str):
        self.reason = reason


def too_costly(text: str) -> str | None:
    """Why `text` (a normalised answer, at most a few thousand characters) is not worth
    evaluating, or None when it may go to a worker."""
    if "^" not in text and "!" not in text and "\\exp" not in text:
        return None
    nested = _nested_big_operator(text)
    if nested:
        return nested
    try:
        _Parser(text).sequence("")
    except _Refused as refused:
        return refused.reason
    except RecursionError:  # pragma: no cover - answers are depth-limited before this
        return "nested too deeply to estimate"
    return None


class _Parser:
    """One left-to-right pass; every atom's value is log10 of its magnitude when it is a plain
    number (or a power/factorial of plain numbers), else None."""

    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def sequence(self, closer: str) -> float | None:
        """Atoms up to `closer` (or the end); the group's value when it is one numeric atom."""
        values: list[float | None] = []
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch == closer:
                self.i += 1
                break
            if ch in "})]":  # a stray closer of another kind: not ours to balance
                self.i += 1
                values.append(None)
                continue
            value = self.atom()
            if value is _SEPARATOR:
                values.append(None)
                continue
            values.append(self.postfix(value))
        return values[0] if len(values) == 1 else None

    def atom(self):
        text, i = self.text, self.i
        ch = text[i]
        if ch.isdecimal() or (ch == "." and i + 1 < len(text) and text[i + 1].isdecimal()):
            j = i
            while j < len(text) and (text[j].isdecimal() or text[j] == "."):
                j += 1
            self.i = j
            try:
                number = float(text[i:j])
            except ValueError:
                return None
            return math.log10(number) if number > 1 else 0.0
        if ch in "{([":
            self.i += 1
            return self.sequence({"{": "}", "(": ")", "[": "]"}[ch])
        if ch == "\\":
            j = i + 1
            while j < len(text) and text[j].isalpha():
                j += 1
            self.i = max(j, i + 2)
            if text[i:j] == "\\exp" and self.i < len(text) and text[self.i] in "({":
                return _power(None, self.atom())  # `\exp(x)` is `e^{x}`, under the same rule
            return None
        if ch.isalpha():
            self.i += 1
            return None
        self.i += 1
        return _SEPARATOR

    def postfix(self, value: float | None) -> float | None:
        text = self.text
        while self.i < len(text):
            ch = text[self.i]
            if ch == "!":
                self.i += 1
                value = _factorial(value)
            elif ch == "_":
                self.i += 1
                if self.i < len(text):
                    self.single()
                value = None
            elif ch == "^":
                self.i += 1
                if self.i >= len(text):
                    return None
                value = _power(value, self.single())
            else:
                break
        return value

    def single(self) -> float | None:
        """An exponent or subscript: a group, or one character (one digit: `2^10` is 2^1 then 0)."""
        text, i = self.text, self.i
        ch = text[i]
        if ch in "{(":
            return self.atom()
        if ch.isdecimal():  # a decimal digit; `²` is a digit to `isdigit` but no number to `int`
            self.i += 1
            return 0.0 if ch in "01" else math.log10(int(ch))
        value = self.atom()
        return None if value is _SEPARATOR else value


_SEPARATOR = object()

MAX_NESTED_TERMS = 1000
_BIG_OPERATOR = re.compile(r"\\(sum|prod)(?![a-zA-Z])\s*_\s*\{[^{}]*\}\s*\^\s*\{?\s*(\d+)")
_INNER_OPERATOR = re.compile(r"\\(?:sum|prod|int)(?![a-zA-Z])")


def _nested_big_operator(text: str) -> str | None:
    """A sum or product of more than MAX_NESTED_TERMS terms with another big operator after it."""
    for m in _BIG_OPERATOR.finditer(text):
        terms = int(m.group(2)[:12])
        if terms > MAX_NESTED_TERMS and _INNER_OPERATOR.search(text, m.end()):
            return (f"a \\{m.group(1)} of {terms:,} terms over another sum, product or integral "
                    f"(limit {MAX_NESTED_TERMS:,} terms)")
    return None


def _power(base: float | None, exponent: float | None) -> float | None:
    if exponent is None:
        return None
    size = 10.0 ** exponent if exponent < 300 else math.inf  # the exponent's value
    if base is None:
        if size > MAX_SYMBOLIC_EXPONENT:
            raise _Refused(f"exponent of about 10^{exponent:.0f} on a non-number (limit {MAX_SYMBOLIC_EXPONENT})")
        return None
    digits = size * base
    if digits > MAX_DIGITS:
        raise _Refused(f"a power of about {_magnitude(digits)} digits (limit {MAX_DIGITS:,})")
    return digits


def _factorial(value: float | None) -> float | None:
    if value is None:
        return None
    n = 10.0 ** value if value < 300 else math.inf
    digits = n * max(value - _LOG10_E, 0.0) if n > 2 else 0.0
    if digits > MAX_DIGITS or math.isnan(digits):
        raise _Refused(f"a factorial of about {_magnitude(digits)} digits (limit {MAX_DIGITS:,})")
    return digits


def _magnitude(digits: float) -> str:
    if math.isinf(digits) or math.isnan(digits):
        return "10^300+"
    return f"10^{math.log10(max(digits, 1.0)):.0f}"


MAX_WRITTEN_CHARS = 2000
"""The most characters an answer may take once its e-notation numbers are written out. normalize
writes `1e-999` as its exact 1,001-character decimal, so a 1,000-character answer of `1e-999+...`
became a 142,283-character `pred` that a regex then backtracked over for 2 s, holding the GIL
(issue 23). Decided from the text before anything is written out; one `1e-999` still fits."""

_E_NUMBER = re.compile(E_NOTATION)


def written_size(text: str) -> int:
    """The length of `text` with every e-notation number written out as an exact decimal (an
    upper bound: the exponent's digits plus the mantissa's, for each), computed from the text."""
    if "e" not in text and "E" not in text:
        return len(text)
    size = len(text)
    for m in _E_NUMBER.finditer(text):
        mantissa, _, exponent = m.group(0).lower().partition("e")
        power = int(exponent.lstrip("+-")[:7] or 0)
        if power <= MAX_EXPONENT:  # larger ones stay as written (number_text.number_value)
            size += power + len(mantissa) + 2 - len(m.group(0))
    return size
