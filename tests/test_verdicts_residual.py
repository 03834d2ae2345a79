"""Residual causes of wrong answers paid, and of right ones refused, left after the prose, structure
and normalisation fixes: each refused case was paid 1 before its rule, each kept case is a right
answer that must stay paid (docs/scoring-policy.md states each rule)."""

import pytest

from rewards import compute_score

GSM8K, MATH = "openai/gsm8k", "lighteval/MATH"


def verdict(data_source, response, gold, **settings):
    return compute_score(data_source, response, gold, **settings)["verdict"]


# --- a contrast after the answer is a retraction only where it names a value or denies it ---------

@pytest.mark.parametrize("response", [
    r"\boxed{7}. However, the problem does not explicitly state this, so it is worth noting.",
    r"\boxed{7}. But the problem could be read in a different way.",
    "The final answer is $7$. I hope it is correct. Note: however, the problem leaves this open.",
    r"\boxed{7}. Yet I should recheck this.",   # an intention to check states no other value
])
def test_a_caveat_after_the_answer_still_pays(response):
    assert verdict(MATH, response, "7") == "correct"


@pytest.mark.parametrize("response", [
    r"\boxed{7}. However, the answer is 8.", r"\boxed{7}. But this is not right.", r"\boxed{7}. But maybe not.",
    r"\boxed{7}. However, it does not satisfy the condition.", r"\boxed{7}. But it isn't.",
    r"\boxed{7}. However, eight also works.", r"\boxed{7}. But $x = 9$ fits better.",
])
def test_a_contrast_that_names_a_value_or_denies_the_answer_takes_it_back(response):
    assert verdict(MATH, response, "7") != "correct"


# --- a labelled chain that opens with a stated value states every member -------------------------

@pytest.mark.parametrize("response, gold", [
    ("x = 4 = 3", "3"), ("x=4=3", "x=3"), ("x = -4 = 3", "3"), ("x = 3 = 4", "3"),
    (r"x = \frac{1}{2} = \frac{1}{3}", r"\frac13"), ("a = 4 = 3, b = 2", "a = 3, b = 2"),
])
def test_a_chain_of_stated_values_is_two_readings(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) != "correct"


@pytest.mark.parametrize("response, gold", [
    ("x = 5+5+1 = 11", "11"), ("x = 5+5+1 = 11", "x = 11"), ("x = 3 = 3.0", "3"),
    (r"x = \frac{2}{4} = \frac{1}{2}", r"\frac12"), ("a = 2+1 = 3, b = 2", "a = 3, b = 2"),
    ("x = 5+5+1 = 7 = 11", "x = 11"),  # working, then its value: Math-Verify's reading (policy)
])
def test_a_chain_whose_stated_values_agree_still_pays(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) == "correct"


# --- what \text{} holds is text, never a product of letters ---------------------------------------

@pytest.mark.parametrize("response, gold", [
    (r"\text{ab}", r"\text{ba}"), (r"\text{is}", r"\text{si}"), (r"\text{A B C}", r"\text{C B A}"),
    (r"\text{(A) (B)}", r"\text{(B) (A)}"), (r"\text{ab}", "ba"), (r"5\text{ xy}", "5"),
])
def test_text_is_never_a_product_of_letters(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) != "correct"


@pytest.mark.parametrize("response, gold", [
    (r"\text{A B C}", r"\text{abc}"), (r"\text{is}", r"\text{IS}"), (r"\text{(A)}", "A"), (r"\text{x}", "x"),
    (r"\text{5}", "5"), (r"\text{A, B}", "A, B"), (r"5\text{ cm}", "5"), (r"\text{Odd}", "odd"),
])
def test_text_that_is_the_same_text_or_one_letter_still_pays(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) == "correct"


# --- nouns that count groups, and `times`, change the number before them ---------------------------

@pytest.mark.parametrize("data_source, response", [
    (MATH, r"\boxed{7\text{ times}}"), (MATH, r"\boxed{7 times}"), (MATH, r"\boxed{7\text{ pairs}}"),
    (MATH, r"The answer is $7$ pairs."), (GSM8K, "#### 7 pairs"), (GSM8K, "#### 7 couples"), (GSM8K, "#### 7 times"),
])
def test_a_group_noun_or_times_after_the_number_is_not_paid(data_source, response):
    assert verdict(data_source, response, "7") != "correct"


@pytest.mark.parametrize("data_source, response", [
    (MATH, r"\boxed{7\text{ hours}}"), (MATH, r"\boxed{7\text{ apples}}"), (GSM8K, "#### 7 apples"),
    (GSM8K, "#### 7 pears"),
])
def test_a_unit_or_object_after_the_number_still_pays(data_source, response):
    assert verdict(data_source, response, "7") == "correct"


# --- Unicode membership is the LaTeX it means -----------------------------------------------------

@pytest.mark.parametrize("response, gold", [
    ("x ∈ (1,2)", r"x \in (1,2)"), ("x ∉ (1,2)", r"x \notin (1,2)"), ("x ∈ (1,2)", "(1,2)"),
    ("x ∈ [1,2]", r"1 \le x \le 2"), ("x ≤ 3", r"x \le 3"), ("(−∞, 2) ∪ (3, ∞)", r"(-\infty,2)\cup(3,\infty)"),
])
def test_unicode_relations_read_as_their_commands(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) == "correct"


@pytest.mark.parametrize("response, gold", [
    ("x ∉ (1,2)", r"x \in (1,2)"), ("x ∉ (1,2)", "x ∈ (1,2)"), ("x ∈ (1,2)", "x ∉ (1,2)"), ("x ∉ (1,2)", "(1,2)"),
    ("(1,2) ∩ (0,3)", r"(1,2)\cup(0,3)"),
])
def test_a_negated_membership_never_answers_the_membership(response, gold):
    assert verdict(MATH, rf"\boxed{{{response}}}", gold) != "correct"
