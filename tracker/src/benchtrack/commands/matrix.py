"""`benchtrack matrix`: the runner-size config as a GitHub Actions matrix (`fromJSON`)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from benchtrack import runner_sizes
from benchtrack.errors import BadInput
from benchtrack.fsutil import append_line

NAME = "matrix"
HELP = "print the CI matrix of runner sizes from .github/bench-runners.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, default=runner_sizes.DEFAULT_CONFIG, help="the runner-size file"
    )
    parser.add_argument(
        "--larger-runners",
        choices=["true", "false", ""],
        default=os.environ.get("BENCH_LARGER_RUNNERS", ""),
        help='include sizes marked enabled = "larger-runners" (default: $BENCH_LARGER_RUNNERS)',
    )
    parser.add_argument(
        "--github-output",
        action="store_true",
        help="also write matrix=… and keys=… to $GITHUB_OUTPUT",
    )


def run(args: argparse.Namespace) -> int:
    sizes = runner_sizes.load(args.config, larger_runners=args.larger_runners == "true")
    matrix = json.dumps({"include": [s.to_matrix() for s in sizes]}, separators=(",", ":"))
    keys = json.dumps([s.key for s in sizes], separators=(",", ":"))
    print(matrix)
    if args.github_output:
        out = os.environ.get("GITHUB_OUTPUT")
        if not out:
            raise BadInput("$GITHUB_OUTPUT", None, "the path GitHub Actions sets for step outputs")
        append_line(out, f"matrix={matrix}")
        append_line(out, f"keys={keys}")
    return 0
