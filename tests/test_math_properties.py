"""Properties of the MATH scorer: harmless rewrites keep an answer correct, a self-correction to a
wrong answer pays nothing, order matters exactly where it should, and no text makes it raise."""

from fractions import Fraction

from hypothesis import assume, given, strategies as st

from rewards import compute_score
from rewards.result import VERDICTS
from rewards.math.equivalence import fast_equal
from rewards.math.normalize import normalize
from rewards.math.structure import parse

MATH = "lighteval/MATH"


def verdict(answer: str, gold: str, **kw) -> str:
    return compute_score(MATH, f"Therefore the answer is $\\boxed{{{answer}}}$.", gold, **kw)["verdict"]


fractions = st.builds(Fraction, st.integers(-99, 99), st.integers(1, 12))


def canonical(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


@st.composite
def spelled(draw, value: Fraction) -> str:
    """The same rational written some other harmless way."""
    num, den = abs(value.numerator), value.denominator
    sign = "-" if value < 0 else ""
    k = draw(st.integers(1, 4))
    forms = [f"{sign}\\dfrac{{{num * k}}}{{{den * k}}}", f"{sign}\\tfrac{{{num}}}{{{den}}}",
             f"\\frac{{{sign}{num}}}{{{den}}}", f"{sign}{num}/{den}"]
    if num < 10 and den < 10:
        forms.append(f"{sign}\\dfrac{num}{den}")
    if den in (1, 2, 4, 5, 8, 10):
        forms.append(str(float(value)))
    text = draw(st.sampled_from(forms))
    for wrap in draw(st.lists(st.sampled_from(["paren", "space", "text", "dollar"]), max_size=3)):
        text = {"paren": f"\\left({text}\\right)", "space": f"  {text} ", "text": f"\\text{{{text}}}",
                "dollar": f"${text}$"}[wrap]
    return text + "." if draw(st.booleans()) else text   # a sentence's full stop ends the answer


@given(st.data(), fractions)
def test_rational_rewrites_stay_correct(data, value):
    assert verdict(data.draw(spelled(value)), canonical(value)) == "correct"


@given(fractions, fractions)
def test_different_rationals_are_wrong(a, b):
    assume(a != b)
    assert verdict(canonical(a), canonical(b)) == "wrong"


EXPRESSIONS = [r"\frac{\sqrt{3}}{2}", r"2\sqrt{2}", r"\frac{\pi}{4}", r"(x+1)^2", r"3+4i", r"\frac{a+b}{c}",
               r"(-\infty,2]", r"(1,2)", r"\{1,3\}", r"y=2x+3", r"\begin{pmatrix}1\\2\end{pmatrix}"]


@st.composite
def respaced(draw, text: str) -> str:
    """Presentation-only changes: spaces around symbols, \\dfrac, \\left/\\right, \\text wrapping."""
    out = []
    for ch in text:
        out.append(ch)
        if ch in "+-,=(){}" and draw(st.booleans()):
            out.append(" ")
    text = "".join(out)
    if draw(st.booleans()):
        text = text.replace("\\frac", "\\dfrac")
    if draw(st.booleans()) and "(" in text and text.count("(") == 1:
        text = text.replace("(", "\\left(").replace(")", "\\right)").replace("]", "\\right]")
    if draw(st.booleans()):
        text = f"\\text{{${text}$}}"
    return text


@given(st.data(), st.sampled_from(EXPRESSIONS))
def test_presentation_rewrites_stay_correct_without_sympy(data, gold):
    answer = data.draw(respaced(gold))
    assert fast_equal(normalize(answer), normalize(gold)) is True
    assert verdict(answer, gold) == "correct"


@given(fractions, fractions, st.sampled_from(["Wait, let me recheck.", "Hmm, I made an arithmetic error.",
                                              "Actually, correcting the sign:"]))
def test_self_correction_decides(right, wrong_value, words):
    assume(right != wrong_value)
    gold = canonical(right)
    to_wrong = f"So $\\boxed{{{canonical(right)}}}$. {words} So $\\boxed{{{canonical(wrong_value)}}}$."
    to_right = f"So $\\boxed{{{canonical(wrong_value)}}}$. {words} So $\\boxed{{{canonical(right)}}}$."
    assert compute_score(MATH, to_wrong, gold)["acc"] == 0.0
    assert compute_score(MATH, to_right, gold)["acc"] == 1.0


@given(st.lists(st.integers(-20, 20), min_size=2, max_size=5, unique=True), st.randoms())
def test_lists_are_unordered_and_tuples_ordered(items, rnd):
    shuffled = items[:]
    rnd.shuffle(shuffled)
    gold_list, pred_list = ", ".join(map(str, items)), ", ".join(map(str, shuffled))
    assert verdict(pred_list, gold_list) == "correct"
    assert verdict(f"({pred_list})", f"({gold_list})") == ("correct" if shuffled == items else "wrong")
    assert verdict(pred_list, str(items[0])) == "wrong"   # a list never answers one of its members


FRAGMENTS = st.sampled_from([r"\boxed{", "}", "{", r"\frac", r"\sqrt", "$", "<think>", "</think>", r"\pm", ",",
                             "=", "^", "1", "x", r"\text{", r"\left(", r"\right]", r"\infty", r"\begin{pmatrix}",
                             r"\\", "&", r"\end{pmatrix}", "Answer:", "final answer is", " ", "(", "]", "!", "."])
texts = st.one_of(st.text(max_size=200), st.lists(FRAGMENTS, max_size=40).map("".join))


@given(texts, st.one_of(texts, st.integers(), st.none()), st.sampled_from([MATH, "math_dapo", "aime2024"]))
def test_arbitrary_text_never_raises(response, gold, source):
    out = compute_score(source, response, gold, timeout=2.0)
    assert out["verdict"] in VERDICTS and out["verdict"] != "error"
    assert isinstance(out["pred"], str) and out["acc"] in (0.0, 1.0)


@given(texts)
def test_building_blocks_never_raise(text):
    normal = normalize(text)
    parse(normal)
    fast_equal(normal, "1")
