"""When two normalised answers are the same answer: structure first, then leaf by leaf.

`compare` walks two answer shapes (see `structure`) with a three-way leaf test: True (equal),
False (different) or None (cannot tell without sympy). The fast path (`fast_equal`) never imports
sympy; it settles a leaf, cheapest first, by its string, by exact rationals, by the exact canonical
form (`canonical`: surds, sums, products, complex numbers) or by numeric identity at high
precision (`identity`), in microseconds to a millisecond. What it leaves undecided goes to
`symbolic.symbolic_verdict`, which runs the same walk with sympy leaves in a killable worker process.
`settled_counts` says how many answers each of these settled (cheap counters for benchmarks and
run summaries).
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from ..forksafe import ForkSafeLock
from ..number_text import VALUE_WORDS, parse_number
from .canonical import canonical_equal, canonical_equation
from .identity import identical
from .labels import is_label, stated_members, well_formed
from .normalize import LEAD_IN
from .numeric import numerically_different
from .structure import MAX_ITEMS, Group, Leaf, Node, parse, split_top

Tri = bool | None
ValueEq = Callable[[str, str], Tri]

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_FRAC = re.compile(rf"([-+]?)\\frac\{{({_NUM})\}}\{{({_NUM})\}}")
_MIXED = re.compile(r"([-+]?)(\d+)\\frac\{(\d+)\}\{(\d+)\}")
_POWER = re.compile(r"(-?\d+)\^(?:\{(-?\d+)\}|(\d))")
_REPEATING = re.compile(r"([-+]?)(\d*)\.(\d*)\\overline\{(\d+)\}")
_SYMBOL = re.compile(r"(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_\{?[a-zA-Z0-9]+\}?)?(?:\([a-zA-Z]\))?")
_CHOICE = re.compile(r"\(?([A-E])\)?")
_CHOICE_PREFIX = re.compile(r"\(([A-E])\)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z' \-]*")
_WORD_RUN = re.compile(r"[A-Za-z]{3,}")
_BARE_RUN = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{3,}")
_BARE_WORD = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{2,}")
_RELATION = re.compile(r"\\neq(?![a-zA-Z])|=/=|!=|<>")  # relations that deny an equation
_LEAD_WORD = re.compile(rf"(?:{LEAD_IN}[ \t:,]*)+(?![a-zA-Z])")  # `Answer \frac12`: lead-in words open the side
_TEXT = re.compile(r"\\text\{([^{}]*)\}")  # text that normalize keeps (`\text{ab}`): never algebra
_COMMAND_ARGUMENT = re.compile(r"\\(?:begin|end|operatorname)\s*\{[^{}]*\}")  # names, not words


SETTLED_BY = ("string", "rational", "canonical", "numeric", "sympy")
"""Where an answer is settled, cheapest first: its text (strings, words, shapes), exact rationals,
the canonical form, numeric identity, or sympy in a worker (the fast path left it undecided)."""

_settled: Counter = Counter()
_settled_lock = ForkSafeLock()


def fast_equal(pred: str, gold: str) -> Tri:
    """The fast-path verdict on two normalised answers: True, False, or None (ask sympy)."""
    verdict, how = _fast_verdict(pred, gold)
    with _settled_lock:
        _settled[how] += 1
    return verdict


def settled_counts() -> dict[str, int]:
    """How many `fast_equal` calls in this process each step settled (`sympy`: left to it)."""
    with _settled_lock:
        return {how: _settled[how] for how in SETTLED_BY}


def reset_settled_counts() -> None:
    with _settled_lock:
        _settled.clear()


@lru_cache(maxsize=16384)
def _fast_verdict(pred: str, gold: str) -> tuple[Tri, str]:
    if pred == gold:
        return True, "string"
    steps: list[str] = []

    def value_eq(p: str, g: str) -> Tri:
        verdict, how = value_verdict(p, g)
        steps.append(how)
        return verdict

    verdict = compare(parse(pred), parse(gold), value_eq)
    if verdict is None:
        return None, "sympy"
    return verdict, max(steps, key=SETTLED_BY.index, default="string")


def compare(pred: Node, gold: Node, value_eq: ValueEq) -> Tri:
    """Three-way equality of two answer shapes, with `value_eq` deciding single expressions.

    Names are part of the answer wherever both sides give one: `t > 4` is not `x > 4`, and
    `(b, a) = (3, 4)` is not `(a, b) = (3, 4)` (but `(b, a) = (4, 3)` is)."""
    if pred.names and gold.names and pred.names != gold.names:
        pred = _in_order_of(pred, gold.names)
        if pred is None:
            return False
    if isinstance(pred, Leaf) and isinstance(gold, Leaf):
        return leaf_equal(pred.text, gold.text, value_eq)
    if isinstance(pred, Leaf) or isinstance(gold, Leaf):
        group = gold if isinstance(pred, Leaf) else pred
        if group.kind == "list" and len(group.items) == 1:  # `\{3\}` answers `3`
            inner = group.items[0]
            return compare(pred, inner, value_eq) if group is gold else compare(inner, gold, value_eq)
        return False
    if gold.vector and (pred.kind, pred.brackets) in (("list", ""), ("bracketed", "[]")):
        pred = Group("tuple", pred.items, "()")  # the gold asks for a vector: `1, 2` lists its entries in order
    if _shape(pred) != _shape(gold):
        return False
    if len(pred.items) != len(gold.items) or len(gold.items) > MAX_ITEMS:
        return False
    if pred.kind in ("list", "union"):
        return _match_unordered(pred.items, gold.items, value_eq)
    return _all(compare(p, g, value_eq) for p, g in zip(pred.items, gold.items))


def _shape(group: Group) -> tuple[str, str]:
    """A bare list and a set `\\{..\\}` are one shape (unordered); other brackets count."""
    return group.kind, "" if group.kind == "list" else group.brackets


def _in_order_of(pred: Node, names: tuple) -> Node | None:
    """`(b, a) = (4, 3)` with its entries in the order of `names` (`a`, `b`); None when the two
    name different things."""
    if not isinstance(pred, Group) or len(pred.names) != len(pred.items) or len(set(names)) != len(names) \
            or sorted(pred.names) != sorted(names):
        return None
    by_name = dict(zip(pred.names, pred.items))
    return Group(pred.kind, tuple(by_name[n] for n in names), pred.brackets, pred.vector, names)


def leaf_equal(pred: str, gold: str, value_eq: ValueEq) -> Tri:
    """Single answers: choice letters, words, equations, then values.

    `x = 3` answers `3` (the value after the last `=` counts); a gold equation with a lone symbol
    on the left (`y = 2x+1`) is answered by its right side or by the same equation; any other gold
    equation needs an equation.
    """
    if pred == gold:
        return True
    choice = _CHOICE.fullmatch(gold)
    if choice:
        mine = _CHOICE.fullmatch(pred) or _CHOICE_PREFIX.match(pred)
        if mine and _CHOICE_PREFIX.search(pred, mine.end()):
            return False  # `(A)(B)(C)`: several choices named is no choice made
        return bool(mine) and mine.group(1) == choice.group(1)
    if is_words(gold) or is_words(pred) or has_word(gold) or has_word(pred):
        return as_text(pred) == as_text(gold)  # `Odd` answers `odd`; single letters stay variables
    if _RELATION.search(pred) or _RELATION.search(gold):
        if sorted(_RELATION.findall(pred)) != sorted(_RELATION.findall(gold)):
            return False  # `x \neq 3` is never `x = 3` nor `3`
    gold_sides = split_top(gold, "=")
    pred_sides = split_top(pred, "=")
    if len(gold_sides) == 1:
        return stated_value(pred_sides, gold, value_eq)
    if len(pred_sides) == 1:
        if len(gold_sides) == 2 and is_symbol(gold_sides[0]):
            return value_eq(pred, gold_sides[1])
        return False
    g_lhs, g_rhs = gold_sides[-2:]
    if len(gold_sides) == 2 and is_symbol(g_lhs) and (is_symbol(pred_sides[0]) or len(pred_sides) > 2):
        if is_symbol(pred_sides[0]):
            return stated_value(pred_sides[1:], g_rhs, value_eq) if pred_sides[0] == g_lhs else False
        return stated_value(pred_sides, g_rhs, value_eq)
    p_lhs, p_rhs = pred_sides[-2:]
    return value_eq(f"{p_lhs}={p_rhs}", f"{g_lhs}={g_rhs}")


def stated_value(sides: list[str], value: str, value_eq: ValueEq) -> Tri:
    """Does the equation or chain `sides` state `value`? Its last side must be the value; a side
    left of it must be a label (`x`, `f(x)`, `\\text{Answer}`) or hold the value too: `x = 3` and
    `\\frac12 = 0.5` state their value, `4 = 3`, `\\sqrt{x} = 4` and `2+2 = 5` do not (two readings,
    two values). A chain that starts with a label states what `labels.stated_members` gives: every
    member after `x = 4 = 3`'s label, the last after working (`x = 5+5+1 = 7 = 11`), as other
    graders read it; so does a chain after lead-in words (`Answer \\frac12 = \\frac{10}{9}`)."""
    if not all(map(well_formed, sides)):
        return False
    if len(sides) == 2 and is_label(sides[1]) and not is_label(sides[0]):
        sides = sides[::-1]  # `2 = x`
    if len(sides) > 2 and is_label(sides[0]):
        sides = stated_members(sides)
    elif len(sides) > 1 and _LEAD_WORD.match(sides[0]):
        sides = sides[-1:]
    *left, last = sides
    return _all(value_eq(side, value) for side in (*(s for s in left if not is_label(s)), last))


def fast_value_eq(pred: str, gold: str) -> Tri:
    """Two single expressions without sympy: True, False, or None (ask sympy)."""
    return value_verdict(pred, gold)[0]


@lru_cache(maxsize=16384)
def value_verdict(pred: str, gold: str) -> tuple[Tri, str]:
    """The verdict on two single expressions and the step that gave it (see `SETTLED_BY`).

    Exact numbers decide; a clear float difference proves `wrong`; equal canonical forms prove
    `correct`; numeric identity at high precision decides either way where it can; the rest is
    left to sympy."""
    if pred == gold:
        return True, "string"
    pred_words, gold_words = word_runs(pred), word_runs(gold)
    if pred_words != gold_words:  # `eon3` is not `one3`, nor `\frac{eon}{one}` 1: words are not products
        if pred_words and gold_words:
            return False, "string"
        verdict, how = _value_verdict(_TEXT.sub(r"\1", pred), _TEXT.sub(r"\1", gold))  # may prove them apart
        return (None, "sympy") if verdict else (verdict, how)  # the worker refuses the words
    return _value_verdict(pred, gold)


def _value_verdict(pred: str, gold: str) -> tuple[Tri, str]:
    if "=" in pred and "=" in gold:
        return _equation_verdict(pred, gold)
    p, g = exact_value(pred), exact_value(gold)
    if p is not None and g is not None:
        return p == g, "rational"
    if numerically_different(pred, gold):
        return False, "numeric"
    if canonical_equal(pred, gold):
        return True, "canonical"
    verdict = identical(pred, gold)
    return verdict, "numeric" if verdict is not None else "sympy"


def _equation_verdict(pred: str, gold: str) -> tuple[Tri, str]:
    """Two equations are equal when they agree up to a nonzero constant factor; only equal canonical
    forms decide here (`x^2=0` against `x=0` is for sympy to refuse)."""
    p, g = split_top(pred, "="), split_top(gold, "=")
    if len(p) == 2 and len(g) == 2:
        form = canonical_equation(*p)
        if form is not None and form == canonical_equation(*g):
            return True, "canonical"
    return None, "sympy"


@lru_cache(maxsize=16384)
def exact_value(text: str) -> Fraction | None:
    """The exact value of a plain number: `-3`, `2.50`, `7/4`, `\\frac{-1}{2}`, `2\\frac{1}{2}`
    (a mixed number), `0.\\overline{3}`, `2^{8}` (small integer powers); None for anything else."""
    if len(text) > 200 or "!" in text:  # `3!` is a factorial, not an exclaimed 3
        return None
    value = parse_number(text)
    if value is not None:
        return value
    if "^" in text:
        return _power(text)
    if "\\" not in text:
        return None
    m = _FRAC.fullmatch(text)
    if m:
        num, den = Fraction(m.group(2)), Fraction(m.group(3))
        if den == 0:
            return None
        return -num / den if m.group(1) == "-" else num / den
    m = _MIXED.fullmatch(text)
    if m:
        den = int(m.group(4))
        if den == 0:
            return None
        value = int(m.group(2)) + Fraction(int(m.group(3)), den)
        return -value if m.group(1) == "-" else value
    m = _REPEATING.fullmatch(text)
    if m:
        whole, fixed, cycle = m.group(2) or "0", m.group(3), m.group(4)
        value = Fraction(int(whole)) + Fraction(int(fixed or "0"), 10 ** len(fixed)) \
            + Fraction(int(cycle), (10 ** len(cycle) - 1) * 10 ** len(fixed))
        return -value if m.group(1) == "-" else value
    return None


def _power(text: str) -> Fraction | None:
    """`2^{8}`, `10^6`, `2^{-3}`: small exact integer powers (`-2^{2}` is -(2^2), as in LaTeX)."""
    m = _POWER.fullmatch(text)
    if not m:
        return None
    base, exponent = int(m.group(1)), int(m.group(2) or m.group(3))
    if abs(exponent) > 64 or abs(base) > 10**6 or (base == 0 and exponent < 0):
        return None
    value = Fraction(abs(base)) ** exponent
    return -value if base < 0 else value


def is_symbol(text: str) -> bool:
    """A lone variable (`x`, `a_1`, `\\theta`, `f(x)`): the left side of an assignment."""
    return bool(_SYMBOL.fullmatch(text))


def is_words(text: str) -> bool:
    """Plain words (`Monday`, `odd`, `one`: a run of three letters or more), compared as text.

    Words are never algebra: sympy would read `east` as e*a*s*t and call it equal to `seat`, and
    `eon` equal to `one`. Runs of one or two letters stay algebra (`ab` is a product).
    """
    return bool(_TEXT.fullmatch(text)) or (bool(_WORDS.fullmatch(text)) and bool(_WORD_RUN.search(text)))


def word_runs(text: str) -> list[str]:
    """The runs of three letters or more in `text` outside LaTeX commands, case-folded and sorted:
    words, which must appear as written on both sides (read as products of variables, `eon`
    and `one` would be equal)."""
    texts = [as_text(inner) for inner in _TEXT.findall(text)]
    return sorted(texts + [w.casefold() for w in _BARE_RUN.findall(_COMMAND_ARGUMENT.sub(" ", _TEXT.sub(" ", text)))])


def has_word(text: str) -> bool:
    """A value-changing word (`or`, `not`, `thousand`) as a bare run of letters inside an answer:
    such an answer compares as text, never as algebra, because read as a product of variables
    `0\\text{ thousand}` and `0 (wrong)` equal 0."""
    return any(w.lower() in VALUE_WORDS for w in _BARE_WORD.findall(_COMMAND_ARGUMENT.sub(" ", text)))


def as_text(text: str) -> str:
    """`text` as a text comparison sees it: whitespace and case folded, nothing else (a minus sign,
    an apostrophe and every other sign count). Whitespace goes (`x<2or x>5` is `x < 2 or x > 5`)
    except between two digits, where it separates numbers (`2 3` is not `23`)."""
    pieces = _TEXT.sub(r"\1", text).casefold().split()
    out = pieces[:1]
    for piece in pieces[1:]:
        out.append((" " if out[-1][-1].isdigit() and piece[0].isdigit() else "") + piece)
    return "".join(out)


def _all(results) -> Tri:
    undecided = False
    for r in results:
        if r is False:
            return False
        if r is None:
            undecided = True
    return None if undecided else True


def _match_unordered(preds: tuple, golds: tuple, value_eq: ValueEq) -> Tri:
    """Unordered equality as a perfect matching: True edges only -> True; impossible even with
    undecided edges -> False; otherwise undecided."""
    n = len(golds)
    table = [[compare(p, g, value_eq) for g in golds] for p in preds]
    if _perfect_matching(table, n, lambda r: r is True):
        return True
    if not _perfect_matching(table, n, lambda r: r is not False):
        return False
    return None


def _perfect_matching(table, n: int, usable) -> bool:
    match_of_gold = [-1] * n

    def augment(p: int, seen: list[bool]) -> bool:
        for g in range(n):
            if usable(table[p][g]) and not seen[g]:
                seen[g] = True
                if match_of_gold[g] < 0 or augment(match_of_gold[g], seen):
                    match_of_gold[g] = p
                    return True
        return False

    return all(augment(p, [False] * n) for p in range(n))
