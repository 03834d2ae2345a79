"""`rewards list`: every registered data_source, its aliases and default settings."""

from __future__ import annotations

import json

from .plugins import add_import_flag


def register(sub) -> None:
    p = sub.add_parser("list", help="list the registered scorers and their aliases",
                       description="List every data_source name a scorer is registered for.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_import_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from rewards.registry import list_scorers

    entries = list_scorers()
    if args.json:
        print(json.dumps([{"name": e.name, "aliases": list(e.aliases), "defaults": dict(e.defaults),
                           "description": e.description} for e in entries], indent=2))
        return 0
    width = max(len(e.name) for e in entries)
    for e in entries:
        extra = f"  aliases: {', '.join(e.aliases)}" if e.aliases else ""
        defaults = f"  defaults: {dict(e.defaults)}" if e.defaults else ""
        print(f"{e.name:<{width}}  {e.description}{extra}{defaults}")
    return 0
