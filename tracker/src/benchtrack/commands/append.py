"""`benchtrack append HISTORY RESULT...`: record one run's result documents in the history."""

from __future__ import annotations

import argparse
import sys

from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK
from benchtrack.history import ALREADY, GitStore, new_entries, open_store
from benchtrack.result import ResultDocument

NAME = "append"
HELP = (
    "Append result documents to a history (directory or git:<url>#<branch>): one entry per "
    "runner size and direction, suites merged; a commit already recorded is kept, not duplicated"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "history", metavar="HISTORY", help="directory, or git:<remote-url>#<branch>"
    )
    parser.add_argument("results", metavar="RESULT", nargs="+", help="result documents (JSON)")
    parser.add_argument(
        "--attempts", type=int, default=10, help="git: pushes to try when rivals win (default 10)"
    )
    parser.add_argument(
        "--backoff",
        type=float,
        default=0.5,
        help="git: first retry delay in seconds, doubled each time, with jitter (default 0.5)",
    )
    flags.add_json(parser, "the outcomes")


def run(args: argparse.Namespace) -> int:
    docs = [(path, ResultDocument.load(path)) for path in args.results]  # all checked first
    store = open_store(args.history)
    if isinstance(store, GitStore):
        store.attempts, store.backoff = max(1, args.attempts), max(0.0, args.backoff)
    outcomes = store.append(new_entries(docs))
    failed = sum(len(doc.errors) for _, doc in docs)
    if args.json:
        rows = [
            {
                "runner": o.runner_key,
                "entry": o.entry_name,
                "commit": o.commit_id,
                "status": o.status,
                "benches": o.benches,
            }
            for o in outcomes
        ]
        flags.print_json(rows)
    else:
        for o in outcomes:
            what = "already recorded, kept as it was" if o.status == ALREADY else "appended"
            print(f"{store.spec}: {o.entry_name}: {o.commit_id[:12]} {what} ({o.benches} benches)")
        if not outcomes:
            print(f"{store.spec}: nothing to append (no benchmark in the documents)")
    if failed:
        print(
            f"benchtrack: warning: {failed} benchmark(s) failed to run and are not in the history "
            "(see the documents' errors)",
            file=sys.stderr,
        )
    return EXIT_OK
