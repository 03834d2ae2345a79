"""What a response commits to: the prose around its answer, read for what it states.

The principle (docs/scoring-policy.md, top): the answer is the final answer slot, and it stands
unless the text's structure shows the response does not commit to it. Three readers apply it:

- `plain_tail`, the rest of a number's line: a noun phrase (`#### 3 pounds of meat`, `5 more
  dollars`) leaves the number alone; a word that makes it another number does not (`5 thousand`,
  `5 twelfths`, `5 trn`, `5 feet two inches`, `5‰`);
- `denied_before`, the clause before an answer: a negation or hypothesis that governs the answer
  statement (`I don't think the answer is 7`, `if the answer is 7`, `the answer is not 7`), never
  one inside the statement's subject (`the number of integers that are not ... is 9`);
- `taken_back`, the text after it: a different value put forward later as the answer or as a
  candidate (`Never mind, it's 5.`, `Both 5 and 6 work.`, a later box), an alternative beside it
  (`\\boxed{5}, or maybe 6`), a denial of the answer itself (`\\boxed{7} is wrong`, `this answer is
  wrong`), the answer inside a question or struck through. A value equal to the answer confirms it;
  a value about the problem (`which occurs at $x = 3$`, `when divided by 2, 3, or 6`) is no candidate.

Every reader is a few regex passes over a bounded window (region.py bounds the text).
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from .number_text import NUMBER, SCALE_WORDS, VALUE_WORDS, parse_number

# --- words by their form ---------------------------------------------------------------------------

# Unit symbols of one to three letters (case counts: `m` is metres, `M` a million), and the articles of a
# rate (`$5 a day`). Any other word that short after a number may be a scale (`7 k`, `7 bn`, `7 mio`).
SHORT_WORDS = frozenset("""
a an m s g h l L N J W V C F cm mm km nm um dm kg mg ml mL dL cl ft in yd mi lb oz hr ms ns Hz kW kJ
mA mV Pa eV sq cu pt qt ha ac
""".split())
# Longer unit words and nouns that are their own plural (`5 feet`, `5 people`, `5 sheep`): a count noun
# after a number above one is otherwise plural (`5 apples`), and a singular word there is a scale or a
# number word in some language (`5 tausend`, `5 mille`).
_INVARIANT = frozenset("""
men women children people persons feet teeth geese mice oxen sheep deer fish fishes series species aircraft
dollar dollars usd cent cents euro euros yen rupee rupees percent percentage pct degree degrees celsius fahrenheit
inch inches foot yard yards mile miles meter meters metre metres liter liters litre litres gallon gallons pound
pounds ounce ounces gram grams kilogram kilograms kilometer kilometers centimeter centimeters millimeter
millimeters minute minutes second seconds hour hours day days week weeks month months year years mph kph
kmh kg lbs hrs mins secs sec min tbsp tsp pcs gb mb kb tb ghz mhz rpm each apiece total altogether overall only exactly per of in at to for from
on by with off left remaining old tall long wide high deep away apart
""".split())
_UNITS = frozenset("""
one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
eighteen nineteen zero
""".split())
_TENS = frozenset("twenty thirty forty fourty fifty sixty seventy eighty ninety hundred thousand".split())
# A number word in any form: cardinal (`twelve`), plural (`twenties`, `hundreds`), ordinal or fraction
# (`twelfth`, `twelfths`, `twentieth`, `hundredths`), and every `-illion`/`-illiard` in the languages
# that borrow them (`septillion`, `millon`, `milliard`, `Millionen`, `miljoen`). English spells its
# numbers from these stems, so the class is closed: no number word escapes it.
_NUMBER_FORM = re.compile(
    r"(?i)^(?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|four|fif|six|seven|"
    r"eigh|nine)teen|(?:twen|thir|for|four|fif|six|seven|eigh|nine)ty|hundred|thousand)(?:s|es)?|"
    r"(?:twen|thir|for|four|fif|six|seven|eigh|nine)ties|"
    r"(?:third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+tieth|hundredth|"
    r"thousandth|\w+ill?i?onth)s?|halfs?|halves|quarters?|"
    r"\w*(?:ill?i?on|ill?i?ard|iljoen|iljard)\w*)$")
# Words that join a second quantity or an operation onto the number (`7 times four`, `7 point five`).
_OPERATIONS = frozenset("times point plus minus squared cubed divided multiplied over by".split())
# Words that make the number a bound or an estimate rather than a value (`5 approximately`, `5 or so`).
_ESTIMATES = frozenset("""approx approximately about around roughly nearly almost ish estimated estimate or most least
maximum minimum""".split())
# The words of VALUE_WORDS that open or join a noun phrase after a number (`5 more dollars`, `12 minutes to
# get to work`, `5 over budget`); every other word there changes the value wherever it stands on the line.
_PHRASE_WORDS = frozenset("more less fewer greater larger smaller to through over under above below".split())

_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_WORD = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)?")
# Symbols that may follow a number as presentation: currencies of a whole unit, percent, degrees, quotes.
_PRESENTATION_SYMBOLS = set("$\u20ac\u00a3\u00a5\u20b9%\u00b0'\"`()[]*_-/.!?,;:\u2019\u2013\u2014&")   # not `¢`, `‰`
_DENIAL_WORDS = frozenset("""
wrong incorrect incorrectly false untrue erroneous erroneously mistake mistaken mistakenly error not no nope
never none nothing neither nor hardly invalid
""".split())
_CHANGES_VALUE = (VALUE_WORDS - _PHRASE_WORDS) | _ESTIMATES | _OPERATIONS | _DENIAL_WORDS
_CHANGES_LATER = (SCALE_WORDS | _ESTIMATES | _OPERATIONS) - {"by", "over"}
# A coin or a hundredth of a currency: `5 cents`, `5 ¢`, `5 pence` are not 5 of the currency asked for.
_SUB_UNITS = frozenset("cent cents pence penny pennies paise kopeks centavos centimes".split())


def number_word(word: str) -> bool:
    """A number word in any of its forms (`twelve`, `twenties`, `twelfths`, `septillion`, `half`)."""
    return bool(_NUMBER_FORM.match(word)) or word.lower() in _UNITS or word.lower() in _TENS


def scales(word: str) -> bool:
    """Whether `word` right after a number may make it another number: a number word in any form,
    a scale or group noun (`lakh`, `dozen`, `pair`), an operation, or an abbreviation the reader does
    not know as a unit (three letters or fewer, no vowel, or all capitals: `k`, `bn`, `trn`, `mio`)."""
    low = word.lower()
    if number_word(word) or low in SCALE_WORDS or low in _OPERATIONS or low in _ESTIMATES:
        return True
    if word in SHORT_WORDS or low in _INVARIANT:
        return False
    return len(word) <= 3 or not _VOWEL.search(word) or (word.isupper() and len(word) > 1)


# --- the rest of a number's line ------------------------------------------------------------------

def plain_tail(line: str, value: Fraction | None = None) -> bool:
    """Whether `line`, the rest of a number's line after its presentation (`$`, `**`, `%`), leaves
    the number's value alone: empty, or a noun phrase (`apples in total`, `pounds of meat`, `more
    dollars`, `minutes to get to work`), with a remark in parentheses (`(five)`, `(the smallest
    such prime)`). The word right after the number must be one the reader knows is no scale; the
    head of the noun phrase after a number above one must be plural or a unit; no number word,
    scale word, estimate, operation or other number may stand anywhere on the line."""
    if any(unicodedata.category(c).startswith("M") or (c.isalpha() and not c.isascii()) for c in line):
        return False  # `7\u0301`, `7 万`, `7 años`: a mark or a script we cannot read
    if any(c.isnumeric() for c in line):
        return False   # another number: `5 6`, `5 ½`, `5²`
    if any(not c.isalnum() and not c.isspace() and c not in _PRESENTATION_SYMBOLS for c in line):
        return False  # `5‰`, `5 ¢`, `5 = x`, `5 + ...`: a symbol that is no presentation
    line = _drop_remarks(line, value)
    words = _WORD.findall(line)
    if not words:
        return True
    first = words[0].lower()
    if first in _CHANGES_VALUE or first in _SUB_UNITS or (scales(words[0]) and not (first in ("a", "an", "per") and len(words) > 1)):
        return False  # right after the number: `5 thousand`, `5 trn`, `5 neither`, `5 cents` (of a dollar)
    if any(number_word(w) or w.lower() in _CHANGES_LATER for w in words) or _FAULT_RE.search(line):
        return False  # anywhere on the line: `5 feet two inches`, `5 apples or so`, `5 apples is wrong`
    if words[-1].lower() in _DANGLING or (len(words) == 1 and first in _PHRASE_WORDS):
        return False  # `5 to`, `5 and`, `5 over`: the line breaks off where another value would follow
    phrase = _phrase(words)
    if phrase and value is not None and abs(value) > 1 and not any(_plural(w) for w in phrase):
        return False  # `5 tausend`, `5 mille`: a phrase after five with no plural names no count of things
    return True


# A noun phrase ends at a preposition, a relative word or a verb of the rest of the sentence.
_PHRASE_BREAK = frozenset("""
of in at to for from on by with per a an each apiece total altogether overall left remaining that which who
is are was were will would be been and or but than more less fewer extra additional old tall long wide
""".split())
_DANGLING = frozenset("""to and or by with of than from per more less fewer greater larger smaller higher lower""".split())
_PRE_HEAD = frozenset("more less fewer extra additional whole full total new old big small".split())


def _phrase(words: list[str]) -> list[str]:
    """The noun phrase right after the number: its words before a preposition or a verb (`more
    dollars`, `pounds` of `pounds of meat`, `chocolate bars`); empty when it is only function words
    (`per day`, `in total`)."""
    phrase = []
    for i, w in enumerate(words):
        low = w.lower()
        if low in _PHRASE_BREAK and not (i == 0 and low in _PRE_HEAD):
            break
        phrase.append(w)
    return phrase if any(w.lower() not in _PRE_HEAD for w in phrase) or len(words) == 1 else []


def _plural(word: str) -> bool:
    low = word.lower()
    return low in _INVARIANT or word in SHORT_WORDS or (low.endswith("s") and not low.endswith("ss")) or (
        "'" in low or "\u2019" in low)


_PARENTHESIS = re.compile(r"\s*[(\[]([^()\[\]]*)[)\]]")


def _drop_remarks(line: str, value: Fraction | None) -> str:
    """A parenthesis that restates the number in words (`(five)`) or remarks on it in words that
    state no value (`(the smallest such prime)`) is removed; one that holds a number word, a
    denial or an estimate stays and is read (`(wrong)`, `(or six)`, `(approx)`)."""
    def remark(m: re.Match) -> str:
        inner = m.group(1)
        if value is not None and spelled_value(inner) == value:
            return " "
        return " " if remark_only(inner) else m.group(0)
    return _PARENTHESIS.sub(remark, line)


def remark_after(value_text: str, remark: str) -> bool:
    """Whether `remark` (a parenthesis or clause after an answer's value) is a remark (`remark_only`)
    or restates the value in words (`6 (six)`)."""
    spelled, number = spelled_value(remark), parse_number(value_text)
    return (spelled is not None and number is not None and spelled == number) or remark_only(remark)


def remark_only(text: str) -> bool:
    """Words that state no other value and deny nothing: a remark (`the smallest such prime`, `in
    total`, `which is not prime`), or a reason that opens with `since` or `because` and offers no
    alternative (`since 25 = 5^2`)."""
    words = _WORD.findall(text)
    if not words or _FAULT_RE.search(text) or re.search(r"(?i)\bnot\s+sure\b", text):
        return False
    if any(w.lower() in _HEDGES or w.lower() in ("or", "approx", "approximately", "about", "roughly") for w in words):
        return False
    if words[0].lower() in ("since", "because", "as", "by", "using", "via", "from"):
        return True
    if any(c.isdigit() or c in "$\\=<>+^" for c in text):
        return False
    bound = {"least", "most"}   # a bound only as `at least` / `at most`: `the least prime of that form` is a remark
    return not (re.search(r"(?i)\bat\s+(?:least|most)\b", text) or any(
        number_word(w) or w.lower() in SCALE_WORDS or w.lower() in _OPERATIONS
        or (w.lower() in _ESTIMATES and w.lower() not in bound) for w in words))


_SPELLED_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_SPELLED_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}


def spelled_value(text: str) -> int | None:
    """An integer below a thousand spelled in English words (`twenty-five`, `one hundred and five`)."""
    total = 0
    current = None
    for word in re.split(r"[\s-]+", text.strip().lower()):
        if word in _SPELLED_UNITS or word in _SPELLED_TENS:
            current = (current or 0) + _SPELLED_UNITS.get(word, _SPELLED_TENS.get(word, 0))
        elif word == "hundred" and current and total == 0:
            total, current = current * 100, None
        elif word == "and" and total:
            continue
        else:
            return None
    return None if current is None and total == 0 else total + (current or 0)


# --- the clause before an answer ------------------------------------------------------------------

_LOOKBACK = 300
_CLAUSE_BREAK = re.compile(r"[.!?](?=\s|$)|\n|[;:]|,(?!\d{3})|\s[-\u2013\u2014]+\s")
_UP_TO_LAST_BREAK = re.compile(r"(?s).*(?:" + _CLAUSE_BREAK.pattern + ")")   # greedy: ends at the last break
# Presentation between the verb and the answer: math openers, bold, `equal to`, `exactly`.
_PRESENTED = re.compile(r"(?i)(?:\s|\$|\\[(\[]|\*\*|\bequal(?:s)?\s+to\b|\bexactly\b|\bjust\b|\bsimply\b|\bthe\s+value\b)*$")
_NEGATION = r"(?:\bnot|n['\u2019]t|\bnever|\bno|\bcannot|\bnor)"
# The predicate that leads to the answer is negated: `the answer is not 7`, `it isn't 7`, `x cannot be 7`,
# `is never equal to 7`: only the verb group's own words stand between the negation and the answer, so
# `the arrangements such that the red ball is not first is 5` asserts 5.
_NEGATED_PREDICATE = re.compile(
    rf"(?i){_NEGATION}\b(?:\W+(?:be|been|equal|equals|to|exactly|quite|just|simply|really|the|final|correct|answer|a|an|"
    r"result)\b){0,4}\W*$")
# The answer is a bound or an estimate: `more than 7`, `at most 7`, `about 7`, `~7`.
_BOUND = re.compile(r"(?i)(?:(?<!\bno\s)(?<!\bnot\s)\b(?:more|less|fewer|greater|larger|smaller|higher|lower)\s+than|"
                    r"\brather\s+than|\binstead\s+of)\s*$")   # `no fewer than 3` is `at least 3`: a value
# A hedge on the answer: `maybe 7`, `perhaps \boxed{7}`, `the answer might be 7`, `it could be 7`.
_HEDGES = frozenset("maybe perhaps possibly".split())
_HEDGED = re.compile(r"(?i)(?:\b(?:maybe|perhaps|possibly)\W*$|"
                     r"\b(?:answer|result|solution|it|this|that)\b(?:\s+\w+)?\s+(?:might|could|may|would)\b(?:\s+\w+){0,2}\s*$)")
# Words after which a statement is a complement, not an assertion (`I don't think [the answer is 7]`,
# `it is false that [...]`, `a common mistake is to say [...]`, `if [the answer is 7]`).
_COMPLEMENT = re.compile(r"(?i)\b(?:that|say|says|said|saying|claim|claims|claimed|claiming|think|thinks|thought|"
                         r"believe|believes|believed|conclude|concludes|concluded|write|writes|wrote|writing|guess|"
                         r"guessing|argue|argues|argued|doubt|doubts|doubted|if|unless|whether|suppose|supposing|"
                         r"assume|assuming|imagine|pretend|means|sure|certain|confident|convinced|clear|true|obvious)\b")
_SUBORDINATOR = frozenset("if unless whether suppose supposing assume assuming imagine pretend".split())
# What makes the statement under the complement word no assertion, within the four words before it.
_DENYING_MATRIX = re.compile(
    r"(?i)(?:\bnot|n['\u2019]t|\bno|\bnever|\bnobody|\bnone|\bneither|\bnor|\bcannot|\bfalse|\bwrong|\bincorrect|"
    r"\bmistaken?|\bmistakes|\berror|\berroneous|\buntrue|\bmyth|\bmisconception|\bfallacy|\bpitfall|\btrap|\bnaive(?:ly)?|"
    r"\btempting|\bmight|\bcould|\bmay|\bwould|\bsome|\bdoubt\w*|\bwish|\bunlikely|\bunsure|\buncertain)\b")
_SUBJECT_PRONOUN = re.compile(r"(?i)\b(?:we|i|you|they|he|she|one)\b|\bthe\s+(?:answer|result|value)\b|\bthen\b")


def denied_before(text: str, at: int) -> bool:
    """Whether the clause that ends at `at` (an answer's marker, box or number) does not assert it:
    its predicate is negated (`the answer is not 7`, `it isn't \\boxed{7}`), it makes the answer a
    bound or an estimate (`at most 7`, `about 7`), it hedges it (`maybe 7`, `the answer might be
    7`), or a denial or hypothesis governs it from above (`I don't think the answer is 7`, `it is
    false that`, `a common mistake is to say`, `if the answer is 7`). Words inside the statement's
    own subject (`the number of integers that are not divisible by 3 is 9`, `Rick and Steve could be
    thinking of 4 numbers`) are conditions of the problem and deny nothing. The clause starts after
    the last `.`, `!`, `?`, line break, `,`, `;` or `:`."""
    window = text[max(0, at - _LOOKBACK):at]
    if _TENTATIVE.search(window, max(0, len(window) - _LABEL_REACH)):
        return True   # `Guess: \\boxed{6}`, `Tentatively, 6`
    last_break = _UP_TO_LAST_BREAK.match(window)
    clause = window[last_break.end():] if last_break else window
    if not clause.strip(" \t$*(\\[") and window[:last_break.end() if last_break else 0].endswith("\n"):
        # the answer opens a line: a sentence the line before left unfinished goes on into it (`The total isn't\n#### 6`)
        previous = window[:last_break.end() - 1].rsplit("\n", 1)[-1] if last_break else ""
        if previous.strip() and not re.search(r"[.!?:;,)\]}$]\s*$|^\s*[#*>|]", previous):
            return _denies(previous + " ")
    return _denies(clause)


_LABEL_REACH = 40   # a guess's label stands right before the answer: only the window's tail is searched
_TENTATIVE = re.compile(r"(?i)\b(?:guess|tentative(?:ly)?|conjecture|hypothesis|estimate)\s*[:,]?\s*(?:is\s*)?(?:\$|\\\(|\*\*)*\s*$")


@lru_cache(maxsize=8192)   # the clause before an answer is the same few phrasings, run after run
def _denies(clause: str) -> bool:
    lead = clause[:_PRESENTED.search(clause).start()]
    if _NEGATED_PREDICATE.search(lead) or _BOUND.search(lead) or _HEDGED.search(lead):
        return True
    taker = None
    for taker in _COMPLEMENT.finditer(clause):
        pass
    if taker is None:
        return False
    word = taker.group().lower()
    if word in _SUBORDINATOR:   # `if the answer is 7`, but not `if we substitute 2 we get 5`
        return len(_SUBJECT_PRONOUN.findall(clause, taker.end())) <= 1 and not re.search(r"(?i)\bthen\b", clause[taker.end():])
    if word.startswith("doubt"):
        return True
    matrix = clause[:taker.end()]
    near = " ".join(matrix.split()[-5:])
    return bool(_DENYING_MATRIX.search(near))


# Another value offered right before the answer, where one answer belongs: `\\boxed{8} / \\boxed{7}`, `8 or \\boxed{7}`.
_OFFERED_BEFORE = re.compile(
    rf"(?:(\\(?:boxed|fbox)\{{[^{{}}\n]{{1,80}}\}})\s*(?:\$|\\\))?\s*(?:/|\(\s*or\b)|({NUMBER})\s*(?:\$|\\\))?\s*(?:/|\bor\b|\\lor))"
    r"\s*(?:\$|\\\()?\s*$")   # boxes joined by `or` are one list answer (rewards.math.extract): not here


def offered_before(text: str, at: int, differs: Callable[[str], bool]) -> bool:
    """Whether another value is offered beside the answer that starts at `at`, just before it on
    its line (`$\\boxed{8}$ / $\\boxed{7}$`), and `differs` from it: two answers where one belongs."""
    line = text[max(0, at - 120):at].rsplit("\n", 1)[-1]
    if not line.rstrip(" \t$(\\").endswith(("/", "or", "(")):
        return False   # nothing joins a value onto the answer (one C-speed test; the pattern costs 80 us a line)
    found = _OFFERED_BEFORE.search(line)
    return bool(found) and differs(_inner(found.group(1) or found.group(2), line, found.start()))


# --- the text after the answer --------------------------------------------------------------------

_TAIL_WINDOW = 2000  # characters after an answer read for a retraction
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
# A sentence ends at `.` `!` `?` before a space, the end, a closing math delimiter or bold (`$\boxed{5}.$`
# ends its sentence), never in `i.e.`, `e.g.`, `vs.`, `approx.`; or at a line break.
_END = r"(?<!\bi\.e)(?<!\be\.g)(?<!\bvs)(?<!\bapprox)(?:[.?]|(?<![\d)}\]])!)[.!?]*(?=\s|$|\$|\\[)\]]|\*\*|[)\]])"   # `3! = 6` is no end
_SENTENCE = re.compile(rf"(?:(?!{_END})[^\n])*(?:{_END}(?:\$\$|\$|\\[)\]]|\*\*)*|\n|$)")
_STRUCK = re.compile(r"(?s)~~.*?~~|<(s|del|strike)>.*?</\1>")
_LIST_MARKER = re.compile(r"(?m)^(\s*(?:[-*]\s+)?)(?:\d{1,2}|[a-zA-Z])[.)](?=[ \t]+\S)")   # `1. Note ...`: a list item
_STRIKE_OPEN = re.compile(r"~~|<(?:s|del|strike)>")
_STRIKE_CLOSE = re.compile(r"^(?:\s|\$|\*\*|\\[)\]]|[.,;!?])*(?:~~|</(?:s|del|strike)>)")

# A value in a sentence: a box, a math span, a number, a run of number words.
_VALUE = re.compile(
    r"\\(?:boxed|fbox)\s*\{|\$\$(?:[^$]|\$(?!\$)){1,300}?\$\$|\$[^$\n]{1,300}?\$|\\\((?:(?!\\\)).){1,300}?\\\)|"
    r"\\\[(?:(?!\\\]).){1,300}?\\\]|"
    rf"(?<![\w.]){NUMBER}(?![\w])|"
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:one|two|three|four|five|six|seven|eight|nine|hundred|and))*\b", re.I)

# Words that open a sentence without stating anything: interjections, connectives, labels.
_FILLER = re.compile(
    r"(?i)^(?:[\s,.;:!*_>\"'(\-]|\b(?:or|and|so|thus|hence|therefore|then|maybe|perhaps|possibly|probably|actually|"
    r"really|no|nope|wait|oh|um+|uh+|ah+|er+|hmm+|well|yes|yeah|ok|okay|sorry|oops|whoops|edit|edited|correction|"
    r"update|note|final|answer|instead|rather|alternatively|equivalently|i\.e\.?|that is|in other words|"
    r"never ?mind|scratch that|i mean|hold on|on second thought|but|however|though|yet|still|also|even|just|"
    r"the (?:final |correct |right |real )?answer is)\b)*")
# Before a value: it is put forward as the answer (`the answer is 5`, `it's 5`, `which is 20`, `i.e. 20`,
# `= 20`, `is it 8?`, `what about 8?`, `as 2.5` of `express this as 2.5`).
_PUT_FORWARD = re.compile(
    r"(?i)(?:\b(?:answer|result|solution)\b(?:\s+\w+){0,3}?\s+(?:is|was|be|equals|becomes|gives|reads)|"
    r"\b(?:it|this|that|which)(?:['\u2019]s|\s+(?:(?:must|should|would|could|might|will|may)\s+(?:also\s+)?be|is|was|"
    r"equals|becomes))|\bi\.e\.?|\bthat\s+is|\bnamely|\bmeaning|"
    r"\b(?:is|was|could|would|might|should)\s+(?:it|this|that|the\s+(?:final\s+|correct\s+)?answer)(?:\s+be)?|"
    r"\b(?:what|how)\s+about|\b(?:this|it)\b[^.?!]{0,40}\bas)"
    r"\s*(?:(?:actually|really|indeed|instead|just|exactly|then|now|probably|definitely|simply|still|also|rather)\s+)*"
    r"(?:\*\*|:)?\s*(?:\$|\\\(|\*\*)?\s*$")
# Right after the answer, in its own sentence: `= 20`, `\equiv 20`.
_EQUATED = re.compile(r"^(?:\s|\$|\\\)|\*\*)*(?:(?:[-+*/]|\\(?:cdot|times|div))\s*(?:\$|\\\()?\s*\d+(?:\.\d+)?\s*(?:\$|\\\))?\s*)*"
                      r"(?:=|\\equiv)\s*(?:\$|\\\()?\s*$")   # `= 20`, `- 1 = 5` right after the answer
# After a value: it is offered as an answer (`5 works`, `6 is also a solution`, `4 is correct`).
_OFFERED_AFTER = re.compile(
    rf"(?i)^(?:\s|\$|\*\*|\\[)\]]|,|\band\b|\bor\b|\bboth\b|\$[^$]{{1,80}}\$|{NUMBER})*(?:(?:also|too|both|all|still|each|then|instead)\s+)*"
    r"(?:work|works|worked|fits?|satisf(?:y|ies)|would\s+(?:also\s+)?work|could\s+(?:also\s+)?work|it\s+is\b|it['\u2019]s\b|"
    r"as\s+(?:the|our|my)\s+(?:final\s+|correct\s+)?answer\b|"
    r"(?:is|are|was|were)\s+(?:also\s+)?(?:a\s+|an\s+|the\s+)?(?:(?:correct|right|valid|possible|final|real|true)\b|"
    r"(?:answer|answers|solution|solutions|root|roots|candidate|option)\b))")
_COMPARED_AFTER = re.compile(r"(?i)^(?:\s|\$|\*\*)*+(?:(?:more|less|fewer|greater|larger|smaller|times|percent|minus|plus|"
                             r"divided|multiplied|over)\b|[-+/^%]|\*(?!\*)|\\%|\\(?:cdot|times|div)\b)")
# Before a value: it is an alternative offered beside what came before (`, or maybe 6`, `or 6`).
_ALTERNATIVE = re.compile(r"(?i)\bor\s+(?:(?:maybe|perhaps|possibly|even|rather|else|alternatively|equivalently|"
                          r"just|simply|else|instead)\s+)*(?:\$|\\\(|\*\*)?\s*$")
# What governs a value as a fact about the problem: a preposition or a relation (`divided by 2, 3, or 6`,
# `at x = 3`, `of 1`, `than 5`).
_GOVERNED = re.compile(r"(?i)(?:\b(?:by|of|at|for|from|to|in|on|with|than|between|when|where|if|modulo|mod|under|"
                       r"over|after|before|each|every|per|minus|plus|times|into|like)|[<>+\-*/^]|"
                       r"\\(?:cdot|times|div|le|ge|leq|geq|neq)|[a-zA-Z]\s*=)\s*(?:\$|\\\()?\s*$")
# The answer denied in its own sentence: `\boxed{7} is wrong`, `(incorrect)`, `is not the answer`.
_FAULT = (r"(?:wrong|incorrect|false|untrue|invalid|erroneous|mistaken|bogus|"
          r"a\s+(?:mistake|typo|miscalculation)|an\s+error|"
          r"not\s+(?:correct|right|true|valid|it|possible|the\s+(?:final\s+|correct\s+|right\s+)?answer)|"
          r"n['\u2019]t\s+(?:correct|right|true|valid|it|possible|the\s+(?:final\s+|correct\s+|right\s+)?answer))")
_FAULT_RE = re.compile(rf"(?i)\b{_FAULT}\b")
_DENIED_AFTER = re.compile(
    r"(?i)^(?:\s|\$|\*\*|\\[)\]]|[,(])*(?:(?:is|was|seems|looks|appears|must\s+be|might\s+be|may\s+be|could\s+be)\s+)?"
    rf"(?:(?:definitely|clearly|probably|actually|likely|completely|totally|surely|still)\s+)?{_FAULT}\b(?!\s+to\b)")
_FIRST_WORD = re.compile(r"^(?:\s|\$|\*\*|\\[)\]]|\})*([A-Za-z]+)")
_HEDGED_AFTER = re.compile(r"(?i)^(?:\s|\$|\*\*|\\[)\]]|[,(])*(?:maybe|perhaps|possibly|not\s+sure|i\s+guess)\b")
# A later sentence that denies the answer or the work (`this answer is wrong`, `I made a mistake`, `that's
# not right`, `it does not satisfy the condition`); a fault set off by `to` or `that` is an expletive's
# (`It is a common mistake to count ...`) and says nothing about the answer.
_REFERENCE = r"(?:this|that|it|the|my|our|your|above|previous)\s+(?:(?:final|previous|above|last|boxed|first)\s+)?(?:answer|result|solution|value|calculation|work|reasoning|computation)|this|that|it"
_FAULTED = re.compile(
    rf"(?i)\b(?:{_REFERENCE})(?:['\u2019]s|\s+(?:is|was|seems|looks|appears|must\s+be|might\s+be|may\s+be|could\s+be))\s+"
    rf"(?:(?:definitely|clearly|probably|actually|likely|completely|totally|all|still|just)\s+)?{_FAULT}\b(?!\s+(?:to|that)\b)|"
    rf"\b(?:{_REFERENCE})\s+(?:does\s+not|doesn['\u2019]t|did\s+not|didn['\u2019]t|cannot|can['\u2019]t|won['\u2019]t|"
    r"will\s+not)\s+(?:work|satisfy|hold|fit|check\s+out|add\s+up|make\s+sense|be\s+(?:right|correct|the\s+answer))\b|"
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:made|make|have\s+made)\s+(?:a|an|some)\s+(?:\w+\s+)?(?:mistake|error|typo|"
    r"miscalculation)s?\b|\b(?:i|we)\s+(?:was|were|am|are)\s+wrong\b|\b(?:i|we)\s+(?:miscalculated|messed\s+up|erred)\b")
# A sentence that only rejects what came before: `Actually, no.`, `No, scratch that.`, `But maybe not.`
_REJECTION = re.compile(
    r"(?i)^(?:\W|\b(?:but|however|though|yet|still|wait|hmm+|oh|actually|well|so|um+|uh+|and|hold on|sorry)\b)*"
    r"(?:\b(?:no|nope|not\s+(?:quite|really|so)|never\s*mind|scratch\s+that|(?:maybe|perhaps|probably)\s+not|"
    r"(?:it|this|that)\s+(?:is|was)\s+not|(?:it|this|that)(?:['\u2019]s|\s+is|\s+was)\s+not|"
    r"(?:it|this|that)\s+(?:isn['\u2019]t|wasn['\u2019]t)|wrong|incorrect)\b\W*)+$")


def answer_subject(before: str) -> str | None:
    """The quantity the answer's own statement names (`So the total cost is \\boxed{60}` -> `total cost`):
    a later statement of the same quantity puts its value forward as the answer."""
    clause = before[-_LOOKBACK:].rsplit("\n", 1)[-1]
    found = _SUBJECT.search(clause)
    return found.group(1).lower() if found else None


_SUBJECT = re.compile(r"(?i)\bthe\s+((?:[a-z]+\s+){0,2}[a-z]{3,})\s+(?:is|was|are|were|equals|=|comes\s+to|will\s+be)\s*(?:\$|\\\(|\\\[|\*\*)?\s*$")


def taken_back(after: str, differs: Callable[[str], bool] | None = None, before: str = "") -> bool:
    """Whether the text after an answer shows the response does not commit to it: the answer sits
    in a question (`Is the answer \\boxed{6}?`) or struck-through text (`~~\\boxed{6}~~`, with
    `before`, the text before it); its own sentence denies it (`is wrong`, `(incorrect)`) or hedges
    it (`, maybe`); a later sentence denies it (`this answer is wrong`, `I made a mistake`, `Actually,
    no.`); or a value put forward later as the answer or a candidate, or beside it as an alternative,
    `differs` from it (`Never mind, it's 5.`, `EDIT: 5.`, `Both 5 and 6 work.`, `, or maybe 6`, `,
    which is 20`, a later box; a later statement of the quantity the answer's own statement names, in
    `before`: `the total cost is 66`). With no `differs`, every such value counts as different."""
    if _struck(before, after):
        return True
    after = after[:_TAIL_WINDOW]
    turn = _NEW_TURN.search(after)
    if turn:
        after = after[:turn.start()]   # `Question: ...` (a few-shot continuation), `Human: ...`: another exchange
    first = _SENTENCE.match(after).group()
    if first.rstrip().endswith("?") or first.rstrip(" $*)\\]").endswith("?"):
        return True   # `Is the answer $\boxed{6}$?`, `#### 6?`
    if not _LETTER_OR_DIGIT.search(after):
        return False   # `$.`, `$$`, `**`: every way of taking an answer back needs a word or a number
    if _DENIED_AFTER.match(first) or _HEDGED_AFTER.match(first):
        return True
    unit = _FIRST_WORD.match(first)
    if unit and unit.group(1).lower() in _SUB_UNITS:
        return True   # `$\\boxed{4.50}$ cents` for dollars: a hundredth of the currency asked for
    different = differs or (lambda token: True)
    subject = answer_subject(before)
    text = _LIST_MARKER.sub(r"\1", _STRUCK.sub(" ", _close_answer_math(after)))
    decided = None     # the last sentence that put a value forward: does it differ from the answer?
    question = False   # that sentence was a question (`Could it be -4?`), which a `No` answers
    at = 0
    for sentence in _SENTENCE.finditer(text):
        body = sentence.group()
        if body.strip():
            if question and _REJECTION.match(body) or question and _ANSWERED_NO.match(body):
                decided, question = None, False   # `Could it be 8? No.`: the question is answered
            elif at and _denies_answer(body):
                return True
            else:
                verdict = _put_forward(body, different, at == 0, subject)
                if verdict is not None:
                    decided, question = verdict, body.rstrip(" $*)\\]").endswith("?")
        at = sentence.end()
        if at >= len(text):
            break
    return bool(decided)


_ANSWERED_NO = re.compile(r"(?i)^\W*(?:no|nope|not)\b")


_NEW_TURN = re.compile(r"(?:^|\n)[ \t*#]*(?:Question|Problem|Exercise|Human|User|Instruction|Q)[ \t]*\d*[ \t]*[:.]", re.I)
_DOLLAR = re.compile(r"(?<!\\)\$\$?")


def _close_answer_math(after: str) -> str:
    """The text after an answer with the delimiter that closes the answer's own math removed, so
    that `$\\boxed{5}$, or $6$` is read as `, or $6$`, not as a span `$, or $`: on the answer's
    line an odd count of `$` means the first one closes the answer's span."""
    line = after.split("\n", 1)[0]
    dollars = _DOLLAR.findall(line)
    if len(dollars) % 2 == 1:
        first = _DOLLAR.search(after)
        return after[:first.start()] + " " + after[first.end():]
    return after


def _struck(before: str, after: str) -> bool:
    """The answer sits inside `~~...~~`, `<s>`, `<del>` or `<strike>` (its line before it opens one)."""
    if not _STRIKE_CLOSE.match(after):
        return False
    line = before.rsplit("\n", 1)[-1]
    return len(_STRIKE_OPEN.findall(line)) % 2 == 1 or bool(re.search(r"<(?:s|del|strike)>(?!.*</(?:s|del|strike)>)", line))


def _denies_answer(sentence: str) -> bool:
    return bool(_FAULTED.search(sentence) or _REJECTION.match(sentence))


def _put_forward(sentence: str, differs: Callable[[str], bool], own: bool, subject: str | None = None) -> bool | None:
    """Whether `sentence` puts forward a value other than the answer (True), only the answer (False),
    or no value as an answer (None). `own` is the answer's own sentence (the text right after it),
    where an alternative needs no opener (`, or 6`). Two values offered in one sentence (`Both 5
    and 6 work`) differ when either does."""
    verdict = None
    values = _values(sentence)
    for start, end, token in values:
        lead = sentence[:start]
        if not (_candidate(sentence, lead, start, end, token, own, last=end == values[-1][1])
                or subject and not own and _restates(lead, subject) and not _COMPARED_AFTER.match(sentence[end:])):
            continue
        verdict = verdict or differs(_inner(token, sentence, start))
    return verdict


def _restates(lead: str, subject: str) -> bool:
    """`the total cost is` (the answer's own quantity, stated again) right before a value."""
    found = _SUBJECT.search(lead)
    return (bool(found) and found.group(1).lower() == subject and not _COUNTERFACTUAL.search(lead)
            and not _ANOTHER_CASE.search(lead[:found.start()]))


_ANOTHER_CASE = re.compile(r"(?i)\b(?:for|in|when|if|with|without|under|given|on)\b")   # `For the smaller board, the number ... is 12`


def _candidate(sentence: str, lead: str, start: int, end: int, token: str, own: bool, last: bool = False) -> bool:
    """Whether the value `token` at `start:end` is put forward as the answer or beside it."""
    if token.startswith(("\\boxed", "\\fbox")):
        return True    # a later box is an answer slot
    rest = sentence[end:]
    clause = _CLAUSE_START.split(lead)[-1]
    if _NEGATED_LIST.search(clause):
        return False   # `neither $x = 2$ nor $x = 4$ works`
    if _equation(token):
        return bool(own and _EQUATED.match(lead))   # `Check: $2^3 = 8$.`: working, not a value put forward
    core = (_FILLER.match(lead).end() == len(lead) or bool(_LABEL.match(lead))
            or bool(_AFTER_BREAK.search(lead)))
    if _ALTERNATIVE.search(lead):
        unit = _UNIT_BEFORE_OR.search(lead)
        if unit and _converted(token, rest) and _unit_of(rest) not in (None, _unit_of(" " + unit.group(1))):
            return False   # `160 minutes, or 2 hours and 40 minutes`: the same quantity in other units
        return not _governed_list(lead) or (own and not _words_before_list(lead))
    if _COMPARED_AFTER.match(rest):
        return False   # `3 more than`, `6 minus 1`: an operand, not a value put forward
    if _PAST_BELIEF.search(lead):
        return False   # `I initially thought it was 14, but ...`: a value the response has left behind
    if _REJECTED_AFTER.match(rest):
        return False   # `so $\\pi$ is not a period`, `6 doesn't work`, `so 6 was wrong`: a value ruled out
    if own and _EQUATED.match(lead) or _STATED_AS.search(lead) and not (own and _RELATIVE.search(lead)):
        return True
    if _PUT_FORWARD.search(lead):
        # `That is 2 hours and 40 minutes`, `this is $30^\\circ$`: the same quantity in other units
        return not (_POINTS_BACK.search(lead) and not _RETRACTING.search(lead) and _converted(token, rest))
    if _OFFERED_AFTER.match(rest):
        return not _governed_list(lead) or core
    if core and _ALTERNATIVE_WORD.search(lead):
        return True    # `(Alternatively, 13 if we include the endpoint.)`: another answer under a condition
    if _CONCLUDED.search(lead):
        return True    # `Therefore, there are thirteen ways.`
    if last and not _OPERAND_AFTER.match(rest) and not _COUNTERFACTUAL.search(lead):
        if (_CORRECTION.search(lead) or _STRONG_RETRACTION.search(lead)) and not _GOVERNED.search(lead):
            return True    # `She actually needs 8 dollars more.`, `Ignore the above; we get 6.`, `Actually, no: use 12.`
        if (_ASKED.search(sentence) or _APPLIED.search(lead) and not _CHECKING.match(lead)) and _RESULT_POSITION.search(lead):
            return True    # `gives 30, which is what the problem asks for`, `Doubling it, we get 12.`
    return core and _bare(rest)


_PAST_BELIEF = re.compile(r"(?i)\b(?:initially|at\s+first|originally|previously|earlier|mistakenly|wrongly|first\s+thought|"
                          r"thought|had\s+(?:thought|assumed|gotten|got))\b")
_REJECTED_AFTER = re.compile(
    r"(?i)^(?:\s|\$|\*\*|\\[)\]])*(?:itself\s+)?(?:(?:is|was|are|were)\s+(?:also\s+)?(?:not|never|excluded|ruled\s+out|rejected|wrong|"
    r"incorrect|impossible|invalid)|(?:is|was|are|were|does|did|do|can|could|would)n['\u2019]t|(?:does|did|do)\s+not|"
    r"cannot|can\s+not|fails?|failed)\b")
_ALTERNATIVE_WORD = re.compile(r"(?i)\b(?:alternatively|otherwise|or)\b")
# A conclusion that states how many there are: `Therefore, there are 13 ways`, `so in total we have 13`.
_CONCLUDED = re.compile(r"(?i)\b(?:therefore|thus|hence|so|in\s+total|altogether|overall)\b[^.?!;]{0,24}?\b(?:there\s+(?:are|is|were|will\s+be)|"
                        r"we\s+(?:have|get|need|obtain|find)|it\s+(?:takes|costs))\s*(?:\$|\*\*)?\s*$")
_RELATIVE = re.compile(r"(?i)\b(?:whose|which|that|where|when|if|with|such)\b")
# A value right after a hard break and only fillers: `I retract this; 18.`, `— nope, 13.`
_AFTER_BREAK = re.compile(r"(?i)(?:^|[;:]|\s[-\u2013\u2014]+)\s*(?:(?:no|nope|oops|sorry|wait|actually|hmm+|so|or|maybe|make\s+that|"
                          r"rather|instead)\b[\s,.!]*)*(?:\$|\*\*)?\s*$")
_RELATION = re.compile(r"=|<|>|\\(?:le|ge|leq|geq|neq|ne|approx|equiv|implies)(?![a-zA-Z])")
_VARIABLE_SIDE = re.compile(r"^\s*(?:[A-Za-z](?:_\{?\w+\}?)?|\\[a-zA-Z]+)\s*=")


def _equation(token: str) -> bool:
    """A math value that relates expressions (`(4\\sqrt2)^2 = 32`), not one that names a variable's value
    (`x = 9`)."""
    inner = _MATH_DELIMITERS.sub("", token.strip())
    found = _RELATION.findall(inner)
    return bool(found) and not (len(found) == 1 and _VARIABLE_SIDE.match(inner))


_UNIT_BEFORE_OR = re.compile(rf"(?:^|{NUMBER}|\$|\}})\s*([A-Za-z]{{2,}}),?\s+or\s+(?:\$|\\\()?\s*$")   # `160 minutes, or`
_RETRACTING = re.compile(r"(?i)\b(?:oops|sorry|wait|no|nope|never\s*mind|actually|instead|rather|correction|corrected|meant|"
                         r"scratch|hold\s+on|edit|revised|retract|mistake|wrong|ignore|disregard|typo|instead)\b")
_STRONG_RETRACTION = re.compile(r"(?i)\b(?:oops|sorry|never\s*mind|correction|corrected|meant|scratch|revised|retract|"
                                r"ignore|disregard|typo|erratum|recount\w*|recomput\w*|recalculat\w*|redo(?:ing)?|redid|"
                                r"re-?examin\w*|reconsider\w*|on\s+reflection|now\s+get)\b")
# Where a sentence states its result: after a verb of having, giving or being (`we get 6`, `needs 8`, `gives 30`).
_RESULT_POSITION = re.compile(r"(?i)(?:\b(?:is|are|was|were|be|gives|give|gave|giving|yields|makes|equals|get|gets|got|obtain|"
                              r"find|found|need|needs|have|has|had|becomes|comes\s+to|so|thus)|=)\s*(?:\$|\\\(|\*\*)?\s*$")
# An operation applied to the answer, whose result the sentence then states (`Doubling it, we get 12`).
_APPLIED = re.compile(r"(?i)\b(?:doubl|tripl|halv|multiply|multiplying|multiplied|divid|squar|cub|add(?:ing)?|subtract|taking\s+the\s+"
                      r"(?:reciprocal|square|negative))\w*")
# A sentence that checks: its result is working (`Check: multiplying 5 by 2 gives 10.`).
_CHECKING = re.compile(r"(?i)^\W*(?:(?:let\s+me|let's|we\s+can|i'?ll)\s+)?(?:check|verif|sanity|double[- ]check|confirm|test)\w*")
# A value in a sentence about what would hold under other terms: `The perimeter would be 12, but ...`.
_COUNTERFACTUAL = re.compile(r"(?i)\b(?:would|could|might)\s+(?:have\s+)?(?:be|been|equal|give|get)\s*(?:\$|\*\*)?\s*$")
# The sentence says its value is what the problem asks for: `..., which is what the problem asks for.`
_ASKED = re.compile(r"(?i)\b(?:asks?|asked|requested|required|wanted|desired)\b|\bthe\s+question\b")


def _unit_of(rest: str) -> str | None:
    """The unit word right after a value, folded to its singular (`hours` -> `hour`)."""
    word = _WORD.match(rest.lstrip(" $*"))
    return word.group().lower().rstrip("s") if word else None
# A value's clause starts after the last `,` `;` `:` or dash before it.
_CLAUSE_START = re.compile(r"[,;:]\s|\s[-\u2013\u2014]+\s")
_NEGATED_LIST = re.compile(r"(?i)\b(?:neither|nor|not|never|none\s+of)\b")
# A label and a colon before a bare value: `Computed: 7.`, `Revised answer: 10`, `Total: 23`.
_LABEL = re.compile(r"(?i)^(?:\W|\b(?:so|oops|sorry|wait|no|nope|hmm+)\b)*[A-Za-z]+(?:\s+[A-Za-z]+){0,2}\s*:\s*(?:\$|\*\*)?\s*$")
# Words that state a value as the result whatever the subject: `giving 9`, `I meant 21`, `should read 16`,
# `revised to 25`; and a quantity asked for stated again (`the total is 23`, `the count is 29`).
_STATED_AS = re.compile(
    r"(?i)(?:(?:^|[,;:(]\s*|\s[-\u2013\u2014]+\s*)(?:giving|which\s+gives|so|thus|hence)|\bi\s+meant|\bshould\s+read|"
    r"\b(?:final|actual|correct|real|true|new)\s+(?:answer|count|total|number|value|result|sum|amount)\s+(?:of|is|was|=|:)|"
    r"\b(?:revised|changed|corrected|updated)\s+to|\btypo\s+for|\bshould\s+(?:have\s+)?(?:been|be|read|say)|\bmeant\s+to\s+(?:write|say)|"
    r"\b(?:total|count|sum|amount|number|answer|result|solution)\s*(?:is|was|becomes|comes\s+to|should\s+be|must\s+be|"
    r"would\s+be|:)(?:\s+(?:actually|really|then|now|instead|just))?)\s*(?:\$|\\\(|\*\*)?\s*$")
# Pronoun subjects, whose value may restate the answer in other units.
_POINTS_BACK = re.compile(r"(?i)\b(?:this|that|it|which)(?:['\u2019]s|\s+(?:is|was|equals))\b[^.?!]{0,20}$|\bi\.e\.?|\bthat\s+is")
_CORRECTION = re.compile(r"(?i)\b(?:actually|instead|in\s+fact|rather)\b")
_OPERAND_AFTER = re.compile(r"^\s*(?:\$\s*)?(?:[=<>+\-*/^]|\\(?:cdot|times|div|le|ge|neq))")
_UNIT_IN_SPAN = re.compile(r"\^\s*\{?\\circ|\\text\{\s*[A-Za-z]|\\(?:mathrm|mbox)\{\s*[A-Za-z]")


def _converted(token: str, rest: str) -> bool:
    """The value names a unit, so it restates a quantity rather than offering an answer."""
    if _UNIT_IN_SPAN.search(token):
        return True
    words = _WORD.findall(rest.split(".", 1)[0])
    return bool(words) and not scales(words[0]) and words[0].lower() not in _CONNECTIVES and (
        _plural(words[0]) or words[0].lower() in _INVARIANT)


_CONNECTIVES = frozenset("which that and or but so since because as if when where then is are was were".split())


_BARE_REST = re.compile(r"(?i)^(?:\s|\$|\*\*|\\[)\]]|[.!,;:)]|\b(?:instead|then|after\s+all|actually|apples?)\b)*$")


def _bare(rest: str) -> bool:
    """The value ends its sentence, or only a noun phrase follows it (`EDIT: 5.`, `Oh wait, 8 apples`)."""
    rest = rest.strip()
    if _BARE_REST.match(rest):
        return True
    return bool(rest) and not re.match(r"[=<>+\-*/^]|\\(?:cdot|times|div)", rest) and plain_tail(rest.rstrip(".!"))


def _governed_list(lead: str) -> bool:
    """Whether the list a value ends is governed by a preposition or relation (`divided by 2, 3,
    4, or`): walk back over the list's values and separators to what stands before it."""
    head = _LIST_TAIL.sub("", lead)
    return bool(_GOVERNED.search(head))


_LIST_TAIL = re.compile(rf"(?i)(?:(?:\$[^$]{{1,80}}\$|{NUMBER}|\b[a-z]\b)\s*(?:,|\bor\b|\band\b|\beither\b)\s*)*"
                        r"(?:\b(?:or|and|either|both)\s+(?:(?:maybe|perhaps|possibly|even|rather|else|alternatively|"
                        r"equivalently|just|simply|instead)\s+)*)?(?:\$|\\\(|\*\*)?\s*$")


def _words_before_list(lead: str) -> bool:
    """Whether words stand between the answer and an `or` in the answer's own sentence."""
    return bool(re.search(r"[A-Za-z]{2,}", _LIST_TAIL.sub("", lead)))


def _values(sentence: str) -> list[tuple[int, int, str]]:
    """The values in a sentence, in order: boxes (with their content), math spans, numbers, number words."""
    found = []
    i = 0
    while True:
        m = _VALUE.search(sentence, i)
        if m is None:
            return found
        if m.group().lower() == "one" and (_PRONOUN_ONE_AFTER.match(sentence, m.end()) or _PRONOUN_ONE_BEFORE.search(sentence, 0, m.start())):
            i = m.end()   # `one may leave it as ...`, `the first one`: the pronoun, not the number
            continue
        if m.group().startswith(("\\boxed", "\\fbox")):
            close = _closing_brace(sentence, m.end() - 1)
            end = len(sentence) if close < 0 else close + 1
            found.append((m.start(), end, sentence[m.start():end]))
            i = end
        else:
            found.append((m.start(), m.end(), m.group()))
            i = m.end()


_PRONOUN_ONE_AFTER = re.compile(r"(?i)\s+(?:may|can|could|might|should|would|must|will|needs?|has|had|gets?|finds?|sees?|"
                                r"obtains?|of|another|such|who|which|that|is|does)\b")
_PRONOUN_ONE_BEFORE = re.compile(r"(?i)\b(?:no|any|each|every|the|this|that|which|only|other|first|last|next|a|an|right|wrong|"
                                 r"correct|same)\s+$")


def _closing_brace(text: str, open_at: int) -> int:
    depth = 0
    for m in re.finditer(r"\\.|[{}]", text[open_at:open_at + 1000]):
        if m.group() == "{":
            depth += 1
        elif m.group() == "}":
            depth -= 1
            if depth == 0:
                return open_at + m.start()
    return -1


_MATH_DELIMITERS = re.compile(r"^(?:\$\$|\$|\\\(|\\\[)|(?:\$\$|\$|\\\)|\\\])$")


def _inner(token: str, sentence: str, start: int) -> str:
    """A value's text without its delimiters (a box's content, a span's math)."""
    if token.startswith(("\\boxed", "\\fbox")):
        brace = token.find("{")
        return token[brace + 1:-1] if token.endswith("}") else token[brace + 1:]
    inner = _MATH_DELIMITERS.sub("", token.strip())
    box = re.search(r"\\(?:boxed|fbox)\s*\{", inner)
    if box:
        close = _closing_brace(inner, box.end() - 1)
        return inner[box.end():close] if close > 0 else inner[box.end():]
    return inner.strip()


_COUNTED = re.compile(rf"\s*({NUMBER})([A-Za-z ,'\u2019-]*)$")


def value_of(token: str) -> Fraction | None:
    """The exact value of a value's text: a number (`8`, `$8$`, `x = 8`, `25\\%`), or number words (`eight`)."""
    text = _MATH_DELIMITERS.sub("", token.strip()).strip()
    text = re.sub(r"^[A-Za-z](?:_\{?\w+\}?)?\s*=\s*", "", text)   # `x = 8`
    spelled = spelled_value(text)
    if spelled is not None:
        return Fraction(spelled)
    number = parse_number(text.replace("\\!", "").replace("{,}", ","))
    if number is None and (counted := _COUNTED.match(text)):   # `12 apples`: a number and a noun phrase
        number = parse_number(counted.group(1))
        return number if number is not None and counted.group(2).strip() and plain_tail(counted.group(2), number) else None
    return number


def differs_from(value: Fraction | None | Callable[[], Fraction | None]) -> Callable[[str], bool]:
    """A `differs` for `taken_back`: a value put forward later is another value than `value` (or
    than what `value()` gives, read only when one is: most answers have none after them). A value
    that cannot be read as a number differs when it holds a digit (two values offered), and not
    otherwise (`$x$`, a name)."""
    read = value if callable(value) else (lambda: value)

    def differs(token: str) -> bool:
        known = read()
        stated = value_of(token)
        if stated is None:
            return any(c.isdigit() for c in token)
        if known is None:
            return True
        return stated != known and not ("%" in token and stated / 100 == known)   # `\boxed{\frac14}, or 25\%`
    return differs


def differs_from_text(answer: str) -> Callable[[str], bool]:
    """A `differs` for an answer known only as text (`The final answer is $x^2$.`): by value where
    both are numbers, else by their text without spaces."""
    by_value = differs_from(lambda: value_of(answer))
    plain = re.sub(r"\s+", "", _MATH_DELIMITERS.sub("", answer.strip()))

    def differs(token: str) -> bool:
        if value_of(answer) is not None:
            return by_value(token)
        return re.sub(r"\s+", "", _inner(token, token, 0)) != plain
    return differs
