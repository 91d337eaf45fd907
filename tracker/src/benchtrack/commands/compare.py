"""`benchtrack compare BASE HEAD`: per benchmark, did throughput change beyond noise?

BASE and HEAD are result documents, or directories of them (`<suite>.json`, paired by suite).
Exit 1 when a benchmark regressed beyond `--threshold`, 3 when HEAD records benchmarks that failed
to run (a failure could hide a regression, so it wins), 2 on bad input or different runner sizes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.compare import SuiteComparison, compare_documents
from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, EXIT_REGRESSION, BadInput
from benchtrack.report import json as json_report
from benchtrack.report import markdown, terminal
from benchtrack.result import ResultDocument
from benchtrack.stats import DEFAULT_THRESHOLD

NAME = "compare"
HELP = "Compare two result documents (same runner size): change, noise, verdict per benchmark"


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared with bench-local."""
    flags.add_threshold(
        parser,
        f"smallest change that counts, in percent (default {DEFAULT_THRESHOLD * 100:g})",
        default=DEFAULT_THRESHOLD,
    )
    flags.add_json(parser, "the comparison")
    flags.add_markdown(parser, "the comparison (a GitHub job summary)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("base", type=Path, help="result document (or directory of them) before")
    parser.add_argument("head", type=Path, help="result document (or directory of them) after")
    add_report_arguments(parser)


def load_side(path: Path) -> dict[str, tuple[Path, ResultDocument]]:
    """suite -> (file, document) for a file or a directory of `<suite>.json` documents."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise BadInput(path, None, "result documents (<suite>.json), the directory has none")
    docs: dict[str, tuple[Path, ResultDocument]] = {}
    for file in files:
        doc = ResultDocument.load(file)
        if doc.suite in docs:
            raise BadInput(
                file, "suite", f"one document per suite ({docs[doc.suite][0]} too)", doc.suite
            )
        docs[doc.suite] = (file, doc)
    return docs


def print_report(comparisons: list[SuiteComparison], args: argparse.Namespace) -> None:
    if args.markdown:
        flags.write_markdown(args.markdown, markdown.render(comparisons))
    if args.json:
        sys.stdout.write(json_report.render(comparisons))
    elif not flags.markdown_on_stdout(args):
        terminal.render(comparisons)


def exit_code(comparisons: list[SuiteComparison]) -> int:
    if any(c.failed for c in comparisons):
        return EXIT_BENCHMARK_FAILED
    return EXIT_REGRESSION if any(c.regressed for c in comparisons) else EXIT_OK


def run(args: argparse.Namespace) -> int:
    flags.check_markdown(args)
    base, head = load_side(args.base), load_side(args.head)
    comparisons = []
    for suite in sorted(base.keys() | head.keys()):
        (b_file, b_doc), (h_file, h_doc) = (
            base.get(suite, (None, None)),
            head.get(suite, (None, None)),
        )
        comparisons.append(
            compare_documents(
                b_doc,
                h_doc,
                args.threshold,
                base_source=b_file or args.base,
                head_source=h_file or args.head,
            )
        )
    print_report(comparisons, args)
    return exit_code(comparisons)
