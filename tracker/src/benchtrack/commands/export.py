"""`benchtrack export RESULT...`: github-action-benchmark custom-tool input on stdout.

The workflow feeds it to the action as `tool: customBiggerIsBetter` (default) and, with
`--direction smaller`, as `tool: customSmallerIsBetter` under the entry name
`<runner-key> (smaller is better)`. An empty list `[]` means "nothing of that direction": the
workflow skips the action then (the action refuses an empty list).

`--format bmf` prints Bencher Metric Format instead: every benchmark of both directions in one
object (benchtrack.ingest.bmf, which also reads it back).
"""

from __future__ import annotations

import argparse
import sys

import orjson

from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.history.export import DIRECTIONS, check_one_run, merged_benchmarks
from benchtrack.ingest.bmf import to_bmf
from benchtrack.result import ResultDocument

NAME = "export"
FORMATS = ("github-action-benchmark", "bmf")
HELP = (
    "Print github-action-benchmark customBiggerIsBetter JSON for result documents of one run "
    "(--direction smaller: the customSmallerIsBetter list; --format bmf: Bencher Metric Format)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="RESULT", nargs="+", help="result documents of one run")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="github-action-benchmark",
        help="github-action-benchmark's custom-tool list (default), or bmf: Bencher Metric "
        "Format, both directions in one object",
    )
    parser.add_argument(
        "--direction",
        choices=DIRECTIONS,
        help="bigger: throughputs (customBiggerIsBetter, default); smaller: e.g. peak memory "
        "(customSmallerIsBetter)",
    )
    parser.add_argument(
        "--entry-name",
        action="store_true",
        help="print the action's entry name for these documents and direction instead",
    )


def run(args: argparse.Namespace) -> int:
    if args.format == "bmf" and (args.direction or args.entry_name):
        flag = "--direction" if args.direction else "--entry-name"
        raise BadInput(flag, None, "no --direction or --entry-name with --format bmf")
    direction = args.direction or "bigger"
    docs = [(path, ResultDocument.load(path)) for path in args.results]
    check_one_run(docs)
    if args.format == "bmf":
        out = to_bmf(docs)
        sys.stdout.buffer.write(orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n")
        return EXIT_OK
    if args.entry_name:
        from benchtrack.history.append import entry_name

        print(entry_name(docs[0][1].runner.key, direction))
        return EXIT_OK
    records = merged_benchmarks(docs, direction)
    sys.stdout.buffer.write(orjson.dumps(records, option=orjson.OPT_INDENT_2) + b"\n")
    return EXIT_OK
