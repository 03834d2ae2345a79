"""Responses that place an answer the way models write it, and the ways a policy hides one.

An `AnswerFormat` writes the answer statement a scorer reads (`$\\boxed{5}$`, `#### 5`, your own
`Answer: (C)`); a `Wrapper` puts that statement in a whole response. A wrapper with `paid=True`
leaves the statement as the answer the response commits to (after a `<think>` block, in a
Qwen-Math or Llama closing sentence, followed by a self-check): a right answer placed so must be
paid, a wrong one never. One with `paid=False` leaves no committed answer even when the statement
holds the gold (only inside the thinking, cut off mid-thought, one of several candidates).

`settled=False` marks the wrappers for shapes docs/scoring-policy.md decides but the built-in
scorers do not all meet yet: `check_scorer(..., wrappers=ALL)` and `make fuzz` run them; the
default set is the settled one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class AnswerFormat:
    """How a response states its answer, for one scorer."""

    name: str
    write: Callable[[str], str]
    """The answer statement for an answer text: `lambda a: f"Answer: ({a})"`."""
    inline: bool = False
    """True when the statement reads inside a sentence (`So the answer is $\\boxed{5}$.`)."""
    inline_value: Callable[[str], str] = str
    """An answer mentioned in prose (a self-check restating it): `$5$` in LaTeX, `5` otherwise."""


BOXED = AnswerFormat("boxed", lambda a: f"$\\boxed{{{a}}}$", inline=True, inline_value=lambda a: f"${a}$")
GSM8K = AnswerFormat("gsm8k", lambda a: f"#### {a}")
ANSWER_TAGS = AnswerFormat("answer tags", lambda a: f"<answer>{a}</answer>")
FORMATS = {f.name: f for f in (BOXED, GSM8K, ANSWER_TAGS)}


def answer_format(spec: str | AnswerFormat | Callable[[str], str]) -> AnswerFormat:
    """An AnswerFormat from a name (`boxed`, `gsm8k`, `answer tags`), a template holding `{answer}`
    (`"Answer: ({answer})"`), a function of the answer text, or an AnswerFormat."""
    if isinstance(spec, AnswerFormat):
        return spec
    if isinstance(spec, str):
        if spec in FORMATS:
            return FORMATS[spec]
        if "{answer}" in spec:
            return AnswerFormat(spec, lambda a: spec.replace("{answer}", a))
        raise ValueError(f"unknown answer format {spec!r}: one of {', '.join(FORMATS)}, a template with "
                         "`{answer}` (\"Answer: ({answer})\"), or a function of the answer text")
    if callable(spec):
        return AnswerFormat(getattr(spec, "__name__", "custom"), spec)
    raise TypeError(f"an answer format is a name, a template or a function, not {type(spec).__name__}")


@dataclass(frozen=True)
class Placed:
    """What a wrapper gets: the format, the answer, and answers that are certainly not it."""

    fmt: AnswerFormat
    answer: str
    wrong: Sequence[str]

    def stated(self, answer: str | None = None) -> str:
        return self.fmt.write(self.answer if answer is None else answer)


@dataclass(frozen=True)
class Wrapper:
    name: str
    paid: bool
    """True: the placed answer is the response's answer; False: the response commits to none."""
    build: Callable[[Any, Placed], str]
    """`build(draw, placed)`: the response (`draw` picks among its variants)."""
    formats: tuple[str, ...] | None = None
    """The format names it writes for (None: any; `inline` for every inline format)."""
    settled: bool = True
    needs_wrong: bool = False

    def fits(self, fmt: AnswerFormat) -> bool:
        if self.formats is None:
            return True
        return fmt.name in self.formats or ("inline" in self.formats and fmt.inline)


# ----------------------------------------------------------------------------------------------
# Prose a model writes around its answer. No sentence here states a value of its own.

REASONING = (
    "Let me work through this step by step.",
    "First, we simplify the expression and collect like terms.",
    "We set up the equation from the problem statement and solve it.",
    "Okay, so I need to find the value the question asks for. Let me think.",
    "Combining the two cases gives the result below.",
)
CHECKS = (
    "Wait, let me double-check: substituting back into the original equation works. Yes, {v} is correct.",
    "Hmm, that seems right.",
    "I double-checked and found no errors.",
    "Let me verify this by plugging it back in. It checks out.",
    "Wait, let me re-read the question. Yes, it asks for exactly this, so {v} is the answer.",
    "Alternatively, we can express this in another form, but this one is simplest.",
    "It is a common mistake to count the interior squares twice.",
    "Wait, let me double-check the arithmetic: $2 + 2 = 4$. Yes, that is correct.",
)
# Prose around a right answer as models write it: conditions restated, words that are not about the value.
AROUND = (
    "The number of arrangements such that the red ball is not first is {s}.",
    "So the count of integers that are relatively prime with the modulus is {s}.",
    "If we substitute the values back, we get {s}.",
    "Thus they could be thinking of {s} possible numbers.",
    "The number of non-negative integer solutions is {s}.",
    "The number of integers greater than 10 and less than 30 that are relatively prime with 28 is {s}.",
    "If we substitute $x = 2$ into the equation, we get {s}.",
)
CLOSINGS = (
    "Only {s} satisfies every condition of the problem.",
    "The answer is {s}, which is what we wanted.",
    "Therefore, the final answer is {s}. This completes the solution.",
    "So we conclude that the answer is {s}, as required.",
    "Only {s} has a remainder of 1 when divided by 2, 3, 4, or 6.",
    "The maximum value is {s}, which occurs at $x = 3$.",
)
CALCULATION = "Adding the parts gives <<2+3=5>>5, and the rest follows.\n"
GSM8K_TAILS = ("pounds of meat", "clips in April and May", "minutes to get to work", "more dollars")


def _pick(draw, options: Sequence[str]) -> str:
    return draw(st.sampled_from(options))


def _think(draw, p: Placed) -> str:
    return f"<think>\n{_pick(draw, REASONING)}\n</think>\n\n{_pick(draw, REASONING)}\n\n{p.stated()}"


def _prefilled(draw, p: Placed) -> str:
    return f"{_pick(draw, REASONING)}\n</think>\n\n{p.stated()}"


def _tokens(draw, p: Placed) -> str:
    return p.stated() + _pick(draw, ("<|im_end|>", "<|endoftext|>", "<｜end▁of▁sentence｜>", "</s>"))


def _qwen_math(draw, p: Placed) -> str:
    return f"{_pick(draw, REASONING)}\n\nTherefore, the final answer is {p.stated()}. I hope it is correct."


def _llama(draw, p: Placed) -> str:
    return f"## Step 1: {_pick(draw, REASONING)}\n\nThe final answer is: {p.stated()}"


def _answer_tags(draw, p: Placed) -> str:
    return f"<think>\n{_pick(draw, REASONING)}\n</think>\n<answer>{p.stated()}</answer>"


def _gsm8k_fewshot(draw, p: Placed) -> str:
    return f"{CALCULATION}{p.stated()}"


def _self_check(draw, p: Placed) -> str:
    check = _pick(draw, CHECKS).replace("{v}", p.fmt.inline_value(p.answer))
    return f"{_pick(draw, REASONING)}\n\n{p.stated()}\n\n{check}"


def _around(draw, p: Placed) -> str:
    return f"{_pick(draw, REASONING)}\n\n" + _pick(draw, AROUND).replace("{s}", p.stated())


def _closing(draw, p: Placed) -> str:
    return f"{_pick(draw, REASONING)}\n\n" + _pick(draw, CLOSINGS).replace("{s}", p.stated())


def _stop_in_math(draw, p: Placed) -> str:
    return _pick(draw, (f"So the answer is $\\boxed{{{p.answer}}}.$", f"\\[\\boxed{{{p.answer}}}.\\]\nThis is the answer."))


def _delimiters(draw, p: Placed) -> str:
    box = f"\\boxed{{{p.answer}}}"
    return _pick(draw, (f"Therefore, the answer is \\({box}\\).", f"Thus, the final answer is:\n\\[\n{box}\n\\]",
                        f"The answer is $${box}$$", f"So we get \\[{box}\\]"))


def _gsm8k_tail(draw, p: Placed) -> str:
    return f"{CALCULATION}{p.stated()} {_pick(draw, GSM8K_TAILS)}"


def _inside_think(draw, p: Placed) -> str:
    after = _pick(draw, ("", "\n\nI am not sure.", "\n\nLet me know if you need more help."))
    return f"<think>\n{_pick(draw, REASONING)}\n{p.stated()}\n</think>{after}"


def _cut_off(draw, p: Placed) -> str:
    return f"<think>\n{_pick(draw, REASONING)}\n{p.stated()}\n{_pick(draw, REASONING)}"


def _cut_in_box(draw, p: Placed) -> str:
    """The generation stopped inside the box: its closing brace never came."""
    return f"{_pick(draw, REASONING)}\n\nTherefore, the final answer is $\\boxed{{{p.answer}"


def _reopened(draw, p: Placed) -> str:
    return f"<think>\n{_pick(draw, REASONING)}\n</think>\n<think>\nCandidate: {p.stated()}"


def _candidates(draw, p: Placed) -> str:
    """The answer between two others, so that neither a first-answer nor a last-answer reader pays."""
    first, last = p.wrong[0], p.wrong[min(1, len(p.wrong) - 1)]
    if p.fmt.inline:
        return (f"First guess: {p.stated(first)}.\nSecond guess: {p.stated()}.\n"
                f"Third guess: {p.stated(last)}.")
    return f"{p.stated(first)}\n{p.stated()}\n{p.stated(last)}"


def _two_offered(draw, p: Placed) -> str:
    if p.fmt.inline:
        return f"It is either {p.stated(p.wrong[0])} or {p.stated()}."
    return f"{p.stated(p.wrong[0])} or {p.stated()}"


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("the answer alone", True, lambda draw, p: p.stated()),
    Wrapper("after reasoning", True, lambda draw, p: f"{_pick(draw, REASONING)}\n\n{p.stated()}"),
    Wrapper("R1: <think>, then the answer", True, _think),
    Wrapper("a pre-filled <think>, then the answer", True, _prefilled),
    Wrapper("special tokens after the answer", True, _tokens),
    Wrapper("Qwen-Math closing sentence", True, _qwen_math, formats=("inline",)),
    Wrapper("Llama \"The final answer is\"", True, _llama, formats=("inline",)),
    Wrapper("<answer> tags after thinking", True, _answer_tags, formats=("inline",)),
    Wrapper("GSM8K few-shot", True, _gsm8k_fewshot, formats=("gsm8k",)),
    Wrapper("a self-check after the answer", True, _self_check),
    Wrapper("prose around the answer", True, _around, formats=("inline",)),
    Wrapper("real-style closing sentence", True, _closing, formats=("inline",)),
    Wrapper("a full stop inside the math", True, _stop_in_math, formats=("boxed",)),
    Wrapper("\\( \\), \\[ \\] and $$ around the box", True, _delimiters, formats=("boxed",)),
    Wrapper("words after a GSM8K answer", True, _gsm8k_tail, formats=("gsm8k",), settled=False),
    Wrapper("only inside the thinking", False, _inside_think),
    Wrapper("cut off while thinking", False, _cut_off),
    Wrapper("cut off inside the box", False, _cut_in_box, formats=("boxed",)),
    Wrapper("several candidates", False, _candidates, needs_wrong=True),
    Wrapper("a <think> reopened after the answer region", False, _reopened),
    Wrapper("two values offered together", False, _two_offered, needs_wrong=True),
)
SETTLED = tuple(w for w in WRAPPERS if w.settled)
"""The default set: shapes every built-in scorer meets today."""
ALL = WRAPPERS


def wrappers_for(fmt: AnswerFormat, chosen: Sequence[Wrapper] = SETTLED, paid: bool | None = None) -> list[Wrapper]:
    """The wrappers of `chosen` that write for `fmt` (only the paid or unpaid ones, if asked)."""
    return [w for w in chosen if w.fits(fmt) and (paid is None or w.paid is paid)]


@st.composite
def placed(draw, wrapper: Wrapper, fmt: AnswerFormat, answer: str, wrong: Sequence[str] = ()) -> str:
    """One response: `answer` written in `fmt`, placed by `wrapper`."""
    return wrapper.build(draw, Placed(fmt, answer, tuple(wrong)))


def placed_golds(wrapper: Wrapper) -> st.SearchStrategy:
    """Golds whose mutations are responses placed by `wrapper`, in the format of the gold's data_source
    (for the mutation fuzzer): the gold itself (paid as the wrapper says), and, under a paid wrapper,
    a respelling (paid) and a meaning-changing mutation (never paid)."""
    from .golds import FAMILIES, Gold, Mutation

    names = [n for n, fmt in ((n, GSM8K if n == "gsm8k" else BOXED) for n in FAMILIES) if wrapper.fits(fmt)]

    @st.composite
    def build(draw) -> Gold:
        g = draw(st.one_of(*(FAMILIES[n] for n in names)))
        fmt = FORMATS[g.answer_format]
        wrong = [m for m in g.mutations if not m.paid and m.answer is not None]
        right = [m for m in g.mutations if m.paid and m.answer is not None]
        others = [m.answer for m in wrong]
        cases = []
        if others or not wrapper.needs_wrong:
            cases.append(Mutation(f"the gold, {wrapper.name}", draw(placed(wrapper, fmt, g.gold, others)),
                                  wrapper.paid, g.gold))
        if wrapper.paid and wrong:
            m = draw(st.sampled_from(wrong))
            cases.append(Mutation(f"{m.name}, {wrapper.name}", draw(placed(wrapper, fmt, m.answer, others)),
                                  False, m.answer))
        if wrapper.paid and right:
            m = draw(st.sampled_from(right))
            cases.append(Mutation(f"{m.name}, {wrapper.name}", draw(placed(wrapper, fmt, m.answer, others)),
                                  True, m.answer))
        return Gold(g.family, g.data_source, g.gold, tuple(cases), g.answer_format)

    return build()


PLACED = {f"placed: {w.name}": placed_golds(w) for w in WRAPPERS}
"""The fuzzer's families of placed answers, one per wrapper (`settled` ones in the test suite)."""
