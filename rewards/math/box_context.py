"""Whether the final box is the whole answer or an operand of the math written around it.

`$x = -\\,\\boxed{21}$`, `$\\boxed{21}^2$`, `$\\frac 1{\\boxed{21}}$`, `$-(\\boxed{21})$`, `$1\\boxed{21}$`,
`$\\boxed{21}.5$`, `$\\boxed{3} x + 2$`, `$\\boxed{21}$ $\\times 10^3$`, `negative $\\boxed{21}$` and
`$\\boxed{21}$ thousand` state another value than 21: the box frames a piece of the answer, so reading
the box alone would pay a wrong answer.

The box's formula (rewards.math.span: the whole math span, joined with the formulas next to it) is
read with a LaTeX tokenizer (pylatexenc), and the box is judged at each level that holds it: the
items right before and right after it must end the expression there. What ends it: the formula's
edge, a relation that states the box (`=`, `\\approx`, `\\equiv`, `\\in`, `:`, `\\Rightarrow`), a
separator (`,` `;` `&` `\\\\`), a full stop, another box (boxes side by side are a list:
rewards.math.extract), a remark in `\\text{}` after it that leads to no value (`\\text{(since } x>0)`).
What only presents it is skipped: spacing (`\\,` `\\;` `\\!` `~`; a `\\quad` before it separates
unless a sign reaches across), a currency sign before it (`\\$`), a degree or percent sign, a unit in
`\\text{}` after it, `\\pmod{n}`, an end mark, brackets around it alone (`(\\boxed{5})`), a wrapper
(`\\text{\\boxed{5}}`, `\\mathbf{}`, `\\textcolor{}{}`). Anything else next to it (a number, a letter, an
operator, a bracket it does not close, a function) makes it an operand; so does an argument of
any other command (`\\frac`, `\\sqrt`, `\\overline`, a power's braces). A word of the value's own
(a number, a scale, an operation: `\\text{ thousand}`, `\\text{ squared}`) after the box changes it.
The formula is read only when the box is not all of it; the reading is cached by its text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc import latexwalker, macrospec

from . import units
from .span import answer_span, wrapped

ATTACHED = "the box is part of a larger answer"  # the reason an attached box gives (unparsable_pred)
MAX_FORMULA_CHARS = 600
"""A formula is read at most this far each side of the box (the tokenizer is pure Python)."""
MAX_DEPTH = 40
"""A box nested deeper than this in its formula is no answer (and the tokenizer recurses per level)."""

_CONTEXT = latexwalker.get_default_latex_context_db()
_CONTEXT.add_context_category("answers", prepend=True, macros=[
    macrospec.MacroSpec(name, "{") for name in (
        "boxed", "fbox", "hbox", "operatorname", "textnormal", "textup", "textsf", "mathsf", "boldsymbol",
        "bm", "pmb", "mathbb", "mathcal", "mathfrak", "text", "mbox", "mathrm", "textrm", "textbf",
        "mathbf", "textit", "mathit", "emph", "underline", "overline", "bar", "hat", "tilde", "vec", "dot", "pmod")
] + [macrospec.MacroSpec(name, "{{") for name in (
    "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom", "textcolor", "colorbox")])

_BOXES = frozenset({"boxed", "fbox"})
# Commands whose argument is presented, not computed on: a box inside is still the whole answer.
_WRAPPERS = frozenset("""
boxed fbox hbox mbox text textnormal textup textsf textrm textbf textit emph mathbf mathrm mathsf
boldsymbol bm pmb underline color textcolor colorbox displaystyle textstyle
""".split())
_TEXT_COMMANDS = frozenset("text mbox hbox textnormal textup textsf textrm textbf textit emph mathrm operatorname".split())
_SPACING = frozenset({",", ";", ":", "!", " ", "enspace", "thinspace", "medspace", "thickspace",
                      "negthinspace", "hspace", "displaystyle", "textstyle", "color", "nonumber", "notag"})
_WIDE = frozenset({"quad", "qquad"})
_END_MARKS = frozenset({"qed", "blacksquare", "square", "Box", "checkmark"})   # an end-of-proof or check mark
_CURRENCY = frozenset({"$", "pounds", "euro", "yen", "textdollar", "textsterling", "texteuro"})
_RELATIONS = frozenset("""
approx approxeq simeq sim cong equiv coloneqq eqqcolon Rightarrow Longrightarrow implies rightarrow
longrightarrow to therefore iff Leftrightarrow mapsto in
""".split())
"""Relations that state the box (`x \\in \\boxed{[0,1)}`, `a \\equiv \\boxed{9}`); an order (`<`, `\\le`) makes
the box a bound, not the answer."""
_BREAKS = frozenset({"\\", "newline", "cr", "hline", "(", ")", "[", "]"})   # `\\)`: a formula's edge
_DEGREE = frozenset({"circ", "degree"})
_OPERATORS = frozenset("cdot times div pm mp neg lnot frac dfrac tfrac sqrt".split())
_SIZED = frozenset("left right bigl bigr Bigl Bigr biggl biggr Biggl Biggr big Big bigg Bigg".split())
_OPENERS = {"(": ")", "[": "]"}
_WORD = re.compile(r"[^\W\d_]+")
# Words that, right before a formula, apply an operation to it (`negative $\boxed{5}$`, `the
# reciprocal of $\boxed{5}$`); comparisons (`at least`, `a maximum of`) describe the answer and stay.
_SIGNS = frozenset("-+\u2212\u00b1\u2013")   # a sign written as text (`\text{-}\boxed{5}`, `\text{−}`)
_SIGN_WORDS = frozenset("negative minus negated plus times twice thrice double triple half".split())
_OPERATION_OF = frozenset("""
negative opposite reciprocal inverse half double square cube root roots sqrt log logarithm sine cosine
tangent exponential factorial power powers multiple fraction percent percentage
""".split())


def attached(text: str, start: int, end: int) -> bool:
    """Whether the box spanning `text[start:end]` is an operand of the math around it."""
    quick = _wrapped_box(text[max(0, start - _WINDOW):start], text[end:end + _WINDOW])
    if quick is not None:
        return quick[0]
    span = answer_span(text, start, end)
    if _sign_before(text, span.start):
        return True
    inner = next(i for i, (a, b) in enumerate(span.pieces) if a <= start and end <= b)
    lo, hi = span.pieces[inner]
    pieces = [text[a:b] for a, b in span.pieces]
    before = "  ".join(pieces[:inner] + [text[lo:start]])[-MAX_FORMULA_CHARS:]
    after = "  ".join([text[end:hi]] + pieces[inner + 1:])[:MAX_FORMULA_CHARS]
    if (before.strip() or after.strip(_CLOSING)) and _operand(before, after):
        return True
    return _word_after(text, span.end)


_WINDOW = 48   # a formula that holds only the box is read from this much text each side
_PLACEHOLDER = "\\boxed{0}"


@lru_cache(maxsize=8192)   # the same phrasing around a box recurs across a GRPO group and a run
def _wrapped_box(before: str, after: str) -> tuple[bool, str] | None:
    """For a formula that holds only the box (`$\\boxed{5}$.`, the usual case), read from the text
    next to it: (attached, the unit named after it); None when the box has math around it or
    formulas next to it."""
    window = before + _PLACEHOLDER + after
    span = wrapped(window, len(before), len(before) + len(_PLACEHOLDER))
    if span is None or window[span.close - 1] not in "}.,; \t":
        return None
    return _sign_before(window, span.start) or _word_after(window, span.end), _unit_named(window, span.end)


_CLOSING = " \t\n.,;"   # `$\boxed{5}.$`: nothing to read


def _sign_before(text: str, at: int) -> bool:
    """A sign glued to the formula (`-$\\boxed{5}$`) or a word right before it that applies an
    operation (`negative $\\boxed{5}$`, `the reciprocal of $\\boxed{5}$`), on its line."""
    if at == 0:
        return False
    if text[at - 1] in "-+\u2212\u00b1":
        return True   # `is -$5$`; `- $5$` is a dash or a bullet
    words = [w.strip("*_").lower() for w in text[max(0, at - 40):at].rsplit("\n", 1)[-1].split()[-3:]]
    if not words or not text[at - 1].isspace():
        return False
    if words[-1] == "of" and len(words) > 1:
        return words[-2] in _OPERATION_OF
    return words[-1] in _SIGN_WORDS   # also in Markdown emphasis: `**negative** $\\boxed{5}$`


def _word_after(text: str, at: int) -> bool:
    """What follows the formula on its line makes the box a part of another value: a word of the
    value's own (`$\\boxed{5}$ thousand`; not a compound such as `three-digit`), an operation on a
    value (`\\(\\boxed{6}\\) - 1 = 5`, `$\\boxed{\\frac13}$ of $\\frac12$`). Not after a formula that ends its sentence (`$\\boxed{5}.$ I checked it.`)."""
    if _ENDED.search(text, max(0, at - 8), at):
        return False
    if _OPERATION_AFTER.match(text, at, at + 60):
        return True
    aside = _ASIDE.match(text, at, at + 40)   # `$\\boxed{5}$, halved.`: an operation set off by a comma
    if aside and units.scales(aside.group(1)):
        return True
    found = _NEXT_WORD.match(text, at, at + 40)
    return bool(found) and units.changes_value(found.group(found.lastindex), prose=True)


_LETTER = r"[^\W\d_\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f\u2150-\u218f]"   # not `²`, `½`: numbers
_NEXT_WORD = re.compile(rf"(?:[ \t]|\*\*)*({_LETTER}+)(?![-\w])|(?:[ \t]|\*\*)*({_LETTER}+)(?=[\u00b2\u00b3])")   # `three-digit` is a compound
_ASIDE = re.compile(r"[ \t]*,[ \t]*([A-Za-z]+)\b")
_ENDED = re.compile(r"[.,;:!?]\s*(?:\$\$|\$|\\\)|\\\]|\\end\{[a-z]+\*?\})?\s*$")
# After the formula: an operator and a value (`- 1`, `\times $10^3$`), or `of` a value (`$\frac13$ of
# $\frac12$`); `percent of 50` restates a question (`10 is 20 percent of 50`) and stays.
_OPERATION_AFTER = re.compile(
    r"[ \t]*(?:\*\*)?[ \t]*(?:[-+*/^\u00d7\u00f7\u2212]|\\(?:times|cdot|div)(?![a-zA-Z]))[ \t]*(?:\d|\$|\\[(\[])|"
    r"[ \t]+of[ \t]+(?:\d|\$|\\[(\[])")


def unit_after(text: str, start: int, end: int) -> str:
    """A unit named right after the box's formula (`$\\boxed{45}$ radians`), as `\\text{ radians}`
    to read with the answer, so that it must agree with the gold's unit; "" when none is named."""
    quick = _wrapped_box(text[max(0, start - _WINDOW):start], text[end:end + _WINDOW])
    return quick[1] if quick is not None else _unit_named(text, answer_span(text, start, end).end)


def _unit_named(text: str, at: int) -> str:
    found = _NEXT_WORD.match(text, at, at + 40)
    if found is None or _ENDED.search(text, max(0, at - 8), at):
        return ""
    word, rest = found.group(found.lastindex), text[found.end():found.end() + 2]
    if rest[:1] in ("^", "$", "\u00b2", "\u00b3") or rest.startswith(" ^"):
        return ""   # `cm$^2$`: a unit with a power, read no further (a length would contradict an area)
    named = len(word) >= 2 and word.lower() not in units.SHORT_WORDS and units.known_unit(word) and units.fold(word)
    return f"\\text{{ {word}}}" if named else ""


@lru_cache(maxsize=8192)   # the same formula around a box recurs across a GRPO group and a run
def _operand(before: str, after: str) -> bool:
    """Whether the formula `before` + a box + `after` makes the box an operand. The box's content
    plays no part (a placeholder stands for it), so one phrasing is read once whatever the answer."""
    if not after.strip(_CLOSING) and _STATED.search(before, max(0, len(before) - 24)) and _balanced(before):
        return False   # `x = \boxed{5}`: after a relation at the formula's top level (what the tokenizer finds)
    if before.count("{") - before.count("}") > MAX_DEPTH or after.count("{") > 4 * MAX_DEPTH:
        return True   # `{{{…\boxed{5}…}}}`: deeper than any answer
    source = before + _PLACEHOLDER + after
    try:
        nodes = latexwalker.LatexWalker(source, latex_context=_CONTEXT, tolerant_parsing=True).get_latex_nodes(pos=0)[0]
    except (latexwalker.LatexWalkerError, RecursionError, ValueError):
        return True   # a formula the tokenizer cannot read is not read as the answer
    path = _path_to(nodes, len(before))
    if path is None:
        return False   # the tokenizer did not see the box where it is: nothing around it is read
    for items, at, container in path:
        first, last = _bracketed(items, at, at)
        if _operand_before(items, first) or _operand_after(items, last):
            return True
        if container is not None and container not in _WRAPPERS:
            return True   # an argument of `\frac`, `\sqrt`, `\overline`, ...
    return False


_STATED = re.compile(r"(?:=|\\(?:approx|equiv|Rightarrow|implies|in)(?![a-zA-Z]))\s*$")


def _balanced(before: str) -> bool:
    """No group, bracket or environment left open before the box: it stands at the top level."""
    return (before.count("{") == before.count("}") and before.count("(") == before.count(")")
            and before.count("[") == before.count("]") and before.count("|") % 2 == 0 and "\\begin" not in before)


# --- the items of one level ------------------------------------------------------------------------

class _Item:
    __slots__ = ("kind", "value", "node")

    def __init__(self, kind: str, value: str, node=None):
        self.kind, self.value, self.node = kind, value, node   # kind: char, macro, group, env, amp


def _items(nodes) -> list[_Item]:
    """One level of a formula as items: each character of plain text (spaces dropped), each
    command, group and environment, `&`; `\\left(` and its kin read as their bracket."""
    items: list[_Item] = []
    sized = False
    for node in nodes:
        if node is None or node.isNodeType(latexwalker.LatexCommentNode):
            continue
        if node.isNodeType(latexwalker.LatexCharsNode):
            for ch in node.chars:
                if ch.isspace():
                    continue
                if sized and ch == ".":
                    sized = False   # `\left.`: no bracket
                    continue
                items.append(_Item("char", ch, node))
                sized = False
        elif node.isNodeType(latexwalker.LatexMacroNode):
            if node.macroname in _SIZED:
                sized = True
                continue
            items.append(_Item("macro", node.macroname, node))
        elif node.isNodeType(latexwalker.LatexGroupNode):
            items.append(_Item("group", "", node))
        elif node.isNodeType(latexwalker.LatexEnvironmentNode):
            items.append(_Item("env", node.environmentname, node))
        elif node.isNodeType(latexwalker.LatexSpecialsNode):
            if node.specials_chars == "~":
                continue   # a non-breaking space
            items.append(_Item("amp" if node.specials_chars == "&" else "char", node.specials_chars, node))
        elif node.isNodeType(latexwalker.LatexMathNode):
            items.append(_Item("group", "", node))
    return items


def _path_to(nodes, pos: int):
    """From the box outwards: (items of a level, the index of the item holding the box, the
    command whose argument that level is, or None)."""
    path = []
    container = None
    while True:
        items = _items(nodes)
        at = next((i for i, it in enumerate(items) if it.node is not None and it.kind != "char"
                   and it.node.pos <= pos < it.node.pos + it.node.len), None)
        if at is None:
            return None
        path.append((items, at, container))
        node = items[at].node
        if items[at].kind == "macro" and node.macroname in _BOXES and node.pos == pos:
            return path[::-1]
        if items[at].kind == "macro":
            args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
            arg = next((a for a in args if a.pos <= pos < a.pos + a.len), None)
            if arg is None:
                return None
            container = node.macroname
            nodes = arg.nodelist if arg.isNodeType(latexwalker.LatexGroupNode) else [arg]
        else:
            container = None
            nodes = node.nodelist


def _bracketed(items: list[_Item], first: int, last: int) -> tuple[int, int]:
    """Widen `items[first..last]` over brackets that hold only it: `(\\boxed{5})`, `\\left[ ... \\right]`."""
    while True:
        b, a = _skip_back(items, first - 1), _skip_on(items, last + 1)
        if (b >= 0 and a < len(items) and items[b].kind == "char" and items[b].value in _OPENERS
                and items[a].kind == "char" and items[a].value == _OPENERS[items[b].value]):
            first, last = b, a
            continue
        return first, last


def _skip_back(items: list[_Item], i: int) -> int:
    while i >= 0 and items[i].kind == "macro" and (items[i].value in _SPACING or items[i].value in _CURRENCY):
        i -= 1
    return i


def _skip_on(items: list[_Item], i: int) -> int:
    while i < len(items) and items[i].kind == "macro" and (items[i].value in _SPACING or items[i].value in _WIDE):
        i += 1
    return i


def _operand_before(items: list[_Item], first: int) -> bool:
    i = _skip_back(items, first - 1)
    wide = False
    while i >= 0 and items[i].kind == "macro" and items[i].value in _WIDE:
        i, wide = _skip_back(items, i - 1), True
    if i < 0:
        return False
    item = items[i]
    if wide:   # `x = 3 \quad \boxed{5}` separates; `-\quad\boxed{5}` is still a sign
        return (item.kind == "char" and item.value in "-+*/^_\u2212") or (item.kind == "macro" and item.value in _OPERATORS)
    if item.kind == "amp" or item.kind == "env":
        return item.kind == "env"
    if item.kind == "char":
        return item.value not in "=:,;"
    if item.kind == "group":
        return True
    name = item.value
    if name in _RELATIONS or name in _BREAKS or name in _BOXES:
        return False
    if name in _TEXT_COMMANDS:   # `\text{so } \boxed{5}`: prose ends the expression, unless it is a sign
        text = _text_of(item.node).rstrip(" {}~")
        words = _WORD.findall(text)
        return text[-1:] in _SIGNS or (bool(words) and text.endswith(words[-1]) and words[-1].lower() in _SIGN_WORDS)
    return True


def _operand_after(items: list[_Item], last: int) -> bool:
    i = last + 1
    while True:
        i = _skip_on(items, i)
        if i >= len(items):
            return False
        item = items[i]
        if item.kind == "amp":
            return False
        if item.kind == "char":
            ch = item.value
            nxt = items[i + 1] if i + 1 < len(items) else None
            if ch in "=;:":
                return False
            if ch == ",":   # `\boxed{7},000` is 7000; any other comma separates
                return _thousands_after(items, i + 1)
            if ch in ".!?" and ch != "!":
                return nxt is not None and nxt.kind == "char" and nxt.value.isdigit()   # `\boxed{21}.5`
            if ch == "^" and nxt is not None and _is_degree(nxt):
                i += 2
                continue
            if ch.isalpha():
                run = _letters(items, i)
                if len(run) > 1 and units.is_unit_symbol(run):   # `\boxed{5} cm`
                    i += len(run)
                    continue
            return True
        if item.kind == "group":
            if _is_degree(item) or _is_comma_group(item):
                if _is_comma_group(item):
                    return _thousands_after(items, i + 1)
                i += 1
                continue
            return True
        if item.kind == "env":
            return True
        name = item.value
        if name in _RELATIONS or name in _BREAKS or name in _BOXES or name in _END_MARKS:
            return False
        if name in _DEGREE or name == "%" or name == "pmod":   # `\\boxed{9} \\pmod{11}`
            i += 1
            continue
        if name in _TEXT_COMMANDS:
            words = _text_of(item.node).strip(" {}~")
            if units.changes_value_words(words):
                return True   # `\text{ thousand}`, `\mbox{ or } 8`, `\text{ squared}`
            if words and not units.counted_phrase(words):   # a remark, no unit: the expression ended,
                nxt = _skip_on(items, i + 1)                  # unless it leads to a value (`\% \text{ of } 50`)
                return nxt < len(items) and _a_value(items[nxt])
            i += 1
            if i < len(items) and items[i].kind == "char" and items[i].value == "^":
                i += 2   # `\text{ cm}^2`
            continue
        return True


def _a_value(item: _Item) -> bool:
    """A number or a command that makes one (`6`, `\\frac{1}{2}`, `\\sqrt{2}`, `\\pi`)."""
    if item.kind == "char":
        return item.value.isdigit() or item.value in ".-+\u2212"
    return item.kind == "macro" and item.value in ("frac", "dfrac", "tfrac", "sqrt", "pi", "infty", "boxed")


def _letters(items: list[_Item], i: int) -> str:
    run = ""
    while i < len(items) and items[i].kind == "char" and items[i].value.isalpha():
        run += items[i].value
        i += 1
    return run


def _thousands_after(items: list[_Item], i: int) -> bool:
    digits = ""
    while i < len(items) and items[i].kind == "char" and items[i].value.isdigit():
        digits += items[i].value
        i += 1
    return len(digits) == 3


def _is_degree(item: _Item) -> bool:
    if item.kind == "macro":
        return item.value in _DEGREE
    if item.kind == "group":
        inner = _items(item.node.nodelist)
        return len(inner) == 1 and inner[0].kind == "macro" and inner[0].value in _DEGREE
    return False


def _is_comma_group(item: _Item) -> bool:
    inner = _items(item.node.nodelist)
    return len(inner) == 1 and inner[0].kind == "char" and inner[0].value == ","


def _text_of(node) -> str:
    if node.nodeargd is None:
        return ""
    return " ".join(a.latex_verbatim() for a in node.nodeargd.argnlist if a is not None)
