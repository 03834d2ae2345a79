"""MATH-style answers: the last `\\boxed{}`, compared with the gold by value, not by spelling.

Registered for every math data_source that verl 0.9.1's `default_compute_score` dispatches
(`lighteval/MATH` and mirrors, the DAPO names, `aime*`, the six `numina_*` sources) plus
`xiaodongguaAIGC/X-R1-750`, `hiyouga/geometry3k` and the hub ids of the sets `rewards prepare` reads
(DeepScaleR, OpenR1-Math-220k, NuminaMath-CoT, DAPO-Math-17k), so the package drops in where verl's built-ins
stood. The DAPO-style names also read an `Answer: ...` line, the format their prompt asks for.

Judging runs in two steps: a fast path in this process (normalised strings, exact rationals; no
sympy) settles most answers in microseconds; only what it cannot settle goes to the engine's
worker pool, where sympy runs under a hard deadline (`Settings.timeout`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping

from ..engine.by_name import WorkerFunction

from ..math.box_context import ATTACHED, attached, unit_after
from ..math.cost import MAX_WRITTEN_CHARS, too_costly, written_size
from ..math.equivalence import exact_value, fast_equal
from ..math.extract import boxed_answer, last_box, last_statement, split_statement
from ..math.labels import align
from ..math.normalize import read_answer, repair_gold_escapes
from ..math.span import text_after
from ..math.units import contradict
from ..number_text import format_number, holds_approximation, parse_number
from ..prose import denied_before, differs_from, offered_before, taken_back, value_of
from ..region import ANSWER_CLOSE, answer_region, answer_tag
from ..registry import register_scorer
from ..result import Result, Verdict, correct, failed, wrong
from ..settings import Settings

# A statement that states a value after the last box: it must agree with the box.
_STATES_VALUE = re.compile(r"(?i)(?:final answer|the answer)\s*(?:is|:)\s*:?[ \t]*(?:\$|\\[(\[]|[-+]?\d)")
TAKEN_BACK = "the answer is denied or taken back"
# A final-answer statement that states a value (a math span or a number), not words (`is correct`).
_FINAL_ANSWER = re.compile(r"(?i)(?:final answer\s*(?:is|:)\s*:?[ \t]*)+(?:the\s+)?(?:final answer\s*(?:is|:)\s*:?[ \t]*)?(?:\$|\\[(\[]|[-+]?\d)")
MAX_ANSWER_CHARS = 1000
"""Longer extracted answers are not MATH answers; refusing them bounds every later step."""
MAX_NESTING = 40
"""Deeper brace nesting is refused before any parsing (a parser bomb, not an answer)."""
PRELOAD = ("sympy", "latex2sympy2_extended", "rewards.math.symbolic:warm_up")
"""What the engine's workers load before they take this scorer's checks (the symbolic check's
import also loads the LaTeX grammar; its warm-up runs a few typical checks): ~2-3 s per worker,
paid when the worker starts rather than inside a deadline."""

def score_math(response: str, ground_truth: Any, extra_info: Mapping[str, Any] | None,
               settings: Settings) -> Result:
    """MATH: last \\boxed{} (else "the final answer is"), exact/symbolic equivalence with the gold."""
    return judge_math(response, ground_truth, settings, answer_line=False)


def score_math_dapo(response: str, ground_truth: Any, extra_info: Mapping[str, Any] | None,
                    settings: Settings) -> Result:
    """DAPO-style math: the later of the last `Answer: ...` line and the last \\boxed{}, as for MATH."""
    return judge_math(response, ground_truth, settings, answer_line=True)


register_scorer(
    "lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500",
    "numina_aops_forum", "numina_synthetic_math", "numina_amc_aime", "numina_synthetic_amc",
    "numina_cn_k12", "numina_olympiads", "xiaodongguaAIGC/X-R1-750",
    # the hub ids `rewards prepare` labels these sets' rows with (datasources/)
    "agentica-org/DeepScaleR-Preview-Dataset", "open-r1/OpenR1-Math-220k", "AI-MO/NuminaMath-CoT",
    scorer=score_math, preload=PRELOAD)
register_scorer("math_dapo", "math", "math_dapo_reasoning", "aime*", "BytedTsinghua-SIA/DAPO-Math-17k",
                scorer=score_math_dapo, preload=PRELOAD)
# EasyR1's geometry3k recipe: `<think>` then `\boxed{}`, format weight 0.1 (docs/scoring-policy.md).
register_scorer("hiyouga/geometry3k", scorer=score_math, preload=PRELOAD,
                defaults={"format_rule": "think_boxed", "format_weight": 0.1})


def judge_math(response: str, ground_truth: Any, settings: Settings, answer_line: bool = False) -> Result:
    """The whole MATH judgement of one response; every failure is a verdict."""
    gold, gold_unit = gold_reading(ground_truth)
    if gold is None:
        return failed(Verdict.UNPARSABLE_GOLD, f"gold {str(ground_truth)[:80]!r} has no readable answer")
    region = answer_region(response)
    if region is None:
        return failed(Verdict.NO_ANSWER, "cut off inside <think>")
    tagged = answer_tag(region) if settings.format_rule == "think_answer" else None
    raw, reason = find_answer(region if tagged is None else tagged, answer_line, tagged is not None)
    if raw is not None and tagged is not None and taken_back(region[region.rfind(ANSWER_CLOSE) + len(ANSWER_CLOSE):],
                                                               _differs(raw)):
        raw, reason = None, f"{TAKEN_BACK} after </answer>"   # `<answer>12</answer> Sorry, correct answer: 14.`
    if raw is None:
        verdict = Verdict.UNPARSABLE_PRED if reason.startswith(("unclosed", TAKEN_BACK, ATTACHED)) else Verdict.NO_ANSWER
        return failed(verdict, reason)
    if not within_limits(raw):
        return failed(Verdict.UNPARSABLE_PRED, f"answer too long or too deeply nested ({len(raw)} characters, "
                      f"{written_size(raw)} written out)")
    pred, pred_unit = read_answer(raw)
    if not pred:
        return failed(Verdict.UNPARSABLE_PRED, f"empty answer {raw[:40]!r}")
    shown = display(pred)
    if contradict(pred_unit, gold_unit):
        return wrong(shown)  # `5\text{ m}` for `5\text{ km}`: the number may match, the answer does not
    aligned = align(pred, gold)
    if aligned is None:
        return wrong(shown)  # both name their values, with different labels
    pred, gold = aligned
    decided = fast_equal(pred, gold)
    if decided is False and holds_approximation(gold) and parse_number(pred) is None:
        decided = None  # an exact answer may round to an approximate gold: the sympy check decides
    if decided is not None:
        return correct(shown) if decided else wrong(shown)
    return _judge_symbolic(pred, gold, shown, settings)


def find_answer(region: str, answer_line: bool, tagged: bool = False) -> tuple[str | None, str]:
    """The extracted answer text, or None with the reason there is none. A `tagged` region is an
    `<answer>` tag's content: without a box or a stated answer in it, all of it is the answer,
    trimmed as a stated answer is (`$5$.` is `5`; `$5$ or $6$` stays whole and is not paid). An answer
    its clause denies or the text after it takes back is none (rewards.prose; docs/scoring-policy.md)."""
    statement = last_statement(region, answer_line=True) if answer_line else None
    box = last_box(region)
    if statement is not None and (box is None or statement[1] > box.start):
        return _stated(statement, region)
    if box is not None:
        after = text_after(region, box.start, box.end)   # `$\boxed{5}.$ Next`: the stop ends the sentence
        stated = last_statement(after, answer_line=False) if "nswer" in after else None
        if stated is not None and stated[0] and _FINAL_ANSWER.match(after, stated[1]):
            return stated[0], ""  # Minerva's `Final Answer: The final answer is $X$` after working boxes
        content, _ = boxed_answer(region, box, value=_quantity)   # equal boxes side by side are one answer
        if content is None:
            return None, "unclosed \\boxed{ (cut off mid-answer)"
        restated = stated is not None and _STATES_VALUE.match(after, stated[1])
        differs = _differs(content)
        if (denied_before(region, box.start) or offered_before(region, box.start, differs)
                or taken_back(after, differs, region[max(0, box.start - 200):box.start])
                or restated and not _agree(stated[0], content)):
            return None, f"{TAKEN_BACK}: {region[max(0, box.start - 40):box.end + 40]!r}"
        if attached(region, box.start, box.end):  # `-\boxed{21}`, `\boxed{21}^2`, `\boxed{21} thousand`
            return None, f"{ATTACHED}: {region[max(0, box.start - 20):box.end + 20]!r}"
        return content + unit_after(region, box.start, box.end), ""   # `$\boxed{45}$ radians` names its unit
    stated = last_statement(region, answer_line=False)
    if stated is not None:
        return _stated(stated, region)
    if tagged and region.strip():
        answer, rest = split_statement(region)
        return _stated((answer if not taken_back(rest) else "", 0), region)
    return None, "no \\boxed{} answer" + (" and no `Answer:` line" if answer_line else "")


def _exact(content: str) -> Fraction | None:
    """The box's value as an exact number, where it is one."""
    return exact_value(read_answer(content)[0]) if within_limits(content) else None


def _quantity(content: str) -> tuple[Fraction, str | None] | None:
    """The box's exact number with the unit it names (`1\\text{ m}` and `1\\text{ cm}` are two
    quantities, `\\frac12` and `0.5` one), where it is a number."""
    if not within_limits(content):
        return None
    number, unit = read_answer(content)
    value = exact_value(number)
    return None if value is None else (value, unit)


_COMMAND = re.compile(r"\\[a-zA-Z]+")
_VARIABLE = re.compile(r"[a-zA-Z]")


def _differs(content: str):
    """Whether a value put forward after the box is another answer than the box's `content`: by
    exact value, else by the fast path's equality (`$\\sqrt{12}$` after `\\boxed{2\\sqrt3}` agrees);
    a value it cannot settle differs (two answers offered)."""
    def differs(token: str) -> bool:
        if not within_limits(token) or not within_limits(content):
            return True
        exact, stated = _exact(content), value_of(token)
        if exact is not None and (stated is not None or "%" in token):
            return differs_from(exact)(token)   # `eight`, `$8$`, `x = 8`, `25\\%` against an exact box
        if exact is not None and _VARIABLE.search(_COMMAND.sub("", token)):
            return False   # `the count is $n(n-3)/2$` after `\\boxed{20}`: a formula, not another number
        mine, other = read_answer(content)[0], read_answer(token)[0]
        if not other:
            return False
        return mine != other and fast_equal(other, mine) is not True
    return differs


def _stated(statement: tuple[str, int], region: str) -> tuple[str | None, str]:
    if statement[0]:
        return statement[0], ""
    return None, f"{TAKEN_BACK}: {region[statement[1]:statement[1] + 80]!r}"


def _agree(stated: str, boxed: str) -> bool:
    """A statement after the box says the same answer (`\\boxed{\\frac12}. The answer is $0.5$.`)."""
    if not stated or not within_limits(stated):
        return False
    a, b = read_answer(stated)[0], read_answer(boxed)[0]
    if a == b or (a_value := exact_value(a)) is not None and a_value == exact_value(b):
        return True
    return (counted := value_of(stated)) is not None and counted == exact_value(b)   # `The answer is 12 apples.`


_NO_GOLD = (None, None)


@lru_cache(maxsize=8192)
def _gold_from_text(text: str) -> tuple[str | None, str | None]:
    if "\\boxed" in text or "\\fbox" in text:
        text = boxed_answer(text, gold=True)[0] or ""  # `\boxed{1}, \boxed{2}`: boxes side by side are one list
    if not within_limits(text):
        return _NO_GOLD
    gold, unit = read_answer(repair_gold_escapes(text))
    return (gold, unit) if gold else _NO_GOLD


def gold_answer(ground_truth: Any) -> str | None:
    """The normalised gold: a bare answer, or the last box of a full solution; parsed once per gold."""
    return gold_reading(ground_truth)[0]


def gold_reading(ground_truth: Any) -> tuple[str | None, str | None]:
    """(the normalised gold or None, the unit it names or None)."""
    if isinstance(ground_truth, bool) or ground_truth is None:
        return _NO_GOLD
    if isinstance(ground_truth, (int, float)):
        if ground_truth != ground_truth or abs(ground_truth) == float("inf"):
            return _NO_GOLD
        ground_truth = repr(ground_truth)
    if not isinstance(ground_truth, str):
        return _NO_GOLD
    return _gold_from_text(ground_truth)


def within_limits(text: str) -> bool:
    """Cheap size guard, run before any normalising or parsing: the text, and the text as
    normalize will write it (e-notation written out: rewards.math.cost.written_size)."""
    if len(text) > MAX_ANSWER_CHARS or written_size(text) > MAX_WRITTEN_CHARS:
        return False
    depth = deepest = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "})]":
            depth -= 1
    return deepest <= MAX_NESTING


def display(pred: str) -> str:
    """`pred` as reported: a plain number in canonical form (`5.00` -> `5`, `\\frac{1}{2}` -> `0.5`),
    so verl's majority vote counts equal numbers together; anything else as normalised."""
    value = exact_value(pred)
    return format_number(value) if value is not None else pred


SYMBOLIC_VERDICT = WorkerFunction("rewards.math.symbolic", "symbolic_verdict")
"""The worker-side check, by name: sympy is imported in workers only."""


@lru_cache(maxsize=8192)
def symbolic_verdict_bounded(pred: str, gold: str, timeout: float) -> Verdict:
    """The worker's verdict, remembered: a GRPO group often repeats an answer, and a verdict on the
    same pair never changes. Timeouts and crashes raise, so they are never remembered."""
    from ..engine import call_bounded

    return call_bounded(SYMBOLIC_VERDICT, pred, gold, timeout=timeout)


def _judge_symbolic(pred: str, gold: str, shown: str, settings: Settings) -> Result:
    from ..engine import EngineError, WorkerCrashed, WorkerError, WorkerTimeout

    costly = too_costly(pred) or too_costly(gold)  # decided from the text: same verdict alone or in a crowd
    if costly:
        return failed(Verdict.TIMEOUT, f"not evaluated, would outlast any deadline: {costly}", shown)
    try:
        verdict = symbolic_verdict_bounded(pred, gold, float(settings.timeout))
    except WorkerTimeout:
        return failed(Verdict.TIMEOUT, f"symbolic check ran past its {settings.timeout:g}s budget", shown)
    except WorkerCrashed as exc:
        return failed(Verdict.ERROR, f"symbolic check worker died: {exc}", shown)
    except (WorkerError, EngineError) as exc:
        return failed(Verdict.ERROR, f"symbolic check failed: {exc}", shown)
    result = verdict if isinstance(verdict, Verdict) else Verdict.ERROR
    if result is Verdict.CORRECT:
        return correct(shown)
    if result is Verdict.WRONG:
        return wrong(shown)
    return failed(result, f"symbolic check: {verdict}", shown)
