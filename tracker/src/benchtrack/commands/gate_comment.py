"""`benchtrack gate-comment`: the sticky PR comment from the gate runs' artifacts (untrusted)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchtrack import gate_comment
from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK
from benchtrack.fsutil import atomic_write, output_file

NAME = "gate-comment"
HELP = "Render the PR comment from gate artifacts (gate-<size>/gate.json), validating them as data"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--artifacts", type=Path, default=Path("target/gate/artifacts"))
    parser.add_argument("--out", type=Path, default=Path("target/gate/comment.md"))
    parser.add_argument("--run-url", default=os.environ.get("RUN_URL", ""))
    flags.add_json(parser, "what was written")


def run(args: argparse.Namespace) -> int:
    output_file("--out", args.out)
    body, sizes = gate_comment.comment(args.artifacts, args.run_url)
    atomic_write(args.out, body)
    if args.json:
        flags.print_json({"out": str(args.out), "sizes": sizes})
    else:
        print(f"gate-comment: {sizes} runner size(s) -> {args.out}")
    return EXIT_OK
