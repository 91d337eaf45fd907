"""Rewrite the `--help` blocks of docs/cli.md from the parser (at 100 columns), so that
they are generated, not pasted: `uv run --frozen python scripts/cli_help.py` after changing a
command's help; tracker/tests/test_docs_architecture.py fails, naming this script, when a block
and the parser differ. Only the blocks change; the prose around them is the page's own."""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

from benchtrack import cli

CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"  # the CLI reference
HELP_BLOCK = re.compile(r"^```text\n(usage: benchtrack\b.*?)\n```$", re.S | re.M)
USAGE = re.compile(r"usage: benchtrack(?: ([a-z][a-z-]*))? ")


def printed_help(name: str) -> str:
    """`benchtrack [name] --help` as a 100-column terminal shows it."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            cli.main([*([name] if name else []), "--help"])
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip().splitlines())


def rewritten(text: str) -> str:
    def block(match: re.Match[str]) -> str:
        usage = USAGE.match(match.group(1))
        name = usage.group(1) or "" if usage else ""
        return f"```text\n{printed_help(name)}\n```"

    return HELP_BLOCK.sub(block, text)


def main() -> int:
    text = CLI_DOC.read_text(encoding="utf-8")
    new = rewritten(text)
    if new != text:
        CLI_DOC.write_text(new, encoding="utf-8")
        print(f"{CLI_DOC}: help blocks rewritten from the parser")
    return 0


if __name__ == "__main__":
    sys.exit(main())
