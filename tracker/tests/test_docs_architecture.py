"""The docs say what the code does: docs/cli.md's `--help` blocks are what the parser prints and
every command has one; docs/architecture.md's example result document passes the schema's checks
and its exit codes are errors.py's.

The blocks are written by scripts/cli_help.py from the parser; a failure names that script.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from benchtrack import commands, errors
from benchtrack.result import ResultDocument

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import cli_help

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
CLI = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
HELP_BLOCK = re.compile(r"^```text\n(usage: benchtrack\b.*?)\n```$", re.S | re.M)
USAGE = re.compile(r"usage: benchtrack(?: ([a-z][a-z-]*))? ")


def documented_help() -> dict[str, str]:
    """Command name ("" for `benchtrack` itself) -> the help block the page shows for it."""
    out: dict[str, str] = {}
    for block in HELP_BLOCK.findall(CLI.read_text(encoding="utf-8")):
        match = USAGE.match(block)
        assert match, f"docs/cli.md: a help block that is not a usage: {block[:60]!r}"
        name = match.group(1) or ""
        assert name not in out, f"docs/cli.md: two help blocks for {name!r}"
        out[name] = block
    return out


def printed_help(name: str) -> str:
    """What the page's block for `name` must be: scripts/cli_help.py writes it from the parser."""
    return cli_help.printed_help(name)


NAMES = ["", *(module.NAME for module in commands.load())]


def test_every_command_has_its_help_on_the_page() -> None:
    assert sorted(documented_help()) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES, ids=[n or "benchtrack" for n in NAMES])
def test_help_block_is_what_the_parser_prints(name: str) -> None:
    expected = printed_help(name)
    shown = documented_help().get(name)
    assert shown == expected, (
        f"docs/cli.md: the help of `benchtrack {name}` changed; run "
        "`uv run --frozen python scripts/cli_help.py` (it rewrites the blocks from the parser)"
    )


def test_example_result_document_is_valid() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text[text.index("\n## Result document\n") :]
    example = re.search(r"^```json\n(.*?)\n```$", section, re.S | re.M)
    assert example, "docs/architecture.md: no JSON example under 'Result document'"
    doc = ResultDocument.from_dict(json.loads(example.group(1)), "docs/architecture.md")
    assert {b.direction for b in doc.benchmarks} == {"bigger", "smaller"}
    assert doc.errors, "the example shows a benchmark that failed to run"


def test_exit_code_table_is_errors_py() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text[text.index("\n## Exit codes\n") :]
    rows = re.findall(r"^\| `(\d+)` \| (.*) \|$", section, re.M)
    assert [(int(code), meaning) for code, meaning in rows] == list(errors.EXIT_CODES), (
        "docs/architecture.md: the exit-code table is not errors.EXIT_CODES"
    )
    # every exit code the code names is in the table, once
    named = [v for k, v in vars(errors).items() if k.startswith("EXIT_") and isinstance(v, int)]
    assert sorted(named) == sorted(code for code, _ in errors.EXIT_CODES)
    # and `benchtrack --help` shows each row
    shown = " ".join(printed_help("").split("exit codes:")[1].split())
    for code, meaning in errors.EXIT_CODES:
        assert f"{code} {meaning}" in shown
