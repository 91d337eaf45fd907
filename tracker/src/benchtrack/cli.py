"""The `benchtrack` command line: one subcommand per stage of the data flow.

User mistakes end with one line on stderr and exit 2 (3 when a benchmark failed to run),
never a traceback; benchtrack.errors.EXIT_CODES lists every exit code (shown by --help).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import textwrap

from benchtrack import __version__, commands
from benchtrack.errors import (
    EXIT_BAD_INPUT,
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    BenchtrackError,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors are exit 2, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def exit_code_help(width: int = 98) -> str:
    """errors.EXIT_CODES as the epilog of `benchtrack --help`."""
    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES:
        lines += textwrap.wrap(
            meaning,
            width,
            initial_indent=f"  {code:<5}",
            subsequent_indent=" " * 7,
            break_on_hyphens=False,  # a flag stays whole
        )
    return "\n".join(lines)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every subcommand; with `argv`, only the one it names, when it names one (commands.load)."""
    parser = _Parser(
        prog="benchtrack",
        description="Continuous performance-regression tracking for the benchtrack suites.",
        epilog=exit_code_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the table's lines as they are
    )
    parser.add_argument("--version", action="version", version=f"benchtrack {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in commands.load(argv):
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _terminated(_signum: int, _frame: object) -> None:
    # CI cancels a job with SIGTERM: unwind, so `finally` blocks remove worktrees and temp clones.
    raise SystemExit(EXIT_TERMINATED)


def main(argv: list[str] | None = None) -> int:
    # Outside the main thread (an embedding program) signal() refuses: leave its handlers alone.
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGTERM, _terminated)
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return args._run(args)
    except BenchtrackError as error:
        print(f"benchtrack: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("benchtrack: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
