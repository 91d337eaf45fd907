"""`benchtrack compare`'s report and the change points' table show every name of the contract
as the gate's Markdown does (benchtrack/mdtext.py, docs/architecture.md "Names kept verbatim"):
parsed as GitHub would (test_comment_inert.live), every table row keeps its columns, nothing of
a name, a runner or a commit message is live, and each name reads as it is. Before, both wrapped
a name in single backticks and escaped only `|`: a name holding a backtick ended its code span,
and what followed rendered (emphasis, links, mentions)."""

from __future__ import annotations

from test_comment_inert import live
from test_gate_names import NAMES, tables

from benchtrack.compare import Row, SuiteComparison
from benchtrack.detect.publish import Change
from benchtrack.detect.render import markdown as change_points
from benchtrack.report.markdown import render as compare_report
from benchtrack.result import Benchmark


def bench(name: str, value: float) -> Benchmark:
    return Benchmark(name=name, unit="calls/s", value=value, ci=(value, value), samples=(value,))


def change(i: int, series: str, message: str) -> Change:
    return Change(
        series=series, runner="linux `x` @team", commit=f"{i:040x}", date="2026-11-29",
        message=message, url=None, index=3, before=100.0, after=90.0, change=-0.1,
        direction="bigger", regression=True, significance=1e-4, unit="calls/s",
    )  # fmt: skip


def test_compare_s_report_shows_every_name_inert_and_verbatim() -> None:
    rows = tuple(Row(name=n, base=bench(n, 100.0), head=bench(n, 100.0)) for n in NAMES)
    body = compare_report(
        [SuiteComparison("custom", "linux-x64-2cpu `x` @team", 0.05, None, None, rows)]
    )
    assert live(body) == []
    (table,) = tables(body)
    assert all(len(r) == 5 for r in table)  # a `|` of a name would split its row
    assert [r[0] for r in table[1:]] == sorted(NAMES)


def test_the_change_points_table_shows_every_series_runner_and_message_inert() -> None:
    said = "fix **it** [see](https://evil.example) @octocat `x`"
    changes = [change(i, n, said + "\nbody") for i, n in enumerate(NAMES)]
    body = change_points(changes, changes)
    assert live(body) == []
    (table,) = tables(body)
    assert all(len(r) == 7 for r in table)
    assert [r[1] for r in table[1:]] == NAMES
    assert {r[2] for r in table[1:]} == {"linux `x` @team"}
    assert all(r[3].endswith(said) for r in table[1:])
