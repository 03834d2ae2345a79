from fractions import Fraction

from hypothesis import given, strategies as st

from rewards.number_text import format_number, last_number, parse_number
from rewards.region import answer_region


def test_parse_number_forms():
    assert parse_number("1,080") == 1080
    assert parse_number("10{,}000") == 10000
    assert parse_number("10\\,000") == 10000
    assert parse_number("$1,080.") == 1080
    assert parse_number("-0.25") == Fraction(-1, 4)
    assert parse_number("3/4") == Fraction(3, 4)
    assert parse_number("1/0") is None
    assert parse_number("12,34") is None          # not a thousands grouping
    assert parse_number("x = 3") is None
    assert parse_number("9" * 5000) is None       # size guard


def test_last_number_skips_words():
    assert last_number("x2 is 4 and y is -3.5 kg") == "-3.5"
    assert last_number("no digits") is None


@given(st.fractions(max_denominator=10**6))
def test_format_roundtrips(value):
    assert parse_number(format_number(value)) == value


def test_answer_region():
    assert answer_region("<think>a</think>b</think>c") == "c"
    assert answer_region("<think>never closed") is None
    assert answer_region("plain<|im_end|>") == "plain\n"   # a token ends the line it closes
    assert answer_region("prefilled</think>answer</s>") == "answer\n"
