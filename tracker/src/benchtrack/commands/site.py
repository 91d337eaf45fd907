"""`benchtrack site HISTORY --out DIR`: build the gh-pages dashboard for a history."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import EXIT_BAD_INPUT, EXIT_OK, BadInput

NAME = "site"
HELP = (
    "Build the dashboard (static HTML/JS + a compact index) for a history directory or git branch"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "history",
        nargs="?",
        metavar="HISTORY",
        help="history directory (with bench/<runner-key>/data.js) or git:<remote-url>#<branch>",
    )
    parser.add_argument(
        "--history", dest="history_opt", metavar="HISTORY", help="same as the positional HISTORY"
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="where to write the site (default: HISTORY itself, when it is a directory); "
        "index.html goes at the top, beside bench/",
    )
    parser.add_argument(
        "--source",
        type=Path,
        help="the dashboard source tree (default: the one in the benchtrack package)",
    )
    flags.add_json(parser, "a summary")


def run(args: argparse.Namespace) -> int:
    from benchtrack import suites
    from benchtrack.dashboard import read, site

    if args.history and args.history_opt and args.history != args.history_opt:
        raise BadInput("command line", "HISTORY", "one history (positional or --history)")
    spec = args.history or args.history_opt
    if not spec:
        print("benchtrack site: error: HISTORY is required", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = args.out
    if out is None:
        if spec.startswith("git:") or not Path(spec).is_dir():
            raise BadInput("command line", "--out", "an output directory for a non-local history")
        out = Path(spec)
    with read.open_history(spec) as history:
        order = suites.order(Path(suites.CONFIG_NAME))
        report = site.build_site(history, out, source=args.source, order=order)
    if args.json:
        flags.print_json(report.as_dict())
    else:
        overview = report.index_bytes + report.overview_bytes
        ratio = (
            f" (the overview loads {overview / 1024:.1f} KiB = "
            f"{overview / report.data_js_bytes:.1%} of data.js)"
            if report.data_js_bytes
            else ""
        )
        print(
            f"site: {_n(report.benchmarks, 'benchmark')} x {_n(report.runners, 'runner size')}, "
            f"{_n(report.commits, 'run')}, {_n(report.changes, 'change marker')} -> "
            f"{out / 'index.html'}\n"
            f"      index {report.index_bytes / 1024:.1f} KiB, series "
            f"{report.group_bytes / 1024:.1f} KiB, data.js {report.data_js_bytes / 1024:.1f} KiB"
            f"{ratio}"
        )
        if report.archive_bytes:
            print(f"      older history (loaded on request) {report.archive_bytes / 1024:.1f} KiB")
    return EXIT_OK


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
