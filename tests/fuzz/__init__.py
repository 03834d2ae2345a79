"""A mutation fuzzer for the scorers: golds of every shape, each put through mutations that change
its meaning (never paid) and respellings that keep it (paid where docs/scoring-policy.md says so).

`strategies` draws the golds with their mutations, `verdicts` judges them through the public API;
tests/test_mutation_fuzz.py runs them in CI (the `ci` profile: fixed seed, no database) and
`make fuzz` (`python -m tests.fuzz.search`) runs a long random search that prints its figures.
"""
