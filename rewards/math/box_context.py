"""Whether the final box is the whole answer or only part of the expression written around it.

`$x = -\\boxed{21}$`, `$\\boxed{21}^2$`, `$\\frac{\\boxed{21}}{7}$`, `$1\\boxed{21}$`, `$\\boxed{21}.5$`
and `$\\boxed{21}$ thousand` state another value than 21: the box frames a piece of the answer, so
reading the box alone would pay a wrong answer. Presentation around a box stays allowed: a label
(`x = \\boxed{3}`), a unit or degree sign (`\\boxed{5}\\text{ cm}`, `\\boxed{30}^\\circ`, `\\%`), a
wrapper (`\\text{\\boxed{5}}`, `**\\boxed{5}**`), a bullet (`- \\boxed{5}` at a line's start).
Only the same line is read, a few characters each side.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..number_text import VALUE_WORDS
from ..prose import SHORT_WORDS

# Just before `\boxed`: a digit or operator glued to it (`1\boxed{2}`, `2^\boxed{3}`), a sign after `=`,
# `$` or `(` (`x = -\boxed{21}`), an operation or a relation (`5 \times \boxed{3}`, `x > \boxed{5}`),
# a bracket that takes a value (`|\boxed{-5}|`, `\lfloor\boxed{5.5}\rfloor`), or a brace that opens an
# operand (`\frac{\boxed{1}}{2}`, `\frac{1}{\boxed{2}}`, `\sqrt{\boxed{2}}`, `\overline{\boxed{5}}`).
_OPERAND_BEFORE = re.compile(
    r"(?:[\d^_/|]|[=$(][ \t]*[-+][ \t]*|(?<=\S)[-+]|(?:[<>]|"
    r"\\(?:pm|mp|cdot|times|div|[lg]eq?|neq?|neg|lnot|[lg]eqslant|l[vV]ert|lfloor|lceil|mid)(?![a-zA-Z]))[ \t]*|"
    r"(?:\\[dtc]?frac|\\binom|\\sqrt(?:\[[^\]\n]*\])?|[\^_]|\\[dtc]?frac\{[^{}\n]*\}|\\binom\{[^{}\n]*\}|"
    r"\\(?:overline|bar|hat|tilde|vec|dot)[ \t]*)[ \t]*\{[ \t]*)$")
# Just after the box: a digit, a decimal part, a factorial, a prime, a subscript, a power that is not
# a degree sign, a letter (`\boxed{7}x`, `\boxed{7}k`), a Unicode number (`½`, `²`), more digits
# (`\boxed{7}\,000`, `\boxed{7},000`), a product or function (`\pi`, `\sqrt{2}`, `\ln 2`), an operation,
# or a bracket closed around the box and then raised or multiplied (`(\boxed{5})^2`).
_OPERAND_AFTER = re.compile(
    r"^(?:(?:\)|\\right\)|\]|\\right\]|\|)*(?:\d|\.\d|!|'|_|\(|\^(?![ \t]*\{?[ \t]*\\circ)|[A-Za-z](?![A-Za-z])|"
    r"(?:\\,|\{,\}|,|\\ |[ \t])\d{3}(?!\d)|"
    r"(?:[ \t]|\\[,;:! ])*\\(?:pi|sqrt|[dt]?frac|ln|log|exp|sin|cos|tan|sec|csc|cot|mathbf\{i\}|mathrm\{[ie]\})(?![a-zA-Z])|"
    r"(?:[ \t]|\\,)*(?:\\(?:cdot|times|div)(?![a-zA-Z])|(?:[-+*/]|\\(?:pm|mp)(?![a-zA-Z]))[ \t]*[\d\\(])))")
# A `\text{}` or `\mathrm{}` right after the box whose words change the value (`\text{ thousand}`,
# `\mathrm{k}`, `\text{ or } 8`).
_TEXT_AFTER = re.compile(r"^(?:[ \t]|\\,)*\\(?:text|mathrm|textrm|textnormal|operatorname)\{([^{}]*)\}")
_WORDS = re.compile(r"[A-Za-z]+")
# Short words in such a `\text{}` that name a unit, a time of day or an ordinal, beyond prose's units.
_SHORT_PRESENTATION = SHORT_WORDS | frozenset("st nd rd th am pm AM PM yr yrs wk mo dB".split())
# After the box and its closing presentation (`$`, `\)`, `\]`, `**`), on its line: the first word.
_FIRST_WORD = re.compile(r"^(?:[ \t]|\$|\\\)|\\\]|\*\*)*([A-Za-z]+)")
_WINDOW = 40
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9_-]*>")  # `<answer>\boxed{7}</answer>`: a tag, not a relation
ATTACHED = "the box is part of a larger answer"  # the reason an attached box gives (unparsable_pred)
# Value words that after an answer only say how it was reached (`\boxed{5} to the nearest unit`).
_HARMLESS_AFTER = frozenset({"to", "through", "over"})


def attached(text: str, start: int, end: int) -> bool:
    """Whether the box spanning `text[start:end]` is an operand of the math around it."""
    return _attached(text[max(0, start - _WINDOW):start].rsplit("\n", 1)[-1], text[end:end + _WINDOW].split("\n", 1)[0])


@lru_cache(maxsize=8192)   # the same phrasing around a box recurs across a GRPO group and a run
def _attached(before: str, after: str) -> bool:
    before, after = _TAG.sub(" ", before), _TAG.sub(" ", after)
    if _OPERAND_BEFORE.search(before):
        return True
    if _OPERAND_AFTER.match(after) or after[:1].isnumeric():
        return True
    text_after = _TEXT_AFTER.match(after)
    if text_after and any(w.lower() in VALUE_WORDS or (len(w) <= 2 and w not in _SHORT_PRESENTATION)
                          for w in _WORDS.findall(text_after.group(1))):
        return True
    word = _FIRST_WORD.match(after)
    return bool(word) and word.group(1).lower() in VALUE_WORDS - _HARMLESS_AFTER
