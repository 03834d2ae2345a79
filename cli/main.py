"""`rewards`: entry point. Each subcommand lives in its own module with `register(subparsers)`."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from importlib import import_module

from .errors import CommandError
from .plugins import import_plugins

# Module names under cli/, in the order `rewards --help` lists them.
COMMANDS = ["score", "listing", "prepare", "validate", "probe", "report", "train", "merge", "tiny_model",
            "tiny_data"]


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
        return 141
    except KeyboardInterrupt:
        return 130
    except CommandError as exc:
        print(f"rewards {args.command}: {exc}", file=sys.stderr)
        return 2


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse, reporting an unknown flag with the usage of the subcommand it was given to (argparse
    alone answers with the top-level usage, which lists no flag at all)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        subparsers.choices[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _version() -> str:
    from rewards import __version__
    return __version__


if __name__ == "__main__":
    sys.exit(main())
