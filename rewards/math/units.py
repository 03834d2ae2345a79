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
_TOKEN = re.compile(r"[A-Za-z]+|\^\s*\{?\s*([23])\s*\}?|/")


def fold(text: str) -> str | None:
    """One spelling of the unit that `text` names (`\\text{ square centimeters}` -> `cm^2`,
    `\\text{ m}/\\text{s}` -> `m/s`); None when it names none. Case is kept for symbols of one or
    two letters (`mm` is not `Mm`) and dropped for words."""
    parts: list[str] = []
    power = 0
    for token in _TOKEN.finditer(text.replace("\\text", " ")):
        word = token.group(0)
        if token.group(1):
            if parts:
                parts[-1] += "^" + token.group(1)
        elif word == "/":
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
    """Several marks of one answer (`45^\\circ` then `feet`) as one unit; None when there are none."""
    present = [u for u in units if u]
    return " ".join(present) or None


def contradict(pred_unit: str | None, gold_unit: str | None) -> bool:
    """Both answers name a unit and the units differ: the answer is wrong whatever its number.
    A unit on one side only contradicts nothing (`5 cm` answers a bare `5`)."""
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
