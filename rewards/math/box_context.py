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

from ..number_text import VALUE_WORDS

# Just before `\boxed`: a digit or operator glued to it (`1\boxed{2}`, `2^\boxed{3}`), a sign after `=`,
# `$` or `(` (`x = -\boxed{21}`), an operation (`5 \times \boxed{3}`), or a brace that opens an operand
# (`\frac{\boxed{1}}{2}`, `\frac{1}{\boxed{2}}`, `\sqrt{\boxed{2}}`, `x^{\boxed{2}}`).
_OPERAND_BEFORE = re.compile(
    r"(?:[\d^_/]|[=$(][ \t]*[-+][ \t]*|(?<=\S)[-+]|\\(?:pm|mp|cdot|times|div)[ \t]*|"
    r"(?:\\[dtc]?frac|\\binom|\\sqrt(?:\[[^\]\n]*\])?|[\^_]|\\[dtc]?frac\{[^{}\n]*\}|\\binom\{[^{}\n]*\})[ \t]*\{[ \t]*)$")
# Just after the box: a digit, a decimal part, a factorial, a subscript, a power that is not a
# degree sign, a product (`(x+1)`, `\pi`, `\sqrt{2}`), or an operation on another value.
_OPERAND_AFTER = re.compile(
    r"^(?:\d|\.\d|!|_|\(|\^(?![ \t]*\{?[ \t]*\\circ)|\\(?:pi|sqrt|d?frac)(?![a-zA-Z])|"
    r"[ \t]*(?:[-+*/]|\\(?:cdot|times|div|pm|mp)(?![a-zA-Z]))[ \t]*[\d\\(])")
# After the box and its closing presentation (`$`, `\)`, `\]`, `**`), on its line: the first word.
_FIRST_WORD = re.compile(r"^(?:[ \t]|\$|\\\)|\\\]|\*\*)*([A-Za-z]+)")
_WINDOW = 40
ATTACHED = "the box is part of a larger answer"  # the reason an attached box gives (unparsable_pred)
# Value words that after an answer only say how it was reached (`\boxed{5} to the nearest unit`).
_HARMLESS_AFTER = frozenset({"to", "through", "over"})


def attached(text: str, start: int, end: int) -> bool:
    """Whether the box spanning `text[start:end]` is an operand of the math around it."""
    before = text[max(0, start - _WINDOW):start].rsplit("\n", 1)[-1]
    after = text[end:end + _WINDOW].split("\n", 1)[0]
    if _OPERAND_BEFORE.search(before):
        return True
    if _OPERAND_AFTER.match(after):
        return True
    word = _FIRST_WORD.match(after)
    return bool(word) and word.group(1).lower() in VALUE_WORDS - _HARMLESS_AFTER
