"""Losses below the threshold that the gate still resolves: reported, never failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchtrack.gate import comment, render
from benchtrack.gate.outcome import Outcome, Row

RECORDINGS = Path(__file__).resolve().parents[1] / "bench" / "recordings"


def _row(name: str, change: float, lo: float, hi: float, verdict: str, **kw) -> Row:
    fields = {"suite": "s", "unit": "items/s", "direction": "bigger", "base": 100.0}
    fields.update(head=100.0 * (1 + change), threshold=0.05, rounds=5)
    fields.update(kw)
    return Row(name=name, change=change, lo=lo, hi=hi, verdict=verdict, **fields)


def _outcome(rows: list[Row]) -> Outcome:
    return Outcome(rows, [], [], {"base": {}, "head": {}}, [], 0.01, [5, 9, 12])


def test_a_resolved_loss_of_half_the_threshold_or_more_is_reported_and_nothing_else() -> None:
    rows = [
        _row("t/regressed", -0.12, -0.15, -0.08, "regressed"),
        _row("t/five", -0.045, -0.08, -0.02, "inconclusive"),
        _row("t/crosses_zero", -0.05, -0.09, 0.01, "inconclusive"),
        _row("t/trivial", -0.01, -0.015, -0.005, "unchanged"),
        _row("t/rss", 0.04, 0.02, 0.045, "unchanged", unit="KB", direction="smaller"),
        _row("t/faster", 0.05, 0.02, 0.08, "inconclusive"),
    ]
    o = _outcome(rows)
    assert [r.name for r in o.smaller_losses] == ["t/five", "t/rss"]
    assert o.exit_code == 1  # the regression fails the PR; the smaller losses do not
    assert _outcome([rows[1], rows[4]]).exit_code == 0
    md = render.markdown(o)
    section = md.split("#### Smaller losses")[1].split("####")[0]
    assert "`t/five`" in section and "`t/rss`" in section and "`t/crosses_zero`" not in section
    untold = md.split("#### Could not be told apart")[1].split("####")[0]
    assert "`t/crosses_zero`" in untold and "`t/five`" in untold
    assert "2 smaller losses reported (not failing)" in render.counts(o)
    flags = {b["name"]: b["smaller_loss"] for b in o.to_dict()["benchmarks"]}
    assert flags == {r.name: r.name in ("t/five", "t/rss") for r in rows}


@pytest.mark.parametrize("run", ["gate-selftest-s1", "gate-selftest-s2"])
def test_the_self_tests_five_percent_slowdowns_are_the_ones_reported(run: str) -> None:
    """On the shipped self-test runs (tracker/LAB.md, "Self-tests"): the benchmarks slowed by 5%
    that did not reach "regressed" are reported as smaller losses, and no unslowed benchmark is."""
    doc = json.loads((RECORDINGS / f"{run}.json").read_text())
    slowed = {line["benchmark"]: line["loss"] for line in doc["lines"]}
    five = {n for n, loss in slowed.items() if loss == 0.05}
    o = comment.load(RECORDINGS / f"{run}.gate.json")
    reported = {r.name for r in o.smaller_losses}
    regressed = {r.name for r in o.rows if r.verdict == "regressed"}
    assert len(reported) == 7, reported  # the 5% slowdowns that were resolved in each run
    assert reported == five - regressed, (reported, five - regressed)


def test_a_no_change_pr_reports_no_smaller_loss() -> None:
    """The timed no-change PR's gate.json (tracker/LAB.md, "Against the goals"): none reported."""
    o = comment.load(RECORDINGS / "nochange-t1.gate.json")
    assert len(o.rows) == 80 and o.smaller_losses == []


def test_the_summary_says_how_long_the_jobs_gate_took_and_its_parts() -> None:
    """The PR's wait for a job (issue 44: "the gate's time per PR is reported in the job
    summary"): gate.json's meta gate_seconds, with the builds and the diagnosis beside it; a
    gate.json from before it was kept says nothing of it."""
    o = _outcome([_row("t/a", 0.0, -0.01, 0.01, "unchanged")])
    assert "took" not in render.method_line(o)
    o.meta = {"gate_seconds": 444.0, "build_seconds": 126.0, "diagnosis_seconds": 0.0}
    assert render.method_line(o).endswith(" · this job's gate took 7.4 min (builds 2.1 min)")
    o.meta["diagnosis_seconds"] = 40.4
    assert "took 7.4 min (builds 2.1 min, diagnosis 40 s)" in render.markdown(o)
