"""A round's runs of one suite, both sides, into the gate's Rounds (gate/model.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from benchtrack.gate.model import Meta, Rounds, SuiteFailed, SuiteFailure
from benchtrack.gate.suite_run import RunError
from benchtrack.suites import Suite

Progress = Callable[[str], None]


def _misconfigured(data: Rounds, suite: Suite, b, key: str) -> str | None:
    """Why `suite`'s configuration cannot give benchmark `b`'s rounds (series `key`), if so."""
    other = data.meta.get(key)
    if other is not None and other.suite != suite.name:
        # Two suites measuring one series would pool two measurements (one CPU and full size)
        # into one interval.
        return (
            f"measures {key}, which suite {other.suite} measures too: give each "
            "benchmark to one suite (their BENCH_FILTERs must not overlap)"
        )
    if suite.one_run and len(b.samples) < suite.rounds:
        # Rounds left empty would read as a suite that stopped early.
        return (
            f"its one run gave {len(b.samples)} count(s) of {b.name}, but `one_run` takes its "
            f"{suite.rounds} rounds from that run: count it at least {suite.rounds} times (the "
            "harness's iterations) or lower `rounds`"
        )
    return None


def record(
    data: Rounds,
    suite: Suite,
    rnd: int,
    runs: list,
    want: Callable[[str], bool] | None,
    last: int,
    drop: Callable[[Suite, SuiteFailure], None],
    progress: Progress,
) -> None:
    """Round `rnd`'s runs of `suite` (both sides) into `data`; a failed side drops the suite."""
    for co, outcome in runs:
        if isinstance(outcome, SuiteFailed):
            drop(suite, outcome.failure)
            break
        benches, errors, seconds = outcome
        for b in benches:
            if want is not None and not want(b.name):
                continue
            direction = getattr(b, "direction", "bigger")
            per_process = suite.lockstep and suite.processes > 1 and suite.pool == "processes"
            meta = Meta(b.unit, direction, suite.name, suite.lockstep, per_process)
            key = getattr(b, "key", None) or suite.key(b.name)
            why = _misconfigured(data, suite, b, key)
            if why is not None:  # the configuration, not the run: say so, record nothing
                drop(suite, SuiteFailure(co.side, suite.name, "run", why, Path(os.devnull)))
                return
            if suite.one_run:  # its k-th counted run is round k's value
                for k, x in enumerate(b.samples[: suite.rounds]):
                    data.add(co.side, k, key, [x], meta)
            else:
                data.add(co.side, rnd, key, list(b.samples), meta)
            if getattr(b, "seconds", None) is not None and co.side == "base":
                spent = data.bench_seconds.setdefault(key, [])
                spent.extend([None] * (rnd - len(spent)))
                spent.append(round(b.seconds, 3))
        data.run_seconds.setdefault(suite.name, []).append(seconds)
        for e in errors:
            if want is None or want(e.name) or isinstance(e, RunError):
                data.errors[co.side].setdefault(suite.key(e.name), e.message)
        progress(
            f"round {rnd + 1}/{last} {suite.name} {co.side}: "
            f"{len(benches)} benchmarks in {seconds:.1f} s"
        )
    if suite.lockstep:
        for name, m in data.meta.items():
            if m.suite == suite.name and all(
                len(data.samples[side].get(name, [])) == rnd + 1
                and data.samples[side][name][rnd] is not None
                for side in ("base", "head")
            ):
                data.pair(rnd, name)
