"""`benchtrack gate-comment`: the sticky PR comment from the gate runs' artifacts (untrusted)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import orjson

from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.fsutil import atomic_write, output_file
from benchtrack.gate import comment

NAME = "gate-comment"
HELP = "Render the PR comment from gate artifacts (gate-<size>/gate.json), validating them as data"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--artifacts", type=Path, default=Path("target/gate/artifacts"))
    parser.add_argument("--out", type=Path, default=Path("target/gate/comment.md"))
    parser.add_argument("--run-url", default=os.environ.get("RUN_URL", ""))
    parser.add_argument(
        "--jobs",
        type=Path,
        default=Path("target/gate/jobs.json"),
        help="the gate run's jobs as GitHub lists them, [{name, conclusion}]: the check's mark",
    )
    parser.add_argument(
        "--conclusion",
        default=os.environ.get("RUN_CONCLUSION", ""),
        help="the gate run's conclusion, when the jobs are not known (default: $RUN_CONCLUSION)",
    )
    flags.add_json(parser, "what was written")


def run(args: argparse.Namespace) -> int:
    output_file("--out", args.out)
    jobs = None
    if args.jobs.is_file():
        try:
            jobs = orjson.loads(args.jobs.read_bytes())
        except orjson.JSONDecodeError as error:
            raise BadInput(args.jobs, None, "JSON, the gate run's job list", str(error)) from None
    conclusion = args.conclusion or None
    body, sizes = comment.comment(args.artifacts, args.run_url, jobs, conclusion)
    atomic_write(args.out, body)
    if args.json:
        flags.print_json({"out": str(args.out), "sizes": sizes})
    else:
        print(f"gate-comment: {sizes} runner size(s) -> {args.out}")
    return EXIT_OK
