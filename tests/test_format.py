"""Format checks: each rule pays for its template and refuses the gaming patterns users have hit."""

import pytest
from hypothesis import given, strategies as st

from rewards.format import FORMAT_MODES, FORMAT_RULES, THINK_PREFILLED, check_format
from tests.helpers.timing import fastest

MODES = FORMAT_MODES


def format_score(response, rule, mode="strict", prefilled="auto"):
    """1.0 when the response follows the rule, else 0.0."""
    return check_format(response, rule, mode, prefilled).score


def fmt(response, rule="think_answer", mode="strict", prefilled="auto"):
    return format_score(response, rule, mode, prefilled)


# --- what each rule pays for -------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_think_answer_pays_for_the_r1_template(mode):
    assert fmt("<think>2+2 is 4</think><answer>4</answer>", mode=mode) == 1.0
    assert fmt("<think>\n2+2 is 4\n</think>\n<answer> 4 </answer>\n", mode=mode) == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_think_boxed_pays_for_the_easyr1_math_template(mode):
    assert fmt("<think>2+2 is 4</think> So the answer is $\\boxed{4}$.", "think_boxed", mode) == 1.0
    assert fmt("<think>half</think>\\boxed{\\frac{1}{2}}", "think_boxed", mode) == 1.0
    assert fmt("<think>ok</think>\\fbox{7}", "think_boxed", mode) == 1.0


def test_rule_none_always_passes():
    assert fmt("anything at all", "none") == 1.0


@pytest.mark.parametrize("rule", ["think_answer", "think_boxed"])
@pytest.mark.parametrize("mode", MODES)
def test_no_tags_at_all_fails(rule, mode):
    assert fmt("The answer is \\boxed{4}. <answer>4</answer>", rule, mode) == 0.0
    assert fmt("", rule, mode) == 0.0


# --- gaming patterns ---------------------------------------------------------------------------

def test_repeated_tags_fail_strict_pass_lenient():
    doubled_think = "<think>a</think><think>b</think><answer>4</answer>"
    doubled_answer = "<think>a</think><answer>4</answer><answer>4</answer>"
    assert fmt(doubled_think) == 0.0
    assert fmt(doubled_answer) == 0.0
    assert fmt(doubled_think, mode="lenient") == 1.0      # documented lenient trade-off
    assert fmt("<think>a</think><think>b</think>\\boxed{4}", "think_boxed") == 0.0
    assert check_format(doubled_think, "think_answer").reason.startswith("</think> repeated")


def test_tags_copied_from_the_prompt_are_not_a_format():
    echo = ("A conversation. The assistant first thinks about the reasoning process in the mind and then "
            "provides the answer. The reasoning process and answer are enclosed within <think> </think> "
            "and <answer> </answer> tags, respectively.")
    # the echo alone: an empty think block and an empty answer block
    for mode in MODES:
        assert fmt(echo + " The answer is 4.", mode=mode) == 0.0
    # the echo followed by a real block: the copied tags make strict fail
    assert fmt(echo + "\n<think>2+2</think><answer>4</answer>") == 0.0
    assert fmt(echo + "\n<think>2+2</think><answer>4</answer>", mode="lenient") == 1.0


@pytest.mark.parametrize("rule,answer", [("think_answer", "<answer>4</answer>"), ("think_boxed", "\\boxed{4}")])
def test_empty_think_block(rule, answer):
    assert fmt("<think></think>" + answer, rule) == 0.0
    assert fmt("<think>  \n </think>" + answer, rule) == 0.0
    assert check_format("<think></think>" + answer, rule).reason == "empty think block"
    assert fmt("<think></think>" + answer, rule, "lenient") == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_answer_only_inside_think_fails(mode):
    assert fmt("<think>it is <answer>4</answer></think>", mode=mode) == 0.0
    assert fmt("<think>so \\boxed{4}</think> The answer is 4.", "think_boxed", mode) == 0.0
    # strict: an answer tag inside the thought as well as after it is a repeated tag
    assert fmt("<think><answer>5</answer></think><answer>4</answer>") == 0.0


def test_text_after_the_answer():
    tail = "<think>2+2</think><answer>4</answer> Actually, maybe 5."
    assert fmt(tail) == 0.0
    assert check_format(tail, "think_answer").reason == "text after </answer>"
    assert fmt(tail, mode="lenient") == 1.0
    assert fmt("<think>2+2</think><answer>4</answer>\n\n") == 1.0  # trailing whitespace is fine
    assert fmt("<think>2+2</think><answer>4</answer><|im_end|>") == 1.0  # and so is a leaked EOS


def test_text_before_or_between_blocks():
    assert fmt("Sure! <think>2+2</think><answer>4</answer>") == 0.0
    assert fmt("<think>2+2</think> The answer: <answer>4</answer>") == 0.0
    assert fmt("Sure! <think>2+2</think> so <answer>4</answer>", mode="lenient") == 1.0


@pytest.mark.parametrize("mode", MODES)
def test_empty_answer_or_box(mode):
    assert fmt("<think>x</think><answer> </answer>", mode=mode) == 0.0
    assert fmt("<think>x</think>\\boxed{}", "think_boxed", mode) == 0.0
    assert fmt("<think>x</think>\\boxed{ }", "think_boxed", mode) == 0.0


@pytest.mark.parametrize("mode", MODES)
def test_cut_off_responses_fail(mode):
    assert fmt("<think>still thinking about \\boxed{4}", "think_boxed", mode) == 0.0
    assert fmt("<think>x</think>\\boxed{\\frac{1}{2", "think_boxed", mode) == 0.0   # box never closed
    assert fmt("<think>x</think><answer>4", mode=mode) == 0.0


def test_answer_tags_in_a_boxed_response_fail_strict():
    assert fmt("<think>x</think><answer>\\boxed{4}</answer>", "think_boxed") == 0.0
    assert fmt("<think>x</think><answer>\\boxed{4}</answer>", "think_boxed", "lenient") == 1.0


def test_tags_out_of_order():
    assert fmt("</think>x<think><answer>4</answer>") == 0.0
    assert fmt("<answer>4</answer><think>x</think>") == 0.0


def test_spaced_tags_only_in_lenient_mode():
    spaced = "< think >x</ think >< answer >4</ answer >"
    assert fmt(spaced) == 0.0
    assert fmt(spaced, mode="lenient") == 1.0


# --- pre-filled <think> (Qwen3, R1-distill chat templates) ----------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_prefilled_think_is_judged_not_zero(mode):
    body_answer = "Let me add: 2+2=4.\n</think>\n<answer>4</answer>"
    body_boxed = "Let me add: 2+2=4.\n</think>\n\n\\boxed{4}"
    for prefilled in ("auto", "yes"):
        assert fmt(body_answer, mode=mode, prefilled=prefilled) == 1.0
        assert fmt(body_boxed, "think_boxed", mode, prefilled) == 1.0
    assert fmt(body_answer, mode=mode, prefilled="no") == 0.0


def test_prefilled_template_with_a_second_think_is_a_repeated_tag():
    again = "<think>2+2</think><answer>4</answer>"
    assert fmt(again, prefilled="yes") == 0.0
    assert fmt(again, prefilled="auto") == 1.0
    assert fmt(again, mode="lenient", prefilled="yes") == 1.0


def test_prefilled_empty_thought_and_answer_inside_thought():
    assert fmt("</think><answer>4</answer>", prefilled="yes") == 0.0        # empty thought
    assert fmt("so <answer>4</answer></think> done", prefilled="yes", mode="lenient") == 0.0


# --- robustness and ranges ---------------------------------------------------------------------

def test_non_text_and_bad_rule():
    assert check_format(None, "think_answer").ok is False
    with pytest.raises(ValueError):
        check_format("x", "think_everything")


TAGS = ["<think>", "</think>", "<answer>", "</answer>", "\\boxed{", "}", " ", "4", "x", "\n", "<|im_end|>"]


@given(st.lists(st.sampled_from(TAGS), max_size=14), st.sampled_from(FORMAT_RULES),
       st.sampled_from(FORMAT_MODES), st.sampled_from(THINK_PREFILLED))
def test_format_is_zero_or_one_and_never_raises(parts, rule, mode, prefilled):
    assert format_score("".join(parts), rule, mode, prefilled) in (0.0, 1.0)


@given(st.text(max_size=200), st.sampled_from(FORMAT_RULES), st.sampled_from(FORMAT_MODES))
def test_format_on_arbitrary_text(text, rule, mode):
    assert format_score(text, rule, mode) in (0.0, 1.0)


@given(st.lists(st.sampled_from(TAGS), max_size=14), st.sampled_from(["think_answer", "think_boxed"]))
def test_strict_never_passes_what_lenient_fails(parts, rule):
    text = "".join(parts)
    for prefilled in THINK_PREFILLED:
        if format_score(text, rule, "strict", prefilled):
            assert format_score(text, rule, "lenient", prefilled)


def test_lenient_answer_blocks_linear_on_repeated_open_tags():
    # A repetition loop of `<answer>` that never closes: the lazy `<answer>(.*?)</answer>` regex
    # retried from every tag to the end (~4 s for 8,000 tags), on the in-process hot path.
    looped = "<think>x</think>" + "<answer>" * 20_000
    out, took = fastest(lambda: fmt(looped, mode="lenient"), under=2.0)
    assert out == 0.0 and took < 2.0
    assert fmt("<think>x</think><answer> </answer> <answer><answer>4</answer>", mode="lenient") == 1.0
    assert fmt("<think>x</think><answer> </answer><answer>", mode="lenient") == 0.0


def test_lenient_spaced_tags_linear_after_a_lone_angle_bracket():
    # `<` then a long whitespace run (degenerate output): `<\s*/?\s*` tried every split of the run.
    looped = "<think>x</think>x <" + " " * 30_000 + "\n<answer>4</answer>"
    out, took = fastest(lambda: fmt(looped, mode="lenient"), under=2.0)
    assert out == 1.0 and took < 2.0
    assert fmt("< think >x</ think >< answer > 4 </answer >", mode="lenient") == 1.0


# --- under think_answer, the tag's content is the answer the scorers read --------------------------

TAGGED_SOURCES = ["lighteval/MATH", "math_dapo", "openai/gsm8k"]


@pytest.mark.parametrize("source", TAGGED_SOURCES)
@pytest.mark.parametrize("content", ["5", "The answer is 5", " $5$. ", "\n5\n", "\\boxed{5}", "The final answer is $5$"])
def test_an_answer_in_the_tags_is_the_answer(source, content):
    """`<answer>5</answer>` was `no_answer` (only a box or `####` inside was read) and `<answer>The
    answer is 5</answer>` read `5</answer>`: the format asks for the tags, so what they hold is read."""
    from rewards import compute_score

    response = f"<think>2 + 3</think><answer>{content}</answer>"
    result = compute_score(source, response, "5", format_rule="think_answer", format_weight=0.1)
    assert (result["verdict"], result["pred"], result["score"]) == ("correct", "5", 1.0)


@pytest.mark.parametrize("source", TAGGED_SOURCES)
@pytest.mark.parametrize("content", ["5 or 6", "$5$ or $6$", "5, 6", "5 thousand", "not 5", "The answer is 5 or 6",
                                     "4, no wait 5", "5 (wrong)", "55", ""])
def test_a_tag_goes_through_the_same_guards(source, content):
    """What the tag holds is read with every guard a boxed or `####` answer gets: a hedge is not paid."""
    from rewards import compute_score

    response = f"<think>2 + 3</think><answer>{content}</answer>"
    assert compute_score(source, response, "5", format_rule="think_answer")["acc"] == 0.0


@pytest.mark.parametrize("source", TAGGED_SOURCES)
def test_the_last_tag_counts_and_only_under_think_answer(source):
    from rewards import compute_score

    for first, last, acc in (("4", "5", 1.0), ("5", "4", 0.0)):
        corrected = f"<think>2 + 3</think><answer>{first}</answer> wait <answer>{last}</answer>"
        assert compute_score(source, corrected, "5", format_rule="think_answer", format_mode="lenient")["acc"] == acc
    bare = "<think>2 + 3</think><answer>5</answer>"  # no rule asks for the tags: not read as an answer
    assert compute_score(source, bare, "5")["verdict"] in ("no_answer", "unparsable_pred")
