"""(family, mutation) pairs the scorers still get wrong, each from a known cause whose fix is under
way (listed with an example in the fuzzer's findings). CI leaves them out; `make fuzz` still runs
them and marks them known. A pair leaves this list when its fix lands: the list ends empty."""

PENDING = frozenset({
    ("gsm8k", "retraction after the answer"),  # `#### 93. No wait, it is 532`
    ("trig", "factor outside the function"),   # `\sin x \cdot 9` vs `\sin(9x)`
})
