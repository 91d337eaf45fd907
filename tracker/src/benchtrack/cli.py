"""The `benchtrack` command line: one subcommand per stage of the data flow."""

from __future__ import annotations

import argparse
import sys

from benchtrack import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchtrack",
        description="Continuous performance-regression tracking for the benchtrack suites.",
    )
    parser.add_argument("--version", action="version", version=f"benchtrack {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
