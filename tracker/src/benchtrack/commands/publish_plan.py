"""`benchtrack publish-plan`: the publish job's first step (see benchtrack.history.publish)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.fsutil import append_line
from benchtrack.history import publish

NAME = "publish-plan"
HELP = (
    "CI publish: fetch and validate gh-pages, export each runner size's results for "
    "github-action-benchmark, write the sizes to store as a JSON list"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--artifacts", type=Path, default=Path("target/bench/artifacts"))
    parser.add_argument("--export-dir", type=Path, default=Path("target/bench/export"))
    parser.add_argument(
        "--expected-keys",
        default=os.environ.get("EXPECTED_KEYS", ""),
        help="JSON list of the matrix's runner keys (default: $EXPECTED_KEYS)",
    )
    parser.add_argument("--github-output", action="store_true", help="write to $GITHUB_OUTPUT")
    flags.add_json(parser, "the plan")


def run(args: argparse.Namespace) -> int:
    try:
        expected = json.loads(args.expected_keys)
    except ValueError:
        expected = None
    if not isinstance(expected, list) or not all(isinstance(k, str) for k in expected):
        raise BadInput("--expected-keys", None, "a JSON list of runner keys", args.expected_keys)
    plan = publish.plan(
        Path.cwd(), args.artifacts, args.export_dir, expected, Path("target/bench/gh-pages")
    )
    for note in plan.repaired:  # never silent: the log says what changed and why
        print(f"benchtrack publish-plan: repaired: {note}", file=sys.stderr)
    if args.json:
        flags.print_json(
            {
                "export_dir": str(args.export_dir),
                "sizes": plan.sizes,
                "recorded": plan.recorded,
                "missing": plan.missing,
                "repaired": plan.repaired,
            }
        )
    else:
        for key in plan.sizes:
            print(f"publish: {key}: results exported to {args.export_dir}/{key}.*.json")
        for key in plan.recorded:
            print(f"publish: {key}: this commit is already recorded; kept, not appended again")
        for key in plan.missing:
            print(f"publish: {key}: no results (its bench job failed); not published")
    if args.github_output:
        target = os.environ.get("GITHUB_OUTPUT")
        if not target:
            raise BadInput("$GITHUB_OUTPUT", None, "the path GitHub Actions sets for step outputs")
        for name, value in plan.outputs().items():
            append_line(target, f"{name}={value}")
    return EXIT_OK
