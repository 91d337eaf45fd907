"""`benchtrack detect HISTORY`: step changes in each series of main's history."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from benchtrack import detect
from benchtrack.commands import flags
from benchtrack.detect.config import Config
from benchtrack.errors import EXIT_OK, EXIT_REGRESSION, BadInput
from benchtrack.fsutil import output_file
from benchtrack.report import terminal

NAME = "detect"
HELP = "find change points (step changes) in each benchmark × runner series of a history"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("history", nargs="?", metavar="HISTORY", help="directory or git ref")
    parser.add_argument("--history", dest="history_opt", metavar="HISTORY", help="same as HISTORY")
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the changes JSON (default: HISTORY/bench/changes.json, or --out)",
    )
    parser.add_argument("--out", type=Path, help="the changes JSON to compare with (and write)")
    parser.add_argument("--summary", type=Path, help="append Markdown here (GITHUB_STEP_SUMMARY)")
    flags.add_markdown(parser, "the change points")
    flags.add_json(parser, "the changes document")
    parser.add_argument(
        "--fail-on-new-regression",
        action="store_true",
        help="exit 1 if a regression not reported before was found",
    )
    d = Config()
    parser.add_argument(
        "--min-effect",
        type=flags.percent,
        default=d.min_effect,
        metavar="PCT",
        help=f"smallest step reported, in percent (default {d.min_effect * 100:g})",
    )
    parser.add_argument("--alpha", type=float, default=d.alpha, help="largest p-value kept")
    parser.add_argument("--min-segment", type=int, default=d.min_segment, help="points per level")
    parser.add_argument(
        "--penalty", type=float, default=d.penalty, help="PELT cost per step / log n"
    )


def _config(args: argparse.Namespace) -> Config:
    if not 0 < args.alpha <= 1:
        raise BadInput("--alpha", None, "a p-value in (0, 1]", args.alpha)
    if args.min_segment < 2:
        raise BadInput("--min-segment", None, "at least 2 points", args.min_segment)
    if args.penalty <= 0:
        raise BadInput("--penalty", None, "a positive number", args.penalty)
    return Config(args.min_effect, args.alpha, args.min_segment, args.penalty)


def run(args: argparse.Namespace) -> int:
    output_file("--out", args.out)
    output_file("--summary", args.summary)
    flags.check_markdown(args)
    history = args.history_opt or args.history
    if not history:
        raise BadInput("benchtrack detect", "HISTORY", "a history directory or git ref")
    if args.history and args.history_opt and args.history != args.history_opt:
        raise BadInput("benchtrack detect", "HISTORY", "one history (positional or --history)")
    if args.write and args.out is None and detect.changes_path(history) is None:
        raise BadInput("benchtrack detect", "--out", "a file to write for a git-ref history")
    report = detect.analyse(history, _config(args), out=args.out, write=args.write)

    for note in report.notes:
        print(f"benchtrack detect: note: {note}", file=sys.stderr)
    for s in report.skipped:
        print(f"benchtrack detect: {s['runner']} {s['series']}: {s['reason']}", file=sys.stderr)
    md = detect.markdown(
        report.changes, report.new, skipped=len(report.skipped), tip=len(report.tip)
    )
    if args.summary:
        with args.summary.open("a", encoding="utf-8") as f:
            f.write(md + "\n")
    flags.write_markdown(args.markdown, md)
    if args.json:
        flags.print_json({**report.document, "new": [asdict(c) for c in report.new]})
    elif not flags.markdown_on_stdout(args):
        detect.table(report.changes, report.new, console=terminal.console())
    if args.fail_on_new_regression and any(c.regression for c in report.new):
        return EXIT_REGRESSION
    return EXIT_OK
