import string

import pytest
from hypothesis import given, strategies as st

from rewards import compute_score

GSM = "openai/gsm8k"


def verdict(response, gold, **kw):
    return compute_score(GSM, response, gold, **kw)


def test_dollar_thousands_and_trailing_period():
    r = verdict("... so she earns #### $1,080.", "1080")
    assert r["acc"] == 1.0 and r["pred"] == "1080" and r["verdict"] == "correct"


def test_answer_early_in_a_long_response_is_not_clipped():
    response = "#### 1080\n" + "Let me double check the arithmetic once more. " * 110
    assert len(response) > 5000
    assert verdict(response, "1080")["acc"] == 1.0


def test_last_marker_wins():
    assert verdict("#### 5\nwait, I made an error.\n#### 7", "7")["verdict"] == "correct"
    assert verdict("#### 7\nwait, I made an error.\n#### 5", "7")["verdict"] == "wrong"


def test_gold_from_dataset_answer_line():
    gold = "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72"
    assert verdict("#### 72", gold)["acc"] == 1.0
    assert verdict("#### 24", gold)["verdict"] == "wrong"


def test_normalisations():
    for response in ["#### 18.0", "#### 18 dollars", "#### **18**", "####18", "#### \\$18",
                     "#### 18.", "#### \\boxed{18}", "#### 18%", "####  +18"]:
        assert verdict(response, "18")["verdict"] == "correct", response


def test_exact_rationals_not_floats():
    assert verdict("#### 0.30000000000000004", "0.3")["verdict"] == "wrong"
    assert verdict("#### 1/3", "1/3")["verdict"] == "correct"
    assert verdict("#### 0.5", "1/2")["verdict"] == "correct"
    assert verdict("#### 1,000,001", "1000000")["verdict"] == "wrong"
    assert verdict("#### -5", "5")["verdict"] == "wrong"


def test_strict_needs_marker_flexible_takes_last_number():
    assert verdict("The answer is 42.", "42")["verdict"] == "no_answer"
    assert verdict("The answer is 42.", "42", gsm8k_mode="flexible")["verdict"] == "correct"
    assert verdict("It is 7, no wait, 42 apples.", "42", gsm8k_mode="flexible")["verdict"] == "correct"


def test_marker_without_number_is_unparsable():
    r = verdict("#### the answer is unknown", "4")
    assert r["verdict"] == "unparsable_pred" and r["score"] == 0.0


def test_unparsable_gold_is_not_a_free_reward():
    r = verdict("#### 4", "four")
    assert r["verdict"] == "unparsable_gold" and r["score"] == 0.0


def test_think_region():
    assert verdict("<think>#### 9</think>#### 4", "4")["verdict"] == "correct"
    assert verdict("<think>the answer is #### 4</think>I am not sure.", "4")["verdict"] == "no_answer"
    assert verdict("<think>I keep thinking #### 4", "4")["verdict"] == "no_answer"
    # a chat template pre-filled <think>: the response starts inside it
    assert verdict("so 2+2=4</think>\n#### 4<|im_end|>", "4")["verdict"] == "correct"


def test_numeric_gold_types():
    assert verdict("#### 72", 72)["acc"] == 1.0
    assert verdict("#### 2.5", 2.5)["acc"] == 1.0
    assert verdict("#### 1", True)["verdict"] == "unparsable_gold"


# --- properties -------------------------------------------------------------------------------

prose = st.text(alphabet=string.ascii_letters + " ,;\n", max_size=200)


@given(st.text(max_size=2000), st.text(max_size=50), st.sampled_from(["strict", "flexible"]))
def test_never_raises_and_stays_in_range(response, gold, mode):
    r = verdict(response, gold, gsm8k_mode=mode)
    assert set(r) == {"score", "acc", "format", "pred", "verdict"}
    assert 0.0 <= r["score"] <= 1.0 and r["acc"] in (0.0, 1.0)


@given(st.integers(min_value=-10**9, max_value=10**9), prose)
def test_deterministic(n, text):
    response = f"{text}\n#### {n}"
    assert verdict(response, str(n)) == verdict(response, str(n))


def _dressed(n: int, comma: bool, dollar: bool, period: bool, before: str, after: str) -> str:
    digits = f"{abs(n):,}" if comma else str(abs(n))
    number = ("-" if n < 0 else "") + ("$" if dollar else "") + digits
    return f"{before}\n#### {number}{'.' if period else ''}{after}"


@given(st.integers(min_value=-10**12, max_value=10**12), st.booleans(), st.booleans(), st.booleans(),
       prose, st.sampled_from(["", " dollars", " apples in total", "\n"]))
def test_correct_answer_survives_harmless_rewrites(n, comma, dollar, period, before, after):
    response = _dressed(n, comma, dollar, period, before, after)
    assert verdict(response, str(n))["verdict"] == "correct", response


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_different_number_is_wrong(n, delta):
    assert verdict(f"#### {n + delta}", str(n))["verdict"] == "wrong"


def test_e_notation_golds_and_answers():
    """GSM8K-hard writes computed golds in e-notation; `#### 3.3e-06` is 3.3e-06, never 3.3."""
    assert verdict("#### 3.3e-06", "3.3e-06")["verdict"] == "correct"
    assert verdict("#### 0.0000033", "... #### 3.3e-06")["verdict"] == "correct"
    assert verdict("#### 3.3E-6", "0.0000033")["verdict"] == "correct"
    assert verdict("#### 3.3", "3.3e-06")["verdict"] == "wrong"
    assert verdict("#### 3.3e-06", "3.3")["verdict"] == "wrong"
    assert verdict("#### 3.3e-05", "3.3e-06")["verdict"] == "wrong"
    assert verdict("#### 1e10", "10000000000")["verdict"] == "correct"
    assert verdict("It is 2.5e3 apples", "2500", gsm8k_mode="flexible")["verdict"] == "correct"


def test_list_comma_is_not_a_thousands_separator():
    """`1,234` is one number; `1, 234` is two, and neither of them is 1234."""
    assert verdict("#### 1,234", "1234")["verdict"] == "correct"
    assert verdict("#### 1, 234", "1234")["verdict"] == "unparsable_pred"  # two numbers: no one answer


# Near misses: what follows the number on its line changes or takes back its value, so nothing is paid.
REFUSED_AGAINST_5 = ["#### 5 or 6", "#### 5-6", "#### 5 - 6", "#### 5 thousand", "#### 5,6", "#### 5, 6",
                     "#### $5 or $6", "#### 5^2", "#### 5!", "#### 5*2", "#### 5x", "#### 5i", "#### 5 squared",
                     "#### 5 dozen", "#### 5 million", "#### 5k", "#### 5K", "#### 5 1/2", "#### 5\u00bd",
                     "#### 5..6", "#### 5:00", "#### 5 /6", "#### 5\u00b2", "#### 5e", "#### 5 e-1", "#### 5E1",
                     "#### 5 x 10^3", "#### 5 \u00b1 1", "#### 5 + 1", "#### 5 to 6", "#### 5~6", "#### 4 or 5",
                     "#### 5 (not 6)", "#### 5 (wrong)", "#### **5** or 6", "#### \\boxed{5} or 6", "#### -5",
                     "#### 5 at most", "#### 5 at least", "#### 5 bn"]


@pytest.mark.parametrize("response", REFUSED_AGAINST_5)
def test_value_changing_tail_is_not_paid(response):
    assert verdict(response, "5")["acc"] == 0.0


@pytest.mark.parametrize("response", ["#### 5", "#### 5.", "#### 5 dollars", "#### $5 per day", "#### **5**",
                                      "#### 5%", "#### 5 apples in total", "#### 5\nso 6 was wrong",
                                      "#### 5. The answer is 6 minus 1.", "#### \\boxed{5}", "#### 5 (five)",
                                      "#### 5\n\n\\boxed{5}"])
def test_words_after_the_number_still_pay(response):
    assert verdict(response, "5")["verdict"] == "correct"
