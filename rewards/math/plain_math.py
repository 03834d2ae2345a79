"""Plain-text math, the dialect of code and of golds written for sympy-based graders (`pi/3`,
`exp(2)`, `sin(pi/2)`, `log(8, 2)`, `2**(1/4)`, `abs(x-1)`), rewritten as the LaTeX it means.

`normalize` runs this on both sides, prediction and gold, before anything else reads them, so the
fast path, the cost rule and the sympy check all see one spelling; nothing is evaluated. The rules:

- names are whole words only (no letter on either side; a LaTeX command is never a word):
  `pi` is `\\pi`, and a Greek letter spelled out is its command (`theta` is `\\theta`); `pie`,
  `pipe`, `epsilonx`, `Pi` and the two-letter `xi` (x times i) stay letters. `e` is already the
  constant and `E` stays a variable (e-notation such as `2.5E-2` is a number, see number_text);
- a call needs its parentheses: `sqrt(x)` is `\\sqrt{x}`, `abs(x)` and `Abs(x)` are `|x|`,
  `exp(x)` is `\\exp(x)`, `sin`/`cos`/`tan`/`sec`/`csc`/`cot`, their inverses (`asin`,
  `arcsin`, ...) and the hyperbolic ones are their commands, `sin^2(x)` is `\\sin^{2}(x)`;
  `sin x` without parentheses is not a call (it stays letters);
- `log(x)` is the natural logarithm, as in sympy, numpy and the languages the dialect comes from
  (`\\ln(x)`); a base is written `log(x, b)` (sympy's order), `log_b(x)`, `log2(x)` or `log10(x)`
  and becomes `\\log_{b}(x)`. LaTeX's own `\\log` is not rewritten (see docs/scoring-policy.md);
- `**` is `^`; a parenthesised exponent is a group (`2**(1/4)` is `2^{1/4}`), as is a
  multi-digit or negative one (`x**12` is `x^{12}`, `x^-1` is `x^{-1}`);
- the arguments of `\\text{}`, `\\mbox{}`, `\\operatorname{}`, `\\begin{}` and `\\end{}` are kept as written.

Square brackets need no rewrite: a bracket group without a comma is read as grouping by every
reader (`4*[3*sin(x)]^2`), and one with a comma stays an interval or a list.
"""

from __future__ import annotations

import re

from .structure import split_top

MAX_DEPTH = 40
"""Calls nested deeper are left as written (answers are refused past 40 levels of brackets anyway)."""

_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu rho "
          "sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Sigma Phi Psi Omega").split()
_CONSTANTS = {"pi": "\\pi "} | {name: f"\\{name} " for name in _GREEK}
_COMMANDS = {"exp": "\\exp", "ln": "\\ln", "sin": "\\sin", "cos": "\\cos", "tan": "\\tan", "sec": "\\sec",
             "csc": "\\csc", "cot": "\\cot", "sinh": "\\sinh", "cosh": "\\cosh", "tanh": "\\tanh",
             "asin": "\\arcsin", "acos": "\\arccos", "atan": "\\arctan",
             "arcsin": "\\arcsin", "arccos": "\\arccos", "arctan": "\\arctan"}
_CALLS = frozenset(_COMMANDS) | {"sqrt", "abs", "Abs", "log"}
_NAMES = sorted(set(_CONSTANTS) | _CALLS, key=len, reverse=True)
_HINT = re.compile(rf"\*\*|\^\s*-|(?<![\\a-zA-Z])(?:{'|'.join(_NAMES)})(?![a-zA-Z])")
# Kept as written: command arguments that are names or prose; any other command; a word.
_SCAN = re.compile(r"\\(?:text\w*|mbox|operatorname|begin|end)\s*\{[^{}]*\}|\\[a-zA-Z]+|\\.|(?P<word>[a-zA-Z]+)")
# What may stand between a called name and its `(`: a log's base, a power of the function.
_CALL_TAIL = re.compile(r"(?:_\{(?P<base>[^{}]+)\}|_(?P<short_base>[a-zA-Z0-9])|(?P<digit_base>2|10)(?=\s*\())?"
                        r"\s*(?:(?:\^|\*\*)\s*(?:\{(?P<power>[^{}]+)\}|(?P<short_power>\d)))?\s*\(")
_EXPONENT = re.compile(rf"\^\s*(-?\s*(?:\d+(?:\.\d+)?|[a-zA-Z]|\\(?:pi|{'|'.join(_GREEK)}))(?![a-zA-Z]))(?=\s*(?:[^\d.\s]|$))")


def plain_math(s: str) -> str:
    """The LaTeX spelling of the plain-text math in `s` (see the module docstring); text without
    any of the dialect's names or operators is returned as it is."""
    if not _HINT.search(s):
        return s
    s = _rewrite_words(s, 0)
    s = s.replace("**", "^")
    s = _EXPONENT.sub(_braced_exponent, s)
    if "^(" not in s:
        return s
    chars = list(s)
    closers = _closers(s)
    for at in range(1, len(s)):
        if s[at] == "(" and s[at - 1] == "^" and at in closers:
            chars[at], chars[closers[at]] = "{", "}"  # `2^(1/4)` -> `2^{1/4}`: same length, indices hold
    return "".join(chars)


def _braced_exponent(m: re.Match) -> str:
    """`^-1` -> `^{-1}`, `^12` -> `^{12}`: a plain-text exponent is the whole number after it."""
    exponent = m.group(1).replace(" ", "")
    return m.group(0) if len(exponent) == 1 else f"^{{{exponent}}}"


def _rewrite_words(s: str, depth: int) -> str:
    """Constants and calls, left to right; a call's arguments are rewritten the same way."""
    out: list[str] = []
    pos = 0
    closers = _closers(s)
    while (m := _SCAN.search(s, pos)) is not None:
        out.append(s[pos:m.start()])
        pos = m.end()
        word = m.group("word")
        if word is None or (word not in _CONSTANTS and word not in _CALLS):
            out.append(m.group(0))
            continue
        if word in _CONSTANTS:
            out.append(_CONSTANTS[word])
            continue
        call = _call(s, word, m.end(), depth, closers)
        if call is None:
            out.append(word)
            continue
        latex, pos = call
        out.append(latex)
    out.append(s[pos:])
    return "".join(out)


def _call(s: str, name: str, at: int, depth: int, closers: dict[int, int]) -> tuple[str, int] | None:
    """The LaTeX of the call of `name` whose tail starts at `at`, and where the call ends; None when
    what follows is not a call we read (no parentheses, a base on anything but `log`, extra arguments)."""
    tail = _CALL_TAIL.match(s, at)
    if tail is None or depth >= MAX_DEPTH:
        return None
    close = closers.get(tail.end() - 1, -1)
    if close < 0:
        return None
    args = split_top(s[tail.end():close], ",")
    base = tail.group("base") or tail.group("short_base") or tail.group("digit_base")
    power = tail.group("power") or tail.group("short_power")
    if name == "log" and len(args) == 2 and base is None:
        base = args.pop()
    if len(args) != 1 or not args[0] or (base is not None and name != "log") \
            or (power is not None and name not in _COMMANDS):
        return None
    inner = _rewrite_words(args[0], depth + 1)
    if name == "sqrt":
        return f"\\sqrt{{{inner}}}", close + 1
    if name in ("abs", "Abs"):
        return f"|{inner}|", close + 1
    if name == "log":
        head = "\\ln" if base is None else f"\\log_{{{_rewrite_words(base.strip(), depth + 1)}}}"
        return f"{head}({inner})", close + 1
    head = _COMMANDS[name] + (f"^{{{power}}}" if power is not None else "")
    return f"{head}({inner})", close + 1


def _closers(s: str) -> dict[int, int]:
    """Each `(` that is closed, mapped to its `)`: one pass, so no call scans the text again."""
    found: dict[int, int] = {}
    open_at: list[int] = []
    for i, ch in enumerate(s):
        if ch == "(":
            open_at.append(i)
        elif ch == ")" and open_at:
            found[open_at.pop()] = i
    return found
