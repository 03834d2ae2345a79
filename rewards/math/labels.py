"""Labelled answers: golds that name what they give (`AB=4,CD=5`, `V_{1}:V_{2}=11:21`, `|AB|=1`,
`x_{1}=2,x_{2}=3`, `p=5,q=2;p=7,q=2`), chained equalities and reversed equations.

Competition data (NuminaMath, olympiad sets) writes answers this way; a model answers with the values
(in the gold's order) or with the same labelled form. `align` rewrites a normalised (pred, gold) pair
so that the structural comparison sees values where labels only name them, and refuses the pair
outright when both sides label their values differently (`p_Z(2)=\\frac14` is not `p_Z(1)=\\frac14`).

A label is text that names a quantity without computing one: letters, Greek and other commands,
subscripts, primes, `|AB|`, ratios of names `A:B`, `\\frac{NO}{BO}`, a function at a point `f(2)`.
Anything with an operator or a digit outside a subscript or argument (`x+y`, `2x`) is an expression,
and its equation is left to the equation rules (`equivalence.leaf_equal`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .structure import Group, Leaf, parse, split_top

_VALUE_COMMANDS = ("sqrt", "pi", "infty", "cdot", "times", "pm", "mp", "div", "leq", "geq", "neq", "in",
                   "cup", "cap", "approx", "emptyset", "circ", "ldots")
_LABEL = re.compile(
    r"(?:[A-Za-z|]|\\(?!(?:" + "|".join(_VALUE_COMMANDS) + r")(?![a-zA-Z]))[a-zA-Z]+)"
    r"(?:[A-Za-z|:'{} ]|\\(?!(?:" + "|".join(_VALUE_COMMANDS) + r")(?![a-zA-Z]))[a-zA-Z]+"
    r"|_\{[^{}]*\}|\^\{?\\prime\}?|\^\{?-1\}?(?=\()|\([A-Za-z0-9,]*\))*")   # `f^{-1}(x)`: an inverse, named
_DANGLING_START = set("/*^!<>:,;&=")  # `-3`, `+3`, `.5`, `|x|` start a value
_DANGLING_END = set("/*^<>:,;&=+-\\_")  # `3!` is a factorial
_SUBSCRIPT = re.compile(r"_\{[^{}]*\}$")
_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_STATED_VALUE = re.compile(rf"[-+]?(?:{_NUMBER}|\\[dt]?frac\{{{_NUMBER}\}}\{{{_NUMBER}\}})")  # `4`, `-0.5`, `\frac{1}{2}`
# A function of one variable (`g(t)`, `f_{1}(x)`): as a label it names the same line as `y`, unless it
# is a function of `y` itself (`g(y)`) or the other coordinate (`x(t)`).
_FUNCTION_LABEL = re.compile(r"(?!x[_(])[a-zA-Z](?:_\{[^{}]*\})?\((?!y\))[a-zA-Z]\)")


def is_label(text: str) -> bool:
    """Does `text` only name a quantity (`AB`, `x_{1}`, `\\angle ABC`, `V_{1}:V_{2}`, `f(2)`)?"""
    return len(text) <= 40 and bool(_LABEL.fullmatch(text)) and text.count("{") == text.count("}")


def split_label(item: str) -> tuple[str | None, str]:
    """(`label`, `value`) for `label=value` (a chain `x=5+6=11` keeps its first and last side, one
    that states several values, `x=4=3`, is judged whole: `stated_members`);
    (None, value) for an unlabelled item; a reversed `2=x` is read as `x=2`."""
    sides = split_top(item, "=")
    if len(sides) == 1:
        return None, item
    first, last = sides[0], sides[-1]
    if not all(map(well_formed, sides)):
        return None, item  # `x =/= 3` is no chain (`equivalence.leaf_equal` refuses it)
    if is_label(first) and len(stated_members(sides)) > 1:
        return None, item  # `x = 4 = 3` states each member: judged whole (`equivalence.stated_value`)
    if is_label(first):
        return first, last
    if len(sides) == 2 and is_label(last):
        return last, first
    return None, item  # `4 = 3`, `5+5+1 = 11`: every side must hold the value (`equivalence.stated_value`)


def stated_members(sides: list[str]) -> list[str]:
    """The members of a labelled chain `x = a = ... = b` that must each be the answer. A chain that
    opens with working (`x = 5+5+1 = 11`) derives its last member, as other graders read it; one
    that opens with a stated value (`x = 4 = 3`) states every member, and two values are two
    readings (docs/scoring-policy.md)."""
    return sides[1:] if _STATED_VALUE.fullmatch(sides[1]) else sides[-1:]


def well_formed(side: str) -> bool:
    """Can `side` be one side of an equation? Not empty, and no operator dangling at either end
    (`x =/= 3` splits into `x`, `/`, `3`; `x =! 3` into `x`, `! 3`)."""
    return bool(side) and side[0] not in _DANGLING_START and side[-1] not in _DANGLING_END


def _base(label: str) -> str:
    return _SUBSCRIPT.sub("", label)


def _groups(text: str) -> list[list[str]]:
    return [split_top(group, ",") for group in split_top(text, ";")]


@lru_cache(maxsize=16384)
def align(pred: str, gold: str) -> tuple[str, str] | None:
    """The pair with labels resolved, or None when the two name their values differently."""
    gold = spelled_out(gold)
    gold_groups = _groups(gold)
    gold_items = [split_label(item) for group in gold_groups for item in group]
    if len(gold_items) == 1:
        return _align_one(pred, gold, gold_items[0])
    if not all(label for label, _ in gold_items):
        return _dedupe(pred, gold), gold
    return _align_many(spelled_out(pred), gold_groups)


def spelled_out(text: str) -> str:
    """`(a, b) = (3, 4)` as `a=3,b=4`: a tuple of names set equal to a tuple of values labels each
    value, so that it meets a labelled answer label by label; anything else as it is."""
    shaped = parse(text)
    if not isinstance(shaped, Group) or shaped.kind != "tuple" or len(shaped.items) < 2 \
            or len(shaped.names) != len(shaped.items) or not all(isinstance(item, Leaf) for item in shaped.items):
        return text
    return ",".join(f"{name}={item.text}" for name, item in zip(shaped.names, shaped.items))


def _align_one(pred: str, gold: str, gold_item: tuple[str | None, str]) -> tuple[str, str] | None:
    label, value = gold_item
    if len(split_top(pred, ",;")) > 1:
        return pred, value
    pred_label, pred_value = split_label(pred)
    if label is None:
        sides = split_top(value, "=")
        if len(sides) > 2:
            value = sides[-1]  # a gold chain (`1 = \\zzz = x = 0`): the gold's last value
        elif len(sides) > 1:
            return pred, value  # an equation gold (`2x+4y-3=0`): the equation rules decide
        return (pred if pred_label is None and pred_value == pred else pred_value), value
    if pred_label is None:
        if pred_value != pred:  # a chain without a label: its last value
            return pred_value, value
        if len(split_top(pred, "=")) > 1:
            return pred, gold  # `2x=6` against `x=3`: an equation, for the equation rules
        return pred, value
    return (pred_value, value) if _same_quantity(pred_label, label) else None


def _same_quantity(pred_label: str, gold_label: str) -> bool:
    """The same label, or `y` and a function of one variable other than `y` (`g(t) = 3t-1` is the line
    `y = 3t-1`; `g(y) = 5` is not `y = 5`)."""
    if pred_label == gold_label:
        return True
    return "y" in (pred_label, gold_label) and any(_FUNCTION_LABEL.fullmatch(label) for label in (pred_label, gold_label))


def _align_many(pred: str, gold_groups: list[list[str]]) -> tuple[str, str] | None:
    """A gold of several labelled values: by label when the prediction labels too, else in order;
    only the roots of one unknown (`x=1, x=2`: one label, repeated) are a set. Labelled terms
    (`x_{1}`, `x_{2}`; `AB`, `CD`) keep their labels: `b_1=7, b_2=4` is not `b_1=4, b_2=7`, and
    their values without labels are read in the gold's order (`x=2, x=3` too, for
    `x_{1}=2, x_{2}=3`)."""
    gold_rows = [[split_label(item) for item in group] for group in gold_groups]
    labels = [label for label, _ in gold_rows[0]]
    gold_labels = {label for row in gold_rows for label, _ in row}
    one_unknown = len(gold_labels) == 1 and (len(gold_rows) == 1 or all(len(row) == 1 for row in gold_rows))
    pred_rows = [[split_label(item) for item in group] for group in _groups(pred)]
    pred_labelled = [label is not None for row in pred_rows for label, _ in row]
    if any(pred_labelled) and not all(pred_labelled):
        return None
    named = {label for row in pred_rows for label, _ in row}
    if one_unknown:
        if all(pred_labelled) and named != gold_labels:
            return None  # `y=1, y=2` for `x=1, x=2`
        return ",".join(v for row in pred_rows for _, v in row), ",".join(v for row in gold_rows for _, v in row)
    if all(pred_labelled) and named == {_base(label) for label in gold_labels} and named != gold_labels:
        pred_rows = [[(None, v) for _, v in row] for row in pred_rows]  # `x=2, x=3`: the unknown, in order
        pred_labelled = [False]
    if any(sorted(label for label, _ in row) != sorted(labels) for row in gold_rows):
        return pred, ",".join(f"{label}={value}" for row in gold_rows for label, value in row)
    gold_text = ",".join("(" + ",".join(v for _, v in row) + ")" for row in gold_rows)
    if all(pred_labelled):
        tuples = []
        for row in pred_rows:
            by_label = dict(row)
            if len(by_label) != len(row) or sorted(by_label) != sorted(labels):
                return None
            tuples.append("(" + ",".join(by_label[label] for label in labels) + ")")
        return ",".join(tuples), gold_text
    values = [v for row in pred_rows for _, v in row]
    if len(pred_rows) == len(gold_rows) and all(len(row) == len(labels) for row in pred_rows) \
            and not any(v.startswith(("(", "[")) for v in values):
        return ",".join("(" + ",".join(v for _, v in row) + ")" for row in pred_rows), gold_text
    return pred, gold_text


def _dedupe(pred: str, gold: str) -> str:
    """A list that repeats an item (`(3,17,3,7)` written twice) is the same set, when the gold
    itself repeats nothing."""
    items = split_top(pred, ",;")
    gold_items = split_top(gold, ",;")
    if len(items) < 2 or len(set(gold_items)) != len(gold_items) or len(set(items)) == len(items):
        return pred
    return ",".join(dict.fromkeys(items))
