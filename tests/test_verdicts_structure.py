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
    (r"\text{eon } 3", r"\text{one } 3"),
    (r"\text{odd}+1", r"\text{dod}+1"),
    (r"\frac{eon}{one}", r"1"),
    (r"\frac{\text{tow}}{\text{two}}", r"1"),
]
WORDS_RIGHT = [(r"\text{YES}", r"\text{yes}"), (r"\text{two}", r"two"), (r"3abc", r"3abc"), (r"abc+1", r"1+abc")]

# Only the roots of one unknown (`x=1, x=2`) are unordered; labelled terms keep their labels.
LABELS_WRONG = [
    (r"b_1=7, b_2=4", r"b_1=4, b_2=7"),
    (r"a_{1}=2, a_{2}=5", r"a_1=5, a_2=2"),
    (r"x_1=3, x_2=2", r"x_{1}=2, x_{2}=3"),
    (r"a_1 = 3;\ a_2 = 1", r"a_1=1, a_2=3"),
    (r"b_{2}=4, b_{1}=7", r"b_1=4, b_2=7"),
    (r"7, 4", r"b_1=4, b_2=7"),
    (r"b_1=7, b_2=4, b_3=1", r"b_1=4, b_2=7, b_3=1"),
    (r"t_1 = -1, t_2 = 1", r"t_1=1, t_2=-1"),
    (r"a_{n}=3, a_{m}=2", r"a_{n}=2, a_{m}=3"),
]
LABELS_RIGHT = [
    (r"x=1, x=2", r"x=2, x=1"),
    (r"x=2, x=1", r"x=1 \text{ or } x=2"),
    (r"b_{2}=7, b_{1}=4", r"b_1=4, b_2=7"),
    (r"b_1 = 4,\ b_2 = 7", r"b_{1}=4, b_{2}=7"),
    (r"4, 7", r"b_1=4, b_2=7"),
    (r"x=2, x=3", r"x_{1}=2, x_{2}=3"),
    (r"x_1 = 2, x_2 = 3", r"x_{1}=2, x_{2}=3"),
]

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

# Names bound to a tuple are matched with the gold's names; names on one side only are a label.
TUPLE_NAMES_WRONG = [
    (r"(b, a) = (3, 4)", r"(a, b) = (3, 4)"),
    (r"(y,x)=(1,2)", r"(x,y)=(1,2)"),
    (r"\left(b, a\right) = \left(3, 4\right)", r"(a, b) = (3, 4)"),
    (r"(b, a) = (3, 4)", r"a=3, b=4"),
    (r"(a, c) = (3, 4)", r"(a, b) = (3, 4)"),
    (r"(x, y, z) = (1, 2, 3)", r"(x, z, y) = (1, 2, 3)"),
    (r"(p,q) = (2,5)", r"(q,p)=(2,5)"),
]
TUPLE_NAMES_RIGHT = [
    (r"(a,b)=(3,4)", r"a=3, b=4"),
    (r"(a, b) = (3, 4)", r"(a,b)=(3,4)"),
    (r"(b, a) = (4, 3)", r"(a, b) = (3, 4)"),
    (r"(3, 4)", r"(a, b) = (3, 4)"),
    (r"(a, b) = (3, 4)", r"(3,4)"),
    (r"a=3, b=4", r"(a, b) = (3, 4)"),
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

# A function label names `y` only as a function of another variable.
FUNCTION_WRONG = [
    (r"g(y)=5", r"y=5"),
    (r"f(y) = 2y+1", r"y=2y+1"),
    (r"x(t) = 3t-1", r"y=3t-1"),
    (r"y=5", r"h(y)=5"),
]
FUNCTION_RIGHT = [(r"g(t) = 3t-1", r"y = 3t-1"), (r"f(x)=2x+1", r"y=2x+1")]

WRONG = TEXT_WRONG + WORDS_WRONG + LEFT_SIDE_WRONG + VARIABLE_WRONG + TUPLE_NAMES_WRONG + SHAPE_WRONG + LABELS_WRONG + FUNCTION_WRONG
RIGHT = TEXT_RIGHT + WORDS_RIGHT + LEFT_SIDE_RIGHT + VARIABLE_RIGHT + TUPLE_NAMES_RIGHT + SHAPE_RIGHT + LABELS_RIGHT + FUNCTION_RIGHT


@pytest.mark.parametrize("pred, gold", WRONG, ids=case_ids(WRONG))
def test_wrong_answer_is_not_paid(pred, gold):
    assert not paid(pred, gold)


@pytest.mark.parametrize("pred, gold", RIGHT, ids=case_ids(RIGHT))
def test_respelling_stays_paid(pred, gold):
    assert paid(pred, gold)
