"""The interleaved runner: rounds of (base, head) back to back, order alternating A B, B A, ….

Within a round every selected suite runs once per side, the two sides of a suite adjacent in
time, so whatever the machine does (another job, thermal drift, frequency changes) hits both
alike; alternating the order cancels a systematic first/second effect. One value per benchmark
per round: the median of that round's samples (of its pairs' ratios, in lockstep). Instruction
counts, which the machine's load does not move, run their rounds beside the others on the CPUs
lockstep leaves free, as long as no neighbour needs those CPUs too.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack.gate import placement
from benchtrack.gate.beside import CountsBeside
from benchtrack.gate.lockstep_round import measure_lockstep
from benchtrack.gate.machine_load import NeighbourMeter
from benchtrack.gate.model import Rounds, SuiteFailed, SuiteFailure
from benchtrack.gate.placement import spare_cpus
from benchtrack.gate.round_record import record
from benchtrack.gate.suite_run import build, child_env, round_log, run_once
from benchtrack.gate.verdict import budget_look
from benchtrack.gate.worktree import Checkout
from benchtrack.machine import vcpus
from benchtrack.machine.cpuset import CpuSet
from benchtrack.machine.processes import Freezer
from benchtrack.suites import COUNTED, Suite

# The counts leave the spare CPU once other work keeps this many CPUs busy on average (over at
# least WINDOW_SECONDS): with the counts there too, a neighbour would land on the lockstep CPU.
CROWDED = 0.5
WINDOW_SECONDS = 2.0

Progress = Callable[[str], None]
Want = Callable[[str], bool]  # whether the gate keeps a benchmark, by its name


def _measure(
    suite: Suite,
    order: tuple[Checkout, Checkout],
    envs: dict[tuple[str, str], dict[str, str]],
    cpus: str | None,
    logs: Path,
    rnd: int,
    *,
    both: bool,
    freezer: Freezer | None = None,
    want: Callable[[str], bool] | None = None,
    placements: dict[str, str] | None = None,
) -> list[tuple[Checkout, tuple[list, list, float] | SuiteFailed]]:
    """One run of `suite` per side, in `order`: one after the other, or `both` at once.
    `placements`: a lockstep suite's `cpus = "auto"` choices so far (lockstep.Plan).

    A side that fails is returned as its SuiteFailed, in order, so the caller drops the suite
    at the first failure exactly as if the sides had run one after the other."""

    def one(co: Checkout) -> tuple[list, list, float] | SuiteFailed:
        t0 = time.monotonic()
        log = round_log(logs, rnd, co.side, suite)
        try:
            benches, errors = run_once(suite, co, envs[suite.name, co.side], cpus, log, freezer)
        except SuiteFailed as e:
            return e
        return benches, errors, time.monotonic() - t0

    if suite.lockstep:
        return measure_lockstep(suite, order, envs, cpus, logs, rnd, want, placements)
    if not both:
        out = []
        for co in order:
            out.append((co, one(co)))
            if isinstance(out[-1][1], SuiteFailed):
                break
        return out
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [(co, pool.submit(one, co)) for co in order]
        return [(co, f.result()) for co, f in futures]


def _both(pattern: str | None, only: Want | None) -> Want | None:
    """Whether the gate keeps a benchmark: `pattern` found in its name, and `only` says yes."""
    harness = re.compile(pattern) if pattern else None
    if harness is None:
        return only
    if only is None:
        return lambda name: harness.search(name) is not None
    return lambda name: harness.search(name) is not None and only(name)


@dataclass(frozen=True)
class RoundPlan:
    """What `interleave` measures: the suites, the two sides, when to look, and on which CPUs.

    `name_filter`: one regular expression for every suite, applied beside each suite's own
    harness filter; or, per suite name, the exact benchmarks that suite is to measure (the
    confirmation's candidates: its harness filter, replacing the suite's own, so that a
    benchmark is measured by the suite that measured it in the screening and no other).
    `only`: whether the gate measures a benchmark, by its name, applied by the gate alone and
    never handed to a harness (a shard's benchmarks: gate/shards.wanted).
    `budget`: seconds from the start (builds included) the rounds may take. `crowded_at`: the
    counted suites run beside the rounds while the rest of the machine keeps fewer CPUs busy,
    inside them from then on. `builds=False`: the sides are built already (the confirmation).
    """

    suites: list[Suite]
    sides: tuple[Checkout, Checkout]
    looks: list[int]
    pins: dict[str, str] = field(default_factory=dict)
    name_filter: str | dict[str, str] | None = None
    only: Want | None = None
    cpus: str | None = None
    budget: float | None = None
    crowded_at: float = CROWDED
    builds: bool = True


def interleave(
    plan: RoundPlan,
    logs: Path,
    *,
    stop_when: Callable[[Rounds], bool],
    progress: Progress,
    failures: list[SuiteFailure],
) -> Rounds:
    """Build both sides, then measure rounds until the last look or `stop_when` says so at a look.
    When the rounds to the next look would end after the plan's budget (the pace is the mean
    round so far), that look becomes the last and moves to the rounds the budget still holds
    (none: stop here). Stopping at a look is sound whatever decides it: every look spends its
    own share of alpha.

    A suite that fails to build or run on either side is dropped for both (its failure recorded
    in `failures`); the other suites go on. Round logs go under `logs`.
    """
    run = _Interleaving(plan, logs, progress, failures)
    if plan.builds:
        _build_all(list(run.live), plan.sides, run.envs, logs, progress, run.drop)
    main = run.place_counts()
    run.data.build_seconds = time.monotonic() - run.started
    return run.rounds(main, stop_when)


def build_sides(
    plan: RoundPlan, logs: Path, progress: Progress, failures: list[SuiteFailure]
) -> list[Suite]:
    """Every suite built on both sides as interleave() builds them, nothing measured (the
    builds a runner size's shards share, gate/prebuilt.py): the suites that built."""
    run = _Interleaving(plan, logs, progress, failures)
    _build_all(list(run.live), plan.sides, run.envs, logs, progress, run.drop)
    return run.live


class _Interleaving:
    """One interleave() call: the suites still live, their environments and name filters, the
    rounds recorded so far, and the counted suites' thread when they run beside the rounds."""

    def __init__(
        self, plan: RoundPlan, logs: Path, progress: Progress, failures: list[SuiteFailure]
    ) -> None:
        self.plan, self.logs, self.progress, self.failures = plan, logs, progress, failures
        self.data = Rounds()
        self.started = time.monotonic()
        self.meter = NeighbourMeter(WINDOW_SECONDS)  # from here, so the builds' span is seen too
        exact = isinstance(plan.name_filter, dict)
        filters = plan.name_filter if exact else {s.name: plan.name_filter for s in plan.suites}
        self.wants = {s.name: _both(filters.get(s.name), plan.only) for s in plan.suites}
        self.live = list(plan.suites)
        base_cache = next(co.cache for co in plan.sides if co.side == "base")
        self.envs = {
            (s.name, co.side): child_env(co, s, plan.pins, filters.get(s.name), exact, base_cache)
            for s in plan.suites
            for co in plan.sides
        }
        self.lock = threading.Lock()  # the counts' thread records into `data` too
        self.freezer = (
            Freezer()
        )  # the counts beside the rounds; paused while a suite needs every CPU
        self.pausing = False  # set once the counts run beside the rounds
        self.counts: CountsBeside | None = None
        self.counted: list[Suite] = []
        self.most = 0  # the counted suites' rounds
        self.inside = 0  # the next count round the rounds owe, once the counts are handed back

    def drop(self, suite: Suite, failure: SuiteFailure) -> None:
        self.failures.append(failure)
        self.live.remove(suite)
        self.progress(f"{suite.name}: {failure.side} failed to {failure.what}; see {failure.log}")

    def _auto_choices(self, suite: Suite) -> dict[str, str] | None:
        """A `cpus = "auto"` suite's placements so far: each benchmark probed once a run."""
        if suite.cpus != placement.AUTO:
            return None
        return self.data.placements.setdefault(suite.name, {})

    def run_round(
        self, rnd: int, suites: list[Suite], on: str | None, stop=None, beside=False
    ) -> None:
        base, head = self.plan.sides
        order = (base, head) if rnd % 2 == 0 else (head, base)
        for suite in suites:
            if suite not in self.live or (suite.rounds is not None and rnd >= suite.rounds):
                continue  # dropped, or a deterministic series that needs no more rounds
            if suite.one_run and rnd > 0:
                continue  # its first run gave all its rounds
            if stop is not None and stop.is_set():
                return
            # Counts do not depend on the machine's load: both sides run at once, one per core
            # (one after the other beside lockstep on a single spare CPU). Wall time is
            # measured in lockstep or one side at a time, the two back to back.
            both = suite.series == COUNTED and (on is None or CpuSet.parse(on).count > 1)
            full = self.pausing and not beside and suite.lockstep and suite.cpus != "one"
            want = self.wants[suite.name]
            with self.freezer.paused() if full else contextlib.nullcontext():
                runs = _measure(
                    suite,
                    order,
                    self.envs,
                    on,
                    self.logs,
                    rnd,
                    both=both,
                    freezer=self.freezer if beside else None,
                    want=want,
                    placements=self._auto_choices(suite),
                )
            with self.lock:
                last = self.plan.looks[-1]
                record(self.data, suite, rnd, runs, want, last, self.drop, self.progress)

    def _crowded(self) -> bool:
        others = self.meter.neighbour()
        self.data.neighbour = list(self.meter.readings)
        return others is not None and others >= self.plan.crowded_at

    def place_counts(self) -> list[Suite]:
        """The counted suites' rounds beside the rest when lockstep leaves a CPU free (their
        thread made, not started), and every pool sized; the suites the rounds run."""
        cpus, sides = self.plan.cpus, self.plan.sides
        every = str(CpuSet.of(cpus).count)
        spare = spare_cpus(cpus)
        self.counted = [s for s in self.live if s.series == COUNTED]
        self.most = max((s.rounds or self.plan.looks[-1] for s in self.counted), default=0)
        if spare and self.counted and any(s.lockstep for s in self.live):
            self.counts = CountsBeside(
                self.counted, self.most, spare, self.run_round, self._crowded
            )
            self.pausing = True
            # Pinned to the spare CPUs, a harness would size its pools to them (one thread on a
            # 2-vCPU runner) and count another workload: keep the pools the gate's CPUs give.
            for s in self.counted:
                for co in sides:
                    self.envs[s.name, co.side].setdefault("BENCH_THREADS", every)
        if self.counts is None and self.counted:
            self.data.counts_inside_from = 0
        # A full-size lockstep suite's workers size their pools to every CPU of the job.
        for s in self.live:
            if s.lockstep and s.cpus != "one":
                for co in sides:
                    self.envs[s.name, co.side].setdefault("BENCH_THREADS", every)
        return [s for s in self.live if self.counts is None or s not in self.counted]

    def read_vcpus(self) -> None:
        """Each CPU's speed at the round's start (machine/vcpus.py), the counts beside the
        rounds paused meanwhile (~30 ms on 2 CPUs): they would share the spare CPU's reading."""
        with self.freezer.paused() if self.pausing else contextlib.nullcontext():
            reading = vcpus.probe(CpuSet.of(self.plan.cpus).ids)
        if reading is not None:
            self.data.vcpus.append(reading.to_dict())

    def counts_inside(self, rnd: int) -> None:
        """Once the counts are handed back: their rounds up to `rnd` inside the rounds."""
        counts, data = self.counts, self.data
        if counts is None or not counts.handed_back:
            return
        counts.join()  # it stopped before starting another count round
        if data.counts_inside_from is None:
            self.inside = data.counts_inside_from = counts.done
            self.progress(
                f"counts from round {self.inside + 1} inside the rounds: a neighbour keeps "
                f"{data.neighbour[-1]:g} CPUs busy"
            )
        for j in range(self.inside, min(rnd + 1, self.most)):
            self.run_round(j, self.counted, self.plan.cpus)
            self.inside = j + 1

    def rounds(self, main: list[Suite], stop_when: Callable[[Rounds], bool]) -> Rounds:
        """The rounds, to the last look or the one `stop_when` or the budget ends them at."""
        plan, data, counts = self.plan, self.data, self.counts
        base, head = plan.sides
        measuring = time.monotonic()
        if counts is not None:
            counts.start()
        schedule = list(plan.looks)  # the looks to take; the budget may move the last one earlier
        try:
            for rnd in range(plan.looks[-1]):
                if not self.live:
                    break
                round_started = time.monotonic()
                self.read_vcpus()
                order = (base, head) if rnd % 2 == 0 else (head, base)
                data.orders.append(f"{order[0].side},{order[1].side}")
                self.run_round(rnd, main, plan.cpus)
                if counts is not None and rnd + 1 in schedule:
                    counts.wait(rnd + 1)  # a look judges the counts' rounds too
                self.counts_inside(rnd)
                data.round_seconds.append(time.monotonic() - round_started)
                data.seconds = time.monotonic() - self.started
                if rnd + 1 == schedule[-1] or (rnd + 1 in schedule and stop_when(data)):
                    break
                if plan.budget is not None and rnd + 1 in schedule:
                    pace = (time.monotonic() - measuring) / (rnd + 1)
                    kept = _within_budget(schedule, rnd + 1, data, plan.budget, pace, self.progress)
                    if kept is None:
                        break
                    schedule = kept
        finally:
            if counts is not None:
                counts.stop.set()  # no new count run starts; the one under way ends
                counts.join()
        data.seconds = time.monotonic() - self.started
        return data


def _build_all(
    suites: list[Suite],
    sides: tuple[Checkout, Checkout],
    envs: dict[tuple[str, str], dict[str, str]],
    logs: Path,
    progress: Progress,
    drop: Callable[[Suite, SuiteFailure], None],
) -> None:
    """Each suite built on both sides; one that fails on either is dropped for both."""
    for suite in suites:
        for co in sides:
            progress(f"build {suite.name} ({co.side} {co.sha[:10]})")
            log = logs / f"build-{co.side}-{suite.name}.log"
            try:
                build(suite, co, envs[suite.name, co.side], log)
            except SuiteFailed as e:
                drop(suite, e.failure)
                break


def _within_budget(
    schedule: list[int], at: int, data: Rounds, budget: float, pace: float, progress: Progress
) -> list[int] | None:
    """The looks to take after look `at` under `budget`: as they are, the last one moved to the
    rounds the budget still holds, or None: stop here."""
    following = schedule[schedule.index(at) + 1]
    if data.seconds + pace * (following - at) <= budget:
        return schedule
    data.stopped_by_budget = True
    last = int(budget_look(at, following, budget - data.seconds, pace))
    if last == at:
        progress(
            f"stopping at {at} rounds: {following} would end after the "
            f"{budget / 60:.0f}-minute budget ({pace:.0f} s a round)"
        )
        return None
    progress(
        f"the last look at {last} rounds, not {following}: the budget has "
        f"room for {last - at} more ({pace:.0f} s a round)"
    )
    return [*schedule[: schedule.index(at) + 1], last]
