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
import math
import os
import re
import shutil
import string
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchtrack import ingest
from benchtrack.errors import BadInput
from benchtrack.gate import lockstep, placement
from benchtrack.gate.machine_load import NeighbourMeter
from benchtrack.gate.model import Meta, Rounds, SuiteFailed, SuiteFailure
from benchtrack.gate.verdict import budget_look
from benchtrack.gate.worktree import Checkout
from benchtrack.processes import Freezer, shell
from benchtrack.runner import cpu_ids
from benchtrack.suites import COUNTED, Suite

# Inherited variables that would point a checkout's tools at the user's tree or environment
# (set by `uv run` or an outer `cargo make`); each checkout resolves its own.
_STRIP = ("BENCH_RAW", "BENCH_RESULTS", "BENCH_HISTORY", "VIRTUAL_ENV", "CARGO_TARGET_DIR")
TAIL_LINES = 30
# The counts leave the spare CPU once other work keeps this many CPUs busy on average (over at
# least WINDOW_SECONDS): with the counts there too, a neighbour would land on the lockstep CPU.
CROWDED = 0.5
WINDOW_SECONDS = 2.0


def child_env(
    co: Checkout,
    suite: Suite,
    pins: dict[str, str],
    filt: str | None,
    replace: bool,
    base_cache: Path,
) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in _STRIP and not k.startswith("CARGO_MAKE_")
    }
    env.update(pins)
    env["GATE_CHECKOUT"], env["GATE_CACHE"], env["GATE_SIDE"] = str(co.path), str(co.cache), co.side
    env["GATE_SHARED_CACHE"] = str(co.cache.parent / "shared")
    # What a head's build may start from: this run's base side's cache (record-aa names its
    # sides' caches after its suites, so not always cache/base).
    env["GATE_BASE_CACHE"] = str(base_cache)
    # This tracker, for suites that call one (instruction counts): both sides counted alike.
    env["BENCHTRACK"] = f"{sys.executable} -m benchtrack"
    if suite.lockstep:  # what the step worker times: wall time or the process's CPU time
        env["BENCH_STEP_CLOCK"] = suite.clock
    for key, value in suite.env.items():
        env[key] = string.Template(value).safe_substitute(env)
    # A suite with a filter of its own keeps it (suites of one harness split its benchmarks
    # between them); the gate then applies `filt` to what it measures (lockstep skips the rest
    # after their warm-up). `replace`: `filt` names exact benchmarks of this suite (the
    # confirmation's candidates), so it is the harness's filter.
    if filt and ("BENCH_FILTER" not in suite.env or replace):
        env["BENCH_FILTER"] = filt
    return env


def toolchain_pins(head: Path) -> dict[str, str]:
    """Pin both sides to the head's toolchains, whatever the base's rust-toolchain.toml says."""
    pins = {"UV_PYTHON": getattr(sys, "_base_executable", sys.executable)}
    if shutil.which("rustup"):
        proc = subprocess.run(
            ["rustup", "show", "active-toolchain"],
            cwd=head,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode == 0 and proc.stdout.split():
            pins["RUSTUP_TOOLCHAIN"] = proc.stdout.split()[0]
    return pins


def parse_raw(suite: Suite, raw: Path):
    own = ingest.names_own_suite(suite.adapter)
    return ingest.parse(suite.adapter, raw, None if own else suite.name)


def run_once(
    suite: Suite,
    co: Checkout,
    env: dict[str, str],
    cpus: str | None,
    log: Path,
    freezer: Freezer | None = None,
) -> tuple[list, list]:
    """One short measurement of `suite` in checkout `co`: (benchmarks, errors) of its raw output."""
    raw = co.path / suite.raw
    if raw.is_dir():
        shutil.rmtree(raw)  # a stale result must never pass for this round's
    else:
        raw.unlink(missing_ok=True)
    raw.parent.mkdir(parents=True, exist_ok=True)  # harnesses write there but may not create it
    command = f"taskset -c {cpus} bash -c {_quote(suite.command)}" if cpus else suite.command
    code, tail = shell(command, co.path, env, suite.timeout, log, freezer)
    if not raw.exists():
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", tail, log))
    try:
        parsed = parse_raw(suite, raw)
    except BadInput as e:
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", f"{tail}\n{e}", log)) from None
    if code != 0 and not parsed.errors and not parsed.benchmarks:
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", tail, log))
    errors = list(parsed.errors)
    if code != 0 and not errors:
        # The harness said something failed but its output names nothing: never let the missing
        # benchmarks pass as "present on one side only".
        errors.append(
            _RunError(suite.name, f"exit {code}: {tail.splitlines()[-1] if tail else ''}")
        )
    return parsed.benchmarks, errors


@dataclass(frozen=True)
class _RunError:
    name: str
    message: str


def build(suite: Suite, co: Checkout, env: dict[str, str], log: Path) -> None:
    if suite.build:
        code, tail = shell(suite.build, co.path, env, suite.timeout * 4, log)
        if code != 0:
            raise SuiteFailed(SuiteFailure(co.side, suite.name, "build", tail, log))


def _round_log(logs: Path, rnd: int, side: str, suite: Suite) -> Path:
    return logs / f"round{rnd + 1:02d}-{side}-{suite.name}.log"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


Progress = Callable[[str], None]


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
        log = _round_log(logs, rnd, co.side, suite)
        try:
            benches, errors = run_once(suite, co, envs[suite.name, co.side], cpus, log, freezer)
        except SuiteFailed as e:
            return e
        return benches, errors, time.monotonic() - t0

    if suite.lockstep:
        return _lockstep(suite, order, envs, cpus, logs, rnd, want, placements)
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


@dataclass(frozen=True)
class _SideBench:
    name: str
    unit: str
    samples: list[float]
    direction: str = "bigger"
    key: str | None = None  # its series key, when not the suite's (the CPU time beside wall)
    seconds: float | None = None  # lockstep: its warm-up and pairs


def _lockstep(
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
        every=frozenset(_allowed(cpus)),
        placements={} if placements is None else placements,
    )
    outcomes: list[lockstep.Outcome] = []
    workers: dict[str, lockstep.Worker] = {}  # each side's worker to quote: one that failed
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
            _SideBench(b.name, b.unit, b.samples[co.side], b.direction, seconds=b.seconds)
            for b in result.benchmarks
            if co.side in b.samples
        ] + [
            _SideBench(b.name, b.unit, b.cpu[co.side], b.direction, f"{b.name} (cpu)")
            for b in result.benchmarks
            if co.side in b.cpu and suite.times_cpu(b.name)
        ]
        errors: list = list(result.errors[co.side])
        code = result.exit_codes[co.side]
        if code != 0 and not errors:
            tail = workers[co.side].tail().splitlines()
            errors.append(_RunError(suite.name, f"exit {code}: {tail[-1] if tail else ''}"))
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
    workers: dict[str, lockstep.Worker] = {}
    try:
        # Started in the given order (base first one round, head the next): whatever the
        # first process to start gets (memory, the page cache's state) must not always go to
        # one side, where it would read as a change (a quiet A/A recording showed it).
        for co in order:
            log = _round_log(logs, rnd, co.side, suite)
            if k:
                log = log.with_name(f"{log.stem}-p{k + 1}{log.suffix}")
            env = envs[suite.name, co.side]
            workers[co.side] = lockstep.Worker(co.side, suite.command, co.path, env, log, cpu)
        workers = {side: workers[side] for side in ("base", "head")}
        flip = order[0].side == "head"
        outcome = lockstep.measure(workers, plan, flip=flip, timeout=suite.timeout, want=want)
    except lockstep.WorkerFailed as e:  # measure() has stopped both workers
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
    errors: dict[str, list[lockstep.StepError]] = {"base": [], "head": []}
    codes = {"base": 0, "head": 0}
    for outcome in outcomes:
        for side in errors:
            errors[side].extend(e for e in outcome.errors[side] if e not in errors[side])
            codes[side] = codes[side] or outcome.exit_codes[side]
    return lockstep.Outcome(sorted(merged, key=lambda b: b.name), errors, codes)


def _allowed(cpus: str | None) -> list[int]:
    """The CPUs of `cpus` (a taskset list such as "0-1,3") or of this process's affinity."""
    return cpu_ids(cpus) if cpus else sorted(os.sched_getaffinity(0))


def one_cpu(cpus: str | None) -> str:
    """The CPU both lockstep workers share: the last of `cpus` or of this process's affinity."""
    return str(_allowed(cpus)[-1])


def spare_cpus(cpus: str | None) -> str | None:
    """The CPUs the lockstep workers leave free (a taskset list), or None on a single CPU."""
    rest = _allowed(cpus)[:-1]
    return ",".join(map(str, rest)) or None


class _Beside(threading.Thread):
    """The counted suites' rounds, run beside the wall-time rounds on the CPUs those leave free.

    Instruction counts do not move with the machine's load, so they need not share a round's
    moment with the wall time; and in lockstep both sides' workers take turns on one CPU, which
    on a 2-vCPU runner leaves the other idle. Counting there, one side after the other (both at
    once given two spare CPUs), overlaps the two instead of adding them (tracker/GATE.md, "The
    quieter series"). A lockstep pair sees the same neighbour on both sides, as it does any
    co-tenant.

    A neighbour changes that: with the counts on the spare CPU it too is busy, so the
    neighbour lands on the lockstep CPU and preempts steps that wait on wake-ups (the co-tenant
    recordings in tracker/LAB.md, "The counts-first design"). So before each count round
    `crowded()` is asked; once it says so the thread hands the rest back (`handed_back`) and they
    run inside the rounds, as on one CPU.
    """

    def __init__(
        self, suites: list[Suite], rounds: int, cpus: str, run_round, crowded: Callable[[], bool]
    ) -> None:
        super().__init__(name="benchtrack-counts", daemon=True)
        self.suites, self.rounds, self.cpus, self.run_round = suites, rounds, cpus, run_round
        self.crowded = crowded
        self.done = 0  # rounds finished
        self.handed_back = False
        self.cond = threading.Condition()
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for rnd in range(self.rounds):
                if self.stop.is_set():
                    break
                if self.crowded():
                    self.handed_back = True
                    break
                self.run_round(rnd, self.suites, self.cpus, self.stop, beside=True)
                with self.cond:
                    self.done = rnd + 1
                    self.cond.notify_all()
        except BaseException as e:  # re-raised in the rounds' thread by wait()
            self.error = e
        finally:
            with self.cond:
                if self.error is None and not self.handed_back:
                    self.done = self.rounds  # stopped: nothing more will come
                self.cond.notify_all()

    def wait(self, rounds: int) -> None:
        """Block until the first `rounds` count rounds are in (or all of them are), or the
        thread has handed the rest back to the rounds."""
        with self.cond:
            self.cond.wait_for(
                lambda: (
                    self.done >= min(rounds, self.rounds) or self.handed_back or not self.is_alive()
                )
            )
        if self.error is not None:
            raise self.error


def _both(pattern: str | None, only: str | None) -> re.Pattern[str] | None:
    """One pattern searching for `pattern` in a name that `only` (anchored) also matches."""
    if not only:
        return re.compile(pattern) if pattern else None
    return re.compile(f"(?={only})(?=.*?(?:{pattern}))" if pattern else only)


def interleave(
    suites: list[Suite],
    sides: tuple[Checkout, Checkout],
    *,
    looks: list[int],
    pins: dict[str, str],
    name_filter: str | dict[str, str] | None,
    cpus: str | None,
    logs: Path,
    stop_when: Callable[[Rounds], bool],
    progress: Progress,
    failures: list[SuiteFailure],
    budget: float | None = None,
    crowded_at: float = CROWDED,
    builds: bool = True,
    only: str | None = None,
) -> Rounds:
    """Build both sides, then measure rounds until the last look or `stop_when` says so at a look.
    When the rounds to the next look would end after `budget` seconds from the start (builds
    included; the pace is the mean round so far), that look becomes the last and moves to the
    rounds the budget still holds (none: stop here). Stopping at a look is sound whatever
    decides it: every look spends its own share of alpha.

    A suite that fails to build or run on either side is dropped for both (its failure recorded
    in `failures`); the other suites go on. `builds=False`: the sides are built already (the
    confirmation). `name_filter`: one regular expression for every suite, applied beside each
    suite's own harness filter; or, per suite name, the exact benchmarks that suite is to
    measure (the confirmation's candidates: its harness filter, replacing the suite's own, so
    that a benchmark is measured by the suite that measured it in the screening and no other).
    The counted suites run beside the rounds while the
    rest of the machine keeps fewer than `crowded_at` CPUs busy, inside them from then on.
    `only`: a regular expression the gate alone applies to what it measures, never handed to
    a harness (a shard's benchmarks, gate/shards.py: its lookahead is Python's).
    """
    data = Rounds()
    started = time.monotonic()
    meter = NeighbourMeter(WINDOW_SECONDS)  # from here, so the builds' span is seen too
    exact = isinstance(name_filter, dict)
    filters = name_filter if exact else {s.name: name_filter for s in suites}
    patterns = {s.name: _both(filters.get(s.name), only) for s in suites}
    live = list(suites)
    base_cache = next(co.cache for co in sides if co.side == "base")
    envs = {
        (s.name, co.side): child_env(co, s, pins, filters.get(s.name), exact, base_cache)
        for s in suites
        for co in sides
    }

    def drop(suite: Suite, failure: SuiteFailure) -> None:
        failures.append(failure)
        live.remove(suite)
        progress(f"{suite.name}: {failure.side} failed to {failure.what}; see {failure.log}")

    for suite in list(live) if builds else []:
        for co in sides:
            progress(f"build {suite.name} ({co.side} {co.sha[:10]})")
            try:
                build(
                    suite, co, envs[suite.name, co.side], logs / f"build-{co.side}-{suite.name}.log"
                )
            except SuiteFailed as e:
                drop(suite, e.failure)
                break
    base, head = sides
    lock = threading.Lock()  # the counts' thread records into `data` too

    freezer = Freezer()  # the counts beside the rounds; paused while a suite needs every CPU

    def auto_choices(suite: Suite) -> dict[str, str] | None:
        """A `cpus = "auto"` suite's placements so far: each benchmark probed once a run."""
        return data.placements.setdefault(suite.name, {}) if suite.cpus == placement.AUTO else None

    pausing = False  # set once the counts run beside the rounds

    def run_round(rnd: int, suites: list[Suite], on: str | None, stop=None, beside=False) -> None:
        order = (base, head) if rnd % 2 == 0 else (head, base)
        for suite in suites:
            if suite not in live or (suite.rounds is not None and rnd >= suite.rounds):
                continue  # dropped, or a deterministic series that needs no more rounds
            if suite.one_run and rnd > 0:
                continue  # its first run gave all its rounds
            if stop is not None and stop.is_set():
                return
            # Counts do not depend on the machine's load: both sides run at once, one per core
            # (one after the other beside lockstep on a single spare CPU). Wall time is
            # measured in lockstep or one side at a time, the two back to back.
            both = suite.series == COUNTED and (on is None or "," in on or "-" in on)
            full = pausing and not beside and suite.lockstep and suite.cpus != "one"
            counts = freezer if beside else None
            pattern = patterns[suite.name]
            want = pattern.search if pattern else None
            with freezer.paused() if full else contextlib.nullcontext():
                runs = _measure(
                    suite,
                    order,
                    envs,
                    on,
                    logs,
                    rnd,
                    both=both,
                    freezer=counts,
                    want=want,
                    placements=auto_choices(suite),
                )
            with lock:
                _record(data, suite, rnd, runs, pattern, looks[-1], drop, progress)

    # The counted suites' rounds beside the rest, when lockstep leaves a CPU free.
    spare = spare_cpus(cpus)
    counted = [s for s in live if s.series == COUNTED]
    beside = None
    most = max((s.rounds or looks[-1] for s in counted), default=0)

    def crowded() -> bool:
        others = meter.neighbour()
        data.neighbour = list(meter.readings)
        return others is not None and others >= crowded_at

    if spare and counted and any(s.lockstep for s in live):
        beside = _Beside(counted, most, spare, run_round, crowded)
        pausing = True
        # Pinned to the spare CPUs, a harness would size its pools to them (one thread on a
        # 2-vCPU runner) and count another workload: keep the pools the gate's CPUs give.
        for s in counted:
            for co in sides:
                envs[s.name, co.side].setdefault("BENCH_THREADS", str(len(_allowed(cpus))))
    main = [s for s in live if beside is None or s not in counted]
    if beside is None and counted:
        data.counts_inside_from = 0
    inside = 0  # the next count round the rounds owe, once the counts are handed back

    def counts_inside(rnd: int) -> None:
        """Once the counts are handed back: their rounds up to `rnd` inside the rounds."""
        nonlocal inside
        if beside is None or not beside.handed_back:
            return
        beside.join()  # it stopped before starting another count round
        if data.counts_inside_from is None:
            inside = data.counts_inside_from = beside.done
            progress(
                f"counts from round {inside + 1} inside the rounds: a neighbour keeps "
                f"{data.neighbour[-1]:g} CPUs busy"
            )
        for j in range(inside, min(rnd + 1, most)):
            run_round(j, counted, cpus)
            inside = j + 1

    # A full-size lockstep suite's workers size their pools to every CPU of the job.
    for s in live:
        if s.lockstep and s.cpus != "one":
            for co in sides:
                envs[s.name, co.side].setdefault("BENCH_THREADS", str(len(_allowed(cpus))))
    measuring = time.monotonic()
    data.build_seconds = measuring - started
    if beside is not None:
        beside.start()
    schedule = list(looks)  # the looks to take; the budget may move the last one earlier
    try:
        for rnd in range(looks[-1]):
            if not live:
                break
            round_started = time.monotonic()
            order = (base, head) if rnd % 2 == 0 else (head, base)
            data.orders.append(f"{order[0].side},{order[1].side}")
            run_round(rnd, main, cpus)
            if beside is not None and rnd + 1 in schedule:
                beside.wait(rnd + 1)  # a look judges the counts' rounds too
            counts_inside(rnd)
            data.round_seconds.append(time.monotonic() - round_started)
            data.seconds = time.monotonic() - started
            if rnd + 1 == schedule[-1] or (rnd + 1 in schedule and stop_when(data)):
                break
            if budget is not None and rnd + 1 in schedule:
                pace = (time.monotonic() - measuring) / (rnd + 1)
                following = schedule[schedule.index(rnd + 1) + 1]
                if data.seconds + pace * (following - rnd - 1) > budget:
                    data.stopped_by_budget = True
                    last = int(budget_look(rnd + 1, following, budget - data.seconds, pace))
                    if last == rnd + 1:
                        progress(
                            f"stopping at {rnd + 1} rounds: {following} would end after the "
                            f"{budget / 60:.0f}-minute budget ({pace:.0f} s a round)"
                        )
                        break
                    progress(
                        f"the last look at {last} rounds, not {following}: the budget has "
                        f"room for {last - rnd - 1} more ({pace:.0f} s a round)"
                    )
                    schedule = [*schedule[: schedule.index(rnd + 1) + 1], last]
    finally:
        if beside is not None:
            beside.stop.set()  # no new count run starts; the one under way ends
            beside.join()
    data.seconds = time.monotonic() - started
    return data


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


def _record(
    data: Rounds,
    suite: Suite,
    rnd: int,
    runs: list,
    pattern: re.Pattern[str] | None,
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
            if pattern and not pattern.search(b.name):
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
            if not pattern or pattern.search(e.name) or isinstance(e, _RunError):
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
