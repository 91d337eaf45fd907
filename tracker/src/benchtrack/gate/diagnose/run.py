"""The gate's hook: after the verdict, a diagnosis for each regressed benchmark and smaller loss.

`measure_all` runs while the worktrees still exist (commands/gate.py, before they are removed):
for each benchmark with a regressed gating series or a smaller loss (the largest losses first),
the lockstep suite that stepped its wall time runs it once more on each side (`measure`), on
the CPUs its rounds used, within BUDGET seconds in all; what does not fit is "not run: budget".
A PR with no such benchmark runs nothing. `attach` then classifies (with the counted series and
the function diff, already in gate.json) and puts `diagnosis` on each of the benchmark's rows
that lost; `entries` collects them for gate.md.

A benchmark whose only losing series is a memory series (peak RSS, measured whole by its suite)
is diagnosed from its own figures: memory, no run. One with no stepped series cannot be run
alone: "not run", saying so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack.gate import confirm, placement, suite_run
from benchtrack.gate.config import split_key
from benchtrack.gate.diagnose import (
    classify,
    measure,
    native,
    perlsub,
    profile_diff,
    pyspy,
    text,
)
from benchtrack.gate.diagnose.evidence import Evidence
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.gate.worktree import Checkout
from benchtrack.machine.cpuset import CpuSet
from benchtrack.result import SMALLER_UNITS
from benchtrack.stats import REGRESSED
from benchtrack.suites import COUNTED, Suite

BUDGET = 120.0  # seconds for every diagnosis of one gate run (issue 45: <= 2 min for 5)
PROFILES = profile_diff.DIR  # the wall-time profile diffs, under the gate's --out
FIRST_GUESS = 20.0  # seconds one diagnosis is expected to take, before one has been timed
Measured = dict[str, Evidence] | str  # the evidence of both sides, or why there is none


@dataclass
class Runs:
    """What `measure_all` did: benchmark -> its measurement, and the seconds it took."""

    found: dict[str, Measured] = field(default_factory=dict)
    seconds: float = 0.0
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)  # gate.json's `profile`


def losing(outcome: Outcome) -> dict[str, list[Row]]:
    """Benchmark -> its rows that regressed (gating) or are a smaller loss; the largest
    losses first."""
    rows = [r for r in outcome.rows if (r.verdict == REGRESSED and r.gates) or r.smaller_loss]
    rows.sort(key=lambda r: (r.verdict != REGRESSED, -confirm.loss(r) / max(r.threshold, 1e-9)))
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(split_key(r.name)[0], []).append(r)
    return out


def _stepped(name: str, outcome: Outcome, suites: list[Suite]) -> Suite | None:
    """The lockstep suite that measured the benchmark's wall time (or CPU time)."""
    by_name = {s.name: s for s in suites}
    for r in outcome.rows:
        suite = by_name.get(r.suite)
        if split_key(r.name)[0] == name and suite is not None and suite.lockstep:
            return suite
    return None


def _cpu(suite: Suite, name: str, cpus: str | None, data: Rounds) -> str | None:
    """Where the benchmark's rounds took their turns: one CPU, or every CPU of the job."""
    where = suite.cpus
    if where == placement.AUTO:
        where = data.placements.get(suite.name, {}).get(name, placement.ALL)
    return placement.one_cpu(cpus) if where == placement.ONE else cpus


def launches(
    suite: Suite,
    row: Row,
    sides: tuple[Checkout, Checkout],
    pins: dict[str, str],
    cpus: str | None,
    data: Rounds,
    logs: Path,
) -> dict[str, measure.Launch]:
    """How to start each side's step worker for `row`'s benchmark alone: the environment the
    gate's rounds give it (suite_run.child_env, a filter of that one benchmark), on the CPUs its
    rounds used, its log under `logs`/diagnose."""
    base_cache = next(co.cache for co in sides if co.side == "base")
    out = {}
    for co in sides:
        env = suite_run.child_env(co, suite, pins, confirm.name_filter([row]), True, base_cache)
        if suite.cpus != placement.ONE:  # a full-size suite's pools, as its rounds had them
            env.setdefault("BENCH_THREADS", str(CpuSet.of(cpus).count))
        slug = "".join(ch if ch.isalnum() else "_" for ch in split_key(row.name)[0])
        log = logs / "diagnose" / f"{co.side}-{slug}.log"
        cpu = _cpu(suite, split_key(row.name)[0], cpus, data)
        out[co.side] = measure.Launch(suite.command, co.path, env, log, cpu)
    return out


def measure_all(
    outcome: Outcome,
    data: Rounds,
    suites: list[Suite],
    sides: tuple[Checkout, Checkout],
    pins: dict[str, str],
    cpus: str | None,
    logs: Path,
    say: Callable[[str], None],
    budget: float = BUDGET,
    out: Path | None = None,
) -> Runs:
    """Benchmark -> each side's evidence, or the reason it has none ("not run: …" or a failure
    message); empty when nothing lost. `out`: the gate's output directory, where each Python,
    Rust or Perl benchmark's wall-time profile diff is written (profile_diff.DIR; None: no
    profile)."""
    wanted = losing(outcome)
    runs = Runs()
    found = runs.found
    started = time.monotonic()
    longest = 0.0
    for name, rows in wanted.items():
        if all(_memory(r) for r in rows):
            continue  # its own figures are the evidence (attach)
        suite = _stepped(name, outcome, suites)
        if suite is None:
            found[name] = "not run: its suite does not step it (lockstep), so it cannot run alone"
            continue
        left = budget - (time.monotonic() - started)
        if left < max(longest, FIRST_GUESS if not longest else 0.0):
            found[name] = f"not run: the diagnoses' budget ({budget:.0f} s) is spent"
            continue
        say(f"diagnosing {name} ({suite.name}): one more run of each side")
        t0 = time.monotonic()
        to_start = launches(suite, rows[0], sides, pins, cpus, data, logs)
        try:
            found[name] = measure.measure(
                to_start,
                name,
                timeout=min(suite.timeout, left),
                trace_dir=logs / "diagnose" / "traces" / name.replace("/", "_"),
                profile_dir=logs / "diagnose" / "samples" / name.replace("/", "_") if out else None,
            )
        except measure.Failed as e:
            found[name] = f"failed: {e}"
        except Exception as e:  # a hint, never the verdict: the gate reports what it has
            found[name] = f"failed: {type(e).__name__}: {e}"
        if out is not None and isinstance(found[name], dict):
            try:
                runs.profiles[name] = profile(name, found[name], out)
            except Exception as e:  # the profile is the diagnosis's extra, never its end
                runs.profiles[name] = profile_diff.failed(f"{type(e).__name__}: {e}")
        longest = max(longest, time.monotonic() - t0)
    runs.seconds = time.monotonic() - started
    return runs


def _tool(sampler: str) -> str:
    if sampler == "eu-stack":
        return native.version(native.available() or "")
    if sampler == "perl":
        return f"Devel::{perlsub.MODULE} (the tracker's, perl -d)"
    return pyspy.version(pyspy.available() or "")


def profile(name: str, measured: Measured, out: Path) -> dict[str, Any]:
    """gate.json's `profile` of a diagnosis: the diff written under `out` (profile_diff), or
    why there is none (no worker to sample, its sampler missing or failing)."""
    if not isinstance(measured, dict):
        return profile_diff.failed("the measurement failed")
    got = {side: e.extra.get("profile") for side, e in measured.items()}
    why = next((p for p in got.values() if isinstance(p, str)), None)
    if why is not None:
        status, _, reason = why.partition(": ")
        make = profile_diff.not_run if status == "not run" else profile_diff.failed
        return make(reason)
    samples = {side: p for side, p in got.items() if isinstance(p, pyspy.Samples)}
    if len(samples) != 2:
        return profile_diff.failed("no samples")
    try:
        return profile_diff.write(name, samples, _tool(samples["base"].sampler), out)
    except OSError as e:
        return profile_diff.failed(f"not written ({e.strerror})")


def _memory(row: Row) -> bool:
    return row.direction == "smaller" and row.unit in SMALLER_UNITS and row.unit.endswith("B")


def _counts(doc: dict[str, Any], name: str) -> classify.Counts | None:
    """The benchmark's counted series in this run, when it grew: its change and top functions."""
    for r in doc.get("benchmarks", []):
        key, series = split_key(r.get("name", ""))
        if key != name or series != COUNTED or r.get("change") is None:
            continue
        change = r["change"]
        growth = change if r.get("direction") == "smaller" else 1 / (1 + change) - 1
        top = (doc.get("functions") or {}).get(r["name"], {}).get("functions", [])
        return classify.Counts(growth, tuple((f["function"], f["share"]) for f in top))
    return None


def entry(d: classify.Diagnosis, measured: Measured | None = None) -> dict[str, Any]:
    """gate.json's `diagnosis` of a row."""
    out: dict[str, Any] = {"status": text.OK, "kinds": [f.as_dict() for f in d.findings]}
    if d.loss == d.loss:  # not NaN: a run was made
        out["loss"] = d.loss
    if isinstance(measured, dict):
        out["sides"] = {side: e.as_dict() for side, e in measured.items()}
    return out


def attach(doc: dict[str, Any], runs: Runs, outcome: Outcome) -> None:
    """`diagnosis` on every losing row of gate.json's `doc` (and `diagnosis_seconds`)."""
    wanted = losing(outcome)
    if not wanted:
        return
    measured = runs.found
    doc["diagnosis_seconds"] = round(runs.seconds, 1)
    found: dict[str, dict[str, Any]] = {}
    for name, rows in wanted.items():
        got = measured.get(name)
        if isinstance(got, dict):
            found[name] = entry(
                classify.classify(got["base"], got["head"], _counts(doc, name)), got
            )
            if name in runs.profiles:
                found[name]["profile"] = runs.profiles[name]
        elif isinstance(got, str):
            status, _, reason = got.partition(": ")
            found[name] = {"status": text.FAILED if status == "failed" else text.NOT_RUN,
                           "reason": reason}  # fmt: skip
        elif all(_memory(r) for r in rows):
            r = rows[0]
            found[name] = entry(classify.memory_row(r.base, r.head, r.unit))
    losers = {r.name for rows in wanted.values() for r in rows}
    for r in doc.get("benchmarks", []):
        name = split_key(r.get("name", ""))[0]
        if r.get("name") in losers and name in found:
            r["diagnosis"] = found[name]


def entries(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Row name -> its diagnosis, in gate.json's order (gate.md's section)."""
    return {r["name"]: r["diagnosis"] for r in doc.get("benchmarks", []) if "diagnosis" in r}


def onto_rows(doc: dict[str, Any]) -> None:
    """gate-merge: the shards' checked diagnoses (gate_comment.load keeps them by row in the
    outcome's meta, which `to_dict` writes at the top) back on their rows."""
    found = doc.pop("diagnosis", None) or {}
    for r in doc.get("benchmarks", []):
        if r.get("name") in found:
            r["diagnosis"] = found[r["name"]]
