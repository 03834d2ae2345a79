"""Unicode math (`√27`, `3½`, `x²`, `±`, `≈`) rewritten as the LaTeX it means, before anything
else reads an answer; text without non-ASCII characters is returned as it is.

The rules, each a reading every reader shares, or no reading at all:

- a radical (`√`, `∛`, `∜`) takes its whole digit run, one symbol, or its group: `√27` is
  `\\sqrt{27}` (never `\\sqrt{2}7`), `√(2x)` is `\\sqrt{2x}`, `∛8` is `\\sqrt[3]{8}`. A radicand
  glued to more (`√2x`, `√2π`, `√x²`, `√3!`: the root of all of it, or of its first part?) is left
  as written, which no reader reads;
- a vulgar fraction is a `\\frac`, and after a whole number a mixed number: `3½` is
  `3\\frac{1}{2}` = 7/2 (never `31/2`); after a decimal (`2.5½`) it is left as written;
- superscript and subscript runs are exponents and subscripts: `x²` is `x^{2}`, `2⁻¹` is `2^{-1}`,
  `5^²` is `5^{2}`, `x₁` is `x_{1}`; a superscript before a radical (`³√8`: an index or a power?)
  is left as written;
- single symbols are their commands: `π` `\\pi`, `±` `\\pm`, `∓` `\\mp`, `≈` `\\approx`, `×` `\\times`,
  `∈` `\\in`, `∉` `\\notin`, ...
"""

from __future__ import annotations

import re

from .extract import matching_brace

_SYMBOLS = {
    "\u2212": "-", "\u2013": "-", "\u00d7": "\\times ", "\u00b7": "\\cdot ", "\u22c5": "\\cdot ",
    "\u00f7": "\\div ", "\u00b1": "\\pm ", "\u2213": "\\mp ", "\u2248": "\\approx ", "\u223c": "\\sim ",
    "\u2243": "\\simeq ", "\u03c0": "\\pi ", "\u221e": "\\infty ", "\u2264": "\\leq ", "\u2265": "\\geq ",
    "\u2260": "\\neq ", "\u00b0": "^\\circ", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
    "\u222a": "\\cup ", "\u2229": "\\cap ", "\u2208": "\\in ", "\u2209": "\\notin ",
}
_SYMBOL_RE = re.compile("|".join(map(re.escape, _SYMBOLS)))
_VULGAR = {"\u00bd": (1, 2), "\u2153": (1, 3), "\u2154": (2, 3), "\u00bc": (1, 4), "\u00be": (3, 4),
           "\u2155": (1, 5), "\u2156": (2, 5), "\u2157": (3, 5), "\u2158": (4, 5), "\u2159": (1, 6),
           "\u215a": (5, 6), "\u2150": (1, 7), "\u215b": (1, 8), "\u215c": (3, 8), "\u215d": (5, 8),
           "\u215e": (7, 8), "\u2151": (1, 9), "\u2152": (1, 10), "\u2189": (0, 3)}
_VULGAR_RE = re.compile(rf"(\d+\.\d*|\.\d+)?(\^\s*)?([{''.join(_VULGAR)}])")
_SUPERSCRIPT = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b\u207c\u207d\u207e\u207f\u2071"
_SUBSCRIPT = "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208a\u208b\u208c\u208d\u208e"
_SCRIPTS = str.maketrans(_SUPERSCRIPT + _SUBSCRIPT, "0123456789+-=()ni" + "0123456789+-=()")
_RADICALS = {"\u221a": "\\sqrt", "\u221b": "\\sqrt[3]", "\u221c": "\\sqrt[4]"}
_SCRIPT_RUN = re.compile(rf"(\^\s*)?([{_SUPERSCRIPT}]+)(?![{_SUPERSCRIPT}{''.join(_RADICALS)}])|(_\s*)?([{_SUBSCRIPT}]+)")
_RADICAL = re.compile(f"[{''.join(_RADICALS)}]")
# What a radical takes without brackets: a number, one letter, a constant.
_RADICAND = re.compile(r"\s*(\d+(?:\.\d+)?|[A-Za-z\u03c0]|\\(?:pi|infty|alpha|beta|gamma|delta|epsilon|varepsilon|zeta"
                       r"|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho|sigma|tau|upsilon|phi|varphi|chi"
                       r"|psi|omega)(?![a-zA-Z]))")
_ARGUMENT_COMMAND = re.compile(r"\\(frac|sqrt)(?:\[[^\]]*\])?(?![a-zA-Z])")
# ... and what may follow it: an operator, a relation, a closer, a separator, the end.
_RADICAND_END = re.compile(r"\s|$|[-+*/=,;:)\]}<>|]|\\(?![a-zA-Z])|\\(?:cdot|times|div|pm|mp|approx|sim|simeq"
                           r"|leq?|geq?|neq?|quad|qquad|cup|cap|in|right|rbrace|text|circ)(?![a-zA-Z])")


def unicode_math(s: str) -> str:
    """The LaTeX spelling of the Unicode math in `s` (see the module docstring)."""
    if s.isascii():
        return s
    s = _VULGAR_RE.sub(_fraction, s)
    s = _SCRIPT_RUN.sub(_script, s)
    if _RADICAL.search(s):
        s = _radicals(s)  # before `π` becomes `\pi `, so `√πx` is still told from `√π x`
    return _SYMBOL_RE.sub(lambda m: _SYMBOLS[m.group(0)], s)


def _fraction(m: re.Match) -> str:
    """`½` -> `\\frac{1}{2}` (a mixed number after a whole number: `3½` is 3 + 1/2); after a decimal, as written."""
    if m.group(1):
        return m.group(0)
    num, den = _VULGAR[m.group(3)]
    frac = f"\\frac{{{num}}}{{{den}}}"
    return f"^{{{frac}}}" if m.group(2) else frac


def _script(m: re.Match) -> str:
    """`²` -> `^{2}`, `^²` -> `^{2}`, `₁` -> `_{1}`."""
    if m.group(2):
        return "^{" + m.group(2).translate(_SCRIPTS) + "}"
    return "_{" + m.group(4).translate(_SCRIPTS) + "}"


def _radicals(s: str) -> str:
    """Right to left, so an inner radical (`√(1+√2)`, `√√2`) is a `\\sqrt{}` when its outer one is read."""
    for m in reversed(list(_RADICAL.finditer(s))):
        taken = _radicand(s, m.end())
        if taken is not None:  # else no reading every reader shares: left as written
            radicand, end = taken
            s = f"{s[:m.start()]}{_RADICALS[m.group(0)]}{{{radicand}}}{s[end:]}"
    return s


def _radicand(s: str, at: int) -> tuple[str, int] | None:
    """The radicand that starts at `at` and where it ends, or None when its extent is unclear."""
    while at < len(s) and s[at] == " ":
        at += 1
    if s.startswith("{", at):
        close = matching_brace(s, at)
        return (s[at + 1:close], close + 1) if close > 0 else None
    if s.startswith("(", at):
        depth = 0
        for i in range(at, len(s)):
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            if depth == 0:
                return s[at + 1:i], i + 1
        return None
    command = _ARGUMENT_COMMAND.match(s, at)
    if command:  # `√\frac{1}{2}`, `√\sqrt{2}`: the command with its arguments
        end = command.end()
        for _ in range(2 if command.group(1) == "frac" else 1):
            close = matching_brace(s, end) if s.startswith("{", end) else -1
            if close < 0:
                return None
            end = close + 1
        return (s[at:end], end) if _RADICAND_END.match(s, end) else None
    bare = _RADICAND.match(s, at)
    if bare and _RADICAND_END.match(s, bare.end()):
        return bare.group(1), bare.end()
    return None
