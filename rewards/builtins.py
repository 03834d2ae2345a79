"""The built-in scorers, by module name.

Each module registers its scorers when it is imported. The registry imports them by name on its
first lookup (not at package import: the MATH scorer pulls in the equivalence code), so no import
points from the registry back to the scorers that import it. A new built-in scorer is one more
line here.
"""

MODULES = (
    "rewards.scorers.gsm8k",
    "rewards.scorers.boxed",
)
