"""`benchtrack callgrind --out FILE [--iters K] -- COMMAND...`: instruction counts of a harness
run in count mode (BENCH_COUNT) under valgrind's callgrind; see benchtrack.gate.callgrind.

Exit 0 when written; 3 when the harness failed under callgrind (nothing written); 2 on bad input
(an --out that is a directory, no command), checked before anything runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, BadInput
from benchtrack.fsutil import output_file
from benchtrack.gate import callgrind

NAME = "callgrind"
HELP = "Count the instructions of each benchmark: a harness in count mode under callgrind"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="raw JSON to write")
    parser.add_argument(
        "--iters", type=int, default=3, help="counted runs per benchmark, one sample each (3)"
    )
    parser.add_argument(
        "--lazy",
        action="store_true",
        help="instrumentation off until the harness starts it (a costly start-up, e.g. pytest)",
    )
    flags.add_json(parser, "what was counted")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the harness command")


def run(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise BadInput("command", None, "a harness command after --", "nothing")
    output_file("--out", args.out)
    if args.iters < 1:
        raise BadInput("--iters", None, "a positive whole number", args.iters)
    try:
        counted, _ = callgrind.count(command, iters=args.iters, lazy=args.lazy)
    except callgrind.CountFailed as e:
        print(f"benchtrack callgrind: {' '.join(command)}: {e}", file=sys.stderr)
        return EXIT_BENCHMARK_FAILED
    doc = callgrind.raw_document(counted, command, callgrind.valgrind_version())
    callgrind.write_raw(args.out, doc)
    print(f"{args.out}: {len(counted)} benchmarks counted", file=sys.stderr)
    if args.json:
        names = [c.name for c in counted]
        flags.print_json({"out": str(args.out), "command": command, "benchmarks": names})
    return EXIT_OK
