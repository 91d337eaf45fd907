"""`benchtrack validate-history HISTORY`: is every data.js and archive.js sound? (CI runs it
before the action.)"""

from __future__ import annotations

import argparse
import sys

from benchtrack.commands import flags
from benchtrack.errors import EXIT_BAD_INPUT, EXIT_OK
from benchtrack.history import GitStore, open_store

NAME = "validate-history"
HELP = (
    "Check a history (directory or git:<url>#<branch>): every data.js and archive.js parses in "
    "github-action-benchmark's format, entries ordered, no commit twice per entry; exit 2 if not"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "history", metavar="HISTORY", help="directory, or git:<remote-url>#<branch>"
    )
    flags.add_json(parser, "the verdict and every problem")


def run(args: argparse.Namespace) -> int:
    store = open_store(args.history)
    problems = store.validate()
    # A git history whose branch is not there yet is an empty one: valid.
    missing = not problems and isinstance(store, GitStore) and not store.exists()
    if args.json:
        flags.print_json(
            {"history": store.spec, "valid": not problems, "empty": missing, "problems": problems}
        )
    if problems:
        for problem in problems:
            print(f"benchtrack: error: {problem}", file=sys.stderr)
        print(f"{store.spec}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not args.json:
        empty = " (the branch does not exist yet: an empty history)" if missing else ""
        print(f"{store.spec}: ok{empty}")
    return EXIT_OK
