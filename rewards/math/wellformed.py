"""Golds that no answer can match: malformed LaTeX a dataset wrote (`\\sqrt{}`, `1 +* 2`, `\\frac{1}{}`).

Such a gold still equals itself as a string, so scoring it against itself passes; every real
response to it is then scored wrong for the whole run. `gold_defect` names the first rule a MATH gold
breaks, in the gold's own terms, for `rewards validate` to report before a launch.
"""

from __future__ import annotations

import re

from .extract import BRACE_TOKEN, boxed_answer

_EMPTY_ARGUMENT = re.compile(
    r"\\(?:[dtc]?frac|binom)\s*\{\s*\}|\\(?:[dtc]?frac|binom)\s*\{[^{}]*\}\s*\{\s*\}"
    r"|\\sqrt\s*(?:\[[^\]]*\])?\s*\{\s*\}|[\^_]\s*\{\s*\}")
_MISSING_ARGUMENT = re.compile(r"\\(?:[dtc]?frac|sqrt|binom)\s*(?=$|[}=,;)\]])")
_DOUBLE_OPERATOR = re.compile(r"(?:[-+*/]|\\cdot(?![a-zA-Z])|\\times(?![a-zA-Z])|\\div(?![a-zA-Z]))\s*"
                              r"(?:[*/^]|\\cdot(?![a-zA-Z])|\\times(?![a-zA-Z])|\\div(?![a-zA-Z]))")
_EDGE_OPERATOR = re.compile(r"^\s*(?:[*/^]|\\cdot(?![a-zA-Z])|\\times(?![a-zA-Z]))|(?:[-+*/^]|\\cdot|\\times)\s*$")


def gold_defect(gold: str) -> str | None:
    """The rule a MATH gold breaks, in words, or None when it is well formed."""
    text = gold.strip()
    braces = _unbalanced_braces(text)
    if braces:
        return braces
    if "\\boxed" in text or "\\fbox" in text:
        text = (boxed_answer(text)[0] or "").strip()
        if not text:
            return "its last \\boxed{} is empty"
    text = re.sub(r"\\[()\[\]]|\$", " ", text).strip()
    if not text:
        return "it is empty"
    found = _EMPTY_ARGUMENT.search(text)
    if found:
        return f"an empty argument: `{found.group(0).strip()}`"
    found = _MISSING_ARGUMENT.search(text)
    if found:
        return f"a command without its argument: `{found.group(0).strip()}`"
    plain = text.replace("**", "^")  # `2**3` is a power in plain text, not two operators
    found = _DOUBLE_OPERATOR.search(plain)
    if found:
        return f"two operators in a row: `{found.group(0)}`"
    found = _EDGE_OPERATOR.search(plain)
    if found:
        return f"an operator with nothing on one side: `{found.group(0).strip()}`"
    return None


def _unbalanced_braces(text: str) -> str | None:
    """`{` and `}` (not `\\{`, `\\}`) must pair up: one left open makes every box that holds it unclosed.
    Read with the box scanner's rule (extract.BRACE_TOKEN), so a gold balances exactly when its boxes close."""
    depth = 0
    for token in BRACE_TOKEN.finditer(text):
        ch = token.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return f"unbalanced braces: a `}}` at character {token.start()} closes nothing"
    if depth > 0:
        return f"unbalanced braces: {depth} `{{` never closed"
    return None
