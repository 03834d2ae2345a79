"""A function named by its module and name, for work whose module only workers should import.

The caller's process never imports the module (sympy takes seconds and hundreds of megabytes): the
reference pickles as its two names, and the pool preloads `__module__` in each worker before the
first call, so the import never counts against a deadline.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any


class WorkerFunction:
    """A picklable reference, by name, to a function in a heavy module that only workers import."""

    def __init__(self, module: str, name: str):
        self.__module__ = module
        self.__qualname__ = self.__name__ = name

    def __reduce__(self) -> tuple:
        return load_function, (self.__module__, self.__qualname__)

    def __call__(self, *args: Any) -> Any:  # the engine's inline (debug) mode calls it here
        return load_function(self.__module__, self.__qualname__)(*args)

    def __repr__(self) -> str:
        return f"WorkerFunction({self.__module__!r}, {self.__qualname__!r})"


def load_function(module: str, name: str) -> Any:
    return getattr(import_module(module), name)
