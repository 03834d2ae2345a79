"""`CommandError` and the exit statuses: their own module so that every command can import them while
`cli/main.py` loads the commands by name (an import from `main` would point back at the module that
loads them). docs/cli.md's exit-status table is checked against `EXIT_STATUSES` by a test."""

EXIT_OK = 0
EXIT_FAILED = 1        # the command ran and its answer is "no": no row scored, a file with errors, an attack paid
EXIT_USAGE = 2         # a usage error, an input that cannot be read, an output that cannot be written
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_PIPE = 141        # the reader of stdout left (128 + SIGPIPE), as a shell tool stops
EXIT_TERMINATED = 143  # SIGTERM (128 + SIGTERM); no partial output or temporary file is left

EXIT_STATUSES = (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED)


class CommandError(Exception):
    """A user mistake a subcommand reports in one sentence (exit status 2, no traceback)."""

    status = EXIT_USAGE


class NoRows(CommandError):
    """The input holds no row to work on (an empty file): every command says so in one sentence and
    exits 1, as `score` does when no row could be scored."""

    status = EXIT_FAILED


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that outputs are discarded as on Ctrl-C (not an
    Exception: no `except Exception` on the way may swallow it)."""
