"""Shaping terms: DAPO's soft overlong penalty (formula and sign), length and repetition penalties."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rewards.api import compute_score
from rewards.compose import compose
from rewards.result import correct, wrong
from rewards.settings import Settings, SettingsError
from rewards.shaping import (count_tokens, length_penalty, overlong_penalty, repetition_fraction,
                             repetition_penalty, response_length, shaping_terms)

# --- DAPO soft overlong --------------------------------------------------------------------------

def test_overlong_matches_the_dapo_formula():
    # max 100, buffer 20: free up to 80, then linear down to -factor at 100
    assert overlong_penalty(0, 100, 20) == 0.0
    assert overlong_penalty(80, 100, 20) == 0.0
    assert overlong_penalty(81, 100, 20) == pytest.approx(-0.05)
    assert overlong_penalty(90, 100, 20) == pytest.approx(-0.5)
    assert overlong_penalty(100, 100, 20) == pytest.approx(-1.0)
    assert overlong_penalty(90, 100, 20, factor=0.5) == pytest.approx(-0.25)


def test_overlong_past_the_limit_stays_at_minus_factor():
    """Approximate (character) lengths can pass max_resp_len; the DAPO paper caps the penalty there."""
    assert overlong_penalty(500, 100, 20, factor=2.0) == -2.0


def test_penalties_never_return_negative_zero():
    assert str(overlong_penalty(10, 100, 20)) == "0.0"
    assert str(repetition_penalty("a b c d", 3, 1.0)) == "0.0"


@st.composite
def limit_and_buffer(draw):
    """A max response length and a DAPO buffer that fits inside it (verl requires buffer <= max)."""
    max_len = draw(st.integers(1, 5_000))
    return max_len, draw(st.integers(1, max_len))


@given(st.integers(0, 10_000), limit_and_buffer(), st.floats(0, 10, allow_nan=False), st.integers(0, 100))
def test_overlong_is_a_penalty_that_never_shrinks_with_length(length, limits, factor, more):
    max_len, buffer = limits
    p = overlong_penalty(length, max_len, buffer, factor)
    assert -factor - 1e-12 <= p <= 0.0
    assert overlong_penalty(length + more, max_len, buffer, factor) <= p


@given(limit_and_buffer(), st.data())
def test_overlong_agrees_with_verl_exactly_inside_the_limit(limits, data):
    """verl: `min(-(L - (max - buffer)) / buffer * factor, 0)`, for L up to max_resp_len."""
    max_len, buffer = limits
    length = data.draw(st.integers(0, max_len))
    exceed = length - (max_len - buffer)
    expected = min(-Fraction(exceed, buffer), 0)
    assert overlong_penalty(length, max_len, buffer) == pytest.approx(float(expected), abs=1e-12)


# --- length and repetition -----------------------------------------------------------------------

def test_length_penalty():
    assert length_penalty(0, 100, 0.2) == 0.0
    assert length_penalty(50, 100, 0.2) == pytest.approx(-0.1)
    assert length_penalty(400, 100, 0.2) == pytest.approx(-0.2)


def test_repetition_fraction():
    assert repetition_fraction("the quick brown fox jumps over the lazy dog", 3) == 0.0
    loop = "wait let me check " * 200
    assert repetition_fraction(loop, 3) > 0.98
    assert repetition_fraction("too short", 3) == 0.0
    assert repetition_fraction("", 1) == 0.0
    assert repetition_penalty(loop, 3, 0.5) == pytest.approx(-0.5 * repetition_fraction(loop, 3))
    # leaked special tokens are not words
    assert repetition_fraction("a b c<|im_end|><|im_end|>", 1) == 0.0


@given(st.text(max_size=300), st.integers(1, 6))
def test_repetition_fraction_in_range(text, n):
    assert 0.0 <= repetition_fraction(text, n) < 1.0


# --- response length: tokens, supplied or counted; characters on request --------------------------

def test_length_from_extra_info_wins():
    s = Settings(overlong_buffer_len=4, max_resp_len=16)
    assert response_length("abc", {"response_length": 12}, s) == 12
    assert response_length("abc", {"response_length": np.int64(9)}, s) == 9  # numpy ints from parquet


def test_length_in_characters():
    s = Settings(overlong_buffer_len=4, max_resp_len=16, length_unit="chars")
    assert response_length("abcdef", {"response_length": 2}, s) == 6


def test_token_length_without_a_way_to_count_is_loud():
    s = Settings(overlong_buffer_len=4, max_resp_len=16)
    with pytest.raises(SettingsError, match="length_tokenizer"):
        response_length("abc", {}, s)
    with pytest.raises(SettingsError):
        response_length("abc", {"response_length": "12"}, s)


def test_token_length_from_the_policy_tokenizer(tokenizer_dir, tokenizer):
    text = "Let me think. The answer is 42, so #### 42"
    s = Settings(overlong_buffer_len=4, max_resp_len=64, length_tokenizer=str(tokenizer_dir))
    assert response_length(text, None, s) == len(tokenizer.encode(text, add_special_tokens=False))
    assert count_tokens("", str(tokenizer_dir)) == 0


@pytest.mark.parametrize("unit", ["the cat sat ", "\\boxed{5}, ", "日本語🙂", " "])
def test_a_megabyte_response_is_counted_only_past_max_resp_len(tokenizer_dir, tokenizer, unit):
    """Length terms saturate at max_resp_len tokens: a long text is encoded only until a prefix is
    clearly past it (10 MB took 9-50 s), with the same terms as the whole text's count; a text
    shorter than that is counted exactly."""
    s = Settings(overlong_buffer_len=32, max_resp_len=256, length_penalty=0.1, length_tokenizer=str(tokenizer_dir))
    long = unit * (300_000 // len(unit))
    whole = len(tokenizer.encode(long, add_special_tokens=False))
    counted = response_length(long, None, s)
    assert counted > s.max_resp_len and whole > s.max_resp_len
    assert shaping_terms(long, None, s) == {"overlong_penalty": -1.0, "length_penalty": -0.1}
    short = unit * (200 // len(unit))
    assert response_length(short, None, s) == len(tokenizer.encode(short, add_special_tokens=False))


def test_lone_surrogates_are_counted_not_raised(tokenizer_dir, tokenizer):
    """A str may hold lone surrogates (no UTF-8 spelling); the tokenizer refuses them with a
    TypeError, which escaped as an exception from every entry point."""
    kwargs = {"overlong_buffer_len": 4, "max_resp_len": 64, "length_tokenizer": str(tokenizer_dir)}
    s = Settings(**kwargs)
    assert compute_score("openai/gsm8k", "\ud800 so #### 5\n\udfff", "5", **kwargs)["verdict"] == "correct"
    # glued to the number, an unknown symbol is no unit: the answer is unparsable (scoring policy), not an error
    assert compute_score("openai/gsm8k", "\ud800 so #### 5\udfff", "5", **kwargs)["verdict"] == "unparsable_pred"
    assert response_length("a\ud800b", None, s) == len(tokenizer.encode("a\ufffdb", add_special_tokens=False))


def test_shaping_terms_keys():
    s = Settings(overlong_buffer_len=4, max_resp_len=16, length_penalty=0.1, repetition_penalty=0.2,
                 length_unit="chars")
    assert set(shaping_terms("x", None, s)) == {"overlong_penalty", "length_penalty", "repetition_penalty"}
    assert shaping_terms("x", None, Settings()) == {}
    assert set(shaping_terms("x", None, Settings(repetition_penalty=0.1))) == {"repetition_penalty"}


# --- settings validation: the sign and the dependencies ---------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {"overlong_buffer_len": 10},                       # no max_resp_len
    {"length_penalty": 0.1},                           # no max_resp_len
    {"overlong_buffer_len": 200, "max_resp_len": 100},  # buffer longer than the response
    {"overlong_buffer_len": -1, "max_resp_len": 100},
    {"overlong_penalty_factor": -1.0},                 # a negative factor would reward length
    {"length_penalty": -0.1, "max_resp_len": 100},
    {"repetition_penalty": -0.5},
    {"repetition_ngram": 0},
    {"max_resp_len": 0},
    {"max_resp_len": 10.5},
    {"length_unit": "words"},
    {"format_weight": 0.6, "format_rule": "think_boxed"},
    {"format_weight": float("nan")},
    {"format_rule": "xml"},
    {"format_mode": "loose"},
    {"think_prefilled": "maybe"},
])
def test_bad_settings_raise(kwargs):
    with pytest.raises(SettingsError):
        Settings(**kwargs)


def test_think_prefilled_accepts_booleans():
    assert Settings(think_prefilled=True).think_prefilled == "yes"
    assert Settings(think_prefilled=False).think_prefilled == "no"
    assert Settings(think_prefilled="true").think_prefilled == "yes"


def test_numeric_settings_given_as_strings_are_read_as_numbers():
    """Hydra's `${oc.env:REWARD_TIMEOUT,5}` passes `'5'`: every setting that takes a number takes its
    text, as `verdict_keys='true'` is taken, and means the same as the number."""
    text = Settings(timeout="5", format_rule="think_answer", format_weight="0.1", max_resp_len="400",
                    overlong_buffer_len="100", overlong_penalty_factor="1.5", length_penalty="0.2",
                    repetition_penalty="0.5", repetition_ngram="4", length_unit="chars")
    numbers = Settings(timeout=5, format_rule="think_answer", format_weight=0.1, max_resp_len=400,
                       overlong_buffer_len=100, overlong_penalty_factor=1.5, length_penalty=0.2,
                       repetition_penalty=0.5, repetition_ngram=4, length_unit="chars")
    assert text == numbers
    assert type(text.max_resp_len) is int and type(text.timeout) is float


@pytest.mark.parametrize("name, value, message", [
    ("timeout", "five", "timeout must be a number"),
    ("format_weight", "0.1x", "format_weight must be a number"),
    ("length_penalty", "", "length_penalty must be a number"),
    ("max_resp_len", "2048.5", "max_resp_len must be an integer"),
    ("repetition_ngram", "three", "repetition_ngram must be an integer"),
])
def test_a_bad_numeric_string_says_it_is_not_a_number(name, value, message):
    with pytest.raises(SettingsError, match=message):
        Settings(**{name: value, "max_resp_len": 400} if name != "max_resp_len" else {name: value})


# --- shaping never ranks a wrong answer above a correct one of the same length ----------------------

RESPONSES = st.sampled_from([
    "<think>add</think><answer>4</answer>", "#### 4", "4 4 4 4 4 4 4 4 4 4 4", "",
    "<think>a</think>\\boxed{4}", "<think>x", "so the answer is 4, wait " * 30,
])
SHAPED = st.builds(
    lambda rule, w, mode, buf, factor, lp, rp, n: Settings(
        format_rule=rule, format_weight=w if rule != "none" else 0.0, format_mode=mode,
        max_resp_len=400, overlong_buffer_len=buf, overlong_penalty_factor=factor,
        length_penalty=lp, repetition_penalty=rp, repetition_ngram=n, length_unit="chars"),
    st.sampled_from(["none", "think_answer", "think_boxed"]), st.floats(0, 0.5),
    st.sampled_from(["strict", "lenient"]), st.integers(0, 400), st.floats(0, 5), st.floats(0, 2),
    st.floats(0, 2), st.integers(1, 4))


@given(RESPONSES, SHAPED)
def test_same_response_correct_never_below_wrong(response, settings):
    good = compose(correct("4"), response, None, settings)
    bad = compose(wrong("5"), response, None, settings)
    assert good.score >= bad.score
    assert good.score - bad.score == pytest.approx(1 - (settings.format_weight if settings.format_rule != "none" else 0))


@given(st.integers(0, 600), SHAPED, st.sampled_from(["<think>t</think><answer>4</answer>", "#### 4"]),
       st.sampled_from(["<think>t</think><answer>5</answer>", "#### 5", "5"]))
def test_same_length_correct_never_below_wrong(length, settings, good_text, bad_text):
    """Different texts padded to one length: length terms are equal, and with format weight <= 0.5
    even a well-formatted wrong answer cannot beat a badly formatted correct one."""
    settings = Settings(**{**{f: getattr(settings, f) for f in settings.__slots__}, "repetition_penalty": 0.0})
    pad = lambda t: (t + " " * length)[: max(length, len(t))]  # noqa: E731
    a, b = pad(good_text), pad(bad_text)
    b = b + " " * (len(a) - len(b)) if len(b) < len(a) else b
    a = a + " " * (len(b) - len(a))
    assert len(a) == len(b)
    good = compose(correct("4"), a, None, settings)
    bad = compose(wrong("5"), b, None, settings)
    assert good.score >= bad.score - 1e-12
