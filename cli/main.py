"""`rewards`: entry point. Each subcommand lives in its own module with `register(subparsers)`."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from contextlib import contextmanager
from importlib import import_module
from typing import Iterator

from .errors import EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED, CommandError, Terminated
from .plugins import import_plugins
from .terminal import Printable

# Module names under cli/, in the order `rewards --help` lists them.
COMMANDS = ["score", "listing", "prepare", "validate", "probe", "check", "report", "train", "merge", "untie", "tiny_model",
            "tiny_data", "warm_start"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewards",
        description="Rule rewards and data preparation for verl math training.")
    parser.add_argument("--version", action="version", version=f"verl-rewards {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        import_module(f"cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    with _printable_streams(), _sigterm_raises():
        args = parse(build_parser(), argv)
        try:
            import_plugins(getattr(args, "imports", []))  # `--import MODULE`: scorers registered first
            status = int(args.func(args) or 0)
            sys.stdout.flush()  # inside the try: a reader that left (`| head`) surfaces here, not at exit
            return status
        except BrokenPipeError:
            # The reader closed the pipe: stop quietly, as a shell tool does (128 + SIGPIPE). Python
            # flushes stdout again at exit, so point it at devnull first, or that flush raises too.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_PIPE
        except KeyboardInterrupt:
            print(f"\nrewards {args.command}: interrupted (Ctrl-C); an output file it was writing was left as it "
                  f"was (a half-written one is removed)", file=sys.stderr)
            return EXIT_INTERRUPTED
        except Terminated:
            print(f"rewards {args.command}: terminated (SIGTERM); no output was left half-written", file=sys.stderr)
            return EXIT_TERMINATED
        except CommandError as exc:
            print(f"rewards {args.command}: {exc}", file=sys.stderr)
            return exc.status


@contextmanager
def _printable_streams() -> Iterator[None]:
    """Messages and summaries without the data's control characters (cli/terminal.py)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Printable(sys.stdout), Printable(sys.stderr, keep_cr=True)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C, so that open outputs remove their temporary files."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse, reporting an unknown flag with the usage of the subcommand it was given to (argparse
    alone answers with the top-level usage, which lists no flag at all)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command = subparsers.choices[args.command]
        command.error(f"unrecognized arguments: {' '.join(extra)}{_did_you_mean(command, extra)}")
    return args


def _did_you_mean(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """` (did you mean --timeout?)` for the first misspelt flag, from the subcommand's own flags."""
    import difflib

    flags = [flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")]
    for arg in extra:
        if arg.startswith("--"):
            close = difflib.get_close_matches(arg.split("=", 1)[0], flags, n=1, cutoff=0.75)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


def _version() -> str:
    from rewards import __version__
    return __version__


if __name__ == "__main__":
    sys.exit(main())
