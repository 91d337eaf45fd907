"""Reports: the terminal table (NO_COLOR), Markdown for GitHub, JSON; all from one comparison."""

from __future__ import annotations

import dataclasses
import fcntl
import io
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console
from test_compare import base_doc, scaled

from benchtrack.compare import compare_documents
from benchtrack.ingest import ingest
from benchtrack.report import fmt_value, markdown, terminal
from benchtrack.report import json as json_report
from benchtrack.result import Commit, ResultDocument, Runner

FIXTURES = Path(__file__).parent / "fixtures"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


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
    monkeypatch.setenv("TERM", "xterm-256color")  # rich colours no TERM=dumb terminal
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


# --- the table in a terminal, a CI log and a pipe ---------------------------------------------


def long_named_pair(tmp_path: Path) -> tuple[Path, Path, list[tuple[str, str]]]:
    """The real pytest-benchmark fixture, ingested, its names made 180+ characters long; the head
    halves one benchmark and speeds another up. -> base file, head file, [(name, verdict)]."""
    commit = Commit("a" * 40, "m", "2026-01-01T00:00:00+00:00", "t", "t@example.org")
    runner = Runner("ci", 2, "cpu", "os", "x86_64")
    doc = ingest("pytest", FIXTURES / "pytest/pytest.json", commit, runner, "2026-01-01T00:00:00Z")
    suffix = "/" + "a_long_parameter_name=with_a_long_value," * 4
    base = dataclasses.replace(
        doc, benchmarks=tuple(dataclasses.replace(b, name=b.name + suffix) for b in doc.benchmarks)
    )
    names = [b.name for b in base.benchmarks]
    head = scaled(scaled(base, names[0], 0.5), names[1], 1.6)
    files = tmp_path / "base.json", tmp_path / "head.json"
    base.dump(files[0])
    head.dump(files[1])
    verdicts = {r.name: r.verdict for r in compare_documents(base, head).rows}
    assert {"regressed", "improved"} <= set(verdicts.values())
    return *files, list(verdicts.items())


def _pty(columns: int) -> tuple[int, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return master, slave


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR")}
    return {**env, "TERM": "xterm-256color", **extra}


def _compare_command(base: Path, head: Path) -> list[str]:
    return [sys.executable, "-m", "benchtrack.cli", "compare", str(base), str(head)]


@pytest.mark.parametrize("where", ["ci-log", "pipe-from-a-terminal"])
def test_piped_table_has_one_line_per_row_at_full_width(tmp_path, where):
    """In a CI log (no terminal anywhere) rich would fold at 80 columns; in `... | less` it would
    fold at the terminal's width (on stdin/stderr). Either way a row must stay one line."""
    base, head, rows = long_named_pair(tmp_path)
    master = slave = None
    streams: dict = {"stdin": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    if where == "pipe-from-a-terminal":
        master, slave = _pty(80)
        streams = {"stdin": slave, "stderr": slave}
    try:
        proc = subprocess.run(
            _compare_command(base, head), stdout=subprocess.PIPE, env=_env(), text=True, **streams
        )
    finally:
        for fd in (master, slave):
            if fd is not None:
                os.close(fd)
    assert proc.returncode == 1  # a regression
    out = proc.stdout
    assert "\x1b[" not in out  # no colours in a log
    lines = out.splitlines()
    for name, verdict in rows:
        holding = [line for line in lines if name in line]
        assert len(holding) == 1, f"{name} spans lines"
        assert re.search(rf"[│|]\s*{verdict}\s*[│|]", holding[0])
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == len(rows)  # nothing folded onto a second line
    assert max(cell_len(line) for line in lines) > 200
    assert "3 benchmarks: 1 regressed" in out and "\n1 improved" not in out


def test_terminal_table_still_fits_the_terminal(tmp_path):
    """On a terminal (a pty of COLUMNS=80) the table is what rich lays out for 80 columns, long
    names folded inside their column, in colour."""
    base, head, rows = long_named_pair(tmp_path)
    master, slave = _pty(80)
    try:
        proc = subprocess.Popen(
            _compare_command(base, head),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=_env(COLUMNS="80"),
        )
        os.close(slave)
        raw = _read_all(master)
        assert proc.wait(timeout=60) == 1
    finally:
        os.close(master)
    assert "\x1b[" in raw  # colours on a terminal
    text = ANSI.sub("", raw).replace("\r\n", "\n")
    assert max(cell_len(line) for line in text.splitlines()) <= 80
    assert not any(name in text for name, _ in rows)  # folded, not one line
    expected = io.StringIO()
    doc = ResultDocument.load
    comparison = compare_documents(doc(base), doc(head), base_source=base, head_source=head)
    terminal.render([comparison], Console(file=expected, width=80, force_terminal=True))
    assert text == ANSI.sub("", expected.getvalue())
