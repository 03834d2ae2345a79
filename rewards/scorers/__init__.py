"""Built-in scorers; importing this package registers them (the registry does it on first lookup)."""

from . import gsm8k  # noqa: F401
from . import math  # noqa: F401
