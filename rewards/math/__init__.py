"""MATH answers: extraction (`extract`), normalisation (`normalize`), answer structure
(`structure`), the sympy-free fast comparison (`equivalence`, with the expression tree and float
disproof of `numeric`, the exact canonical form of `canonical` and the high-precision identity test
of `identity`) and the sympy check (`symbolic`).

Only `symbolic` imports sympy, and only inside the worker process that the scorer calls it in.
"""
