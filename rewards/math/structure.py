"""The shape of a normalised answer: a single expression, or a list, set, tuple, interval, union
or matrix of them.

Shape is read from the text without sympy, so that shape decides what is compared with what:
a bare list and a set are unordered; a tuple keeps its order; an interval keeps its brackets
(`(1,2]` is not `(1,2)`); `\\boxed{3,5}` is a list of two and never equals `3`. The leaves (single
expressions, equations, words) are compared by `equivalence`.

A shape keeps the names an answer gives it (`y` of `y \\in (1,2)` or `t > 4`, `(a, b)` of
`(a, b) = (3, 4)`), so that two answers naming different variables differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

MAX_ITEMS = 64  # longer lists are not MATH answers; bounding them bounds the matching work
MAX_PM_SIGNS = 6  # independent `\\pm` signs expanded: 2^6 = MAX_ITEMS values


@dataclass(frozen=True, slots=True)
class Leaf:
    text: str
    names: tuple = field(default=(), compare=False)  # `y` of `y \in \emptyset`


@dataclass(frozen=True, slots=True)
class Group:
    kind: str              # "list" (bare list or set: unordered), "union" (unordered),
                           # "tuple" (ordered, `(..)` or `\langle..\rangle`), "bracketed" (an
                           # interval or list with other brackets: ordered, brackets must match),
                           # "matrix" (rows of ordered tuples)
    items: tuple
    brackets: str = ""
                           # a set `\{..\}` is a "list" with brackets "{}" (never a vector)
    vector: bool = field(default=False, compare=False)  # a one-row or one-column matrix, or `(1,2)^T`
    names: tuple = field(default=(), compare=False)  # `x` of `x > 3`; `a`, `b` of `(a,b) = (3,4)`


Node = Leaf | Group

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = set(")]}")
_PM = re.compile(r"\\(?:pm|mp)(?![a-zA-Z])")
# `vmatrix` and `Vmatrix` are a determinant and a norm (numbers), not matrices: they stay leaves.
_MATRIX = re.compile(r"^\\begin\{([pbB]?matrix|array)\}(?:\{[^{}]*\})?(.*)\\end\{\1\}$", re.S)
_MEMBERSHIP = re.compile(r"^((?:[a-zA-Z]|\\[a-zA-Z]+)(?:_\{?\w+\}?)?)\s*\\in(?![a-zA-Z])")
_RELATION = re.compile(r"\s*(<|>|\\leq(?![a-zA-Z])|\\geq(?![a-zA-Z]))\s*")
_GREEK = r"\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|theta|lambda|mu|rho|sigma|tau|phi|varphi|omega)"
# The one variable of an inequality: `x`, `x_{1}`, `\theta`, `f(x)` (a function's range: `0<f(x)<1`).
_VARIABLE = re.compile(rf"(?:[a-zA-Z]|{_GREEK})(?:_\{{\w+\}})?(?:\([a-zA-Z]\))?")
_RATIO = re.compile(r"-?\d+(?:\.\d+)?(?::-?\d+(?:\.\d+)?)+")
_FLIP = {"<": ">", ">": "<", "\\leq": "\\geq", "\\geq": "\\leq"}
_TRANSPOSED = re.compile(r"^(.+)\^\{?(?:T|\\top|\\intercal)\}?$")
_ASSIGNED_TO = re.compile(r"^([a-zA-Z](?:_\{?\w+\}?)?|\([a-zA-Z, ]+\))=(?=[(\[{\\])")


@lru_cache(maxsize=16384)
def parse(answer: str) -> Node:
    """The shape of a normalised answer. Never raises; text it cannot read is one leaf."""
    parts = split_top(answer, ",;")
    if len(parts) > 1:
        items = [leaf for part in parts for leaf in _expand_pm(part)]
        return Group("list", tuple(_one(x) if isinstance(x, str) else x for x in items[:MAX_ITEMS + 1]))
    expanded = _expand_pm(answer)
    if len(expanded) > 1:
        return Group("list", tuple(_one(x) for x in expanded))
    return _one(answer)


def _one(text: str) -> Node:
    """One element: a set, tuple, interval, union, matrix or leaf."""
    text = text.strip()
    member = _MEMBERSHIP.match(text)
    if member:  # `y \in (1,2)`: the set, named `y`
        return named(_one(text[member.end():]), (_name(member.group(1)),))
    assigned = _ASSIGNED_TO.match(text)
    if assigned:  # `(x, y) = (1, 2)`, `S = \{1, 2\}`: the structure on the right is the answer, named
        shaped = _one(text[assigned.end():])
        if isinstance(shaped, Group):
            return named(shaped, tuple(_name(n) for n in assigned.group(1).strip("()").split(",")))
    interval = inequality_interval(text)
    if interval is not None:
        return interval
    if _RATIO.fullmatch(text):  # `3:2`, a clock time `12:00`: ordered numbers, never a quotient
        return Group("tuple", tuple(Leaf(p) for p in text.split(":")), ":")
    if len(text) >= 2 and text[0] == "{" and text[-1] == "}" and _closes_at_end(text, 0):
        while len(text) >= 2 and text[0] == "{" and text[-1] == "}" and _closes_at_end(text, 0):
            text = text[1:-1].strip()  # a LaTeX group `{1,2,3}` is only grouping: its content
        return parse(text)
    union = split_top(text, (), words=("\\cup",))
    if len(union) > 1:
        return Group("union", tuple(_one(p) for p in union[:MAX_ITEMS + 1]))
    matrix = _MATRIX.match(text)
    if matrix:
        return _matrix(matrix.group(2))
    transposed = _TRANSPOSED.match(text)
    if transposed:  # `(1,2)^T`: a column vector written as a row
        row = _one(transposed.group(1))
        if isinstance(row, Group) and row.kind in ("tuple", "bracketed") and row.brackets in ("()", "[]"):
            return Group("tuple", row.items, "()", vector=True)
    if text.startswith("\\{") and text.endswith("\\}") and _closes_at_end(text, 1):
        inner = text[2:-2]
        parts = split_top(inner, ",;") if inner.strip() else []
        return Group("list", tuple(_one(p) for p in parts[:MAX_ITEMS + 1]), "{}")
    if len(text) >= 2 and text[0] in "([" and text[-1] in ")]" and _closes_at_end(text, 0):
        parts = split_top(text[1:-1], ",;")
        if len(parts) > 1:
            brackets = text[0] + text[-1]
            kind = "tuple" if brackets == "()" else "bracketed"
            return Group(kind, tuple(_one(p) for p in parts[:MAX_ITEMS + 1]), brackets)
    return Leaf(text)


def inequality_interval(text: str) -> Group | None:
    """`x > 3` -> `(3,\\infty)`, `-1 \\leq x < 2` -> `[-1,2)`: a one-variable inequality is the
    interval it describes, so it answers (and is answered by) that interval."""
    parts = _RELATION.split(text)
    if len(parts) == 3:
        left, rel, right = parts
        if _variable(left) and not _variable(right):
            form, bound, name = _variable(left), right, left
        elif _variable(right) and not _variable(left):
            form, bound, rel, name = _variable(right), left, _FLIP[rel], right
        else:
            return None
        return named(_one_sided(form, rel, bound), (_bare(name),))
    if len(parts) == 5 and _variable(parts[2]) and not any(_variable(p) for p in (parts[0], parts[4])):
        return named(_two_sided(*parts), (_bare(parts[2]),))
    return None


def _one_sided(form: str, rel: str, bound: str) -> Group:
    """`x > 3` (form "x"), `-x > 3` ("-"), `|x| > 3` ("|") as the interval or union it describes."""
    if form == "-":  # `-x > -1` is `x < 1`
        bound, rel = negate(bound), _FLIP[rel]
    if form == "|":  # `|x| < 2` is `(-2,2)`; `|x| > 2` is `(-\infty,-2) \cup (2,\infty)`
        if rel in ("<", "\\leq"):
            return _interval(negate(bound), bound, *("()" if rel == "<" else "[]"))
        open_ = ")" if rel == ">" else "]"
        return Group("union", (_interval("-\\infty", negate(bound), "(", open_),
                               _interval(bound, "\\infty", "(" if rel == ">" else "[", ")")))
    if rel in ("<", "\\leq"):
        return _interval("-\\infty", bound, "(", ")" if rel == "<" else "]")
    return _interval(bound, "\\infty", "(" if rel == ">" else "[", ")")


def _two_sided(low: str, rel1: str, middle: str, rel2: str, high: str) -> Group | None:
    """`a < x < b` (or `-x`, `|x|` in the middle) as the interval or union it describes."""
    if rel1 in (">", "\\geq") and rel2 in (">", "\\geq"):
        low, rel1, rel2, high = high, _FLIP[rel2], _FLIP[rel1], low
    if rel1 not in ("<", "\\leq") or rel2 not in ("<", "\\leq"):
        return None
    left, right = "(" if rel1 == "<" else "[", ")" if rel2 == "<" else "]"
    form = _variable(middle)
    if form == "-":  # `a < -x < b` is `-b < x < -a`
        return _interval(negate(high), negate(low), _MIRROR[right], _MIRROR[left])
    if form == "|":  # `1 \leq |z| \leq 2` is `[-2,-1] \cup [1,2]`
        return Group("union", (_interval(negate(high), negate(low), _MIRROR[right], _MIRROR[left]),
                               _interval(low, high, left, right)))
    return _interval(low, high, left, right)


def named(node: Node | None, names: tuple) -> Node | None:
    """`node` carrying the names the answer gives it (see the module docstring)."""
    if node is None:
        return None
    return Group(node.kind, node.items, node.brackets, node.vector, names) if isinstance(node, Group) \
        else Leaf(node.text, names)


def _name(text: str) -> str:
    return "".join(text.split())


def _bare(side: str) -> str:
    """The variable in an inequality's side: `x` of `x`, `-x`, `|x|`."""
    return _name(side.strip("|").removeprefix("-"))


_MIRROR = {"(": ")", ")": "(", "[": "]", "]": "["}


def _variable(text: str) -> str | None:
    """How `text` holds the variable: `x` -> "x", `-x` -> "-", `|x|` -> "|"; None for anything else."""
    if _VARIABLE.fullmatch(text):
        return "x"
    if text.startswith("-") and _VARIABLE.fullmatch(text[1:]):
        return "-"
    if len(text) > 2 and text[0] == "|" and text[-1] == "|" and _VARIABLE.fullmatch(text[1:-1]):
        return "|"
    return None


def negate(text: str) -> str:
    """`-text` spelled as a leaf: `3` -> `-3`, `-\\frac{1}{2}` -> `\\frac{1}{2}`, `a+b` -> `-(a+b)`."""
    if text in ("\\infty", "-\\infty"):
        return "-\\infty" if text == "\\infty" else "\\infty"
    body = text[1:] if text.startswith("-") else text
    if len(split_top(body, "+-")) > 1 or body.startswith("+"):
        return f"-({text})"
    return body if text.startswith("-") else "-" + body


def _interval(low: str, high: str, left: str, right: str) -> Group:
    brackets = left + right
    return Group("tuple" if brackets == "()" else "bracketed", (Leaf(low), Leaf(high)), brackets)


def _matrix(body: str) -> Node:
    """Rows split on `\\\\`, cells on `&`. A single row or column is a vector: an ordered tuple."""
    rows = [r for r in (row.strip() for row in body.split("\\\\")) if r]
    cells = [tuple(Leaf(c.strip()) for c in row.split("&")) for row in rows[:MAX_ITEMS + 1]]
    if len(cells) == 1:
        return Group("tuple", cells[0], "()", vector=True)
    if all(len(row) == 1 for row in cells):
        return Group("tuple", tuple(row[0] for row in cells), "()", vector=True)
    return Group("matrix", tuple(Group("tuple", row, "()") for row in cells))


def _expand_pm(text: str) -> list[str]:
    """`1\\pm\\sqrt{2}` -> [`1+\\sqrt{2}`, `1-\\sqrt{2}`]. Each `\\pm` is its own choice of sign
    (`\\pm 2 \\pm \\sqrt{5}` is four values), unless a `\\mp` ties them: then every `\\pm` takes
    one sign and every `\\mp` the other (`a \\pm b \\mp c` is `a+b-c`, `a-b+c`). Past MAX_PM_SIGNS
    free signs (more values than MAX_ITEMS) the text is one leaf, which no reader reads."""
    parts = _PM.split(text)
    if len(parts) == 1:
        return [text]
    signs = _PM.findall(text)
    if "\\pm" in signs and "\\mp" in signs:
        choices = [tuple(s if sign == "\\pm" else -s for sign in signs) for s in (1, -1)]
    elif len(signs) > MAX_PM_SIGNS:
        return [text]
    else:
        choices = list(product((1, -1), repeat=len(signs)))
    out = []
    for choice in choices:
        pieces = [parts[0]]
        for sign, part in zip(choice, parts[1:]):
            pieces += ["+" if sign > 0 else "-", part]
        out.append(_tidy_sign("".join(pieces)))
    return out


def _tidy_sign(text: str) -> str:
    return re.sub(r"^\+|(?<=[=(\[,])\+", "", text)


def _closes_at_end(text: str, open_at: int) -> bool:
    """Does the bracket opened at `open_at` close at the last character (not earlier)?"""
    depth = 0
    i = open_at
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":  # `\\{` `\\}` are a level (a set); any other escape is skipped, as in split_top
            if i + 1 < n and text[i + 1] in "{}":
                depth += 1 if text[i + 1] == "{" else -1
                if depth == 0:
                    return i + 1 == n - 1
            i += 2
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
            if depth == 0:
                return i == n - 1
        i += 1
    return False


def split_top(text: str, separators, words: tuple[str, ...] = ()) -> list[str]:
    """Split at separators (characters or `words` like `\\cup`) outside all brackets and braces.

    Intervals mix bracket kinds (`[1,2)`), so any opener pairs with any closer.
    """
    out: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            if depth == 0 and words:
                hit = next((w for w in words if text.startswith(w, i)
                            and not text[i + len(w):i + len(w) + 1].isalpha()), None)
                if hit:
                    out.append(text[start:i])
                    i += len(hit)
                    start = i
                    continue
            if i + 1 < n and text[i + 1] in "{}":
                depth += 1 if text[i + 1] == "{" else -1
            i += 2
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(depth - 1, 0)
        elif depth == 0 and ch in separators:
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return [p.strip() for p in out] if len(out) > 1 else [text]
