"""MATH answers: extraction (`extract`), normalisation (`normalize`), answer structure
(`structure`), the sympy-free fast comparison (`equivalence`) and the sympy check (`symbolic`).

Only `symbolic` imports sympy, and only inside the worker process that the scorer calls it in.
"""
