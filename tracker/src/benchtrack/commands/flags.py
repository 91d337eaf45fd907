"""The flags several commands share, each with one meaning everywhere (docs/cli.md,
"One grammar"):

    --threshold PCT   a percentage: 5, 5% or 2.5 (benchtrack.toml's `threshold` stays a fraction)
    --cpus N|LIST     a plain number N: CPUs 0..N-1; anything else a taskset list (0,2 or 1-3)
    --markdown PATH   also write the Markdown report to PATH (`-`: on stdout, instead of the table)
    --json            print the command's report as JSON on stdout

A malformed value is a usage error: argparse's one line naming the flag, exit 2.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
from pathlib import Path

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write, output_file
from benchtrack.machine.cpuset import CpuSet

STDOUT = "-"


def percent(text: str) -> float:
    """'5', '5%', '2.5' -> 0.05, 0.05, 0.025: a threshold as people say it, stored as a fraction.

    >>> percent("5%"), percent("2.5")
    (0.05, 0.025)
    """
    try:
        value = float(text.strip().removesuffix("%"))
    except ValueError:
        value = math.nan
    if not 0 < value < 100:  # NaN fails this too
        raise argparse.ArgumentTypeError(
            f"expected a percentage above 0 and below 100 (5, 5% or 2.5), got {text!r}"
        )
    return value / 100


def add_threshold(parser: argparse.ArgumentParser, help: str, default: float | None = None) -> None:
    parser.add_argument("--threshold", type=percent, default=default, metavar="PCT", help=help)


def cpus(text: str) -> CpuSet:
    """'2' -> CPUs 0 and 1 (a count); '0,2' or '1-3' -> those CPUs (a taskset list). Every CPU
    must be one this process may use, and taskset must be there to pin them."""
    allowed = CpuSet.allowed().ids
    if re.fullmatch(r"[0-9]+", text):
        n = int(text)
        if not 1 <= n <= len(allowed):
            raise argparse.ArgumentTypeError(
                f"expected a CPU count from 1 up to {len(allowed)} (this machine), got {text!r}"
            )
        ids = CpuSet.first(n).ids
    elif CpuSet.is_list(text):
        ids = CpuSet.parse(text).ids
    else:
        raise argparse.ArgumentTypeError(
            f"expected a CPU count (2 = CPUs 0-1) or a taskset list (0,2 or 1-3), got {text!r}"
        )
    outside = sorted(set(ids) - set(allowed))
    if outside:
        usable = CpuSet(allowed).taskset
        raise argparse.ArgumentTypeError(
            f"expected CPUs this process may use ({usable}), got {text!r} (CPU {outside[0]})"
        )
    if shutil.which("taskset") is None:
        raise argparse.ArgumentTypeError("expected taskset on PATH (util-linux) to pin CPUs")
    return CpuSet(ids, text)


def add_cpus(parser: argparse.ArgumentParser, help: str, *, repeat: bool = False) -> None:
    parser.add_argument(
        "--cpus",
        type=cpus,
        action="append" if repeat else "store",
        metavar="N|LIST",
        help=f"{help}: a count N (CPUs 0 to N-1) or a taskset list (0,2 or 1-3)",
    )


def add_markdown(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--markdown",
        metavar="PATH",
        help=f"also write {what} as Markdown to PATH (-: on stdout, instead of the table)",
    )


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON on stdout")


def check_markdown(args: argparse.Namespace) -> None:
    """Before any work: --markdown's path can be written, and stdout carries one thing."""
    if args.markdown == STDOUT:
        if args.json:
            raise BadInput("--markdown", None, "a file with --json (both print on stdout)", "-")
    else:
        output_file("--markdown", args.markdown)


def markdown_on_stdout(args: argparse.Namespace) -> bool:
    return args.markdown == STDOUT


def write_markdown(target: str | None, text: str) -> None:
    if target == STDOUT:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    elif target is not None:
        atomic_write(Path(target), text)


def print_json(doc: object) -> None:
    sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
