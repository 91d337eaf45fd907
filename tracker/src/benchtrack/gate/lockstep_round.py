"""A lockstep suite's round: both sides' step workers taking turns (gate/lockstep.py), in
`processes` pairs one after the other, reduced to one value per benchmark and side."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchtrack.gate import lockstep, lockstep_worker, placement
from benchtrack.gate.model import SuiteFailed, SuiteFailure
from benchtrack.gate.placement import one_cpu
from benchtrack.gate.suite_run import RunError, round_log
from benchtrack.gate.worktree import Checkout
from benchtrack.machine.cpuset import CpuSet
from benchtrack.suites import Suite


@dataclass(frozen=True)
class SideBench:
    name: str
    unit: str
    samples: list[float]
    direction: str = "bigger"
    key: str | None = None  # its series key, when not the suite's (the CPU time beside wall)
    seconds: float | None = None  # lockstep: its warm-up and pairs


def measure_lockstep(
    suite: Suite,
    order: tuple[Checkout, Checkout],
    envs: dict[tuple[str, str], dict[str, str]],
    cpus: str | None,
    logs: Path,
    rnd: int,
    want: Callable[[str], bool] | None = None,
    placements: dict[str, str] | None = None,
) -> list[tuple[Checkout, tuple[list, list, float] | SuiteFailed]]:
    """Both sides' step workers at once, taking turns (gate/lockstep.py): on one CPU, with
    every CPU of the job each, or on one for each benchmark that keeps no more than one busy
    (the suite's `cpus`: gate/placement.py); `processes` pairs of them one after the other,
    each reduced to one value per side (lockstep.paired_values)."""
    t0 = time.monotonic()
    auto = suite.cpus == placement.AUTO
    cpu = one_cpu(cpus) if suite.cpus == "one" or auto else cpus
    n = suite.processes
    plan = lockstep.Plan(
        pairs=max(4, math.ceil(suite.pairs / n)),
        seconds=suite.pair_seconds / n,
        seconds_by=tuple((glob, s / n) for glob, s in suite.pair_seconds_by.items()),
        clock=suite.clock,
        min_pairs=suite.min_pairs or (5 if n == 1 else 2),
        one=frozenset({int(one_cpu(cpus))}) if auto else None,
        every=frozenset(CpuSet.of(cpus).ids),
        placements={} if placements is None else placements,
    )
    outcomes: list[lockstep.Outcome] = []
    workers: dict[str, lockstep_worker.Worker] = {}  # each side's worker to quote: one that failed
    for k in range(n):
        # The second process pair starts in the other order, and so on, so that both sides
        # start first equally often within the round too.
        turn = order if k % 2 == 0 else order[::-1]
        run = _lockstep_once(suite, turn, envs, cpu, logs, rnd, k, plan, want)
        if isinstance(run[1], SuiteFailed):
            return [run]
        outcome, started = run
        outcomes.append(outcome)
        for side, w in started.items():
            if side not in workers or outcome.exit_codes[side] != 0:
                workers[side] = w
        if any(outcome.exit_codes.values()):
            break  # a worker that failed once fails again: one failure is enough
    result = outcomes[0] if len(outcomes) == 1 else _per_process(outcomes, suite.pool)
    seconds = time.monotonic() - t0
    out: list[tuple[Checkout, tuple[list, list, float] | SuiteFailed]] = []
    for co in order:
        benches = [
            SideBench(b.name, b.unit, b.samples[co.side], b.direction, seconds=b.seconds)
            for b in result.benchmarks
            if co.side in b.samples
        ] + [
            SideBench(b.name, b.unit, b.cpu[co.side], b.direction, f"{b.name} (cpu)")
            for b in result.benchmarks
            if co.side in b.cpu and suite.times_cpu(b.name)
        ]
        errors: list = list(result.errors[co.side])
        code = result.exit_codes[co.side]
        if code != 0 and not errors:
            tail = workers[co.side].tail().splitlines()
            errors.append(RunError(suite.name, f"exit {code}: {tail[-1] if tail else ''}"))
        if code != 0 and not benches and not result.errors[co.side]:
            w = workers[co.side]
            fail = SuiteFailure(co.side, suite.name, "run", w.tail(), w.log)
            out.append((co, SuiteFailed(fail)))
            break
        out.append((co, (benches, errors, seconds)))
    return out


def _lockstep_once(
    suite: Suite,
    order: tuple[Checkout, Checkout],
    envs: dict[tuple[str, str], dict[str, str]],
    cpu: str | None,
    logs: Path,
    rnd: int,
    k: int,
    plan: lockstep.Plan,
    want: Callable[[str], bool] | None,
):
    """One pair of workers (the round's `k`-th): (the outcome, the workers), or (the failed
    side's checkout, SuiteFailed)."""
    workers: dict[str, lockstep_worker.Worker] = {}
    try:
        # Started in the given order (base first one round, head the next): whatever the
        # first process to start gets (memory, the page cache's state) must not always go to
        # one side, where it would read as a change (a quiet A/A recording showed it).
        for co in order:
            log = round_log(logs, rnd, co.side, suite)
            if k:
                log = log.with_name(f"{log.stem}-p{k + 1}{log.suffix}")
            env = envs[suite.name, co.side]
            workers[co.side] = lockstep_worker.Worker(
                co.side, suite.command, co.path, env, log, cpu
            )
        workers = {side: workers[side] for side in ("base", "head")}
        flip = order[0].side == "head"
        outcome = lockstep.measure(workers, plan, flip=flip, timeout=suite.timeout, want=want)
    except lockstep_worker.WorkerFailed as e:  # measure() has stopped both workers
        failed = next(co for co in order if co.side == e.side)
        fail = SuiteFailure(e.side, suite.name, "run", e.tail, workers[e.side].log)
        return failed, SuiteFailed(fail)
    return outcome, workers


def _per_process(outcomes: list[lockstep.Outcome], pool: str) -> lockstep.Outcome:
    """Several process pairs' outcomes as one: per benchmark and side, one value per process
    pair (lockstep.paired_values over its own pairs), aligned; with `pool` "pairs", all their
    pairs, aligned (Suite.pool). A benchmark missing from a process pair's outcome (an error
    there) is left out of the round."""
    by_name: dict[str, list[lockstep.Stepped]] = {}
    for outcome in outcomes:
        for b in outcome.benchmarks:
            by_name.setdefault(b.name, []).append(b)
    merged: list[lockstep.Stepped] = []
    for name, runs in by_name.items():
        one = lockstep.Stepped(name, runs[0].unit, direction=runs[0].direction)
        one.seconds = sum(r.seconds for r in runs)
        sides = {side for r in runs for side, values in r.samples.items() if values}
        if sides != {"base", "head"}:  # on one side only: measured alone, nothing to pair
            one.samples = {s: [x for r in runs for x in r.samples.get(s, [])] for s in sides}
            one.cpu = {s: [x for r in runs for x in r.cpu.get(s, [])] for s in sides}
            merged.append(one)
            continue
        if len(runs) < len(outcomes) or any(not all(r.samples.values()) for r in runs):
            continue  # an error in one process pair: its errors say which
        for clock in ("samples", "cpu"):
            pairs = [getattr(r, clock) for r in runs]
            if not all(p.get("base") and p.get("head") for p in pairs):
                setattr(one, clock, {})  # not every process pair has this clock's values
                continue
            if pool == "pairs":
                kept = {side: [x for p in pairs for x in p[side]] for side in ("base", "head")}
            else:
                values = [lockstep.paired_values(p["base"], p["head"]) for p in pairs]
                kept = {"base": [b for b, _ in values], "head": [h for _, h in values]}
            setattr(one, clock, kept)
        merged.append(one)
    errors: dict[str, list[lockstep_worker.StepError]] = {"base": [], "head": []}
    codes = {"base": 0, "head": 0}
    for outcome in outcomes:
        for side in errors:
            errors[side].extend(e for e in outcome.errors[side] if e not in errors[side])
            codes[side] = codes[side] or outcome.exit_codes[side]
    return lockstep.Outcome(sorted(merged, key=lambda b: b.name), errors, codes)
