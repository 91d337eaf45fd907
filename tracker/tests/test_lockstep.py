"""Lockstep measurement (gate/lockstep.py) with real worker processes speaking the step protocol.

The scripted workers are small Python programs written into tmp_path: they read BENCH_STEP's
file descriptors, offer their benchmarks in sorted order and answer `run N` by really timing a
loop. Behaviours (errors, early exits, garbage, hangs) are chosen per benchmark in a JSON spec.
The repository's own harnesses in step mode: test_lockstep_harnesses.py (Python's pytest suite,
Perl's CoroBench) and test_lockstep_rust.py (criterion), with `_harness` from here.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from benchtrack.errors import BadInput
from benchtrack.gate import lockstep, lockstep_worker, machine_load, rounds
from benchtrack.gate.config import Suite, parse
from benchtrack.gate.lockstep_round import measure_lockstep
from benchtrack.gate.machine_load import NeighbourMeter
from benchtrack.gate.model import Meta, Rounds, SuiteFailed
from benchtrack.gate.placement import one_cpu, spare_cpus
from benchtrack.gate.rounds import RoundPlan, interleave
from benchtrack.gate.worktree import Checkout
from benchtrack.lab import aa
from benchtrack.machine.cpuset import CpuSet
from benchtrack.machine.processes import Freezer, stop_group

REPO = Path(__file__).resolve().parents[2]
# A measurement's timeout in these tests: a guard against a hang, never a verdict on speed
# (pinned to one CPU beside a busy loop and three test workers, a worker's start-up took
# past 120 s).
HANG = 600

# Worker.failed() stops the worker (which closes its log file) and then reads the tail, whose
# first step flushes that closed file: every WorkerFailed comes out as this ValueError instead.

WORKER = r"""
import json, os, signal, subprocess, sys, time

spec = json.load(open(sys.argv[1]))
side = spec["side"]
if spec.get("ignore_term"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if spec.get("child"):
    # A grandchild in the worker's process group: stopping the worker must stop it too.
    subprocess.Popen(["sleep", "120"])
print(f"worker {side} started", file=sys.stderr, flush=True)
allowed = ",".join(map(str, sorted(os.sched_getaffinity(0))))
print(f"cpus {allowed} threads {os.environ.get('BENCH_THREADS')}", file=sys.stderr, flush=True)
fd_in, fd_out = (int(x) for x in os.environ["BENCH_STEP"].split(","))
commands = os.fdopen(fd_in, "r")
replies = os.fdopen(fd_out, "w", buffering=1)
order_log = spec.get("order_log")


def work(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


for b in sorted(spec["benchmarks"], key=lambda b: b["name"]):
    mode = b.get("mode", "ok")
    if mode == "fail_before_ready":
        message = f"\t{b['message']}" if b.get("message") else ""
        replies.write(f"error {b['name']}{message}\n")
        continue
    if mode == "garbage_ready":
        replies.write("hello there\n")
        time.sleep(120)
    if mode == "short_ready":
        replies.write(f"ready {b['name']}\t{b['unit']}\n")
        time.sleep(120)
    work(b["work"])  # warm-up
    clock = f"\t{b['clock']}" if b.get("clock") else ""
    replies.write(f"ready {b['name']}\t{b['unit']}\t{b['elements']}{clock}\n")
    runs = 0
    for line in commands:
        word, _, arg = line.strip().partition(" ")
        if word == "next":
            break
        runs += 1
        if order_log:
            with open(order_log, "a") as f:
                f.write(f"{side} {b['name']} {arg}\n")
        if mode == "error_on_run" and runs >= b.get("at", 1):
            replies.write("error boom in " + b["name"] + "\n")
            continue
        if mode == "exit_on_run":
            print(f"dying in {b['name']}", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "hang":
            time.sleep(120)
        if mode == "garbage_ns":
            replies.write("ns many\n")
            continue
        clocks = {
            "cpu": (time.process_time_ns,),
            "wall+cpu": (time.perf_counter_ns, time.process_time_ns),
        }.get(b.get("clock"), (time.perf_counter_ns,))
        t0 = [c() for c in clocks]
        for _ in range(int(arg)):
            work(b["work"])
            if b.get("sleep"):
                time.sleep(b["sleep"])
        if b.get("ns_per_call"):  # a known time a call: the reply cannot depend on the machine
            replies.write("ns " + " ".join(str(int(arg) * b["ns_per_call"]) for _ in clocks) + "\n")
            continue
        replies.write("ns " + " ".join(str(c() - t) for c, t in zip(clocks, t0)) + "\n")
print(f"worker {side} done", file=sys.stderr, flush=True)
sys.exit(spec.get("exit", 0))
"""

WORK = 3000  # loop iterations per call: well under a millisecond, several calls per 10 ms step
# A known time a call that a test's worker reports (it still runs its loop, so steps take real
# time): a ratio asserted from these is the gate's arithmetic, not the machine's noise.
NS = 100_000


def bench(name: str, work: int = WORK, unit: str = "calls/s", elements: float = 1, **kw) -> dict:
    return {"name": name, "work": work, "unit": unit, "elements": elements, **kw}


def spawn(
    tmp_path: Path, side: str, benchmarks: list[dict], *, cpu: str | None = None, **opts
) -> lockstep_worker.Worker:
    script = tmp_path / "worker.py"
    if not script.exists():
        script.write_text(WORKER)
    spec = tmp_path / f"{side}.json"
    spec.write_text(json.dumps({"side": side, "benchmarks": benchmarks, **opts}))
    command = shlex.join([sys.executable, str(script), str(spec)])
    return lockstep_worker.Worker(
        side, command, tmp_path, dict(os.environ), tmp_path / "logs" / f"{side}.log", cpu
    )


def pair_of(tmp_path: Path, base: list[dict], head: list[dict], **opts) -> dict:
    cpu = one_cpu(None)  # both on one CPU, as the gate runs them
    base_opts = {k[5:]: v for k, v in opts.items() if k.startswith("base_")}
    head_opts = {k[5:]: v for k, v in opts.items() if k.startswith("head_")}
    shared = {k: v for k, v in opts.items() if not k.startswith(("base_", "head_"))}
    return {
        "base": spawn(tmp_path, "base", base, cpu=cpu, **shared, **base_opts),
        "head": spawn(tmp_path, "head", head, cpu=cpu, **shared, **head_opts),
    }


def live_in_group(pgid: int) -> list[int]:
    """Processes of group `pgid` that are still running (zombies waiting for a reaper are not)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            pids.append(int(entry.name))
    return pids


def assert_stopped(workers: dict, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    for w in workers.values():
        assert w.proc.poll() is not None, f"{w.side}'s worker is still running"
        while (left := live_in_group(w.proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"{w.side}'s process group still has {left}"


def by_name(outcome: lockstep.Outcome) -> dict[str, lockstep.Stepped]:
    return {b.name: b for b in outcome.benchmarks}


# ----------------------------------------------------------------------------- measure


def test_merge_pairs_common_names_and_measures_one_sided_ones_alone(tmp_path: Path) -> None:
    beta = bench("t/beta", work=10, elements=1000, sleep=0.004)  # 1000 elements a >= 4 ms call
    base = [bench("t/alpha"), beta, bench("t/gamma")]
    head = [bench("t/alpha"), beta, bench("t/delta", unit="ops/s")]
    order_log = tmp_path / "order.log"
    workers = pair_of(tmp_path, base, head, order_log=str(order_log))
    out = lockstep.measure(workers, lockstep.Plan(pairs=6, seconds=30), flip=False, timeout=HANG)

    got = by_name(out)
    ran: dict[str, list[str]] = {}
    for line in order_log.read_text().splitlines():
        side, name, _ = line.split()
        ran.setdefault(name, []).append(side)
    assert ran["t/delta"] == ["head"] * 7 and ran["t/gamma"] == ["base"] * 7  # 1 + 6 steps
    assert sorted(ran["t/alpha"]) == ["base"] * 7 + ["head"] * 7
    assert [b.name for b in out.benchmarks] == ["t/alpha", "t/beta", "t/delta", "t/gamma"]
    for name in ("t/alpha", "t/beta"):
        assert set(got[name].samples) == {"base", "head"}
        assert len(got[name].samples["base"]) == len(got[name].samples["head"]) == 6
    assert set(got["t/delta"].samples) == {"head"} and len(got["t/delta"].samples["head"]) == 6
    assert got["t/delta"].unit == "ops/s"
    assert set(got["t/gamma"].samples) == {"base"} and len(got["t/gamma"].samples["base"]) == 6
    assert out.errors == {"base": [], "head": []}
    assert out.exit_codes == {"base": 0, "head": 0}
    assert all(
        x > 0 and math.isfinite(x) for b in out.benchmarks for s in b.samples.values() for x in s
    )
    # Throughput is elements x calls / seconds: t/beta's calls sleep 4 ms, so at most 250,000/s;
    # one element a call would give at most 250/s. The floor leaves a 4 ms call 4 s of a busy
    # machine (CI runs beside the heavy tests read a 4 ms call at 40 and at 63 ms: floors of
    # 1000/s and 250/s with 10 elements a call failed there).
    for x in got["t/beta"].samples["base"] + got["t/beta"].samples["head"]:
        assert 250 < x <= 250_000
    assert_stopped(workers)
    log = (tmp_path / "logs" / "head.log").read_text()
    assert "worker head done" in log and "lockstep, cpu" in log


def test_exit_code_of_a_worker_is_reported(tmp_path: Path) -> None:
    workers = pair_of(tmp_path, [bench("t/a")], [bench("t/a")], head_exit=3)
    out = lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=5), flip=False, timeout=HANG)
    assert out.exit_codes == {"base": 0, "head": 3}
    assert len(by_name(out)["t/a"].samples["head"]) == 5


@pytest.mark.parametrize("flip", [False, True])
def test_pairs_alternate_abba(tmp_path: Path, flip: bool) -> None:
    order_log = tmp_path / "order.log"
    two = [bench("t/a"), bench("t/b")]
    workers = pair_of(tmp_path, two, two, order_log=str(order_log))
    lockstep.measure(workers, lockstep.Plan(pairs=8, seconds=30), flip=flip, timeout=HANG)
    lines = [line.split() for line in order_log.read_text().splitlines()]
    # One call each to size the steps, the round's first side first (base, or head with flip),
    # as it is the first to go on to the next benchmark and warm it up: the side warmed up last
    # alternates with the rounds' order, never always the same one.
    first, second = ("head", "base") if flip else ("base", "head")
    for k, name in enumerate(("t/a", "t/b")):
        at = 18 * k
        assert lines[at : at + 2] == [[first, name, "1"], [second, name, "1"]]
    steps = lines[2:18]
    assert len(steps) == 16 and len(lines) == 36
    assert len({n for *_, n in steps}) == 1  # the same n on both sides, all round
    ab, ba = ["base", "head"], ["head", "base"]
    expected = [ab, ba, ba, ab] * 2
    if flip:
        expected = [p[::-1] for p in expected]
    assert [[steps[2 * p][0], steps[2 * p + 1][0]] for p in range(8)] == expected


def test_run_error_is_a_step_error_and_the_rest_goes_on(tmp_path: Path) -> None:
    base = [bench("t/alpha"), bench("t/beta"), bench("t/gamma")]
    head = [bench("t/alpha"), bench("t/beta", mode="error_on_run", at=3), bench("t/gamma")]
    workers = pair_of(tmp_path, base, head)
    out = lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    assert lockstep_worker.StepError("t/beta", "boom in t/beta", "head") in out.errors["head"]
    assert out.errors["base"] == []  # base ran it fine: only the side that failed reports it
    assert sorted(by_name(out)) == ["t/alpha", "t/gamma"]
    for b in out.benchmarks:
        assert len(b.samples["base"]) == len(b.samples["head"]) == 5
    assert out.exit_codes == {"base": 0, "head": 0}


def test_error_before_ready_is_recorded_and_the_other_side_measured_alone(tmp_path: Path) -> None:
    base = [bench("t/alpha"), bench("t/beta"), bench("t/gamma")]
    head = [
        bench("t/alpha"),
        bench("t/beta", mode="fail_before_ready", message="setup exploded"),
        bench("t/gamma"),
        bench("t/omega", mode="fail_before_ready"),  # no message
    ]
    workers = pair_of(tmp_path, base, head)
    out = lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    assert out.errors["head"] == [
        lockstep_worker.StepError("t/beta", "setup exploded"),
        lockstep_worker.StepError("t/omega", "failed"),
    ]
    assert out.errors["base"] == []
    got = by_name(out)
    assert sorted(got) == ["t/alpha", "t/beta", "t/gamma"]
    assert set(got["t/beta"].samples) == {"base"} and len(got["t/beta"].samples["base"]) == 5
    assert set(got["t/gamma"].samples) == {"base", "head"}


def test_different_work_per_call_is_a_step_error(tmp_path: Path) -> None:
    base = [bench("t/alpha", elements=100), bench("t/beta"), bench("t/gamma", unit="ops/s")]
    head = [bench("t/alpha", elements=200), bench("t/beta"), bench("t/gamma")]
    workers = pair_of(tmp_path, base, head)
    out = lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    errs = {e.name: e.message for e in out.errors["head"]}
    assert set(errs) == {"t/alpha", "t/gamma"}
    assert (
        "different work" in errs["t/alpha"]
        and "100" in errs["t/alpha"]
        and "200" in errs["t/alpha"]
    )
    assert "ops/s" in errs["t/gamma"]
    assert [b.name for b in out.benchmarks] == ["t/beta"]
    assert len(out.benchmarks[0].samples["head"]) == 5
    assert out.exit_codes == {"base": 0, "head": 0}


def test_worker_exiting_mid_protocol_fails_with_its_log_tail(tmp_path: Path) -> None:
    base = [bench("t/alpha"), bench("t/beta")]
    head = [bench("t/alpha"), bench("t/beta", mode="exit_on_run")]
    workers = pair_of(tmp_path, base, head, child=True)
    with pytest.raises(lockstep_worker.WorkerFailed) as caught:
        lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    e = caught.value
    assert e.side == "head" and "exited" in e.message
    assert "dying in t/beta" in e.tail and "worker head started" in e.tail
    assert_stopped(workers)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("garbage_ready", "expected 'ready' or 'error', got 'hello there'"),
        ("short_ready", "expected 'ready NAME<tab>UNIT<tab>ELEMENTS[<tab>CLOCK]'"),
        ("garbage_ns", "expected 'ns NANOSECONDS' > 0, got 'ns many'"),
    ],
)
def test_worker_breaking_the_protocol_fails(tmp_path: Path, mode: str, expected: str) -> None:
    base = [bench("t/alpha"), bench("t/beta")]
    head = [bench("t/alpha"), bench("t/beta", mode=mode)]
    workers = pair_of(tmp_path, base, head, child=True)
    with pytest.raises(lockstep_worker.WorkerFailed) as caught:
        lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    assert caught.value.side == "head" and expected in caught.value.message
    assert "worker head started" in caught.value.tail
    assert_stopped(workers)


@pytest.mark.parametrize(
    ("name", "mode"),
    [
        ("t/esc\x1b[31m", "ok"),
        ("t/\u202eevil", "ok"),
        ("t/" + "x" * 300, "ok"),
        ("nosuite", "ok"),
        ("t/bell\x07", "fail_before_ready"),
    ],
    ids=["control", "bidi", "too-long", "no-suite", "error-line"],
)
def test_a_name_off_the_contract_fails_the_worker_naming_it(
    tmp_path: Path, name: str, mode: str
) -> None:
    """A name the gate could not write (result.NAME_RULE) fails the worker where it enters,
    its repr in the message and in the log's tail the suite's failure shows."""
    workers = pair_of(tmp_path, [bench("t/a")], [bench("t/a"), bench(name, mode=mode)])
    with pytest.raises(lockstep_worker.WorkerFailed) as caught:
        lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=HANG)
    said = "a benchmark name '<suite>/<name as the harness wrote it>' of at most 256 characters"
    assert caught.value.side == "head" and said in caught.value.message
    assert caught.value.message.endswith(f"got {name!r}") and repr(name) in caught.value.tail
    assert_stopped(workers)


def test_timeout_fails_the_hanging_worker(tmp_path: Path) -> None:
    base = [bench("t/alpha")]
    head = [bench("t/alpha", mode="hang")]
    workers = pair_of(tmp_path, base, head, child=True)
    t0 = time.monotonic()
    with pytest.raises(lockstep_worker.WorkerFailed) as caught:
        lockstep.measure(workers, lockstep.Plan(pairs=5, seconds=30), flip=False, timeout=2)
    assert 2 <= time.monotonic() - t0 < 8
    assert caught.value.side == "head" and caught.value.message == "timed out"
    assert_stopped(workers)


def test_stop_kills_the_whole_group_even_when_sigterm_is_ignored(tmp_path: Path) -> None:
    w = spawn(tmp_path, "head", [bench("t/alpha")], child=True, ignore_term=True)
    w.deadline = time.monotonic() + 30
    assert w.next_ready([]) == lockstep_worker.Ready("t/alpha", "calls/s", 1.0)
    assert len(live_in_group(w.proc.pid)) >= 2  # the worker and its `sleep` child
    t0 = time.monotonic()
    w.stop()
    assert 4.5 < time.monotonic() - t0 < 10  # SIGTERM ignored: SIGKILL after the 5 s grace
    assert w.proc.returncode == -9
    assert_stopped({"head": w})


def test_plan_caps_the_pairs(tmp_path: Path) -> None:
    workers = pair_of(tmp_path, [bench("t/a")], [bench("t/a")])
    out = lockstep.measure(workers, lockstep.Plan(pairs=7, seconds=60), flip=False, timeout=HANG)
    assert [len(out.benchmarks[0].samples[s]) for s in ("base", "head")] == [7, 7]


@pytest.mark.parametrize("min_pairs", [3, 5])
def test_min_pairs_hold_when_steps_are_slow(tmp_path: Path, min_pairs: int) -> None:
    slow = [bench("t/slow", work=10, sleep=0.03)]  # one call (30 ms) is already longer than a step
    workers = pair_of(tmp_path, slow, slow, order_log=str(tmp_path / "order.log"))
    plan = lockstep.Plan(pairs=30, seconds=0.01, min_pairs=min_pairs, step=0.01)
    out = lockstep.measure(workers, plan, flip=False, timeout=HANG)
    assert [len(out.benchmarks[0].samples[s]) for s in ("base", "head")] == [min_pairs] * 2
    runs = (tmp_path / "order.log").read_text().split()[2::3]
    assert set(runs) == {"1"}  # n = max(1, step / single call)


def test_seconds_budget_stops_adding_pairs(tmp_path: Path) -> None:
    # Each call sleeps 2 ms, so a pair (a step a side, >= 1 call each) takes >= 4 ms however the
    # steps were sized: a pair starts only within the 0.3 s, so at most 0.3 / 0.004 + 1 = 76 of
    # the 1000 allowed, on any machine (a CI run sized steps of a loop-only call at ~1 ms a pair
    # under load and fit 142).
    workers = pair_of(tmp_path, [bench("t/a", sleep=0.002)], [bench("t/a", sleep=0.002)])
    plan = lockstep.Plan(pairs=1000, seconds=0.3, step=0.01)
    out = lockstep.measure(workers, plan, flip=False, timeout=HANG)
    n = len(out.benchmarks[0].samples["base"])
    assert plan.min_pairs <= n <= 76


def test_seconds_per_benchmark_take_the_longest_matching_glob(tmp_path: Path) -> None:
    names = ["t/quiet", "t/spread/a", "t/z"]
    workers = pair_of(tmp_path, [bench(n) for n in names], [bench(n) for n in names])
    by = (("t/*", 0.0), ("t/spread/*", 60.0))  # t/spread/a: both match, the longer wins
    plan = lockstep.Plan(pairs=8, seconds=5.0, step=0.01, seconds_by=by)
    assert [plan.seconds_for(n) for n in names] == [0.0, 60.0, 0.0]
    assert plan.seconds_for("other/x") == 5.0
    out = lockstep.measure(workers, plan, flip=False, timeout=HANG)
    # No budget: the minimum of pairs, exactly. A minute: every pair the plan allows (8 pairs of
    # 10 ms steps; a minute would be spent only on a machine ~100x slower than a loaded VM).
    n = {b.name: len(b.samples["base"]) for b in out.benchmarks}
    assert n == {"t/quiet": plan.min_pairs, "t/spread/a": 8, "t/z": plan.min_pairs}


def test_a_head_doing_twice_the_work_measures_about_twice_as_slow(tmp_path: Path) -> None:
    base = [bench("t/work", work=WORK, clock="cpu", ns_per_call=NS)]
    head = [bench("t/work", work=2 * WORK, clock="cpu", ns_per_call=2 * NS)]
    workers = pair_of(tmp_path, base, head)
    # The workers report a known time a call (twice base's for head): with other processes on
    # the pinned CPU, measured steps read this 2x anywhere from 1.5x to 5x (the slower side's
    # longer steps are preempted more; tracker/GATE.md, Known limits). What is tested here is
    # the pairing and the ratio, not the machine.
    plan = lockstep.Plan(pairs=11, seconds=10, step=0.05, clock="cpu")
    out = lockstep.measure(workers, plan, flip=False, timeout=HANG)
    s = out.benchmarks[0].samples
    assert len(s["base"]) == len(s["head"]) == 11
    b, h = lockstep.paired_values(s["base"], s["head"])
    assert b == sorted(s["base"])[5]
    assert b / h == pytest.approx(2.0)


# ----------------------------------------------------------------------------- paired_values


def test_paired_values_of_a_constant_ratio() -> None:
    base = [100.0, 250.0, 90.0, 400.0, 120.0]
    b, h = lockstep.paired_values(base, [x * 0.9 for x in base])
    assert b == 120.0
    assert h / b == pytest.approx(0.9, rel=1e-12)


def test_paired_values_use_the_pairs_median_ratio_not_the_medians() -> None:
    # Pair ratios 0.95, 0.9 and 3.33: their median is 0.95; the medians' ratio would be 0.9.
    b, h = lockstep.paired_values([100.0, 200.0, 300.0], [95.0, 180.0, 1000.0])
    assert b == 200.0 and h == pytest.approx(190.0, rel=1e-12)


def test_paired_values_ignore_one_outlier_pair() -> None:
    base = [10.0, 11.0, 9.0, 10.5, 10.2, 9.8, 10.1]
    head = [x * 1.1 for x in base]
    head[2] = 1e6  # a pair disturbed by something that hit one side only
    b, h = lockstep.paired_values(base, head)
    assert b == 10.1 and h / b == pytest.approx(1.1, rel=1e-12)


def test_paired_values_of_an_even_count_take_the_middle_log_ratios_mean() -> None:
    b, h = lockstep.paired_values([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 4.0, 8.0])
    assert b == 1.0 and h == pytest.approx(2**1.5, rel=1e-12)


def test_paired_values_of_processes_take_the_mean_log_ratio() -> None:
    # Three processes, two at one offset and one at another (a layout each process keeps): the
    # median would pick the majority's 1.0, the mean averages the three.
    b, h = lockstep.paired_values([1.0, 1.0, 1.0], [1.0, 1.0, 1.331], processes=True)
    assert b == 1.0 and h == pytest.approx(1.1, rel=1e-12)
    assert lockstep.paired_values([1.0, 1.0, 1.0], [1.0, 1.0, 1.331])[1] == 1.0


def test_paired_values_need_aligned_pairs() -> None:
    with pytest.raises(ValueError):
        lockstep.paired_values([1.0, 2.0, 3.0], [1.0, 2.0])


# ----------------------------------------------------------------------------- config


def _cfg(**suite) -> dict:
    """A bench suite `ls` (its raw output read by the perl adapter) whose gate table is `suite`
    over a lockstep step worker."""
    gate = {"adapter": "lockstep", "command": "bash step.sh", **suite}
    return {"bench": {"suites": {"ls": {**BENCH, "gate": gate}}}}


BENCH = {"adapter": "perl", "command": "true", "raw": "r.json"}


def test_lockstep_suite_parses_without_raw() -> None:
    cfg = parse(_cfg(pairs=12, pair_seconds=0.5, timeout=300), "benchtrack.toml")
    s = cfg.suites["ls"]
    assert s.lockstep and s.raw == "" and s.series == "time"
    assert (s.pairs, s.pair_seconds, s.timeout) == (12, 0.5, 300.0)
    defaults = parse(_cfg(), "benchtrack.toml").suites["ls"]
    assert (defaults.pairs, defaults.pair_seconds) == (30, 1.0)


def test_other_adapters_read_the_suites_raw_output_or_their_own() -> None:
    assert parse(_cfg(adapter="pytest"), "benchtrack.toml").suites["ls"].raw == "r.json"
    own = parse(_cfg(adapter="pytest", raw="x.json"), "benchtrack.toml").suites["ls"]
    assert own.raw == "x.json" and own.command == "bash step.sh"
    with pytest.raises(BadInput, match=r"bench\.suites\.ls\.raw"):
        parse({"bench": {"suites": {"ls": {"adapter": "perl", "command": "x"}}}}, "t")


def test_a_lockstep_suite_may_time_by_cpu_and_only_it() -> None:
    assert parse(_cfg(series="cpu"), "benchtrack.toml").suites["ls"].key("x/y") == "x/y (cpu)"
    plain = {"bench": {"suites": {"p": {**BENCH, "gate": {"series": "cpu"}}}}}
    with pytest.raises(BadInput) as caught:
        parse(plain, "benchtrack.toml")
    assert caught.value.field == "bench.suites.p.gate.series" and caught.value.got == "cpu"


def test_lockstep_times_steps_only() -> None:
    with pytest.raises(BadInput, match=r"suites\.ls\.gate\.series") as caught:
        parse(_cfg(series="instructions"), "benchtrack.toml")
    assert caught.value.field == "bench.suites.ls.gate.series"
    assert caught.value.got == "instructions"


def test_pair_seconds_may_be_a_table_of_globs() -> None:
    table = {"*": 0.8, "ls/noisy/*": 2.0, "ls/quiet": 0.25}
    s = parse(_cfg(pair_seconds=table), "benchtrack.toml").suites["ls"]
    assert s.pair_seconds == 0.8 and s.pair_seconds_by == {"ls/noisy/*": 2.0, "ls/quiet": 0.25}
    without_default = parse(_cfg(pair_seconds={"ls/x": 2}), "benchtrack.toml").suites["ls"]
    assert without_default.pair_seconds == 1.0
    with pytest.raises(BadInput) as caught:
        parse(_cfg(pair_seconds={"ls/x": "long"}), "benchtrack.toml")
    assert caught.value.field == "bench.suites.ls.gate.pair_seconds.'ls/x'"


@pytest.mark.parametrize(
    ("key", "value"), [("pairs", 4), ("pairs", 5.5), ("pair_seconds", 0.0), ("pair_seconds", 601)]
)
def test_lockstep_plan_keys_are_checked(key: str, value: object) -> None:
    with pytest.raises(BadInput) as caught:
        parse(_cfg(**{key: value}), "benchtrack.toml")
    assert caught.value.field == f"bench.suites.ls.gate.{key}"
    assert parse(_cfg(pairs=5), "benchtrack.toml").suites["ls"].pairs == 5  # 5 is the least


@pytest.mark.parametrize(
    ("suite", "field"),
    [
        ({"processes": 0}, "bench.suites.ls.gate.processes"),
        ({"processes": 2.5}, "bench.suites.ls.gate.processes"),
        ({"adapter": "perl", "raw": "out.json", "processes": 2}, "bench.suites.ls.gate.processes"),
        ({"processes": 2, "pool": "median"}, "bench.suites.ls.gate.pool"),
        ({"pool": "pairs"}, "bench.suites.ls.gate.pool"),  # one process: nothing to pool
        ({"min_pairs": 1}, "bench.suites.ls.gate.min_pairs"),  # one process: AB then BA
        ({"min_pairs": 0, "processes": 2}, "bench.suites.ls.gate.min_pairs"),
        ({"adapter": "perl", "raw": "out.json", "min_pairs": 3}, "bench.suites.ls.gate.min_pairs"),
    ],
)
def test_processes_are_a_lockstep_count_of_at_least_one(suite: dict, field: str) -> None:
    with pytest.raises(BadInput) as caught:
        parse(_cfg(**suite), "benchtrack.toml")
    assert caught.value.field == field
    assert parse(_cfg(), "benchtrack.toml").suites["ls"].processes == 1
    assert parse(_cfg(processes=4), "benchtrack.toml").suites["ls"].processes == 4
    assert parse(_cfg(processes=4), "benchtrack.toml").suites["ls"].pool == "processes"
    assert parse(_cfg(processes=4, pool="pairs"), "benchtrack.toml").suites["ls"].pool == "pairs"
    assert parse(_cfg(processes=2, min_pairs=1), "benchtrack.toml").suites["ls"].min_pairs == 1
    assert parse(_cfg(min_pairs=3), "benchtrack.toml").suites["ls"].min_pairs == 3


# ----------------------------------------------------------------------------- aa round trip


def test_aa_round_trip_keeps_paired_values(tmp_path: Path) -> None:
    data = Rounds()
    paired = Meta("calls/s", "bigger", "python-lockstep", paired=True)
    plain = Meta("calls/s", "bigger", "python")
    rounds = {
        "python/lock/a": (
            [[100.0, 200.0, 300.0], [110.0, 90.0, 100.0, 105.0]],
            [[95.0, 180.0, 1000.0], [99.0, 90.0, 120.0, 100.0]],
        ),
        "python/plain/b": ([[5.0, 7.0, 6.0], [6.0, 6.5]], [[4.0, 9.0, 8.0], [7.0, 7.5]]),
    }
    for rnd, order in enumerate(["base,head", "head,base"]):
        data.orders.append(order)
        for name, (base, head) in rounds.items():
            meta = paired if "lock" in name else plain
            data.add("base", rnd, name, base[rnd], meta)
            data.add("head", rnd, name, head[rnd], meta)
        data.pair(rnd, "python/lock/a")
    expected = [lockstep.paired_values(b, h) for b, h in zip(*rounds["python/lock/a"], strict=True)]
    # The gate's own values for the paired benchmark are the pairs' values.
    assert data.values["base"]["python/lock/a"] == [e[0] for e in expected]
    assert data.values["head"]["python/lock/a"] == [e[1] for e in expected]
    assert expected[0][1] == pytest.approx(190.0)  # not 180, the medians' value

    doc = aa.to_dict(data, {"commit": "0" * 40})
    assert doc["benchmarks"]["python/lock/a"]["paired"] is True
    assert "paired" not in doc["benchmarks"]["python/plain/b"]
    path = tmp_path / "aa.json"
    path.write_bytes(aa.dump(doc))
    loaded = aa.load(path)
    assert loaded.names == ["python/lock/a", "python/plain/b"]
    assert loaded.values["base"][0].tolist() == [e[0] for e in expected]
    assert loaded.values["head"][0].tolist() == [e[1] for e in expected]
    assert loaded.values["base"][1].tolist() == [6.0, 6.25]  # medians
    assert loaded.values["head"][1].tolist() == [8.0, 7.25]
    assert loaded.samples["head"][0] == rounds["python/lock/a"][1]

    # A per-process benchmark: the round's value is the processes' mean log-ratio, kept so.
    per = Meta("calls/s", "bigger", "rust", paired=True, processes=True)
    for rnd in range(2):
        data.add("base", rnd, "rust/p/c", [1.0, 1.0, 1.0], per)
        data.add("head", rnd, "rust/p/c", [1.0, 1.0, 1.331], per)
        data.pair(rnd, "rust/p/c")
    assert data.values["head"]["rust/p/c"] == [pytest.approx(1.1)] * 2
    per_doc = aa.to_dict(data, {"commit": "0" * 40})
    assert per_doc["benchmarks"]["rust/p/c"]["processes"] is True
    path.write_bytes(aa.dump(per_doc))
    assert aa.load(path).values["head"][2].tolist() == pytest.approx([1.1, 1.1])

    doc["benchmarks"]["python/lock/a"]["head"][1].pop()
    path.write_bytes(aa.dump(doc))
    with pytest.raises(BadInput, match="paired rounds of equal length"):
        aa.load(path)


# ----------------------------------------------------------------------------- rounds wiring


def test_one_cpu_is_the_last_allowed_and_the_rest_are_spare() -> None:
    assert one_cpu("0-1,3") == "3" and spare_cpus("0-1,3") == "0-1"
    assert one_cpu("2") == "2" and spare_cpus("2") is None
    assert one_cpu(None) == str(max(os.sched_getaffinity(0)))


def _sides(tmp_path: Path) -> tuple[Checkout, Checkout]:
    out = []
    for side in ("base", "head"):
        (tmp_path / side).mkdir()
        out.append(Checkout(side, side, "0" * 40, side, tmp_path / side, tmp_path / "cache" / side))
    return out[0], out[1]


def _worker_suite(tmp_path: Path, base: list[dict], head: list[dict], **specs) -> Suite:
    """One command for both sides: the side's spec file, chosen by GATE_SIDE."""
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    for side, benches in (("base", base), ("head", head)):
        extra = {k[5:]: v for k, v in specs.items() if k.startswith(side + "_")}
        (tmp_path / f"{side}.json").write_text(
            json.dumps({"side": side, "benchmarks": benches, **extra})
        )
    command = shlex.join([sys.executable, str(script)]) + f' "{tmp_path}/$GATE_SIDE.json"'
    cpus = specs.get("cpus", "one")
    return Suite("ls", command, "lockstep", "", pairs=5, pair_seconds=0.2, timeout=HANG, cpus=cpus)


def test_interleave_pairs_a_lockstep_suite_round_by_round(tmp_path: Path) -> None:
    suite = _worker_suite(
        tmp_path,
        [bench("t/work", ns_per_call=NS), bench("t/same", ns_per_call=NS)],
        [bench("t/work", work=2 * WORK, ns_per_call=2 * NS), bench("t/same", ns_per_call=NS)],
    )
    failures: list = []
    data = interleave(
        RoundPlan([suite], _sides(tmp_path), [3]),
        tmp_path / "logs",
        stop_when=lambda _: False,
        progress=lambda _: None,
        failures=failures,
    )
    assert failures == [] and data.errors == {"base": {}, "head": {}}
    assert data.orders == ["base,head", "head,base", "base,head"]
    assert data.meta["t/work"] == Meta("calls/s", "bigger", "ls", paired=True)
    for name in ("t/work", "t/same"):
        for rnd in range(3):
            base, head = (data.samples[s][name][rnd] for s in ("base", "head"))
            assert len(base) == len(head) >= 5
            b, h = lockstep.paired_values(base, head)
            assert (data.values["base"][name][rnd], data.values["head"][name][rnd]) == (b, h)
    values = (data.values[side]["t/work"] for side in ("base", "head"))
    ratios = [b / h for b, h in zip(*values, strict=True)]
    # Head reports twice the time a call: every round's ratio is 2 (the pairing's arithmetic).
    assert ratios == [pytest.approx(2.0)] * 3


def test_each_suite_measures_only_its_own_benchmarks_and_never_one_of_anothers(
    tmp_path: Path,
) -> None:
    # Two suites of one harness (the Rust walks at full size, the rest on one CPU): the
    # confirmation's filters are per suite, so a candidate is measured where the screening
    # measured it; one filter for both measured rayon on one CPU too and pooled the two.
    one = _worker_suite(tmp_path, [bench("t/a"), bench("t/b")], [bench("t/a"), bench("t/b")])
    two = replace(one, name="ls2")
    common = dict(stop_when=lambda _: False, progress=print)
    failures: list = []
    data = interleave(
        RoundPlan([one, two], _sides(tmp_path), [1], name_filter={"ls": "^t/a$", "ls2": "^t/b$"}),
        tmp_path / "logs",
        failures=failures,
        **common,
    )
    assert failures == []
    assert {k: m.suite for k, m in data.meta.items()} == {"t/a": "ls", "t/b": "ls2"}
    assert all(len(data.values[side][k]) == 1 for side in ("base", "head") for k in data.meta)
    # One filter for both: the second suite that measures t/a is a configuration error, said
    # so and dropped, never pooled with the first's values.
    shutil.rmtree(tmp_path / "base"), shutil.rmtree(tmp_path / "head")
    data = interleave(
        RoundPlan([one, two], _sides(tmp_path), [1], name_filter="^t/a$"),
        tmp_path / "logs2",
        failures=failures,
        **common,
    )
    assert [(f.suite, f.what) for f in failures] == [("ls2", "run")]
    assert "which suite ls measures too" in failures[0].tail
    assert {k: m.suite for k, m in data.meta.items()} == {"t/a": "ls"}
    assert len(data.values["base"]["t/a"]) == 1


def test_min_pairs_is_the_fewest_pairs_a_round_takes_past_its_seconds(tmp_path: Path) -> None:
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a")])
    common = dict(stop_when=lambda _: False, progress=print)
    for n, (extra, want) in enumerate(((dict(min_pairs=3), 3), ({}, 5))):
        shutil.rmtree(tmp_path / "base", ignore_errors=True)
        shutil.rmtree(tmp_path / "head", ignore_errors=True)
        data = interleave(
            RoundPlan([replace(suite, pair_seconds=0.01, **extra)], _sides(tmp_path), [1]),
            tmp_path / f"logs{n}",
            failures=[],
            **common,
        )
        assert [len(data.samples[side]["t/a"][0]) for side in ("base", "head")] == [want, want]


COUNTER = r"""
import json, os, sys, time
log, side = sys.argv[1], os.environ["GATE_SIDE"]
start = time.monotonic()
status = open("/proc/self/status").read().splitlines()
cpus = next(l.split(":")[1].strip() for l in status if l.startswith("Cpus_allowed_list"))
ticks = []
for _ in range(70):  # a count takes a while; when it ran is logged
    ticks.append(time.monotonic())
    time.sleep(0.01)
os.makedirs("out", exist_ok=True)
json.dump({"schema": "benchtrack.perl/1", "benchmarks": [
    {"name": "perl/c/n", "unit": "items/s",
     "samples": json.loads(os.environ.get("COUNTS", "[100.0, 100.0, 100.0, 100.0, 100.0]"))}]},
    open("out/perl.json", "w"))
with open(log, "a") as f:
    run = {"side": side, "cpus": cpus, "start": start, "end": time.monotonic(),
           "threads": os.environ.get("BENCH_THREADS"), "ticks": ticks}
    f.write(json.dumps(run) + "\n")
"""


def _counted_suite(tmp_path: Path) -> tuple[Suite, Path]:
    """A counted series (perl's raw format, standing in for callgrind's) that logs where it ran."""
    script, log = tmp_path / "counter.py", tmp_path / "counts.jsonl"
    script.write_text(COUNTER)
    command = shlex.join([sys.executable, str(script), str(log)])
    return Suite("cnt", command, "perl", "out", series="instructions", rounds=3), log


def _interleave_with_counts(
    tmp_path: Path,
    cpus: str | None,
    crowded_at: float = math.inf,
    after_first_round: Callable[[], None] = lambda: None,
    placement: str = "one",
    **counted_fields,
):
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a")], cpus=placement)
    counted, log = _counted_suite(tmp_path)
    counted = replace(counted, **counted_fields)
    rounds_done: list[float] = []  # when each lockstep round was recorded
    failures: list = []

    def progress(message: str) -> None:
        if message.startswith("round ") and " ls " in message:
            rounds_done.append(time.monotonic())
            if len(rounds_done) == 2:  # both sides of the first round
                after_first_round()

    data = interleave(
        RoundPlan([suite, counted], _sides(tmp_path), [3, 4], cpus=cpus, crowded_at=crowded_at),
        tmp_path / "logs",
        stop_when=lambda _: True,
        progress=progress,
        failures=failures,
    )
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    return data, failures, runs, rounds_done


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a CPU that lockstep leaves")
def test_counts_run_beside_the_lockstep_rounds_on_the_cpu_it_leaves(tmp_path: Path) -> None:
    data, failures, runs, rounds_done = _interleave_with_counts(tmp_path, None)
    assert failures == []
    # The look at 3 rounds waited for the counts' 3 rounds: all of them are judged.
    assert data.count == 3
    for side in ("base", "head"):
        assert data.padded(side, "perl/c/n (instructions)") == [100.0] * 3
    assert len(runs) == 6 and sorted(r["side"] for r in runs) == ["base"] * 3 + ["head"] * 3
    lockstep_cpu = one_cpu(None)
    assert {r["cpus"] for r in runs} == {spare_cpus(None)}
    assert lockstep_cpu not in {c for r in runs for c in r["cpus"].split(",")}
    # ... with the pools sized to the CPUs the gate may use, as they would be unpinned.
    assert {r["threads"] for r in runs} == {str(len(os.sched_getaffinity(0)))}
    # One side after the other on the single spare CPU, and beside the rounds: counting had begun
    # before the lockstep rounds were over, and went on after the first of them.
    spans = sorted((r["start"], r["end"]) for r in runs)
    one_by_one = all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    assert one_by_one or CpuSet.parse(str(spare_cpus(None))).count > 1
    assert spans[0][0] < rounds_done[-1] and spans[-1][1] > rounds_done[0]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a CPU that lockstep leaves")
def test_counts_pause_while_a_full_size_suite_steps(tmp_path: Path, monkeypatch) -> None:
    # A full-size lockstep suite steps with every CPU of the job: the counts beside the rounds
    # are stopped where they stand while it runs (SIGSTOP) and go on after it. The pauses are
    # timed where the freezer stops and continues (not inferred from when the rounds were
    # reported, which a busy machine delays by up to a second).
    pauses: list[tuple[float, float]] = []
    paused = Freezer.paused

    @contextlib.contextmanager
    def timed(self):
        with paused(self):
            start = time.monotonic()  # every registered group has been sent SIGSTOP
            try:
                yield
            finally:
                pauses.append((start, time.monotonic()))  # before SIGCONT is sent

    monkeypatch.setattr(Freezer, "paused", timed)
    (tmp_path / "worker.py").write_text(WORKER)
    slow = [bench(f"t/{i}", work=4 * WORK) for i in range(6)]
    suite = _worker_suite(tmp_path, slow, slow, cpus="all")
    counted, log = _counted_suite(tmp_path)
    data = interleave(
        RoundPlan([suite, counted], _sides(tmp_path), [3]),
        tmp_path / "logs",
        stop_when=lambda _: True,
        progress=lambda _: None,
        failures=[],
    )
    ticks = [t for line in log.read_text().splitlines() for t in json.loads(line)["ticks"]]
    assert len(ticks) == 6 * 70 and data.count == 3
    # one a round for the full-size suite, and one a round for the vCPU reading at its start
    # (machine/vcpus.py: the counts would share the spare CPU's reading)
    assert len(pauses) == 3 + 3
    # No count ran while the full-size suite stepped (a tick taken as SIGSTOP was being sent,
    # or its 10 ms sleep, may straddle an edge: hence the margin).
    inside = [t for t in ticks for a, b in pauses if a + 0.05 < t < b - 0.05]
    assert inside == [], (inside[:5], pauses)


def test_a_freezer_stops_and_continues_what_it_started(tmp_path: Path) -> None:
    freezer = Freezer()
    out = tmp_path / "ticks"
    tick = "import time,sys\nwhile True:\n print(time.monotonic(), flush=True); time.sleep(0.01)"
    proc = freezer.popen([sys.executable, "-c", tick], stdout=out.open("w"))
    try:
        time.sleep(0.3)
        with freezer.paused():
            time.sleep(0.05)  # let the last tick land
            paused_from = time.monotonic()
            time.sleep(0.4)
            paused_to = time.monotonic()
        time.sleep(0.3)
    finally:
        stop_group(proc)
        freezer.forget(proc)
    ticks = [float(x) for x in out.read_text().split()]
    assert any(t < paused_from for t in ticks) and any(t > paused_to for t in ticks)
    assert not [t for t in ticks if paused_from < t < paused_to]


def test_a_freezer_starts_nothing_while_paused() -> None:
    # A count asked to start during a pause waits for its end: started and stopped at once, it
    # ran from its exec until the SIGSTOP (a CI run beside nothing saw a tick 55 ms into a
    # pause). Whatever the machine's load: popen cannot return while the pause holds the flag.
    freezer = Freezer()
    started: list[subprocess.Popen] = []
    clock = [sys.executable, "-c", "import time; print(time.monotonic())"]
    with freezer.paused():
        waiting = threading.Thread(target=lambda: started.append(
            freezer.popen(clock, stdout=subprocess.PIPE, text=True)))  # fmt: skip
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive() and not started
        resumed = time.monotonic()
    waiting.join()
    out, _ = started[0].communicate()
    freezer.forget(started[0])
    assert float(out) > resumed


def three_rounds(tmp_path: Path, placement: str) -> Rounds:
    """Three rounds of one benchmark, the same on both sides, in a suite placed `placement`."""
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a")], cpus=placement)
    return interleave(
        RoundPlan([suite], _sides(tmp_path), [3]),
        tmp_path / "logs",
        stop_when=lambda _: True,
        progress=lambda _: None,
        failures=[],
    )


@pytest.mark.parametrize("placement", ["one", "all"])
def test_a_suite_takes_its_turns_on_one_cpu_or_on_every_cpu_of_the_job(tmp_path, placement):
    # "all": each step free to use every CPU of the job, the pools sized to them; "one": both
    # workers pinned to the last CPU.
    data = three_rounds(tmp_path, placement)
    assert data.count == 3
    every = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    for side in ("base", "head"):
        log = (tmp_path / "logs" / f"round01-{side}-ls.log").read_text()
        seen = next(line for line in log.splitlines() if line.startswith("cpus "))
        if placement == "all":
            assert seen == f"cpus {every} threads {len(os.sched_getaffinity(0))}"
        else:
            assert seen.startswith(f"cpus {one_cpu(None)} threads ")


def test_cpu_time_comes_from_the_same_steps_as_the_wall_time(tmp_path: Path) -> None:
    # `cpu_time` globs: the worker times each step by both clocks (`wall+cpu`); a benchmark that
    # sleeps in its call spends wall time the CPU clock does not see.
    napping = bench("t/nap", clock="wall+cpu", sleep=0.002)
    suite = replace(
        _worker_suite(tmp_path, [napping], [napping]), cpu_time=("t/*",), pair_seconds=0.3
    )
    assert suite.clock == "wall+cpu"
    data = interleave(
        RoundPlan([suite], _sides(tmp_path), [3]),
        tmp_path / "logs",
        stop_when=lambda _: True,
        progress=lambda _: None,
        failures=[],
    )
    assert set(data.values["base"]) == {"t/nap", "t/nap (cpu)"}
    assert data.meta["t/nap (cpu)"].paired
    for side in ("base", "head"):
        wall, cpu = data.padded(side, "t/nap"), data.padded(side, "t/nap (cpu)")
        assert all(c > 1.5 * w for w, c in zip(wall, cpu, strict=True))  # the sleeps are not CPU


@contextlib.contextmanager
def busy_neighbour() -> Iterator[None]:
    """A busy loop that is not this process's descendant (bash starts it and exits, so it is
    re-parented), as a co-tenant job would be; killed on the way out, whatever happens."""
    loop = f"{shlex.quote(sys.executable)} -c 'while True: pass'"
    out = subprocess.run(
        ["bash", "-c", f"{loop} >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(out.stdout.split()[0])
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


class ProcStat:
    """A /proc/stat of the test's making (machine_load.STAT points at it): the rest of the
    machine's busy time is what the test says, whatever this machine's neighbours do."""

    def __init__(self, path: Path) -> None:
        self.path, self.busy_ticks = path, 0
        self.write()

    def write(self) -> None:
        # user nice system idle iowait irq softirq steal guest guest_nice
        self.path.write_text(f"cpu  {self.busy_ticks} 0 0 1000 0 0 0 0 0 0\ncpu0 0 0 0 0\n")

    def add_busy(self, seconds: float) -> None:
        self.busy_ticks += round(seconds * machine_load._TICK)
        self.write()


@pytest.fixture
def proc_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ProcStat:
    stat = ProcStat(tmp_path / "stat")
    monkeypatch.setattr(machine_load, "STAT", stat.path)
    return stat


def test_neighbour_meter_is_the_machines_busy_time_less_this_tree_per_second(proc_stat) -> None:
    now = [100.0]
    meter = NeighbourMeter(window=2.0, clock=lambda: now[0])
    now[0] += 1.0
    assert meter.neighbour() is None  # a span shorter than the window is left to grow
    proc_stat.add_busy(6.0)  # 6 CPU-seconds over 4 s of wall time: 1.5 CPUs
    now[0] += 3.0
    first = meter.neighbour()
    # less this process's own CPU time over the span: the few ms the test itself took
    assert first is not None and 1.45 <= first <= 1.5, first
    now[0] += 0.5
    assert meter.neighbour() == first and meter.readings == [first]  # the last reading stands
    now[0] += 2.0  # nothing else busy since: the span reads 0, never below
    assert meter.neighbour() == 0.0 and meter.readings == [first, 0.0]


def test_this_process_trees_cpu_time_counts_reaped_children_and_not_a_neighbour() -> None:
    me = psutil.Process()
    # A grandchild that burns 0.3 s of CPU and has exited, reaped by its parent (bash), also
    # gone: still this tree's work, not a neighbour's.
    body = "import time\nwhile time.process_time() < 0.3: pass"
    before = machine_load._tree_cpu_seconds(me)
    spin = f"{shlex.quote(sys.executable)} -c '{body}'"
    subprocess.run(["bash", "-c", f"{spin}; true"], check=True)
    tick = 1 / machine_load._TICK  # the kernel's unit of a reaped child's CPU time
    assert machine_load._tree_cpu_seconds(me) - before >= 0.3 - 2 * tick
    # A busy loop bash started and left (re-parented, as a co-tenant job is) is not this tree's,
    # however long it runs: this process only sleeps meanwhile.
    with busy_neighbour():
        before = machine_load._tree_cpu_seconds(me)
        time.sleep(0.5)
        assert machine_load._tree_cpu_seconds(me) - before < 0.1


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs a CPU that lockstep leaves")
def test_a_neighbour_sends_the_counts_back_into_the_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc_stat: ProcStat
) -> None:
    monkeypatch.setattr(rounds, "WINDOW_SECONDS", 0.5)
    # The neighbour comes after the first round and keeps far more than CROWDED busy (1,000
    # CPU-seconds at once), whatever this machine's real neighbours do.
    data, failures, runs, _ = _interleave_with_counts(
        tmp_path, None, crowded_at=rounds.CROWDED, after_first_round=lambda: proc_stat.add_busy(1e3)
    )
    assert failures == [] and data.count == 3
    # The first count round ran beside the rounds before the neighbour came; the rest inside.
    first = data.counts_inside_from
    assert first is not None and 1 <= first <= 2, (first, data.neighbour)
    assert data.neighbour and data.neighbour[-1] >= rounds.CROWDED
    for side in ("base", "head"):
        assert data.padded(side, "perl/c/n (instructions)") == [100.0] * 3
    spare = spare_cpus(None)
    beside = [r for r in runs if r["cpus"] == spare]
    assert len(runs) == 6 and len(beside) == 2 * first
    # Inside the rounds: unpinned, both sides at once.
    inside = runs[2 * first :]
    assert all(r["cpus"] != spare for r in inside)
    for a, b in zip(inside[::2], inside[1::2], strict=True):
        assert {a["side"], b["side"]} == {"base", "head"}
        assert a["start"] < b["end"] and b["start"] < a["end"]


@pytest.mark.parametrize("where", ["beside", "inside"])
def test_a_one_run_count_gives_all_its_rounds_from_one_run_a_side(tmp_path, where) -> None:
    # `one_run`: the harness counts each benchmark several times in one process, and its k-th
    # counted run is round k's value: one start a side instead of one a round. Beside the
    # rounds (a spare CPU) or in them (one CPU), the same.
    counts = {"COUNTS": "[100.0, 110.0, 120.0, 130.0, 140.0]"}
    cpus = None if where == "beside" else one_cpu(None)
    data, failures, runs, _ = _interleave_with_counts(tmp_path, cpus, one_run=True, env=counts)
    assert failures == [] and data.count == 3
    assert sorted(r["side"] for r in runs) == ["base", "head"]  # one run a side
    for side in ("base", "head"):
        assert data.padded(side, "perl/c/n (instructions)") == [100.0, 110.0, 120.0]
        assert data.samples[side]["perl/c/n (instructions)"] == [[100.0], [110.0], [120.0]]
    assert len(data.run_seconds["cnt"]) == 2


def test_a_one_run_count_with_fewer_runs_than_rounds_fails_its_suite(tmp_path) -> None:
    # One count (a harness's single summary figure) for three rounds: rounds 2 and 3 would
    # stay empty; the suite fails with a message naming the benchmark and what to change.
    counts = {"COUNTS": "[100.0]"}
    data, failures, _, _ = _interleave_with_counts(tmp_path, None, one_run=True, env=counts)
    assert [(f.suite, f.what) for f in failures] == [("cnt", "run")]
    assert "gave 1 count(s) of perl/c/n" in failures[0].tail and "3 rounds" in failures[0].tail
    assert "perl/c/n (instructions)" not in data.samples["base"]


def test_on_one_cpu_the_counts_take_their_turn_in_the_rounds(tmp_path: Path) -> None:
    cpu = one_cpu(None)
    data, failures, runs, rounds_done = _interleave_with_counts(tmp_path, cpu)
    assert failures == [] and data.count == 3
    assert {r["cpus"] for r in runs} == {cpu} and {r["threads"] for r in runs} == {None}
    # Each round: lockstep (recorded once per side) then the counts; never at once.
    assert len(rounds_done) == 6
    for rnd in range(3):
        counted = runs[2 * rnd : 2 * rnd + 2]
        assert all(r["start"] >= rounds_done[2 * rnd + 1] for r in counted)
        if rnd + 1 < 3:
            assert all(r["end"] <= rounds_done[2 * rnd + 2] for r in counted)


def test_lockstep_round_reports_each_side_in_order(tmp_path: Path) -> None:
    suite = _worker_suite(tmp_path, [bench("t/a"), bench("t/b")], [bench("t/a")])
    base, head = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in (base, head)}
    out = measure_lockstep(suite, (head, base), envs, None, tmp_path / "logs", 1)
    assert [co.side for co, _ in out] == ["head", "base"]
    (_, (head_benches, head_errors, _)), (_, (base_benches, base_errors, seconds)) = out
    assert [b.name for b in head_benches] == ["t/a"]
    assert [b.name for b in base_benches] == ["t/a", "t/b"]
    assert head_errors == base_errors == []
    assert len(head_benches[0].samples) == len(base_benches[0].samples) == 5
    assert seconds > 0
    assert (tmp_path / "logs" / "round02-head-ls.log").exists()


def test_lockstep_round_names_a_nonzero_exit(tmp_path: Path) -> None:
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a")], head_exit=3)
    base, head = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in (base, head)}
    out = dict(
        (co.side, r) for co, r in measure_lockstep(suite, (base, head), envs, None, tmp_path, 0)
    )
    benches, errors, _ = out["head"]
    assert [b.name for b in benches] == ["t/a"]
    assert [(e.name, e.message) for e in errors] == [("ls", "exit 3: worker head done")]


def test_lockstep_round_turns_a_worker_failure_into_a_suite_failure(tmp_path: Path) -> None:
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a", mode="exit_on_run")])
    base, head = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in (base, head)}
    out = measure_lockstep(suite, (base, head), envs, None, tmp_path / "logs", 0)
    assert len(out) == 1 and out[0][0].side == "head"
    failed = out[0][1]
    assert isinstance(failed, SuiteFailed)
    assert failed.failure.what == "run" and "dying in t/a" in failed.failure.tail


def test_a_name_off_the_contract_fails_the_suite_saying_which(tmp_path: Path) -> None:
    """The suite fails (exit 3, its benchmarks not written), its failure's tail naming it."""
    suite = _worker_suite(tmp_path, [bench("t/a")], [bench("t/a\u2066x")])
    base, head = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in (base, head)}
    (co, failed), *_ = measure_lockstep(suite, (base, head), envs, None, tmp_path / "logs", 0)
    assert co.side == "head" and isinstance(failed, SuiteFailed) and failed.failure.suite == "ls"
    assert "a benchmark name '<suite>/" in failed.failure.tail
    assert "got 't/a\\u2066x'" in failed.failure.tail


def test_lockstep_round_of_several_processes_gives_one_value_each(tmp_path: Path) -> None:
    # Three process pairs one after the other, each with a log of its own; a paired benchmark
    # gets one value per process pair and side (its own pairs' paired values), a one-sided one
    # every step of every process; head does twice the work.
    base = [bench("t/a", ns_per_call=NS), bench("t/b")]
    head = [bench("t/a", work=2 * WORK, ns_per_call=2 * NS)]
    suite = replace(_worker_suite(tmp_path, base, head), processes=3)
    suite = replace(suite, pairs=12)
    sides = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in sides}
    out = dict(
        (co.side, r) for co, r in measure_lockstep(suite, sides, envs, None, tmp_path / "l", 0)
    )
    (base_benches, base_errors, _), (head_benches, head_errors, _) = out["base"], out["head"]
    assert base_errors == head_errors == []
    base_by = {b.name: b for b in base_benches}
    assert [b.name for b in head_benches] == ["t/a"] and sorted(base_by) == ["t/a", "t/b"]
    assert len(base_by["t/a"].samples) == len(head_benches[0].samples) == 3
    # alone: each step a sample, 2 to 4 a process (12 pairs over 3, at least one AB and BA)
    assert 3 * 2 <= len(base_by["t/b"].samples) <= 3 * 4
    for k in ("", "-p2", "-p3"):
        assert (tmp_path / "l" / f"round01-base-ls{k}.log").exists()
        assert (tmp_path / "l" / f"round01-head-ls{k}.log").exists()
    b, h = lockstep.paired_values(base_by["t/a"].samples, head_benches[0].samples, True)
    assert h / b == pytest.approx(0.5)  # half the throughput: head reports twice the time


def test_a_round_pooling_its_processes_pairs_keeps_every_pair_aligned(tmp_path: Path) -> None:
    # pool = "pairs": the three process pairs' pairs side by side, each base step with the head
    # step it was paired with; the round's value is their median ratio (head does twice the work).
    base = [bench("t/a", ns_per_call=NS)]
    head = [bench("t/a", work=2 * WORK, ns_per_call=2 * NS)]
    suite = replace(_worker_suite(tmp_path, base, head), processes=3)
    suite = replace(suite, pairs=12, pool="pairs")
    sides = _sides(tmp_path)
    envs = {("ls", co.side): {**os.environ, "GATE_SIDE": co.side} for co in sides}
    out = dict(
        (co.side, r) for co, r in measure_lockstep(suite, sides, envs, None, tmp_path / "l", 0)
    )
    [b_run], [h_run] = out["base"][0], out["head"][0]
    assert len(b_run.samples) == len(h_run.samples) >= 3 * 2  # every pair of every process
    ratios = sorted(h / b for b, h in zip(b_run.samples, h_run.samples, strict=True))
    assert ratios == [pytest.approx(0.5)] * len(ratios)  # aligned: each pair's own ratio, 1/2
    b, h = lockstep.paired_values(b_run.samples, h_run.samples)
    assert h / b == pytest.approx(0.5)


# ----------------------------------------------------------------------------- real harnesses


def test_a_step_clock_other_than_the_suites_is_a_step_error(tmp_path: Path) -> None:
    base = [bench("t/a", clock="cpu"), bench("t/b", clock="wall"), bench("t/c")]
    head = [bench("t/a", clock="cpu"), bench("t/b", clock="cpu"), bench("t/c", clock="cpu")]
    workers = pair_of(tmp_path, base, head)
    plan = lockstep.Plan(pairs=5, seconds=0.05, clock="cpu")
    out = lockstep.measure(workers, plan, flip=False, timeout=HANG)
    assert sorted(by_name(out)) == ["t/a"]
    # t/b and t/c: the base times by the wall clock (said, or left out as Rust and Perl do)
    assert [(e.name, e.side) for e in out.errors["base"]] == [("t/b", "base"), ("t/c", "base")]
    assert "timed by the wall clock, not the cpu clock" in out.errors["base"][0].message
    assert out.errors["head"] == []


def _harness(
    tmp_path: Path, command: str, env: dict[str, str], clock: str = "wall", step: float = 0.01
) -> lockstep.Outcome:
    base_env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | env
    cpu = one_cpu(None)
    workers = {
        side: lockstep_worker.Worker(side, command, REPO, base_env, tmp_path / f"{side}.log", cpu)
        for side in ("base", "head")
    }
    plan = lockstep.Plan(pairs=5, seconds=0.2, clock=clock, step=step)
    return lockstep.measure(workers, plan, flip=False, timeout=HANG)


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"adapter": "lockstep", "command": "w", "cpus": "two"}, "bench.suites.x.gate.cpus"),
        ({"adapter": "perl", "cpus": "one"}, "bench.suites.x.gate.cpus"),
        ({"adapter": "perl", "cpu_time": ["*"]}, "bench.suites.x.gate.cpu_time"),
        (
            {"adapter": "lockstep", "command": "w", "series": "cpu", "cpu_time": ["*"]},
            "bench.suites.x.gate.cpu_time",
        ),
    ],
)
def test_where_and_by_what_clock_a_suite_steps_is_checked(table: dict, field: str) -> None:
    with pytest.raises(BadInput) as refused:
        parse({"bench": {"suites": {"x": {**BENCH, "gate": table}}}}, "benchtrack.toml")
    assert refused.value.field == field and refused.value.exit_code == 2
    lockstep_x = {**BENCH, "gate": {"adapter": "lockstep", "command": "w"}}
    ok = parse({"bench": {"suites": {"x": lockstep_x}}}, "benchtrack.toml")
    assert ok.suites["x"].cpus == "all" and ok.suites["x"].clock == "wall"
