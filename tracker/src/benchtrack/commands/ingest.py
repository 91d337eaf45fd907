"""`benchtrack ingest HARNESS PATH --out FILE`: a harness's output -> result document.

Exit 0 when written; 3 (after writing) when the document records benchmarks that failed to run;
2 on bad input, with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK
from benchtrack.fsutil import output_file
from benchtrack.ingest import HARNESSES, ingest
from benchtrack.machine.runner import detect_commit, detect_runner, now_utc, parse_cpus

NAME = "ingest"
HELP = "Turn a harness's native output into a result document (benchtrack.result/1)"


def add_metadata_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared with bench-local: who ran it, on what."""
    parser.add_argument(
        "--runner-label",
        help="runner label (default: $BENCHTRACK_RUNNER_LABEL, else 'local', 'ci' in Actions)",
    )
    parser.add_argument(
        "--runner-cpus",
        help="runner vCPUs (default: $BENCHTRACK_RUNNER_CPUS, else the CPUs this process may use)",
    )
    parser.add_argument(
        "--commit", help="commit measured (default: $GITHUB_SHA in Actions, else HEAD)"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("harness", choices=sorted(HARNESSES), help="which harness wrote PATH")
    parser.add_argument(
        "path",
        type=Path,
        help="criterion's home dir, or the harness's output file (JSON; libtest's and go test's "
        "text)",
    )
    parser.add_argument("--out", type=Path, required=True, help="result document to write")
    parser.add_argument(
        "--suite",
        help="suite of the document (libtest, gotest, googlebenchmark, custom*, bmf; default: "
        "the harness's name, 'custom' for both custom tools)",
    )
    add_metadata_arguments(parser)
    flags.add_json(parser, "what was written")


def run(args: argparse.Namespace) -> int:
    output_file("--out", args.out)
    cpus = parse_cpus(args.runner_cpus, "--runner-cpus") if args.runner_cpus else None
    runner = detect_runner(args.runner_label, cpus)
    git = detect_commit(args.commit)
    doc = ingest(args.harness, args.path, git.commit, runner, now_utc(), args.suite)
    doc.dump(args.out)
    dirty = " (working tree has uncommitted changes)" if git.dirty else ""
    print(
        f"{args.out}: {len(doc.benchmarks)} benchmarks, {len(doc.errors)} errors, "
        f"suite {doc.suite}, runner {runner.key}, commit {git.commit.id[:12]}{dirty}",
        file=sys.stderr,
    )
    for error in doc.errors:
        print(f"  failed: {error.name}: {error.message}", file=sys.stderr)
    if args.json:
        flags.print_json(
            {
                "out": str(args.out),
                "suite": doc.suite,
                "runner": runner.key,
                "commit": git.commit.id,
                "dirty": git.dirty,
                "benchmarks": len(doc.benchmarks),
                "errors": [{"name": e.name, "message": e.message} for e in doc.errors],
            }
        )
    return EXIT_BENCHMARK_FAILED if doc.errors else EXIT_OK
