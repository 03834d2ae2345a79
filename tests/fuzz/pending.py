"""(family, mutation) pairs the scorers still get wrong, each from a known cause whose fix is under
way (listed with an example in the fuzzer's findings). CI leaves them out; `make fuzz` still runs
them and marks them known. A pair leaves this list when its fix lands: the list ends empty."""

PENDING = frozenset({
    ("gsm8k", "retraction after the answer"),            # `#### 93. No wait, it is 532`
    ("integer", "inner box"),                            # `\boxed{2\boxed{1}}` vs 21
    ("integer", "numbers joined by spacing"),            # `\boxed{3 \qquad 7}` vs 21
    ("interval", "inequality in another variable"),      # `0 < t < 1` vs `(0,1)`
    ("labelled system", "labels reordered in a tuple"),  # `(y,x)=(10,0)` vs `x=10, y=0`
    ("labelled system", "swap the values"),              # `b_1=-19, b_2=7` vs `b_1=7, b_2=-19`
    ("labelled system", "values in the other order"),    # `-19, 7` vs `b_1=7, b_2=-19`
    ("line", "function of the variable for the variable"),  # `g(y) = 18` vs `y = 18`
    ("trig", "factor outside the function"),             # `\sin x \cdot 9` vs `\sin(9x)`
})
