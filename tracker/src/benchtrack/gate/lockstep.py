"""Lockstep measurement: base and head as two long-lived processes on one CPU, stepping in turn.

Whole suites run one after the other are seconds apart, and on a shared 2-vCPU runner a vCPU's
speed changes over milliseconds to seconds: two such runs are nearly uncorrelated. Here both
sides' harnesses start once per round, are pinned to the same CPU, and take turns: base runs a
short step (~`step` seconds of one benchmark), then head the same step, and so on in ABBA order,
`pairs` times per benchmark. Each pair's log-ratio sees the same machine state, and a round's
value is the median of its pairs' log-ratios (tracker/GATE.md; the measurements: tracker/LAB.md).

The worker protocol (any language; docs/architecture.md): the harness finds two file
descriptors in `BENCH_STEP="<in>,<out>"` and walks its selected benchmarks in sorted name
order. For each it runs the benchmark once (warm-up; its result is the one the harness checks),
then writes `ready <name>\t<unit>\t<elements>[\t<clock>]` and serves commands read from <in>:

    run <n>   -> `ns <nanoseconds>` (n calls, timed together), or `error <message>`;
                 with the clock `wall+cpu`, `ns <wall nanoseconds> <cpu nanoseconds>`
    next      -> goes on to the next benchmark (nothing written)

`<clock>` says what its steps are timed by: `wall` (the default when left out), `cpu` (the
process's CPU time, all threads, which a neighbour preempting the step does not advance) or
`wall+cpu` (both, read around the same calls: one step gives both series); the
gate asks for one in `BENCH_STEP_CLOCK`, and a benchmark timed by another is a step error (a
worker that cannot time CPU must not pass wall time off as it).
A benchmark that fails before it is ready writes `error <name>\t<message>` instead of `ready`.
End of output (the process exits) ends the list.
"""

from __future__ import annotations

import fnmatch
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from benchtrack.gate import placement
from benchtrack.gate.lockstep_worker import Ready, StepError, Worker


@dataclass
class Stepped:
    """One benchmark's throughputs in one round, base and head aligned pair by pair."""

    name: str
    unit: str
    samples: dict[str, list[float]] = field(default_factory=lambda: {"base": [], "head": []})
    direction: str = "bigger"
    # Throughputs by the process's CPU time, from the same steps (the clock `wall+cpu`).
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"base": [], "head": []})
    # Seconds it took, from the last benchmark's end (its warm-up included) to its last pair:
    # what measuring it alone would cost a round, less the workers' start.
    seconds: float = 0.0


@dataclass(frozen=True)
class Plan:
    """How much to measure of each benchmark per round."""

    pairs: int = 30  # pairs per benchmark, at most
    seconds: float = 1.0  # per benchmark and round, both sides: stop adding pairs after it
    min_pairs: int = 5  # even when a step takes longer than the budget allows
    step: float = 0.01  # seconds a step aims at (n calls timed together)
    clock: str = "wall"  # what the steps must be timed by (the workers say what they used)
    # Per benchmark (glob on its name, the longest match wins): more time where the pairs
    # spread most, less where a few already agree.
    seconds_by: tuple[tuple[str, float], ...] = ()
    # `cpus = "auto"` (gate/placement.py): the CPU the workers start on and a single-threaded
    # benchmark's pairs share, the CPUs a probe and a threaded benchmark's pairs get, and the
    # choices made so far, by name (one dict for the whole gate run: each benchmark is probed
    # once).
    one: frozenset[int] | None = None
    every: frozenset[int] = frozenset()
    placements: dict[str, str] = field(default_factory=dict)

    def seconds_for(self, name: str) -> float:
        hits = [(glob, s) for glob, s in self.seconds_by if fnmatch.fnmatchcase(name, glob)]
        return max(hits, key=lambda hit: len(hit[0]))[1] if hits else self.seconds


@dataclass
class Outcome:
    benchmarks: list[Stepped]
    errors: dict[str, list[StepError]]  # side -> errors
    exit_codes: dict[str, int]


def measure(
    workers: dict[str, Worker],
    plan: Plan,
    flip: bool,
    timeout: float,
    want: Callable[[str], object] | None = None,
) -> Outcome:
    """One round: both workers walk their benchmarks together (a merge on the sorted names); a
    benchmark on one side only is measured alone. `flip` starts the ABBA order with head. A
    benchmark `want` rejects is passed over (`next` after its warm-up)."""
    deadline = time.monotonic() + timeout
    for w in workers.values():
        w.deadline = deadline
    errors: dict[str, list[StepError]] = {"base": [], "head": []}
    out: list[Stepped] = []
    try:
        mark = time.monotonic()
        cur = {side: w.next_ready(errors[side]) for side, w in workers.items()}
        while cur["base"] or cur["head"]:
            b, h = cur["base"], cur["head"]
            if b and h and b.name == h.name:
                # The round's first side first, here too: the side warmed up (and calibrated)
                # last starts the benchmark's pairs fresher from its warm-up, and that must
                # not be one side every time (the round's process pairs alternate `flip`).
                sides = ["head", "base"] if flip else ["base", "head"]
            elif h is None or (b is not None and b.name < h.name):
                sides = ["base"]
            else:
                sides = ["head"]
            if want is None or want(cur[sides[0]].name):
                stepped = _pairs(
                    {s: workers[s] for s in sides}, {s: cur[s] for s in sides}, plan, flip
                )
                if isinstance(stepped, StepError):
                    for s in sides:
                        if stepped.side in (None, s):
                            errors[s].append(stepped)
                else:
                    stepped.seconds = time.monotonic() - mark
                    out.append(stepped)
            mark = time.monotonic()
            for s in sides:
                workers[s].send("next")
                cur[s] = workers[s].next_ready(errors[s])
    except BaseException:
        for w in workers.values():
            w.stop()
        raise
    codes = {side: w.finish() for side, w in workers.items()}
    return Outcome(out, errors, codes)


def _pairs(
    workers: dict[str, Worker], ready: dict[str, Ready], plan: Plan, flip: bool
) -> Stepped | StepError:
    first = next(iter(ready.values()))
    for side, r in ready.items():
        if r.clock != plan.clock:
            message = (
                f"timed by the {r.clock} clock, not the {plan.clock} clock this suite asks for"
            )
            return StepError(first.name, message, side)
    if len({(r.unit, r.elements) for r in ready.values()}) > 1:
        # Different work per call: the two sides no longer measure the same thing.
        sides = "; ".join(f"{s}: {r.elements:g} {r.unit}" for s, r in ready.items())
        return StepError(first.name, f"the sides do different work per call ({sides})")
    # Calls per step: the slower side's single call sets it, the same n on both sides.
    single = 0.0
    clocks = len(plan.clock.split("+"))

    def step(side: str, n: int) -> tuple[float, ...] | StepError:
        t = workers[side].run(n)
        if isinstance(t, str):
            return StepError(first.name, t, side)
        if len(t) != clocks:
            return StepError(first.name, f"{len(t)} times a step, not {clocks} ({plan.clock})")
        return t

    for side in workers:
        t = step(side, 1)
        if isinstance(t, StepError):
            return t
        single = max(single, t[0] * 1e-9)
    n = max(1, round(plan.step / single)) if single > 0 else 1
    if plan.one is None:
        return _paired(workers, first, step, n, plan, flip, clocks)
    # `cpus = "auto"`: the workers live on `one` CPU (started there, as "one" starts them), and
    # are given every CPU for a probe, and for the pairs of a benchmark that keeps more busy;
    # moved only then, so a single-threaded benchmark's later rounds run as under "one".
    sessions = [w.proc.pid for w in workers.values()]
    where = plan.placements.get(first.name)
    if where is None:
        placement.pin(sessions, set(plan.every))
        probed = _probe(workers, step, n)
        if isinstance(probed, StepError):
            placement.pin(sessions, set(plan.one))
            return probed
        where = plan.placements[first.name] = placement.choose(probed)
        for side, w in workers.items():
            w.note(f"placement {first.name}: {where} ({probed[side]})")
        if where == placement.ONE:
            placement.pin(sessions, set(plan.one))
    elif where == placement.ALL:  # probed in an earlier round: still on the one CPU
        placement.pin(sessions, set(plan.every))
    try:
        return _paired(workers, first, step, n, plan, flip, clocks)
    finally:
        if where == placement.ALL:
            placement.pin(sessions, set(plan.one))


def _probe(workers: dict[str, Worker], step, n: int) -> dict[str, placement.Usage] | StepError:
    """What each side's session used over its steps of `n` calls, every CPU allowed, for
    placement.PROBE_SECONDS (both sides), their values not kept: its CPU time over the wall time
    and its busy threads. The wall time is the gate's, around each step: a harness that starts a
    process per step spends its start-up there too."""
    before = {side: placement.read(w.proc.pid) for side, w in workers.items()}
    wall = dict.fromkeys(workers, 0.0)
    started = time.monotonic()
    pairs = 0
    while pairs < 2 or time.monotonic() - started < placement.PROBE_SECONDS:
        for side in workers:
            t0 = time.monotonic()
            t = step(side, n)
            if isinstance(t, StepError):
                return t
            wall[side] += time.monotonic() - t0
        pairs += 1
    used = {}
    for side, w in workers.items():
        busy = max(wall[side], 1e-9)
        after = placement.read(w.proc.pid)
        used[side] = placement.Usage(
            (after.cpu - before[side].cpu) / busy,
            placement.busy_threads(before[side].threads, after.threads, busy),
        )
    return used


def _paired(
    workers: dict[str, Worker], first: Ready, step, n: int, plan: Plan, flip: bool, clocks: int
) -> Stepped:
    stepped = Stepped(first.name, first.unit)
    sides = [s for s in ("base", "head") if s in workers]  # ABBA from base, or from head: flip
    budget = plan.seconds_for(first.name)
    started = time.monotonic()
    for p in range(plan.pairs):
        if p >= plan.min_pairs and time.monotonic() - started > budget:
            break
        order = sides if (p % 4 in (0, 3)) != flip else sides[::-1]
        for side in order:
            t = step(side, n)
            if isinstance(t, StepError):
                return t
            stepped.samples[side].append(first.elements * n / (t[0] * 1e-9))
            if clocks == 2:
                stepped.cpu[side].append(first.elements * n / (t[1] * 1e-9))
    stepped.samples = {side: stepped.samples[side] for side in sides}
    stepped.cpu = {side: stepped.cpu[side] for side in sides} if clocks == 2 else {}
    return stepped


def paired_values(
    base: list[float], head: list[float], processes: bool = False
) -> tuple[float, float]:
    """A round's two values from aligned pairs: base's median, and head's as base's median
    times the median pair ratio, so that head/base is the pairs' own median ratio (which
    cancels what both sides of a pair saw alike; the two medians alone would not).

    With `processes`, each "pair" is one process pair's own values (this function's, over its
    steps), and the ratio is their mean log-ratio: each process keeps an offset of its own
    (its memory layout), often one of a few, and the median of a few such modes jumps between
    them where the mean averages them."""
    base_value = statistics.median(base)
    logs = [math.log(h / x) for x, h in zip(base, head, strict=True)]
    ratio = statistics.fmean(logs) if processes else statistics.median(logs)
    return base_value, base_value * math.exp(ratio)
