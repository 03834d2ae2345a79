"""Units as an answer names them, folded to one spelling, so two answers that name units can be
told apart: `5\\text{ m}` is not `5\\text{ km}`, `5\\text{ cm}^2` is not `5\\text{ cm}`, `\\$5` is not `5\\%`.

`normalize` strips units (a bare gold `5` is answered by `5 cm`); what it strips it hands to `fold`,
and the scorer compares the two answers' folded units with `contradict`. Only spellings are folded
(`cm`, `\\text{cm}`, `centimeters`; `square cm` is `cm^2`); nothing is converted (`500 cm` vs `5 m`
is two different units, so wrong).
"""

from __future__ import annotations

import re

DOLLAR = "$"
PERCENT = "%"
DEGREE = "deg"
UNVERIFIED = "?"
"""Marks a unit read from words the reader cannot place (`0.3\\text{ repeating}`): it is paid only
where the gold names the same words (see `contradict`)."""

_SPELLINGS = {
    DOLLAR: "dollar dollars usd buck bucks",
    "cent": "cent cents",
    "euro": "euro euros eur",
    "yen": "yen jpy",
    "rupee": "rupee rupees inr rs",
    PERCENT: "percent percents percentage percentages pct",
    DEGREE: "degree degrees deg degs",
    "degC": "degC celsius centigrade",
    "degF": "degF fahrenheit",
    "rad": "radian radians rad rads",
    "mm": "mm millimeter millimeters millimetre millimetres",
    "cm": "cm centimeter centimeters centimetre centimetres",
    "m": "m meter meters metre metres",
    "km": "km kilometer kilometers kilometre kilometres",
    "in": "in inch inches",
    "ft": "ft foot feet",
    "yd": "yd yard yards",
    "mi": "mi mile miles",
    "mg": "mg milligram milligrams",
    "g": "g gram grams gramme grammes",
    "kg": "kg kilogram kilograms kilo kilos",
    "lb": "lb lbs pound pounds",
    "oz": "oz ounce ounces",
    "mL": "ml mL milliliter milliliters millilitre millilitres",
    "L": "l L liter liters litre litres",
    "gal": "gal gallon gallons",
    "s": "s sec secs second seconds",
    "min": "min mins minute minutes",
    "h": "h hr hrs hour hours",
    "day": "day days",
    "week": "wk wks week weeks",
    "month": "month months",
    "year": "yr yrs year years",
    "mi/h": "mph",
    "km/h": "kph kmh",
    "person": "person persons people",
    "unit": "unit units",
}
_CANONICAL = {spelling: name for name, spellings in _SPELLINGS.items() for spelling in spellings.split()}
_POWER_WORDS = {"square": 2, "sq": 2, "cubic": 3, "cu": 3}
_PER_CENT = re.compile(r"(?i)\bper\s+cent\b")
_TOKEN = re.compile(r"[A-Za-z]+|\^\s*\{?\s*([23])\s*\}?|/")


def fold(text: str) -> str | None:
    """One spelling of the unit that `text` names (`\\text{ square centimeters}` -> `cm^2`,
    `\\text{ m}/\\text{s}` -> `m/s`); None when it names none. Case is kept for symbols of one or
    two letters (`mm` is not `Mm`) and dropped for words."""
    parts: list[str] = []
    power = 0
    for token in _TOKEN.finditer(_PER_CENT.sub("percent", text.replace("\\text", " "))):
        word = token.group(0)
        if token.group(1):
            if parts:
                parts[-1] += "^" + token.group(1)
        elif word == "/" or word.lower() == "per":   # `miles per hour` is `mi/h`
            parts.append("/")
        elif word.lower() in _POWER_WORDS:
            power = _POWER_WORDS[word.lower()]
        else:
            name = _CANONICAL.get(word) or (word if len(word) < 3 else
                                            _CANONICAL.get(word.lower()) or _singular(word.lower()))
            parts.append(name + (f"^{power}" if power else ""))
            power = 0
    named = " ".join(parts).replace(" / ", "/").replace(f"{DEGREE} degC", "degC").replace(f"{DEGREE} degF", "degF")
    return named or None


def joined(*units: str | None) -> str | None:
    """Several marks of one answer (`45^\\circ` then `feet`) as one unit; None when there are none.
    One unverified mark makes the whole unit unverified."""
    present = [u for u in units if u]
    if not present:
        return None
    unverified = any(u.startswith(UNVERIFIED) for u in present)
    named = " ".join(u.lstrip(UNVERIFIED) for u in present)
    return UNVERIFIED + named if unverified else named


def contradict(pred_unit: str | None, gold_unit: str | None) -> bool:
    """Both answers name a unit and the units differ: the answer is wrong whatever its number.
    A unit on one side only contradicts nothing (`5 cm` answers a bare `5`), except words the
    reader could not place after the answer's number (UNVERIFIED): those must be the gold's own
    (`7\\text{ apple}` answers `7 (apples)`, `0.3\\text{ repeating}` does not answer `0.3`)."""
    if pred_unit is not None and pred_unit.startswith(UNVERIFIED):
        return gold_unit is None or pred_unit[1:] != gold_unit.lstrip(UNVERIFIED)
    return pred_unit is not None and gold_unit is not None and pred_unit != gold_unit


def _singular(word: str) -> str:
    """`apples` -> `apple`, `boxes` -> `box`, `pennies` -> `penny`: count nouns in one spelling."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


# --- words after a number: a unit or a counted noun, or a change of its value ----------------------
#
# The rule (docs/scoring-policy.md, MATH): a word after the number is dropped only when the reader
# knows what it is. It knows units (the spellings above, and symbols such as `cm`, `mph`) and counted
# nouns, which English writes in the plural after any number but one (`18 ways`, `4 possible
# numbers`, `12 red balls`): a plural head, modifiers in lower case, and no word that is a number,
# a scale, an ordinal or an operation (`5 thousand`, `5 Millionen`, `5 twelfths`, `5 point five`,
# `5 feet two inches`, `5 squared`). Anything else (`0.3 repeating`, `5 trn`) is not dropped: it
# stays in the answer, which then equals no bare number. A value changed by a scale or joined to a
# second value is what a policy could gain from, so every doubt about those words refuses.

from ..number_text import NUMBER_WORDS  # noqa: E402

_SYMBOLS = frozenset("""
m s g h l L N J W V cm mm km nm um dm kg mg ml mL dL cl ft in yd mi lb lbs oz hr hrs ms ns Hz kW kJ
mA mV Pa eV sq cu pt qt ha ac mph kph kmh min mins sec secs st nd rd th am pm AM PM yr yrs wk mo dB
""".split())
"""Symbols of one to four letters that are units (case counts: `m` is metres, `M` a million), and
the suffixes of an ordinal or a clock time. Any other short word after a number may be a scale (`k`, `bn`)."""
_OPERATIONS = frozenset("""
squared cubed times plus minus over divided multiplied factorial point and or by add added subtract
subtracted divide power root sqrt mod modulo negative inverse reciprocal half halves
quarter quarters dozen dozens
""".split())
"""Words that make the number before them another value or join a second one (`5 squared`, `5 or 6`)."""
_ORDINALS = frozenset("first second third fifth eighth ninth twelfth".split())
# Scale words of the languages models write that no list holds (`millón`, `Millionen`, `miliardo`,
# `miljoen`, `septillion`): the stem they share.
_SCALE_STEM = re.compile(r"(?i)il{1,2}i?(?:on|ón|ard|jard)|iljo|illi")
_IRREGULAR_PLURALS = frozenset("people feet children men women teeth mice geese sheep fish deer series species".split())
_PHRASE_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][a-z]+)?|\d|[^\w\s]")
MAX_PHRASE_WORDS = 5


def number_word(word: str) -> bool:
    """A number, scale, ordinal or fraction word, singular or plural (`five`, `thousands`, `twelfths`,
    `thirds`, `twentieth`, `Millionen`)."""
    w = word.lower()
    stems = {w, w[:-1] if w.endswith("s") else w, w[:-3] + "y" if w.endswith("ies") else w}
    for s in stems:
        if s in NUMBER_WORDS or s in _ORDINALS:
            return True
        if s.endswith("th") and (s[:-2] in NUMBER_WORDS or s[:-4] + "y" in NUMBER_WORDS or s[:-2] + "e" in NUMBER_WORDS):
            return True   # `seventh`, `twentieth`, `ninth` (nine), `hundredth`
    return bool(_SCALE_STEM.search(w))


def changes_value(word: str, prose: bool = False) -> bool:
    """A word after a number that makes it another value (`thousand`, `squared`, `thirds`, `k`).
    In `prose` after a formula only number words and arithmetic count: `5 times`, `5 quarters`
    and `5 or` read as prose there (rewards.prose reads what joins a second value)."""
    if not word.isascii():
        return True   # `5 万`, `5 años`: a script we cannot read
    low = word.lower()
    return (number_word(word) or low in (_ARITHMETIC if prose else _OPERATIONS | _SCALED) or
            (len(word) <= 2 and word not in _SYMBOLS and low not in SHORT_WORDS))


_SCALED = frozenset("""
halved doubled tripled quadrupled quintupled squared cubed negated inverted reciprocated multiplied divided
""".split())
"""Operations done to the number before them (`$\\boxed{5}$ halved`, `\\text{ tripled}`)."""
def scales(word: str) -> bool:
    """An operation done to the number before it (`halved`, `doubled`, `squared`)."""
    return word.lower() in _SCALED


_ARITHMETIC = frozenset("factorial plus minus point".split()) | _SCALED
SHORT_WORDS = frozenset("a an is it of in on at to so as we be if or by up no do go he me my us i".split())
"""Words of one or two letters that are English, not a scale (`5 k`, `5 bn`)."""


def changes_value_words(text: str) -> bool:
    """Any word of `text` (a `\\text{}` after an answer) changes the value or joins another; a digit too."""
    return any(c.isdigit() for c in text) or any(changes_value(w) for w in _WORD_RUN.findall(text))


_WORD_RUN = re.compile(r"[^\W\d_]+")


def is_unit_symbol(word: str) -> bool:
    """`cm`, `km`, `mph`: a unit written as letters in math after a number."""
    return word in _SYMBOLS or word in _CANONICAL


def known_unit(word: str) -> bool:
    """A unit the reader knows, in any of its spellings (`cm`, `centimeters`, `sq`, `cubic`)."""
    if len(word) <= 2:
        return word in _SYMBOLS or word in _CANONICAL   # case counts: `M` is no metre
    return (word in _SYMBOLS or word in _CANONICAL or word.lower() in _CANONICAL
            or word.lower() in _POWER_WORDS or _singular(word.lower()) in _CANONICAL)


def counted_phrase(text: str, one: bool = False) -> bool:
    """Whether `text`, the words after a number, name only its unit or what it counts (see the rule
    above): `cm`, `square units`, `ways`, `possible numbers`, `miles per hour`, `years old`. After
    the number one (`one`) a singular noun counts too (`1 way`)."""
    words = _PHRASE_WORD.findall(text)
    if not words or any(not w[0].isalpha() and w not in "/()'.-" for w in words):
        return False   # a digit or an operator: a second value
    words = [w for w in words if w[0].isalpha()]
    if not words or len(words) > MAX_PHRASE_WORDS or any(changes_value(w) and not known_unit(w) for w in words):
        return False
    if "per" in (low := [w.lower() for w in words]):
        cut = low.index("per")
        head_part, rate = words[:cut], words[cut + 1:]
        if not rate or len(rate) > 2 or any(not (known_unit(w) or w.islower()) for w in rate):
            return False
        words = head_part or rate
    if all(known_unit(w) for w in words):
        return True
    nouns = [w for w in words if known_unit(w) or _plural(w) or (one and w.islower())]
    return bool(nouns) and all(w in nouns or w.islower() for w in words)


def _plural(word: str) -> bool:
    w = word.lower()
    return w in _IRREGULAR_PLURALS or (len(w) > 3 and word.islower() and w.endswith("s")
                                       and not w.endswith(("ss", "us", "is")))
