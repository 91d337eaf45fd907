"""`benchtrack export RESULT...`: github-action-benchmark custom-tool input on stdout.

The workflow feeds it to the action as `tool: customBiggerIsBetter` (default) and, with
`--direction smaller`, as `tool: customSmallerIsBetter` under the entry name
`<runner-key> (smaller is better)`. An empty list `[]` means "nothing of that direction": the
workflow skips the action then (the action refuses an empty list).
"""

from __future__ import annotations

import argparse
import sys

import orjson

from benchtrack.errors import EXIT_OK
from benchtrack.export import DIRECTIONS, check_one_run, merged_benchmarks
from benchtrack.result import ResultDocument

NAME = "export"
HELP = (
    "Print github-action-benchmark customBiggerIsBetter JSON for result documents of one run "
    "(--direction smaller: the customSmallerIsBetter list)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="RESULT", nargs="+", help="result documents of one run")
    parser.add_argument(
        "--direction",
        choices=DIRECTIONS,
        default="bigger",
        help="bigger: throughputs (customBiggerIsBetter, default); smaller: e.g. peak memory "
        "(customSmallerIsBetter)",
    )
    parser.add_argument(
        "--entry-name",
        action="store_true",
        help="print the action's entry name for these documents and direction instead",
    )


def run(args: argparse.Namespace) -> int:
    docs = [(path, ResultDocument.load(path)) for path in args.results]
    check_one_run(docs)
    if args.entry_name:
        from benchtrack.history.append import entry_name

        print(entry_name(docs[0][1].runner.key, args.direction))
        return EXIT_OK
    records = merged_benchmarks(docs, args.direction)
    sys.stdout.buffer.write(orjson.dumps(records, option=orjson.OPT_INDENT_2) + b"\n")
    return EXIT_OK
