"""The long mutation search over the built-in scorers (`make fuzz`, `python -m tests.fuzz.search`).

The golds, mutations and placed answers are the public `rewards.testing` (`golds`, `wrappers`,
`verdicts`); tests/test_mutation_fuzz.py draws them in CI with the suite's fixed seed, and the search
draws fresh ones, the wrappers the built-in scorers do not meet yet included.
"""
