"""Answer structure and comparison under attack: names, labels, relations, shapes and words are part of
the answer. Each case was (or is a variation of) a wrong answer once paid reward 1; the meaning-preserving
respellings beside them must stay paid."""

import pytest

from rewards import compute_score


def paid(pred: str, gold: str) -> bool:
    return compute_score("lighteval/MATH", "The answer is $\\boxed{%s}$." % pred, gold)["acc"] == 1.0


def case_ids(cases):
    return [f"{pred} | {gold}" for pred, gold in cases]


# A text comparison folds whitespace and case, nothing else: a minus sign is part of the answer.
TEXT_WRONG = [
    (r"x < 2 \text{ or } x > 5", r"x < -2 \text{ or } x > 5"),
    (r"x<2 \text{ or } x>-5", r"x<2 \text{ or } x>5"),
    (r"x \leq 1 \text{ or } x \geq 3", r"x \leq -1 \text{ or } x \geq 3"),
    (r"-3 \text{ thousand}", r"3 \text{ thousand}"),
    (r"\text{from } 2 \text{ to } 5", r"\text{from } -2 \text{ to } 5"),
    (r"x \text{ is not } 3", r"x \text{ is not } -3"),
    (r"a-b", r"ab"),
    (r"ab", r"a-b"),
    (r"\text{one-half}", r"\text{one half}"),
    (r"x=2 \text{ or } x=3", r"x=23 \text{ or } x=4"),
    (r"x \lt 2\ \text{or}\ x \gt 5", r"x < -2 \text{ or } x > 5"),
]
TEXT_RIGHT = [
    (r"x < -2 \text{ or } x > 5", r"x<-2 \text{ or } x>5"),
    (r"x<-2\text{ OR }x>5", r"x < -2 \text{ or } x > 5"),
    (r"\text{ One }", r"\text{one}"),
    (r"\text{Odd}", r"\text{odd}"),
    (r"\text{Evelyn}", r"\text{Evelyn}"),
]

# Words are never algebra: letters are not multiplied as variables (which would commute).
WORDS_WRONG = [
    (r"\text{eon}", r"\text{one}"),
    (r"\text{neo}", r"\text{one}"),
    (r"\text{tow}", r"\text{two}"),
    (r"\text{sey}", r"\text{yes}"),
    (r"\textbf{ddo}", r"\text{odd}"),
    (r"\mathrm{owt}", r"\text{two}"),
    (r"\text{BAC}", r"\text{ABC}"),
]
WORDS_RIGHT = [(r"\text{YES}", r"\text{yes}"), (r"\text{two}", r"two")]

# The variable of an inequality or a membership is part of the answer when both sides name one.
VARIABLE_WRONG = [
    (r"t>4", r"x>4"),
    (r"4<t", r"x>4"),
    (r"y \geq 4", r"x \ge 4"),
    (r"y \in (1,2)", r"x \in (1,2)"),
    (r"y ∈ (1,2)", r"x \in (1,2)"),
    (r"0<f(x)<1", r"0<x<1"),
    (r"0 < y < 1", r"0<x<1"),
    (r"a \in [0, 1]", r"0 \leq x \leq 1"),
    (r"t \in (-\infty, 1) \cup (2, \infty)", r"x \in (-\infty, 1) \cup (2, \infty)"),
    (r"y \in \mathbb{R}", r"x \in \mathbb{R}"),
    (r"x_{2} \le 3", r"x_{1} \le 3"),
    (r"\theta > 0", r"\alpha > 0"),
    (r"-y < -4", r"x > 4"),
    (r"|y| < 2", r"|x| < 2"),
    (r"y \in \left( 1, 2 \right)", r"1 < x < 2"),
    (r"n \in \{1, 2\}", r"m \in \{1, 2\}"),
]
VARIABLE_RIGHT = [
    (r"x \in (1,2)", r"1<x<2"),
    (r"1 < x < 2", r"x \in \left(1,2\right)"),
    (r"(1,2)", r"x \in (1,2)"),
    (r"4 < x", r"x > 4"),
    (r"x \geq 4", r"x \in [4, \infty)"),
    (r"t>4", r"(4,\infty)"),
    (r"(0,1)", r"0<f(x)<1"),
    (r"x \in (-\infty, 1) \cup (2, \infty)", r"(-\infty,1)\cup(2,\infty)"),
]

# of it that is no label must hold the value too; a relation that denies an equation is never one.
LEFT_SIDE_WRONG = [
    (r"4=3", r"3"),
    (r"11 = 7", r"7"),
    (r"\sqrt{x} = 4", r"4"),
    (r"\sqrt{9} = 4", r"4"),
    (r"x =/= 3", r"3"),
    (r"x =! 3", r"3"),
    (r"x <> 3", r"3"),
    (r"x != 3", r"3"),
    (r"x \ne 3", r"3"),
    (r"x \neq 3", r"3"),
    (r"x \not= 3", r"3"),
    (r"x ≠ 3", r"3"),
    (r"x \ne 3", r"x=3"),
    (r"x != 3", r"x = 3"),
    (r"x =/= 3", r"x=3"),
    (r"y \neq 3, y = 4", r"3, 4"),
    (r"2+2=5", r"5"),
    (r"1 = 2 = 3", r"3"),
    (r"x^2 = 9", r"9"),
    (r"x^{2}=4", r"4"),
    (r"2x = 6", r"6"),
    (r"\pi = 3", r"3"),
    (r"10 = 5", r"x=5"),
]
LEFT_SIDE_RIGHT = [
    (r"x=3", r"3"),
    (r"2 = x", r"2"),
    (r"x = 2+1 = 3", r"3"),
    (r"f(x) = 4", r"4"),
    (r"f(2) = 7", r"7"),
    (r"|AB| = 5", r"5"),
    (r"\text{Answer} = 12", r"12"),
    (r"a_{1}=5", r"5"),
    (r"2+3=5", r"5"),
    (r"\frac{1}{2}=0.5", r"0.5"),
    (r"x = 2+3 = 5", r"x=5"),
    (r"5 = n", r"n = 5"),
    (r"x \ne 3", r"x \neq 3"),
    (r"2x = 6", r"x = 3"),
    (r"3!", r"6"),
]

# Shapes: a determinant is a number, not its matrix; a set is not an ordered vector or tuple.
SHAPE_WRONG = [
    (r"\begin{vmatrix}1&2\\3&4\end{vmatrix}", r"\begin{pmatrix}1&2\\3&4\end{pmatrix}"),
    (r"\begin{vmatrix}1&2\\3&4\end{vmatrix}", r"\begin{bmatrix}1&2\\3&4\end{bmatrix}"),
    (r"\begin{Vmatrix}1\\2\end{Vmatrix}", r"\begin{pmatrix}1\\2\end{pmatrix}"),
    (r"\begin{vmatrix}1&2\end{vmatrix}", r"(1,2)"),
    (r"\{1,2\}", r"(1,2)"),
    (r"\{1,2\}", r"\begin{pmatrix}1\\2\end{pmatrix}"),
    (r"\{1,2\}", r"\begin{pmatrix}1&2\end{pmatrix}"),
    (r"\left\{1, 2\right\}", r"\begin{bmatrix}1\\2\end{bmatrix}"),
    (r"\lbrace 2,1 \rbrace", r"\begin{pmatrix}1\\2\end{pmatrix}"),
    (r"\{2,1\}", r"(1,2)^T"),
    (r"\{1,2\}", r"[1,2]"),
]
SHAPE_RIGHT = [
    (r"1, 2", r"\begin{pmatrix}1\\2\end{pmatrix}"),
    (r"\{1,2\}", r"1,2"),
    (r"2, 1", r"\{1,2\}"),
    (r"\begin{vmatrix}1&2\\3&4\end{vmatrix}", r"\begin{vmatrix}1&2\\3&4\end{vmatrix}"),
    (r"\begin{bmatrix}1&2\\3&4\end{bmatrix}", r"\begin{pmatrix}1&2\\3&4\end{pmatrix}"),
]

WRONG = TEXT_WRONG + WORDS_WRONG + LEFT_SIDE_WRONG + VARIABLE_WRONG + SHAPE_WRONG
RIGHT = TEXT_RIGHT + WORDS_RIGHT + LEFT_SIDE_RIGHT + VARIABLE_RIGHT + SHAPE_RIGHT


@pytest.mark.parametrize("pred, gold", WRONG, ids=case_ids(WRONG))
def test_wrong_answer_is_not_paid(pred, gold):
    assert not paid(pred, gold)


@pytest.mark.parametrize("pred, gold", RIGHT, ids=case_ids(RIGHT))
def test_respelling_stays_paid(pred, gold):
    assert paid(pred, gold)
