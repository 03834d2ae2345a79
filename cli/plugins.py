"""`--import MODULE`: a team's own scorers, registered by importing the module that defines them.

The flag is the same on every command that scores or names scorers (`score`, `validate`, `report`,
`probe`, `list`, `prepare`); `cli/main.py` imports the modules before the command runs. A module in
the current folder is found as `python -m` finds it: the `rewards` console script does not put that
folder on `sys.path`, so it is added, last, so that an installed package of the same name wins.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

from .errors import CommandError


def add_import_flag(parser) -> None:
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import a module that registers scorers first, e.g. your team's package "
                             "or a module in the current folder (repeatable)")


def import_plugins(modules: list[str]) -> None:
    """Import modules that register scorers, with a one-line error when one fails."""
    here = os.getcwd()
    if modules and here not in sys.path and "" not in sys.path:
        sys.path.append(here)
    for name in modules:
        try:
            import_module(name)
        except Exception as exc:
            hint = (" (give the module's name, not its file: --import team_rewards)"
                    if name.endswith(".py") or os.sep in name else "")
            raise CommandError(f"--import {name}: {type(exc).__name__}: {exc}{hint}") from None
