"""Reports: the terminal table (NO_COLOR), Markdown for GitHub, JSON; all from one comparison."""

from __future__ import annotations

import io
import json

from rich.console import Console
from test_compare import base_doc, scaled

from benchtrack.compare import compare_documents
from benchtrack.report import fmt_value, markdown, terminal
from benchtrack.report import json as json_report


def comparison():
    base = base_doc()
    return compare_documents(base, scaled(base, "rust/streams/async_next", 0.8))


def test_values_read_as_throughputs():
    assert fmt_value(494995203.0, "items/s") == "495 M items/s"
    assert fmt_value(612.3, "tasks/s") == "612.3 tasks/s"
    assert fmt_value(9240.0, "KB") == "9,240 KB"


def test_terminal_table_and_summary_without_color(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = terminal.console()
    buffer = io.StringIO()
    out.file = buffer
    out.force_terminal = True  # colors would show here, were NO_COLOR ignored
    out.width = 160
    terminal.render([comparison()], out)
    text = buffer.getvalue()
    assert "\x1b[3" not in text and "\x1b[9" not in text  # no foreground colors
    for header in ("benchmark", "throughput", "±", "change", "verdict"):
        assert header in text
    assert "rust/streams/async_next" in text and "regressed" in text and "-20.0%" in text
    assert "rust on ubuntu-latest-4cpu" in text and "1 regressed, 1 unchanged" in text


def test_terminal_colors_when_allowed(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    buffer = io.StringIO()
    terminal.render([comparison()], Console(file=buffer, force_terminal=True, width=160))
    assert "\x1b[" in buffer.getvalue()


def test_markdown_puts_regressions_first():
    text = markdown.render([comparison()])
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `rust/streams/async_next`") and "regressed" in rows[0]
    assert "(smaller is better)" in rows[1]
    assert text.startswith("### benchtrack: 2 benchmarks in 1 suite(s): 1 regressed")


def test_json_is_machine_readable():
    data = json.loads(json_report.render([comparison()]))
    assert data["regressed"] is True and data["failed"] is False
    row = data["suites"][0]["benchmarks"][1]
    assert row["name"] == "rust/streams/async_next" and row["verdict"] == "regressed"
    assert row["ratio"] < row["ratio_ci"][1] and row["ratio"] > row["ratio_ci"][0]
