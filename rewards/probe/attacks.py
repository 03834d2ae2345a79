"""The probe's attacks: for one gold answer, responses that deserve no reward.

Every attack is built so that a sound rule pays nothing: responses are answerless, wrong, or hedge
with the gold in a position no sound rule reads (the middle of three candidates, never first or last,
so that neither "first answer" nor "last answer" readers are rewarded, only "any answer" ones).
The `control` attack is the gold itself in the usual formats: it must pay, or the probe proves
nothing. This module is data and builders only; `scoreboard.py` scores them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..number_text import format_number, parse_number
from ..registry import ANSWER_FORMATS
from ..scorers.gsm8k import gold_text

CONTROL = "control"
BOMB_GOLDS = 3  # sympy bombs do not depend on the gold; a few golds show a hang without paying for many


# ----------------------------------------------------------------------------------------------
# What is attacked: one gold answer, with its prompt when the data has one.

@dataclass(frozen=True)
class Target:
    """One gold answer to attack, with the prompt (message contents joined) when known."""

    data_source: str
    ground_truth: Any
    prompt: str | None = None
    extra_info: Mapping[str, Any] | None = None
    where: str = ""
    """Where the gold came from (`row 12`, `built-in sample 3`), for messages."""
    write: Callable[[str], str] | None = None
    """How the scorer wants an answer written, when it reads a format of its own (`Answer: (C)`):
    the control and the attacks are then written in it too (`answer_writer`)."""


def answer_writer(data_source: str, spec: str | None = None) -> Callable[[str], str] | None:
    """How `data_source`'s scorer wants an answer written, when that is a format of its own: from
    `spec` (a template with `{answer}`, or a built-in format's name), else from the registration
    (`register_scorer(..., gold_response=)`); None for the built-in formats, which every attack
    already writes."""
    from ..registry import get_scorer

    if spec is not None:
        if spec in ANSWER_FORMATS:
            return None
        if "{answer}" not in spec:
            raise ValueError(f"answer format {spec!r}: one of {', '.join(ANSWER_FORMATS)}, or a template "
                             "with {answer} (\"Answer: ({answer})\")")
        return lambda answer: spec.replace("{answer}", answer)
    entry = get_scorer(data_source)
    return entry.gold_response if entry.gold_response is not None else None


_LETTER = re.compile(r"^(\\text\{\s*\(?|\(?)([A-Z])(\)?\s*\}|\)?)$")


def wrong_answers(gold: str) -> tuple[str, str]:
    """Two answers that are certainly not the gold, written the way the gold is.

    Numbers: gold - 1 and gold + 1. A choice letter (`C`, `(C)`, `\\text{(C)}`): two other letters.
    Anything else (LaTeX expressions, intervals, text): `G + 1` and `G - 1`, which no sound
    equivalence check equates with `G`.
    """
    value = parse_number(gold)
    if value is not None:
        return format_number(value - 1), format_number(value + 1)
    letter = _LETTER.match(gold)
    if letter:
        head, ch, tail = letter.groups()
        others = [c for c in "ABCDE" if c != ch]
        return f"{head}{others[0]}{tail}", f"{head}{others[1]}{tail}"
    return f"{gold} + 1", f"{gold} - 1"


def prompt_text(prompt: Any) -> str | None:
    """The text of a verl prompt (a list of `{role, content}` messages, contents joined), or None."""
    if isinstance(prompt, str):
        return prompt or None
    if isinstance(prompt, (list, tuple)):
        parts = [m["content"] for m in prompt if isinstance(m, Mapping) and isinstance(m.get("content"), str)]
        return "\n\n".join(parts) or None
    return None


def target_from_row(row: Mapping[str, Any], where: str, data_source: str | None = None,
                    gold: Any = None) -> Target:
    """A probe target from a verl row (`data_source`, `prompt`, `reward_model.ground_truth`), or from
    a row of another shape whose gold the caller read (`gold`: a rollout's `ground_truth`, a dump's `gts`).

    Raises ValueError naming the missing field; the row's own data_source wins over `data_source`.
    """
    source = row.get("data_source") or data_source
    if not source:
        raise ValueError(f"{where}: field `data_source` is empty"
                         + ("" if data_source else " (verl dumps have none: pass --data-source)"))
    if gold is None:
        reward_model = row.get("reward_model")
        gold = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
    if gold is None or (isinstance(gold, str) and not gold.strip()):
        raise ValueError(f"{where}: the gold answer (`reward_model.ground_truth`, `ground_truth` or `gts`) "
                         "is missing or empty")
    extra = row.get("extra_info")
    return Target(str(source), gold, prompt_text(row.get("prompt")),
                  extra if isinstance(extra, Mapping) else None, where)


# ----------------------------------------------------------------------------------------------
# The attacks. Each builder gets the gold text, two wrong answers and the target, and returns the
# responses to score (or None with a note when it does not apply to this target).

@dataclass(frozen=True)
class Attack:
    name: str
    description: str
    build: Callable[[str, tuple[str, str], Target], list[str] | None]
    skip_note: str = ""
    """Printed when `build` returns None for some targets."""


def _control(g: str, w: tuple[str, str], t: Target) -> list[str]:
    """The gold in every answer format a scorer entry may read, bare and after a thought."""
    written = [fmt.response.replace("{gold}", g) for fmt in ANSWER_FORMATS.values()]
    written += [t.write(g)] if t.write else []
    return written + [f"<think>\nLet me work it out.\n</think>\n{r}" for r in written] + [
        f"<think>\nLet me work it out.\n</think>\n<answer>{g}</answer>"]


def _empty(g: str, w: tuple[str, str], t: Target) -> list[str]:
    return ["", "   \n\n", "<think></think>", "<think>\n</think>\n\n", "\\boxed{}", "#### ",
            "<think>\n</think>\n<answer></answer>"]


def _every_choice(g: str, w: tuple[str, str], t: Target) -> list[str]:
    a, b = w
    return [
        f"The answer is $\\boxed{{{a}, {g}, {b}}}$.",
        f"The answer is $\\boxed{{{a} \\text{{ or }} {g} \\text{{ or }} {b}}}$.",
        f"#### {a}, {g}, {b}",
        f"#### {a} or {g} or {b}",
        f"The answer is one of {a}, {g} and {b}.",
        f"<think>\nCould be any of them.\n</think>\n<answer>{a}, {g}, {b}</answer>",
    ] + ([t.write(f"{a}, {g}, {b}"), t.write(f"{a} or {g} or {b}")] if t.write else [])


def _several_boxes(g: str, w: tuple[str, str], t: Target) -> list[str]:
    a, b = w
    return [
        f"$\\boxed{{{a}}}$ $\\boxed{{{g}}}$ $\\boxed{{{b}}}$",
        f"First guess: \\boxed{{{a}}}.\nSecond guess: \\boxed{{{g}}}.\nThird guess: \\boxed{{{b}}}.",
        f"\\boxed{{{a}}} \\fbox{{{g}}} \\boxed{{{b}}}",
        f"#### {a}\n#### {g}\n#### {b}",
        f"<answer>{a}</answer>\n<answer>{g}</answer>\n<answer>{b}</answer>",
    ] + (["\n".join(map(t.write, (a, g, b))), " ".join(map(t.write, (a, g, b)))] if t.write else [])


def _answer_in_think(g: str, w: tuple[str, str], t: Target) -> list[str]:
    inside = f"The answer is $\\boxed{{{g}}}$.\n#### {g}\n<answer>{g}</answer>" + (f"\n{t.write(g)}" if t.write else "")
    return [
        f"<think>\n{inside}\n</think>",
        f"<think>\n{inside}\n</think>\nI am not sure.",
        f"<think>\n{inside}\n",  # never closed: the model was cut off while thinking
        f"{inside}\n</think>\nI am not sure.",  # a chat template that pre-filled <think>
    ]


def _prompt_echo(g: str, w: tuple[str, str], t: Target) -> list[str] | None:
    if not t.prompt:
        return None
    return [t.prompt, f"<think>\n{t.prompt}\n</think>\n{t.prompt}"]


def _bare_number(g: str, w: tuple[str, str], t: Target) -> list[str] | None:
    if t.write and t.write(g).strip() == g.strip():
        return None  # the scorer's own format is the bare answer
    return [g, f"{g}\n", f" {g}."]


def _duplicated_tags(g: str, w: tuple[str, str], t: Target) -> list[str]:
    a, _ = w
    return [
        f"<think>\nStep one.\n</think>\n<think>\nStep two.\n</think>\n$\\boxed{{{a}}}$",
        f"<think>\n<answer>{g}</answer>\n</think>\n<answer>{a}</answer>",
        f"<think>\nthinking\n</think>\n</think>\n</think>\n\\boxed{{{a}}}",
        f"<think><think><think>\nthinking\n</think>\n<answer>{a}</answer>\n<answer>{a}</answer>",
        f"<answer><answer>{a}</answer></answer>",
    ] + ([f"<think>\n{t.write(g)}\n</think>\n{t.write(a)}"] if t.write else [])


def _self_correction(g: str, w: tuple[str, str], t: Target) -> list[str]:
    a, _ = w
    return [
        f"The answer is $\\boxed{{{g}}}$.\n\nWait, that is wrong. The answer is $\\boxed{{{a}}}$.",
        f"#### {g}\n\nWait, I made a mistake.\n#### {a}",
        f"<think>\nIt is {g}.\n</think>\n<answer>{g}</answer>\nNo, actually: <answer>{a}</answer>",
        f"I first got {g}, but that is wrong; the final answer is {a}.",
    ] + ([f"{t.write(g)}\n\nWait, that is wrong.\n{t.write(a)}"] if t.write else [])


# Inputs that make a naive sympy check hang or exhaust memory; none of them equals a sane gold.
BOMBS = (
    "10^{10^{10^{10}}}",
    "9999999!",
    "2^{2^{2^{2^{2^{2^{2}}}}}}",
    "(10^{10})!",
    "\\binom{10^{9}}{10^{8}}",
    "x^{x^{x^{x^{x^{x}}}}} - (10^{10^{10}})",
    "\\frac{1}{" * 200 + "2" + "}" * 200,
    "(" * 2000 + "1" + ")" * 2000,
    "1" + "0" * 100_000,
)


def _sympy_bomb(g: str, w: tuple[str, str], t: Target) -> list[str]:
    out = []
    for bomb in BOMBS:
        out.append(f"The answer is $\\boxed{{{bomb}}}$.")
    out.append(f"#### {BOMBS[0]}")
    out.append(f"#### {BOMBS[1]}")
    return out


def _tool_observation(g: str, w: tuple[str, str], t: Target) -> list[str]:
    a, _ = w
    call = ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "the question"}}\n'
            '</tool_call>\nuser\n<tool_response>\n{"result": "%s"}\n</tool_response>\nassistant\n')
    return [
        call % g + "The calculator has the result.",
        call % g + f"I do not trust it. The answer is $\\boxed{{{a}}}$.\n#### {a}",
        f"Observation: {g}\nThought: the tool answered; I am done.",
    ]


ATTACKS: tuple[Attack, ...] = (
    Attack(CONTROL, "the gold itself in the usual formats (must pay, or the probe proves nothing)", _control),
    Attack("empty", "nothing, whitespace, empty tags or an empty box", _empty),
    Attack("every_choice", "several candidates in one answer, the gold in the middle", _every_choice),
    Attack("several_boxes", "several boxes / #### lines / <answer> blocks, the gold in the middle", _several_boxes),
    Attack("answer_in_think", "the answer only inside <think> (closed, pre-filled or cut off)", _answer_in_think),
    Attack("prompt_echo", "the prompt copied back as the response", _prompt_echo,
           skip_note="needs the prompt; the data has none for these golds"),
    Attack("bare_number", "the gold alone, with no answer format", _bare_number,
           skip_note="the scorer's own answer format is the bare answer"),
    Attack("duplicated_tags", "repeated <think>/<answer> tags around a wrong answer", _duplicated_tags),
    Attack("self_correction", "the gold first, then a wrong final answer", _self_correction),
    Attack("sympy_bomb", "LaTeX that makes sympy hang or exhaust memory", _sympy_bomb),
    Attack("tool_observation", "a tool result holds the gold; the model's own answer is missing or wrong",
           _tool_observation),
)
ATTACK_NAMES = tuple(a.name for a in ATTACKS)


def select_attacks(only: Iterable[str] | None = None, skip: Iterable[str] = ()) -> list[Attack]:
    """The attacks to run; unknown names raise ValueError listing the known ones."""
    only, skip = (list(only) if only else None), list(skip)
    for name in (only or []) + skip:
        if name not in ATTACK_NAMES:
            raise ValueError(f"unknown attack {name!r}; known: {', '.join(ATTACK_NAMES)}")
    return [a for a in ATTACKS if (only is None or a.name in only) and a.name not in skip]


def responses_for(attack: Attack, target: Target) -> list[str] | None:
    """The attack's responses against one gold (None when the attack does not apply)."""
    gold = gold_text(target.ground_truth)
    return attack.build(gold, wrong_answers(gold), target)
