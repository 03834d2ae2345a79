"""Exact numbers in plain text: find them, parse them as rationals, print them canonically.

Answers are compared as `Fraction`s, never floats: `0.1 + 0.2` style rounding can neither make a
wrong answer right nor a right one wrong. Thousands separators (`1,080`, `1{,}080`, `1\\,080`),
currency signs, percent signs and a trailing period are presentation, not value; e-notation
(`3.3e-06`) is a number.
"""

from __future__ import annotations

import re
from fractions import Fraction

_SEP = r"(?:,|\{,\}|\\,|\u2009|\u202f)"          # comma, LaTeX {,} and \, , thin spaces
_INT = rf"(?:[1-9]\d{{0,2}}(?:{_SEP}\d{{3}})+(?!\d)|\d+)"  # `0,111` is no thousands
_SIGN = r"[-+\u2212]?"
# e-notation (`3.3365e-06`, `1e-10`): a decimal mantissa, or an exponent of two digits or more, so
# that `2e-1` (two e minus one, in a MATH answer) is not read as 0.2.
E_NOTATION = r"(?:(?:\d+\.\d+|\.\d+)[eE][-+]?\d+|\d+[eE][-+]?\d{2,})"
# A number token: e-notation, or a signed integer with optional separators, decimal part or integer fraction.
NUMBER = rf"{_SIGN}(?:{E_NOTATION}|{_INT}(?:\.\d+)?(?:/\d+)?|\.\d+)"
NUMBER_RE = re.compile(rf"(?<![\w.]){NUMBER}(?![\w])")

_FULL = re.compile(rf"\s*{NUMBER}\s*")
_SEP_RE = re.compile(_SEP)
# Presentation around a number: `$`, `\$`, `%`, `\%`, `**bold**`, a trailing period or comma.
_WRAPPERS = re.compile(r"^(?:\\?\$|\*\*|\s)+|(?:\\?%|\\?\$|\*\*|[.,;:!]|\s)+$")

MAX_DIGITS = 4000  # longer "numbers" are not answers; refusing them bounds Fraction's work
MAX_EXPONENT = 1000  # e-notation beyond 10^±1000 is no answer either (and bounds the same work)
_POWER_OF_TEN = re.compile(r"[eE]([-+]?\d+)$")


def parse_number(text: str) -> Fraction | None:
    """The exact value of a lone number in `text`, or None when `text` is not just a number."""
    if len(text) > MAX_DIGITS:
        return None
    core = _WRAPPERS.sub("", text.strip())
    if not core or not _FULL.fullmatch(core):
        return None
    return number_value(core)


def number_value(token: str) -> Fraction | None:
    """The value of one NUMBER token (separators allowed); None for a zero denominator or an
    exponent beyond MAX_EXPONENT (`1e9999999` took Fraction 8 s and 4 MB)."""
    plain = _SEP_RE.sub("", token.strip()).replace("\u2212", "-")
    power = _POWER_OF_TEN.search(plain)
    if power and (len(power.group(1)) > 6 or abs(int(power.group(1))) > MAX_EXPONENT):
        return None
    try:
        return Fraction(plain)
    except (ValueError, ZeroDivisionError):
        return None


DENIALS = frozenset("""
erroneous erroneously error false hardly incorrect incorrectly mistake mistaken mistakenly neither
never no nobody non none nope nor not nothing untrue wrong wrongly
""".split())
"""Words that deny a statement (`7 is wrong`, `7 (incorrect)`, `7 nope`): in VALUE_WORDS, so a word after
a value that takes it back is never read as a unit. Before an answer, rewards.prose reads a denial by
where it stands (the verb group that leads to the answer, a clause above it), not by this list."""

SCALE_WORDS = frozenset("""
arab billion billions bln bn crore crores dozen dozens googol gross grand hundred hundreds kharab
lac lacs lakh lakhs mil milliard milliards million millions mille mila miljoen millones mio mln mrd
myriad myriads quadrillion quintillion score scores sextillion thou thousand thousands trillion
trillions tausend tsd duizend hazar hazaar wan qian zillion gazillion pair pairs couple couples
""".split())
"""Words that multiply the number before them, in the languages models write (`7 thousand`,
`7 lakh`, `7 myriad`, `4 score`, `7 mio`), and nouns that count groups (`7 pairs` are 14 items
where the question counts items). The list is needed only for the words that have no form of their
own: rewards.prose finds the rest by their form (number words in every form, `-illion` and
`-illiard` words in any language, an abbreviation it does not know as a unit, a singular word where
a count of things would be plural), and refuses a word of this list anywhere on an answer's line."""

NUMBER_WORDS = frozenset("""
zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fourty fifty sixty seventy eighty ninety
""".split()) | SCALE_WORDS
"""Spelled numbers: after a number they add a second quantity (`7 feet two inches`, `7 dollars
and twenty cents`)."""

VALUE_WORDS = DENIALS | SCALE_WORDS | frozenset("""
above almost approx approximately below cubed divided double eighth eighths estimate estimated
factorial fewer fifth fifths fourth fourths giga greater half halves hundredth hundredths inverse
ish kilo larger least less maximum mega micro milli millionth millionths minimum minus more most multiplied
nano nearly negated negative ninth ninths opposite or over plus plusminus quarter quarters
reciprocal roughly rounded seventh sevenths sixth sixths smaller squared ten tens tenth tenths tera
third thirds thousandth thousandths thrice through times to triple twice under
""".split())
"""Words after a number that change its value or take it back (`5 thousand`, `5 squared`, `5 or 6`,
`5 (wrong)`): a reader that skips words after a number never skips these."""


APPROXIMATION_DIGITS = 12
APPROXIMATION_PLACES = 10
"""A gold decimal with this many significant digits and decimal places or more is an approximation (a
computed float). With fewer places it is an exact decimal however long: `12345678901.2` is not
answered by `12345678901+\\frac16`."""
_LONG_DECIMAL = re.compile(r"-?(\d+)\.(\d+)")
_HAS_LONG_DECIMAL = re.compile(r"\d*\.\d+")


def approximation_digits(gold: str) -> tuple[int, int] | None:
    """(significant digits, decimal places) of a gold written as a long decimal
    (`4.123105625617661`), else None."""
    m = _LONG_DECIMAL.fullmatch(gold)
    if not m:
        return None
    significant = len((m.group(1) + m.group(2)).lstrip("0"))
    places = len(m.group(2))
    return (significant, places) if significant >= APPROXIMATION_DIGITS and places >= APPROXIMATION_PLACES else None


def holds_approximation(gold: str) -> bool:
    """Does any number in `gold` (a list, a tuple, an interval) read as an approximation?"""
    return any(approximation_digits(m.group(0)) for m in _HAS_LONG_DECIMAL.finditer(gold))


def last_number(text: str) -> str | None:
    """The last number token in free text, or None."""
    last = None
    for last in NUMBER_RE.finditer(text):
        pass
    return last.group(0) if last else None


def format_number(value: Fraction) -> str:
    """Canonical text: `1080`, `-2.5`, `1/3` (a terminating decimal when there is one)."""
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    digits = 0
    scaled = value
    while scaled.denominator != 1:
        scaled *= 10
        digits += 1
    sign = "-" if scaled < 0 else ""
    whole = str(abs(scaled.numerator)).rjust(digits + 1, "0")
    return f"{sign}{whole[:-digits]}.{whole[-digits:]}"
