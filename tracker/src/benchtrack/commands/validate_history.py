"""`benchtrack validate-history HISTORY`: is every data.js sound? (CI runs it before the action.)"""

from __future__ import annotations

import argparse
import sys

from benchtrack.errors import EXIT_BAD_INPUT, EXIT_OK
from benchtrack.history import GitStore, open_store

NAME = "validate-history"
HELP = (
    "Check a history (directory or git:<url>#<branch>): every data.js parses in "
    "github-action-benchmark's format, entries ordered, no commit twice per entry; exit 2 if not"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "history", metavar="HISTORY", help="directory, or git:<remote-url>#<branch>"
    )


def run(args: argparse.Namespace) -> int:
    store = open_store(args.history)
    problems = store.validate()
    if problems:
        for problem in problems:
            print(f"benchtrack: error: {problem}", file=sys.stderr)
        print(f"{store.spec}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(store, GitStore) and not store.exists():
        print(f"{store.spec}: ok (the branch does not exist yet: an empty history)")
    else:
        print(f"{store.spec}: ok")
    return EXIT_OK
