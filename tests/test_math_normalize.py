"""Normalisation removes presentation only: equal answers become equal strings, values never change."""

import pytest

from rewards.math.normalize import normalize


@pytest.mark.parametrize("raw, expected", [
    (r"\dfrac{1}{2}", r"\frac{1}{2}"),
    (r"\tfrac12", r"\frac{1}{2}"),
    (r"\frac 1 2", r"\frac{1}{2}"),
    (r"\frac{\sqrt{3}}2", r"\frac{\sqrt{3}}{2}"),
    (r"\sqrt3", r"\sqrt{3}"),
    (r"\left( 1, 2 \right)", "(1,2)"),
    (r"\left\{1,2\right\}", r"\{1,2\}"),
    (r"10{,}000", "10000"),
    (r"10\,000", "10000"),
    ("1,000,000", "1000000"),
    ("3, 5", "3,5"),                       # a list, not a thousands separator
    (r"30^\circ", "30"),
    (r"30^{\circ}", "30"),
    (r"50\%", "50"),                        # no x100 guessing
    (r"\$5.00", "5.00"),
    (r"5\text{ cm}^2", "5"),
    ("5 square units", "5"),
    ("12 inches", "12"),
    (r"\text{Monday}", "Monday"),
    (r"\textbf{(B)}", "(B)"),
    (r"3 \text{ and } 5", "3,5"),
    (r"\frac{1}{2}.", r"\frac{1}{2}"),
    (r"$x = 3$", "x=3"),
    (r"\boxed{\boxed{4}}", "4"),
    (r"\log_2 8", r"\log_{2}(8)"),         # one subscript spelling; the argument bracketed
    (r"\pi r^2", r"\pi r^2"),
    (r"\displaystyle \frac{1}{2}", r"\frac{1}{2}"),
    (r"x \le 3", r"x\leq3"),
    (r"\langle 1, 2 \rangle", "(1,2)"),
    (r"\mathbb{R}", r"(-\infty,\infty)"),
    ("−3", "-3"),
    (r"+\infty", r"\infty"),
    (r"\frac{1}{2} \approx 0.5", r"\frac{1}{2}"),
    ("3!", "3!"),                            # a factorial, not an exclamation
])
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_whole_text_answer_is_kept():
    assert normalize(r"\text{ cm}") == r"\text{cm}"  # two letters of text: kept as text, never algebra
