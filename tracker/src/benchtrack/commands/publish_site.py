"""`benchtrack publish-site`: change points and the dashboard, committed to gh-pages."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from benchtrack import detect, suites
from benchtrack.commands import flags
from benchtrack.dashboard import read, site
from benchtrack.detect import Config
from benchtrack.errors import EXIT_OK, BadInput
from benchtrack.history import publish
from benchtrack.history.retention import CONFIG_NAME
from benchtrack.history.retention import load as load_retention
from benchtrack.result import ResultDocument

NAME = "publish-site"
HELP = (
    "CI publish job: detect change points and build the dashboard on gh-pages, then push; with "
    "result documents, append them first (the composite action); archive what "
    "[history.retention] no longer keeps in data.js"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results",
        metavar="RESULT",
        nargs="*",
        help="result documents of this run to append in the same commit",
    )
    parser.add_argument(
        "--summary",
        default=os.environ.get("GITHUB_STEP_SUMMARY", ""),
        help="append new change points here as Markdown (default: $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        help=f"the suites' order and [history.retention] (default ./{CONFIG_NAME}, if present)",
    )
    parser.add_argument(
        "--branch",
        default=publish.BRANCH,
        help=f"the history's branch on origin (default {publish.BRANCH})",
    )
    flags.add_json(parser, "what was published")


def run(args: argparse.Namespace) -> int:
    config = args.config or Path(CONFIG_NAME)
    if args.config and not args.config.is_file():
        raise BadInput(args.config, None, "a config file (--config)")
    order = suites.order(config)  # read (and checked) before gh-pages is touched
    retention = load_retention(config)  # a bad one: exit 2 before any git work
    found: dict[str, int] = {}

    def build(history: Path) -> None:
        # What `benchtrack detect HISTORY --write [--summary F]` and `benchtrack site HISTORY`
        # do, through the library: a command does not reach back up to the CLI's entry point.
        report = detect.analyse(history, Config(), write=True)
        found.update(changes=len(report.changes), new=len(report.new))
        for note in report.notes:
            print(f"benchtrack publish-site: note: {note}", file=sys.stderr)
        for s in report.skipped:
            print(
                f"benchtrack publish-site: {s['runner']} {s['series']}: {s['reason']}",
                file=sys.stderr,
            )
        if args.summary:
            md = detect.markdown(report.changes, report.new, skipped=len(report.skipped))
            with Path(args.summary).open("a", encoding="utf-8") as f:
                f.write(md + "\n")
        with read.open_history(str(history)) as opened:
            site.build_site(opened, history, order=order)

    docs = [(path, ResultDocument.load(path)) for path in args.results]  # all checked first
    work = Path("target/bench/gh-pages-site").resolve()
    status = publish.publish_site(
        Path.cwd(), work, build, docs=docs, retention=retention, branch=args.branch
    )
    if args.json:  # the change points of the last attempt (a lost push race builds again)
        flags.print_json({"status": status, "changes": found["changes"], "new": found["new"]})
    else:
        print(status)
    return EXIT_OK
