"""One canonical spelling for a MATH answer, so that most equal answers are equal strings.

Only presentation is removed: math delimiters, `\\left`/`\\right`, spacing commands, `\\dfrac`,
`\\text{}` wrappers, units and degree signs, thousands separators, `$`, percent signs, a trailing
period. Nothing that changes a value is rewritten: `50\\%` becomes `50` (never `0.5`), and a decimal
stays a decimal. Spellings other readers disagree on are written the one way they mean: e-notation
as its exact decimal, plain-text math (`sqrt(2)`, `pi/3`, `exp(2)`, `**`: see plain_math) and Unicode
math (`√27`, `3½`, `x²`: see unicode_math) as LaTeX,
degree-minute-second angles as degrees, `x_1` as `x_{1}`. The result is `pred` in the scorer's
result and the input of every comparison.
What is stripped as a unit (a unit word, `\\text{}` unit, `\\$`, `\\%`, a trailing degree sign) is read
on the way out by `read_answer`, in one spelling (`units.fold`), so that the scorer can refuse two
answers whose units contradict (`5\\text{ m}` against `5\\text{ km}`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from ..number_text import E_NOTATION, VALUE_WORDS, format_number, number_value
from ..prose import denied_before
from . import units
from .extract import matching_brace
from .plain_math import plain_math
from .unicode_math import unicode_math

_PLAIN_NUMBER = re.compile(r"-?(?:[1-9]\d{0,2}|0)(?:\.\d*[1-9])?|-?[1-9]\d{3,}")

# Math-mode delimiters and commands that only change how an answer looks.
_DELIMITERS = re.compile(r"\\\$|\$|\\\(|\\\)|\\\[|\\\]")
_SIZING = re.compile(r"\\(?:left|right|[bB]igg?[lr]?|middle)(?![a-zA-Z])\s*\.?")
_STYLE = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle|limits|nolimits|mathstrut|strut)(?![a-zA-Z])")
_FRAC_VARIANTS = re.compile(r"\\[dtc]frac(?![a-zA-Z])")
_TEXT_VARIANTS = re.compile(r"\\(?:textbf|textit|textrm|textup|textsf|textnormal|mathrm|mathbf|mathit|mathsf|mbox|hbox)(?![a-zA-Z])")
_TEXT_OPEN = re.compile(r"\\text\s*\{")
# Text inside `\\text{}` of two letters or more, none in a run of three (`ab`, `is`, `A B C`); a
# comma or semicolon makes a list of its items (`\\text{A, C}` names two choices).
_SHORT_TEXT = re.compile(r"(?=(?:[^A-Za-z]*[A-Za-z]){2})(?!.*[A-Za-z]{3})[A-Za-z .:'()-]+")
# `and`/`or` between inequalities are intersection and union, not a list: the words stay (unread).
_INEQUALITY = re.compile(r"<|>|\\[lg]eq?(?![a-zA-Z])|\\[lg]eqslant")
_CONNECTIVE = re.compile(r"(?<=\S)\s*\\text\{\s*(?:and|or|,)\s*\}(?=\s*[^\s,.;])|(?<=[\s}\d)\]])(?:and|or)(?=[\s\\\d(\[-])")
# A trailing unit in `\text{}` (`5\text{ cm}^2`, `12 \text{ square units}`): the value is what precedes it.
# Compound units (`\text{ m}/\text{s}`, `\text{ km/h}`) and units broken over lines count too.
_UNIT_TEXT = r"\\text\{\s*[A-Za-z][A-Za-z .\s/]*\}(?:\^\{?[23]\}?)?"
_TEXT_UNIT = re.compile(rf"(?<=\S)\s*{_UNIT_TEXT}(?:\s*/\s*{_UNIT_TEXT})*$")
# A unit or object named in parentheses after a number (ASDiv's `9 (apples)`), checked by _unit_words.
_PAREN_UNIT = re.compile(r"(?<=[\d}])\s*\(\s*([A-Za-z][A-Za-z ]+)\)$")
# Words that change or deny the value before them are never a unit: `5\text{ thousand}` is 5000,
# `5\text{ squared}` 25, `5\text{ i}` imaginary, `5 (wrong)` a refusal. A word of one or two
# letters is a unit only when it is a known one (`m`, `cm`), never a variable or a product (`5 (ab)`).
_NOT_UNIT_WORDS = VALUE_WORDS | frozenset("""
abc about and are around at base basis be between beyond binary bound bps but can cannot complex cos
cot csc decimal discard discarded equal equals even except exclude excluded exp exponent extraneous
guess hex if ignore ignored imaginary impossible invalid is isn least ln log lower max maybe mille
min mod modulo most none nope nothing octal odd perhaps permille pi positive power powers ppb
ppm prime reject rejected root sec sin something sqrt tan than undefined unless unsure upper
was when within without
""".split())
_SHORT_UNITS = frozenset("""
m s g h l L N J W V cm mm km nm um dm kg mg ml mL dL cl ft in yd mi lb oz hr ms ns Hz kW kJ mA mV
Pa eV sq cu pt qt ha ac mph
""".split())


def _unit_words(text: str, value: str = "") -> str | None:
    """How the words of a trailing unit read (units.counted_phrase): `known` (a unit, or what the
    number counts), `unknown` (words the reader cannot place: `0.3\\text{ repeating}`), or None
    (a word of _NOT_UNIT_WORDS or one that changes the value: the words stay in the answer).
    `value` is the number before them."""
    words = re.findall(r"[A-Za-z]+", text)
    if not words or any((w.lower() in _NOT_UNIT_WORDS and not (w.lower() in _KINDS and i < len(words) - 1))
                        or (len(w) <= 2 and w not in _SHORT_UNITS) for i, w in enumerate(words)):
        return None
    plain = _UNIT_MARKUP.sub(" ", text)
    if units.counted_phrase(plain, one=value.strip() in ("1", "-1")):
        return "known"
    return None if units.changes_value_words(plain) else "unknown"


_KINDS = frozenset({"positive", "odd", "even", "prime"})
"""Words that name a number's kind: alone they qualify it (`5\\text{ (positive)}`), before what the
number counts they are a modifier (`12\\text{ positive integers}`, `4\\text{ prime numbers}`)."""
_UNIT_MARKUP = re.compile(r"\\text|\^\s*\{?\s*[23]\s*\}?|[{}]")


_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ(?![a-zA-Z])|\\degree(?![a-zA-Z])|\^\{\s*\\text\{\s*o\s*\}\s*\}")
_APPROX = re.compile(r"\s*\\(?:approx|approxeq|thickapprox|sim|simeq|thicksim)(?![a-zA-Z])\s*")
# What bounds a list item: brackets (a set's `\{` `\}` too) and separators; other escapes are skipped.
_ITEM_TOKEN = re.compile(r"\\[{}]|\\.|[()\[\]{},;]")
# (`\pi \approx 3` is pi, approximated: a constant names no unknown.)
_APPROX_LABEL = re.compile(r"(?:^|=)\s*(?:[a-zA-Z]|\\(?!(?:pi|infty)(?![a-zA-Z]))[a-zA-Z]+)(?:_\{?\w+\}?)?\s*$")
# A thousands comma stands between two digits as written: any other comma separates list items
# (`32, 349` is two numbers, not 32349; so is `30^\circ,150^\circ` once its degree signs are gone).
_LIST_COMMA = re.compile(r"(?<![\d{])(?<!\\!),|,(?![\d}]|\\!)")  # `10{,}000`, `10\!,\!000` too
# Words then one math span, in a box (`\boxed{Answer \( 9 \)}`): the span is the answer.
LEAD_IN = r"(?i:the|final|answer|answers|is|are|result|solution|so|thus|hence|therefore|we|get|have|value)"
_PROSE_THEN_MATH = re.compile(rf"(?:{LEAD_IN}[ \t:,]*)+(?:\$\$(.+?)\$\$|\$([^$\n]+)\$|\\\(([^\n]+?)\\\)|\\\[(.+?)\\\])\s*\.?", re.S)
# Any words without a value of their own, then one math span (`The probability is $\frac{3}{5}$.`, an
# `<answer>` tag's sentence): the span is the answer, unless the words deny it (rewards.prose).
_WORDS_THEN_MATH = re.compile(r"(?:[A-Za-z][A-Za-z'\u2019-]*[ \t:,]+)+"
                              r"(?:\$\$(.+?)\$\$|\$([^$\n]+)\$|\\\(([^\n]+?)\\\)|\\\[(.+?)\\\])\s*\.?", re.S)
# e-notation numbers (`3.3365e-06`) are written out exactly (`0.0000033365`), so every reader agrees.
_E_NUMBER = re.compile(rf"(?<![\w.\\]){E_NOTATION}(?![\w.])")
_SPACED_THOUSANDS = re.compile(r"-?\d{1,3}(?: \d{3})+(?:\.\d+)?")
# `x_1` is `x_{1}`: one spelling of a one-character subscript.
_SHORT_SUBSCRIPT = re.compile(r"_([A-Za-z0-9])")
# A doubled backslash before a command (`-2 \\le x`, an escaping slip) is that command, outside environments.
_DOUBLED_COMMAND = re.compile(r"\\\\(?=(?:le|ge|leq|geq|frac|dfrac|sqrt|left|right|in|cup|infty|pi|cdot|times|text)(?![a-zA-Z]))")
# Degree-minute-second angles: `12^\circ 30'` is 12.5 degrees.
_DMS = re.compile(r"(\d+)\s*\^\s*\{?\s*\\circ\s*\}?\s*(\d+(?:\.\d+)?)\s*(?:'|\^\{?\\prime\}?)"
                  r"(?:\s*(\d+(?:\.\d+)?)\s*(?:''|\"|\^\{?\\prime\\prime\}?))?$")
_PERCENT = re.compile(r"\\?%|\\text\{\s*percent\s*\}")
# Thousands separators in LaTeX (`10{,}000`, `1\,000\,000`, `3.141\,59`): a run of digit groups
# whose groups are exactly three digits (the first of a whole part one to three, the last of a
# decimal part one to three). Any other spacing between numbers is no separator (see _SPACED_NUMBERS).
_THIN_SEPARATOR = re.compile(r"\{,\}|\\,|\\ |~|,\\!|\\!")
_THIN_RUN = re.compile(rf"(?:(?<![\d.])|(?<=\d\.))\d+(?:(?:{_THIN_SEPARATOR.pattern})\d+)+")
_GROUPED = re.compile(r"-?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?")
_SPACING = re.compile(r"(?<!\\)\\[,:;> ]|\\!|~")
# Wide spacing separates: between two operands (`3 \quad 4`, `2 \quad \sqrt{2}`) it stays, as one
# `\quad`, which no reader reads (never a product); next to an operator, a separator or an end it goes.
_WIDE_SPACING = re.compile(r"(?:\s*(?:\\q?quad(?![a-zA-Z])|\\enspace(?![a-zA-Z])|\\hspace\*?\{[^{}]*\}))+\s*")
_LOOSE_QUAD = re.compile(r"^ ?\\quad ?|(?:(?<=[-+*/=,;:(\[{<>|^_&])|(?<=\\cdot)|(?<=\\times)|(?<=\\pm)|(?<=\\leq)|(?<=\\geq)) ?\\quad ?| ?\\quad ?(?=[-+*/=,;:)\]}<>|^_!&]|$"
                         r"|\\(?:cdot|times|div|pm|mp|[lg]eq?|neq?|cup|cap|in|approx|quad|\}|right)(?![a-zA-Z]))")
_RELATIONS = [(re.compile(p), r) for p, r in [
    (r"\\le(?:qslant)?(?![a-zA-Z])", r"\\leq "), (r"\\ge(?:qslant)?(?![a-zA-Z])", r"\\geq "),
    (r"\\not\s*=", r"\\neq "), (r"\\ne(?![a-zA-Z])", r"\\neq "), (r"<=", r"\\leq "), (r">=", r"\\geq "), (r"!=", r"\\neq "),
    (r"\\lbrace(?![a-zA-Z])", r"\\{"), (r"\\rbrace(?![a-zA-Z])", r"\\}"),
    (r"\\lbrack(?![a-zA-Z])", "["), (r"\\rbrack(?![a-zA-Z])", "]"),
    (r"\\(?:infinity|infin)(?![a-zA-Z])|(?<![\\a-zA-Z])(?:infinity|inf|oo)(?![a-zA-Z])", r"\\infty "),
    (r"\+\s*\\infty", r"\\infty"), (r"\\varnothing(?![a-zA-Z])", r"\\emptyset "),
    (r"\\dots[bc]?(?![a-zA-Z])|\\[lc]dots(?![a-zA-Z])|\.{3,}", r"\\ldots "),  # `5...` is `5 \ldots`
    (r"\\mathbb\s*\{?R\}?|\u211d", r"(-\\infty,\\infty)"),
    (r"\\langle(?![a-zA-Z])", "("), (r"\\rangle(?![a-zA-Z])", ")"),
]]
# Bare words after a number (`10 inches`, `6 square units`): only these, never single letters.
_UNIT_WORDS = (
    "square", "sq", "cubic", "units?", "inch(?:es)?", "feet", "foot", "ft", "yards?", "miles?", "mph",
    "(?:centi|milli|kilo)?met(?:er|re)s?", "cm", "mm", "km", "kg", "(?:kilo|milli)?grams?", "pounds?",
    "lbs?", "ounces?", "oz", "(?:milli)?lit(?:er|re)s?", "gallons?", "dollars?", "cents?", "degrees?", "radians?", "seconds?",
    "minutes?", "mins?", "hours?", "hrs?", "days?", "weeks?", "months?", "years?", "ways?",
    "people", "students?", "points?", "percent(?:age)?", "pct", "items?", "numbers?", "integers?",
    "digits?", "edges?", "vertices", "faces?", "sides?", "coins?", "marbles?", "balls?", "cars?",
)
# A unit word may be glued to its number when it has three letters or more (`12days`, `45feet`).
_WORD_UNIT = re.compile(rf"(?<=[\d}}.)])(?:\s+|(?=[a-z]{{3}}))(?:(?:{'|'.join(_UNIT_WORDS)})\b\s*)+(?:\^\{{?[23]\}}?)?$")
# A known unit symbol after a constant, set off by a space (`3\pi m`, `2\sqrt{2} cm`): a variable
# would be glued or multiplied, and the value before it has no variable to be multiplied by.
_SYMBOL_UNIT = re.compile(r"\s+([A-Za-z]{1,3})(\^\{?[23]\}?)?$")
_CONSTANT_END = re.compile(r"(?:[\d})]|\\pi)$")
_PLAIN_VALUE = re.compile(r"-?\d+(?:\.\d+)?")  # a one-letter unit symbol is set off only after one (`5 m`, `12 s`)
_COMMAND_NAME = re.compile(r"\\[a-zA-Z]+")
# Currency signs other than `\$` (which the delimiter rule removes) and a temperature's scale.
_CURRENCY = {"\u20ac": "euro", "\u00a3": "gbp", "\u00a5": "yen", "\u20b9": "rupee"}
_CURRENCY_RE = re.compile("|".join(_CURRENCY))
_TEMPERATURE = re.compile(r"\s*(?:\^\s*\{?\s*\\circ\s*\}?|\\degree(?![a-zA-Z]))\s*(?:\\text\s*\{\s*([CF])\s*\}|([CF]))\s*$")
# A degree sign is the answer's unit when it ends the answer or an item of it (not `\cos 30^\circ x`).
_RADIAN = re.compile(r"\\pi(?![a-zA-Z])")
_KEPT_DEGREE = "\x00"  # a degree sign on a radian quantity, while the others are removed
# Control characters carry no answer; read as spaces before anything else, so that no input can hold
# _KEPT_DEGREE (a NUL in a box would come back as a degree sign) and `5\x006` stays two tokens.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![a-zA-Z])")
_DEGREE_ANGLE = re.compile(rf"(\d+(?:\.\d+)?)\s*(?:{_DEGREES.pattern})")
_TRAILING_DEGREE = re.compile(rf"(?:{_DEGREES.pattern})(?=\s*(?:$|[,;)\]]|\\\}}))")
# A function, its power or base (`\sin^2`, `\log_{2}`), then an argument without brackets: a
# `\frac`/`\sqrt` (its arguments are read by _argument_end), or a number and/or a symbol (with a
# subscript, and a power on the last), then what may end it.
_FUNCTION = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|arccot|arcsec|arccsc|sinh|cosh|tanh"
                       r"|coth|sech|csch|log|ln|lg|exp)(?![a-zA-Z])(?:\s*[\^_]\s*(?:\{[^{}]*\}|-?[A-Za-z0-9]))*")
_ARGUMENT_SYMBOL = (r"(?:[A-Za-z]|\\(?:pi|alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota"
                    r"|kappa|lambda|mu|nu|xi|rho|sigma|tau|upsilon|phi|varphi|chi|psi|omega)(?![a-zA-Z]))"
                    r"(?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?")
_POWER = r"(?:\^(?:\{[^{}]*\}|-?[A-Za-z0-9]))?"
_BARE_ARGUMENT = re.compile(rf"\s*(\\(?:frac|sqrt)(?![a-zA-Z])|\d+(?:\.\d+)?\s*(?:{_ARGUMENT_SYMBOL}{_POWER})?"
                            rf"|{_ARGUMENT_SYMBOL}{_POWER})")
_BRACED_COMMAND = re.compile(r"\\(frac|sqrt)(?![a-zA-Z])(?:\[[^\]]*\])?")
_ARGUMENT_END = re.compile(r"\s*(?:$|[-+*=,;)\]}<>&|]|\\(?:cdot|times|pm|mp|[lg]eq?|neq?|right|\}|quad|approx|cup|cap"
                           rf"|in|to)(?![a-zA-Z])|{_FUNCTION.pattern})")
_SHORT_ARG = re.compile(r"\\(frac|sqrt)\s*(?![\s{\[])(\\[a-zA-Z]+|[0-9a-zA-Z])")
_FRAC_SECOND_ARG = re.compile(r"\s*(\\[a-zA-Z]+|[0-9a-zA-Z])")
_SPACE_RUN = re.compile(r"\s+")
_INNER_SPACE = re.compile(r"(?<![a-zA-Z0-9]) | (?![a-zA-Z0-9])|(?<=[a-zA-Z]) (?=\d)|(?<=\d) (?=[a-zA-Z])")
_TRAILING = re.compile(r"(?:[\s.,;:?]|\\\\?)+$")
_LEADING = re.compile(r"^(?:[\s:]|\\\\)+")
_WRAPPED_BOX = re.compile(r"^\\(?:boxed|fbox)\s*\{")
_INNER_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_LEAD_IN_ONLY = re.compile(rf"(?:{LEAD_IN}[ \t:,]*)+")
_OPERATOR_BEFORE_BOX = re.compile(r"(?:[-+*/]|\\(?:cdot|times|div)(?![a-zA-Z]))\s*$")
# What may stand just before an inner box unwrapped in place: a relation, or a word and a space.
_OPEN_BEFORE_BOX = re.compile(r"(?:[=:<>]|\\(?:[lg]eq?|neq?|approx)(?![a-zA-Z])|(?<![A-Za-z\\])[A-Za-z]{3,}\s)\s*$")
# A mixed number with a space (`2 3/4`, `-2\ 3/4`): a proper fraction after a whole number.
_SPACED_MIXED = re.compile(r"(-?\d+) (\d+)/(\d+)")
# A clock time with seconds or a 12-hour suffix (`14:05:00`, `2:05 P.M.`), read as 24-hour `H:MM`.
_CLOCK = re.compile(r"(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?: ?([AaPp])\.? ?[Mm]\.?)?")


def normalize(answer: str) -> str:
    """The canonical spelling of an extracted answer (see the module docstring for the rules)."""
    return read_answer(answer)[0]


@lru_cache(maxsize=16384)
def read_answer(answer: str) -> tuple[str, str | None]:
    """(canonical spelling, the unit it named in one spelling or None). Cached: a GRPO group
    repeats answers, and a plain number skips the rewriting entirely."""
    if _PLAIN_NUMBER.fullmatch(answer):
        return answer, None
    marks: list[str | None] = []
    s = unicode_math(_CONTROL.sub(" ", answer) if _CONTROL.search(answer) else answer)
    s = _unwrap_box(s.strip())
    spoken = _PROSE_THEN_MATH.fullmatch(s) or _WORDS_THEN_MATH.fullmatch(s)
    if spoken and spoken.re is _WORDS_THEN_MATH and _qualified(s[:min(spoken.start(g) for g in range(1, 5) if spoken.group(g))]):
        spoken = None   # `x is not $5$`, `maybe $5$`, `at least $0$`: the words deny, doubt or bound the value
    if spoken:
        s = next(g for g in spoken.groups() if g is not None).strip()
    s = plain_math(s)
    if "e" in s or "E" in s:
        s = _E_NUMBER.sub(_written_out, s)
    listed = bool(_LIST_COMMA.search(s))
    if "\\$" in s:
        marks.append(units.DOLLAR)
    if _CURRENCY_RE.search(s):
        marks.extend(_CURRENCY[c] for c in dict.fromkeys(_CURRENCY_RE.findall(s)))
        s = _CURRENCY_RE.sub("", s)
    s = _DELIMITERS.sub(" ", s)
    s = _SIZING.sub("", s)
    s = _STYLE.sub("", s)
    s = _FRAC_VARIANTS.sub(r"\\frac", s)
    s = _TEXT_VARIANTS.sub(r"\\text", s)
    if "\\" in s or "~" in s or "{,}" in s:
        s = _THIN_RUN.sub(_thousands, s)
    s = _temperature_and_degrees(s, marks)
    if _PERCENT.search(s):
        marks.append(units.PERCENT)
        s = _PERCENT.sub("", s)
    s = _SPACING.sub(" ", s)
    if "\\" in s:
        s = _WIDE_SPACING.sub(r" \\quad ", s)
    for pattern, repl in _RELATIONS:
        s = pattern.sub(repl, s)
    if not _INEQUALITY.search(s):
        s = _CONNECTIVE.sub(",", s)
    s = _approximation(s)
    s = _TRAILING.sub("", s)
    s = _strip_units(s, marks)
    s = _PAREN_UNIT.sub(lambda m: _stripped(m.group(1), marks, _unit_words(m.group(1))), s)
    s = _unwrap_text(s)
    s = _WORD_UNIT.sub(lambda m: _stripped(m.group(0), marks), s)
    s = _symbol_unit(s, marks)
    s = _SHORT_ARG.sub(_brace_short_args, s)
    if "\\frac" in s:
        s = _brace_second_frac_args(s)
    if "\\" in s and _FUNCTION.search(s):
        s = _function_arguments(s)
    if "_" in s:
        s = _SHORT_SUBSCRIPT.sub(r"_{\1}", s)
    s = _SPACE_RUN.sub(" ", s).strip()
    if _SPACED_THOUSANDS.fullmatch(s):
        s = s.replace(" ", "")
    if ":" in s:
        s = _CLOCK.sub(_clock_time, s) if _CLOCK.fullmatch(s) else s
    if "/" in s and (mixed := _SPACED_MIXED.fullmatch(s)) and int(mixed.group(2)) < int(mixed.group(3)):
        s = f"{mixed.group(1)}\\frac{{{mixed.group(2)}}}{{{mixed.group(3)}}}"
    if "\\quad" in s:
        s = _LOOSE_QUAD.sub(" ", s)
    s = _INNER_SPACE.sub("", s)
    s = _LEADING.sub("", _TRAILING.sub("", s))
    if not listed and _GROUPED.fullmatch(s):
        s = s.replace(",", "")
    return s, units.joined(*marks)


def _qualified(words: str) -> bool:
    """Words before a value that deny, doubt or change it (`not`, `maybe`, `at least`, `twice`)."""
    return denied_before(words, len(words)) or any(w.lower() in VALUE_WORDS for w in re.findall(r"[A-Za-z]+", words))


def _thousands(m: re.Match) -> str:
    """`1\\,000\\,000` -> `1000000`; a run whose groups are not thousands is left as written."""
    groups = _THIN_SEPARATOR.split(m.group(0))
    if m.start() > 0 and m.string[m.start() - 1] == ".":  # a decimal part: `.141\\,59`
        edge, full = groups[-1], groups[:-1]
    else:
        edge, full = groups[0], groups[1:]
    if 1 <= len(edge) <= 3 and all(len(g) == 3 for g in full):
        return "".join(groups)
    return m.group(0)


def _stripped(unit_text: str, marks: list[str | None], reading: str | None = "known") -> str:
    """Remove a unit the answer named, remembering it; words the reader cannot place are
    remembered as unverified (units.UNVERIFIED), and words that change the value stay."""
    if reading is None:
        return unit_text
    folded = units.fold(unit_text)
    marks.append(units.UNVERIFIED + folded if reading == "unknown" and folded else folded)
    return ""


def _temperature_and_degrees(s: str, marks: list[str | None]) -> str:
    """`45^\\circ C` names degrees Celsius, `30^\\circ` degrees, `12^\\circ 30'` degrees too: every
    degree sign goes, and one that ends an answer or item is its unit. Next to a trigonometric
    function an angle in degrees is its value in radians (`\\cos(90^\\circ - x)` is `\\sin x`).
    A degree sign on a quantity that holds `\\pi` (`\\frac{\\pi}{3}^\\circ`: pi/3 degrees, or a radian
    value marked by mistake?) stays, as `^{\\circ}`, which no reader reads."""
    if "\\pi" in s and _DEGREES.search(s):
        s = _mark_degrees_on_radians(s)
    if _TRIG.search(s):
        s = _DEGREES.sub("", _DEGREE_ANGLE.sub(r"\\frac{\1\\pi}{180}", s))
        return s.replace(_KEPT_DEGREE, "^{\\circ}")
    scale = _TEMPERATURE.search(s)
    if scale:
        marks.append(units.fold("deg" + (scale.group(1) or scale.group(2))))
        s = s[:scale.start()]
    elif _DMS.search(s) or _TRAILING_DEGREE.search(s):
        marks.append(units.DEGREE)
    s = _DMS.sub(_dms_degrees, s)
    return _DEGREES.sub("", s).replace(_KEPT_DEGREE, "^{\\circ}")


def _mark_degrees_on_radians(s: str) -> str:
    """Each degree sign whose item holds `\\pi` before it, replaced by _KEPT_DEGREE."""
    out: list[str] = []
    pos = 0
    for m in _DEGREES.finditer(s):
        if _RADIAN.search(s, _item_start(s, m.start()), m.start()):
            out += [s[pos:m.start()], _KEPT_DEGREE]
            pos = m.end()
    out.append(s[pos:])
    return "".join(out)


def _symbol_unit(s: str, marks: list[str | None]) -> str:
    """`3\\pi cm` -> `3\\pi`, `5 m` -> `5`: a known unit symbol after a constant (see _SYMBOL_UNIT)."""
    found = _SYMBOL_UNIT.search(s)
    if not found or found.group(1) not in _SHORT_UNITS:
        return s
    value = s[:found.start()].rstrip()
    if not _CONSTANT_END.search(value) or re.search(r"[a-zA-Z]", _COMMAND_NAME.sub("", value)):
        return s
    if len(found.group(1)) == 1 and (found.group(2) or not _PLAIN_VALUE.fullmatch(value)):
        return s  # `6\pi h^2`, `\frac{\sqrt{3}}{4} s^2`: one letter after an expression, or squared, is a factor
    marks.append(units.fold(found.group(0)))
    return value


def _approximation(s: str) -> str:
    """`\\frac12 \\approx 0.5` -> `\\frac12` (the value, not its rounding); `x \\approx 5` -> `x=5`
    (a lone symbol before `\\approx` is a label, so what follows is the answer and must be kept).
    An approximation belongs to its own item: `\\sqrt3 \\approx 1.73, -\\sqrt3 \\approx -1.73` is
    `\\sqrt3, -\\sqrt3` (the list goes on after it); one that opens an item is left as written."""
    out: list[str] = []
    pos = 0
    while (found := _APPROX.search(s, pos)) is not None:
        out.append(s[pos:found.start()])
        head = s[_item_start(s, found.start()):found.start()]
        if _APPROX_LABEL.search(head):
            out.append("=")
            pos = found.end()
        elif not head.strip():
            out.append(found.group(0))
            pos = found.end()
        else:
            end = _item_end(s, found.end())
            if _two_values(head, s[found.end():end]):
                out.append("=")   # `5 \approx 6` is `5=6`: two values stated, each must be the answer
                pos = found.end()
            else:
                pos = end
    out.append(s[pos:])
    return "".join(out)


def _two_values(head: str, approximation: str) -> bool:
    """An exact number approximated by a number it does not round to (`5 \\approx 6`, `0.5 \\sim 1`):
    two values offered for one answer. `\\frac{1}{3} \\approx 0.333` and `2.718 \\approx 2.72` agree."""
    value, approx = _exact_number(head.strip()), number_value(approximation.strip())
    if value is None or approx is None:
        return False
    places = len(approximation.strip().partition(".")[2])
    return abs(value - approx) * 10 ** places * 2 > 1   # farther than half its last place


_SIMPLE_FRACTION = re.compile(r"(-?)\\[dt]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(\d+)\s*\}")


def _exact_number(text: str) -> Fraction | None:
    """A plain number or a fraction of integers (`\\frac{1}{3}`), exactly; None for anything else."""
    found = _SIMPLE_FRACTION.fullmatch(text)
    if found and int(found.group(3)):
        value = Fraction(int(found.group(2)), int(found.group(3)))
        return -value if found.group(1) else value
    return number_value(text)


def _item_start(s: str, at: int) -> int:
    """Where the list item (or bracketed element) holding `at` starts: after its `,` `;` or opener."""
    starts = [0]
    for token in _ITEM_TOKEN.finditer(s, 0, at):
        ch = _bracket_or_separator(token.group())
        if ch in "([{":
            starts.append(token.end())
        elif ch in ")]}":
            if len(starts) > 1:
                starts.pop()
        elif ch in ",;":
            starts[-1] = token.end()
    return starts[-1]


def _bracket_or_separator(token: str) -> str:
    """`(` for `(`, `{` for a set's `\\{`; a space for any other escape (`\\,`, `\\frac`'s `\\f`)."""
    return token[-1] if len(token) == 1 or token[1] in "{}" else " "


def _item_end(s: str, at: int) -> int:
    """Where the item that holds `at` ends: at the `,` `;` or closer that ends it, else the end."""
    depth = 0
    for token in _ITEM_TOKEN.finditer(s, at):
        ch = _bracket_or_separator(token.group())
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return token.start()
            depth -= 1
        elif ch in ",;" and depth == 0:
            return token.start()
    return len(s)


def _clock_time(m: re.Match) -> str:
    """`2:05 P.M.` -> `14:05`, `14:05:00` -> `14:05`; seconds other than `00` stay; a 12-hour
    suffix on an hour over 12 is not a time and is left as written."""
    hour, minutes, seconds, half = int(m.group(1)), m.group(2), m.group(3), m.group(4)
    if half:
        if not 1 <= hour <= 12:
            return m.group(0)
        hour = hour % 12 + (12 if half in "Pp" else 0)
    return f"{hour}:{minutes}" + (f":{seconds}" if seconds and seconds != "00" else "")


def _dms_degrees(m: re.Match) -> str:
    value = Fraction(m.group(1)) + Fraction(m.group(2)) / 60 + Fraction(m.group(3) or 0) / 3600
    return format_number(value)


def repair_gold_escapes(gold: str) -> str:
    """`-2 \\\\le x \\\\le 7` -> `-2 \\le x \\le 7`: a doubled backslash before a command in a
    dataset's gold is an escaping slip. Golds only: a model that writes `\\\\` wrote a line break."""
    if "\\\\" not in gold or "\\begin" in gold:
        return gold
    return _DOUBLED_COMMAND.sub(r"\\", gold)


def _unwrap_box(s: str) -> str:
    """`\\boxed{\\boxed{5}}` and `\\boxed{5}` -> `5` when the box is the whole answer; a box that
    ends the answer after lead-in words is the answer (`Final: \\fbox{12}` -> `12`); after a relation
    or a word it is unwrapped in place (`x = \\fbox{12}` -> `x = 12`, `not \\fbox{12}` -> `not 12`),
    after an operator as a group (`-\\boxed{5}` -> `-(5)`).
    Anywhere else it stays (`4\\boxed{5}` is no 45, `12 \\fbox{13}` no list), which no reader reads."""
    while True:
        head = _WRAPPED_BOX.match(s) or _INNER_BOX.search(s)
        if not head:
            return s
        close = matching_brace(s, head.end() - 1)
        if close != len(s) - 1:
            return s
        prefix, inner = s[:head.start()], s[head.end():close].strip()
        if not prefix or _LEAD_IN_ONLY.fullmatch(prefix):
            s = inner
        elif _OPEN_BEFORE_BOX.search(prefix):
            s = prefix + inner
        elif _OPERATOR_BEFORE_BOX.search(prefix):
            s = f"{prefix}({inner})"  # `2-\\boxed{3+4}` is 2-(3+4)
        else:
            return s


def _strip_units(s: str, marks: list[str | None]) -> str:
    """Drop a trailing `\\text{unit}` (twice, for `\\text{ cm}\\text{ long}`) unless it is the whole answer."""
    named: list[str] = []
    for _ in range(2):
        found = _TEXT_UNIT.search(s)
        cut = s[:found.start()].rstrip() if found else ""
        reading = found and _unit_words(found.group(0).replace("\\text", ""), cut)
        if not reading:
            break
        if not cut or cut == s or _TRAILING.sub("", cut) == "":
            break
        named.insert(0, (found.group(0), reading))
        s = cut
    if named:
        folded = units.fold(" ".join(text for text, _ in named))
        unknown = any(reading == "unknown" for _, reading in named)
        marks.append(units.UNVERIFIED + folded if unknown and folded else folded)
    return s


def _unwrap_text(s: str) -> str:
    """`\\text{(B) }` -> `(B)`: the words stay, the command goes. Text of two letters or more with
    no word of three (`\\text{ab}`, `\\text{A B C}`) keeps the command, whitespace folded: it is
    text, not a product of variables (`equivalence.is_words`); a longer word is already text."""
    pos = 0
    while True:
        found = _TEXT_OPEN.search(s, pos)
        if not found:
            return s
        close = matching_brace(s, found.end() - 1)
        if close < 0:
            return s[:found.start()] + s[found.end():]
        inner = s[found.end():close].strip()
        kept = bool(_SHORT_TEXT.fullmatch(inner))
        if kept:
            inner = "\\text{" + " ".join(inner.split()) + "}"
        s = s[:found.start()] + inner + s[close + 1:]
        pos = found.start() + (len(inner) if kept else 0)


def _function_arguments(s: str) -> str:
    """`\\sin 2x` -> `\\sin(2x)`, `\\sin x \\cdot 3` -> `\\sin(x)\\cdot 3`, `\\log_2 8` -> `\\log_2(8)`:
    a function's argument written without brackets is its conventional extent, the factor right
    after it (a number, a symbol, or both: `2x`; a symbol may carry a power: `x^2`; or one `\\frac`
    or `\\sqrt`), and only when what follows ends it (an operator, a relation, a separator,
    another function, the end). Where it does not (`\\sin x y`, `\\sin \\pi/3`, `\\log_2 x 3`: the
    parser would read `\\sin x \\cdot 3` as sin(3x)), the text is left as written, for no reader."""
    out: list[str] = []
    pos = 0
    for m in _FUNCTION.finditer(s):
        if m.start() < pos:
            continue
        argument = _BARE_ARGUMENT.match(s, m.end())
        if argument is None or not argument.group(1).strip():
            continue
        end = argument.end(1)
        if _BRACED_COMMAND.match(argument.group(1)):
            close = _argument_end(s, argument.start(1))
            if close < 0:
                continue
            end = close
        if not _ARGUMENT_END.match(s, end):
            continue
        out += [s[pos:argument.start(1)], "(", s[argument.start(1):end].strip(), ")"]
        pos = end
    out.append(s[pos:])
    return "".join(out)


def _argument_end(s: str, at: int) -> int:
    """Where the `\\frac{..}{..}` or `\\sqrt[..]{..}` at `at` ends, or -1."""
    command = _BRACED_COMMAND.match(s, at)
    end = command.end()
    for _ in range(2 if command.group(1) == "frac" else 1):
        if not s.startswith("{", end):
            return -1
        close = matching_brace(s, end)
        if close < 0:
            return -1
        end = close + 1
    return end


def _brace_second_frac_args(s: str) -> str:
    """`\\frac{\\sqrt{3}}2` -> `\\frac{\\sqrt{3}}{2}`: a second argument written without braces."""
    out: list[str] = []
    i = 0
    while (at := s.find("\\frac{", i)) >= 0:
        close = matching_brace(s, at + 5)
        if close < 0:
            break
        out.append(s[i:close + 1])
        i = close + 1
        if not s.startswith("{", i):
            bare = _FRAC_SECOND_ARG.match(s, i)
            if bare:
                out.append("{" + bare.group(1) + "}")
                i = bare.end()
    out.append(s[i:])
    return "".join(out)


def _brace_short_args(m: re.Match) -> str:
    """`\\frac12` -> `\\frac{1}{2}`, `\\sqrt3` -> `\\sqrt{3}`, `\\frac1{2}` -> `\\frac{1}{2}`."""
    command, first = m.group(1), m.group(2)
    return f"\\{command}{{{first}}}"


def _written_out(match: re.Match) -> str:
    """An e-notation number as its exact decimal; one beyond number_text's exponent bound stays as written."""
    value = number_value(match.group(0))
    return match.group(0) if value is None else format_number(value)
