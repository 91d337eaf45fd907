"""`benchtrack publish-site`: change points and the dashboard, committed to gh-pages."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchtrack import cli, publish
from benchtrack.errors import EXIT_OK, BenchtrackError

NAME = "publish-site"
HELP = "CI publish job: detect change points and build the dashboard on gh-pages, then push"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--summary",
        default=os.environ.get("GITHUB_STEP_SUMMARY", ""),
        help="append new change points here as Markdown (default: $GITHUB_STEP_SUMMARY)",
    )


def run(args: argparse.Namespace) -> int:
    def build(history: Path) -> None:
        detect = ["detect", str(history), "--write"]
        if args.summary:
            detect += ["--summary", args.summary]
        for argv in (detect, ["site", str(history)]):
            code = cli.main(argv)
            if code != EXIT_OK:
                raise BenchtrackError(f"benchtrack {' '.join(argv)} exited {code}")

    print(publish.publish_site(Path.cwd(), Path("target/bench/gh-pages-site").resolve(), build))
    return EXIT_OK
