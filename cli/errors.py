"""`CommandError`: its own module so that every command can import it while `cli/main.py` loads
the commands by name (an import from `main` would point back at the module that loads them)."""


class CommandError(Exception):
    """A user mistake a subcommand reports in one sentence (exit status 2, no traceback)."""
