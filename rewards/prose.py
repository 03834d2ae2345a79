"""Prose around an answer: what may follow it, what may not come before it, what takes it back.

A reader that skips the words next to an answer must never skip words that change which answer it
is (docs/scoring-policy.md, GSM8K and MATH). Three places hold such words:

- the rest of a number's line (`plain_tail`): only a short noun phrase may follow (`#### 7 apples
  in total`, `$5 per day`); a scale word in any language (`thousand`, `lakh`, `myriad`, `score`),
  a symbol that is not a known unit (`k`, `M`, `bn`), a number word (`feet two inches`), `and`
  (`dollars and twenty cents`), an operation (`times`), a letter outside ASCII or a combining mark
  make it another number;
- the clause before a stated answer (`denied_before`): `I don't think the answer is 7`, `a common
  mistake is to say the answer is 7`, `if the answer is 7`; after the marker the same denials count
  (`the answer is not 7`: number_text.DENIALS, one list for both sides);
- the text after the last answer (`taken_back`): `#### 7. Or maybe 8`, `\\boxed{7} is wrong`,
  `Actually no, it is 8`, `I made a mistake`, a later `the answer is 8`.

Every reader here is a regex pass over a bounded window (region.py bounds the text).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from .number_text import DENIALS, NUMBER, NUMBER_WORDS, VALUE_WORDS, parse_number

# Symbols of one or two letters that are units (case counts: `m` is metres, `M` a million), and the
# articles of a rate (`$5 a day`). Any other short word after a number may be a scale (`7 k`, `7 bn`).
SHORT_WORDS = frozenset("""
a an m s g h l L N J W V C F cm mm km nm um dm kg mg ml mL dL cl ft in yd mi lb oz hr ms ns Hz kW kJ
mA mV Pa eV sq cu pt qt ha ac
""".split())
# Words that make a second quantity or an operation of the number before them (beyond VALUE_WORDS).
JOINERS = frozenset("and by times point add added subtract subtracted divide power root sqrt mod modulo".split())
MAX_PHRASE_WORDS = 5
"""A noun phrase after a number is at most this long (`square feet of carpet each`); longer text on
the answer's line is a sentence that may say anything."""

_TOKEN = re.compile(r"[A-Za-z]+|\S")
_WORDS = re.compile(r"[A-Za-z]+(?:['\u2019][a-z]+)?")
_PHRASE_PUNCT = set("()[]*_-/'\u2019\"`.!?%\u00b0\u2030")
_PHRASE_END = re.compile(r"[,;:]|\s[-\u2013\u2014]+\s")
_CLAUSE_BREAK = re.compile(r"[.!?](?=\s|$)|\n|[,;:]|\s[-\u2013\u2014]+\s")
_LOOKBACK = 300
_UP_TO_LAST_BREAK = re.compile(r"(?s).*(?:" + _CLAUSE_BREAK.pattern + ")")   # greedy: ends at the last break

HYPOTHETICAL = frozenset("""
argue argued argues assume assumed assuming claim claimed claims could doubt doubtful fallacy guessing
if imagine maybe might misconception myth naive naively perhaps pitfall possibly pretend rather say
said says saying suppose supposing tempting than trap uncertain unless unlikely unsure whether wish
""".split())
"""Words that make the clause after them no assertion (`if the answer is 7`, `some say the answer is
7`, `rather than 7`), read only before an answer's marker."""
_CONTRACTED_NOT = re.compile(r"(?i)n['\u2019]t\b|\bcannot\b")


def _any_word(words) -> re.Pattern:
    """One scan for any of `words` standing alone (letters on neither side), case-insensitive."""
    return re.compile(r"(?i)(?<![A-Za-z])(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")(?![A-Za-z])")


_DENYING_WORD = _any_word(DENIALS | HYPOTHETICAL)   # before an answer: a denial or a hypothesis
_HEDGING_WORD = _any_word(DENIALS | {"or", "maybe", "perhaps", "possibly", "actually", "instead"})   # after it

# After the last answer: the next sentence opens with a correction or an alternative.
_LEAD = r"(?i)^[\s*_>\"'(]*"
# Interjections before an opener (`No wait,`, `Oh wait`, `Um, actually`): the opener still opens the sentence.
_INTERJECTIONS = r"(?:(?:no|oh|um+|uh+|ah+|er+|well)\b[\s,.!;:]*)*"
_OPENER = re.compile(_LEAD + _INTERJECTIONS + r"(?:(?:or|actually|wait|nope|oops|whoops|hmm+|hold on|correction|sorry|"
                     r"scratch that|alternatively|instead|rather|on second thought|"
                     r"i mean|that'?s wrong|not quite)\b|no\s*[,.!;:])")
# A sentence that opens with a contrast (`But`, `However`) withdraws the answer only where it goes on
# to a value, a hedge or a denial of the answer (`But it is 8`, `However, this is not right`, `But
# maybe not`); a caveat about the problem (`However, the problem does not state this`) is no retraction.
_CONTRAST = re.compile(_LEAD + r"(?:but|however|though|yet|still)\b")
_CONTRAST_TAKES_BACK = re.compile(
    r"(?i)\d|\$|\\[(\[]|\\boxed|\b(?:or|maybe|perhaps|possibly|probably|actually|wait|instead|rather|"
    r"recheck|reconsider|re-?evaluate|double-check|correct(?:ed|ion|ing)?)\b|"
    r"\b(?:answer|result|solution|this|that|it|which|value|number)\s+(?:\w+\s+){0,2}not\b|"
    rf"\b(?:{'|'.join(sorted(NUMBER_WORDS))})\b")
# A sentence that says an answer or the work was wrong (`I made a mistake`, `this answer is incorrect`).
_OWN = re.compile(r"(?i)\b(?:answer|result|solution|this|that|it|above|previous|I|my|we|our)\b")
_FAULT = re.compile(r"(?i)\b(?:wrong|incorrect|mistaken|mistakes?|errors?|erroneous|untrue|typo|retract|"
                    r"not (?:correct|right|true|the (?:final |correct |right )?answer)|"
                    r"n['\u2019]t (?:correct|right|true|the (?:final |correct |right )?answer))\b")
_END = r"(?<!\bi\.e)(?<!\be\.g)[.!?]+(?=\s|$)"  # a full stop, but not that of `i.e.` or `e.g.`
_SENTENCE = re.compile(rf"(?:(?!{_END})[^\n])*(?:{_END}|\n|$)")
# A later statement of a value (`The correct answer is 9`, `the answer should be $8$`, `it is actually 8`).
_RESTATED = re.compile(r"(?i)(?:\b(?:answer|result)\s*(?:is|was|should be|must be|would be|=|:)\s*(?:actually\s+)?"
                       rf"(?:\$|\\\(|\\boxed\{{)?|\\(?:boxed|fbox)\{{)\s*({NUMBER})")  # also a later box: `#### 5 ... \boxed{{6}}`
# In the answer's own sentence, a second value put beside it (`\\boxed{\\frac14}, which is 20`, `i.e. 20`).
_APPOSED = re.compile(r"(?i)(?:\bwhich|\bthat|\bi\.e\.?|=|\bequals?|\bmeaning)\s*(?:is|equals|means|gives)?\s*"
                      rf"(?:about|approximately|roughly)?\s*(?:\$|\\\()?\s*({NUMBER})")
_TAIL_WINDOW = 2000  # characters after an answer read for a retraction
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def plain_tail(line: str, value: Fraction | None = None) -> bool:
    """Whether `line`, the rest of a number's line after its presentation (`$`, `**`, `%`), leaves
    the number's value alone: empty, or a short noun phrase (`apples in total`, `dollars per hour`,
    `km/h`), optionally a restatement in words (`5 (five)`) and, after a comma, a clause that
    neither denies nor adds a number."""
    if any(unicodedata.category(c).startswith("M") or (c.isalpha() and not c.isascii()) for c in line):
        return False  # `7\u0301`, `7 万`, `7 años`: a mark or a script we cannot read
    if any(c.isdigit() for c in line):
        return False
    line = _drop_restatement(line, value)
    head, rest = _split_clause(line)
    words = _TOKEN.findall(head)
    if len([w for w in words if w[0].isalpha()]) > MAX_PHRASE_WORDS:
        return False
    for w in words:
        if not w[0].isalpha():
            if w not in _PHRASE_PUNCT and unicodedata.category(w) != "Sc":
                return False  # `7 & 8`, `7 = x`, `7 + ...`
            continue
        if w.lower() in VALUE_WORDS or w.lower() in NUMBER_WORDS or w.lower() in JOINERS:
            return False
        if len(w) <= 2 and w not in SHORT_WORDS:
            return False  # `7 k`, `7 M`, `7 bn`, `7 Cr`: possibly a scale
    return not any(w.lower() in VALUE_WORDS or w.lower() in NUMBER_WORDS for w in _WORDS.findall(rest))


def _split_clause(line: str) -> tuple[str, str]:
    """The noun phrase right after a number and the clause after its first `,` `;` `:` or dash."""
    parts = _PHRASE_END.split(line, maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def _drop_restatement(line: str, value: Fraction | None) -> str:
    """`(five)` after 5 restates it: removed. Any other parenthesis stays and is read as words."""
    found = re.match(r"\s*\(\s*([A-Za-z -]+?)\s*\)", line)
    if found and value is not None and spelled_value(found.group(1)) == value:
        return line[found.end():]
    return line


_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}


def spelled_value(text: str) -> int | None:
    """An integer below a thousand spelled in English words (`twenty-five`, `one hundred and five`)."""
    total = 0
    current = None
    for word in re.split(r"[\s-]+", text.strip().lower()):
        if word in _UNITS or word in _TENS:
            current = (current or 0) + _UNITS.get(word, _TENS.get(word, 0))
        elif word == "hundred" and current and total == 0:
            total, current = current * 100, None
        elif word == "and" and total:
            continue
        else:
            return None
    return None if current is None and total == 0 else total + (current or 0)


def denied_before(text: str, at: int) -> bool:
    """Whether the clause that ends at `at` (an answer's marker or box) denies it or makes it
    hypothetical: `I don't think the answer is 7`, `it is false that`, `a common mistake is to say`,
    `if the answer is 7`. The clause starts after the last `.`, `!`, `?`, line break, `,`, `;` or
    `:` (so `Since x cannot be 0, the answer is 7` and `No, the answer is 7` are assertions)."""
    window = text[max(0, at - _LOOKBACK):at]
    last_break = _UP_TO_LAST_BREAK.match(window)
    return _denies(window[last_break.end():] if last_break else window)


@lru_cache(maxsize=8192)   # the clause before an answer is the same few phrasings, run after run
def _denies(clause: str) -> bool:
    return bool(_CONTRACTED_NOT.search(clause) or _DENYING_WORD.search(clause))


def taken_back(after: str, differs: Callable[[str], bool] | None = None) -> bool:
    """Whether the text after the last answer withdraws it: a sentence that opens with a correction
    or an alternative (`Or maybe 8`, `Actually no`, `Wait`, `But`), a sentence that calls the answer
    or the work wrong (`7 is incorrect`, `I made a mistake`; `so 6 was wrong` names no answer), the
    answer's own sentence going on with a denial (`\\boxed{7} is wrong`, `, or maybe 8`) or a second
    value beside it (`, which is 20`), or a later `the answer is N`, where the number `differs`
    from the answer."""
    after = after[:_TAIL_WINDOW]
    if not _LETTER_OR_DIGIT.search(after):
        return False   # `$.`, `$$`, `**`: every way of taking an answer back needs a word or a number
    first = _SENTENCE.match(after).group()
    if _HEDGING_WORD.search(first) or _CONTRACTED_NOT.search(first):
        return True
    if differs is not None and any(differs(m.group(1)) for m in _APPOSED.finditer(first)):
        return True
    for sentence in _SENTENCE.finditer(after):
        text = sentence.group()
        if not text.strip():
            continue
        if _OPENER.match(text) or (_FAULT.search(text) and _OWN.search(text)):
            return True
        if _CONTRAST.match(text) and (_CONTRAST_TAKES_BACK.search(text) or _CONTRACTED_NOT.search(text)):
            return True
    if differs is not None:
        for stated in _RESTATED.finditer(after):
            rest = after[stated.end():].split("\n", 1)[0]
            rest = re.split(r"\.(?=\s|$)", rest, maxsplit=1)[0]
            if plain_tail(re.sub(r"^(?:\\?\$|\\\)|\}|\*\*|\\?%)+", "", rest)) and differs(stated.group(1)):
                return True
    return False


def differs_from(value: Fraction | None | Callable[[], Fraction | None]) -> Callable[[str], bool]:
    """A `differs` for `taken_back`: the restated number is another value than `value` (or than what
    `value()` gives, read only when a number is restated: most answers have none after them)."""
    read = value if callable(value) else (lambda: value)
    return lambda token: (known := read()) is not None and parse_number(token) not in (None, known)
