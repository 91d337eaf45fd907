"""`benchtrack prune-history HISTORY`: move old entries from each data.js to its archive.js."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK
from benchtrack.history import open_store
from benchtrack.history.archive import describe, summary
from benchtrack.history.retention import CONFIG_NAME, load

NAME = "prune-history"
HELP = (
    "Move the entries [history.retention] of benchtrack.toml no longer keeps in each data.js to "
    "archive.js beside it (never dropped); nothing is written when nothing is due"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "history", metavar="HISTORY", help="directory, or git:<remote-url>#<branch>"
    )
    parser.add_argument(
        "--config",
        type=Path,
        help=f"the file with [history.retention] (default: ./{CONFIG_NAME}; none: keep all)",
    )
    parser.add_argument("--dry-run", action="store_true", help="say what would move, write nothing")
    flags.add_json(parser, "what moved (or would move)")


def run(args: argparse.Namespace) -> int:
    config = args.config or Path(CONFIG_NAME)
    retention = load(config, required=args.config is not None)  # checked before any work
    store = open_store(args.history)
    moves = store.prune(retention, dry_run=args.dry_run) if retention else []
    if args.json:
        flags.print_json(summary(store.spec, retention, moves, dry_run=args.dry_run))
        return EXIT_OK
    for line in describe(store.spec, config, retention, moves, dry_run=args.dry_run):
        print(line)
    return EXIT_OK
