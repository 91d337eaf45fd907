"""`cpus = "auto"` (gate/placement.py): the workers live on one CPU; a benchmark that keeps one
CPU busy has its pairs there, one that keeps two busy is stepped with every CPU (its probe too),
and the workers are put back after. Real worker processes speak the step protocol; one
benchmark hashes a large buffer in two threads (hashlib lets go of the GIL), the other is a
pure-Python loop."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from benchtrack.gate import lockstep, lockstep_worker, placement

# A measurement's timeout in these tests: a guard against a hang, never a verdict on speed
# (pinned to one CPU beside a busy loop and three test workers, a worker's start-up took
# past 120 s).
HANG = 600

WORKER = r"""
import hashlib, json, os, sys, threading
from concurrent.futures import ThreadPoolExecutor

spec = json.load(open(sys.argv[1]))
seen = open(spec["seen"], "a", buffering=1)
fd_in, fd_out = (int(x) for x in os.environ["BENCH_STEP"].split(","))
commands, replies = os.fdopen(fd_in, "r"), os.fdopen(fd_out, "w", buffering=1)
pool = ThreadPoolExecutor(2)
block = b"x" * (1 << 20)


def single():
    x = 0
    for i in range(20000):
        x += i * i


def threads():
    list(pool.map(lambda _: hashlib.sha256(block * 4).digest(), range(2)))


def cpus():
    return len(os.sched_getaffinity(0))


import time
for name, call in (("t/single", single), ("t/threads", threads)):
    call()
    seen.write(f"{spec['side']} {name} ready {cpus()}\n")
    replies.write(f"ready {name}\tcalls/s\t1\n")
    for line in commands:
        word, _, arg = line.strip().partition(" ")
        if word == "next":
            break
        # where the step runs, read before its reply: after it the gate may move the worker
        seen.write(f"{spec['side']} {name} step {cpus()}\n")
        t0 = time.perf_counter_ns()
        for _ in range(int(arg)):
            call()
        replies.write(f"ns {time.perf_counter_ns() - t0}\n")
"""


def workers(tmp_path: Path, seen: Path, cpu: str) -> dict[str, lockstep_worker.Worker]:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    out = {}
    for side in ("base", "head"):
        spec = tmp_path / f"{side}.json"
        spec.write_text(json.dumps({"side": side, "seen": str(seen)}))
        command = shlex.join([sys.executable, str(script), str(spec)])
        log = tmp_path / "logs" / f"{side}.log"
        out[side] = lockstep_worker.Worker(side, command, tmp_path, dict(os.environ), log, cpu)
    return out


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_auto_pins_a_single_threaded_benchmark_and_keeps_every_cpu_for_a_threaded_one(
    tmp_path, monkeypatch
):
    # A thread counts as busy here once it ran 2% of a probe step (the gate: a quarter): how much
    # CPU the two hashing threads get depends on what else the machine runs (beside a busy loop,
    # ~1.3 CPUs between them; under a loaded test run, 0.16 was seen), and where the rule's
    # line falls under a neighbour is test_choose_keeps_every_cpu_once_a_side_keeps_more_than_
    # one_busy's. What this test holds to is the path: the probe on every CPU, reading each
    # side's threads from /proc, the pins, and the pairs where the choice put them.
    monkeypatch.setattr(placement, "BUSY_SHARE", 0.02)
    every = frozenset(os.sched_getaffinity(0))
    one = frozenset({max(every)})
    plan = lockstep.Plan(pairs=6, seconds=30, one=one, every=every)
    seen = tmp_path / "seen.txt"
    # started on the one CPU, as the gate starts a "auto" suite's workers
    out = lockstep.measure(workers(tmp_path, seen, str(max(one))), plan, flip=False, timeout=HANG)
    assert out.exit_codes == {"base": 0, "head": 0}
    assert plan.placements == {"t/single": placement.ONE, "t/threads": placement.ALL}
    steps: dict[tuple[str, str], list[int]] = {}
    ready: dict[tuple[str, str], int] = {}
    for line in seen.read_text().splitlines():
        side, name, what, n = line.split()
        if what == "ready":
            ready[side, name] = int(n)
        else:
            steps.setdefault((side, name), []).append(int(n))
    for side in ("base", "head"):
        # the sizing step on the one CPU, the probe's steps with every CPU, the 6 pairs' on one
        for name in ("t/single", "t/threads"):
            assert ready[side, name] == 1  # each warm-up where the worker lives
        single = steps[side, "t/single"]
        assert single[0] == 1 and single[-6:] == [1] * 6, single
        assert set(single[1:-6]) == {len(every)}, single
        # the threaded one: its probe and its pairs with every CPU
        threads = steps[side, "t/threads"]
        assert threads[0] == 1 and set(threads[1:]) == {len(every)}, threads
    log = (tmp_path / "logs" / "base.log").read_text()
    assert "placement t/single: one" in log and "placement t/threads: all" in log

    # A later round keeps the choices: no probe, the single-threaded pairs on one CPU at once.
    seen.unlink()
    plan2 = lockstep.Plan(pairs=6, seconds=30, one=one, every=every, placements=plan.placements)
    lockstep.measure(workers(tmp_path, seen, str(max(one))), plan2, flip=True, timeout=HANG)
    lines = [line.split() for line in seen.read_text().splitlines()]
    single = [int(n) for side, name, what, n in lines if name == "t/single" and what == "step"]
    assert single == [1] * 14  # each side's sizing step, then the pairs
    threads = [int(n) for side, name, what, n in lines if name == "t/threads" and what == "step"]
    assert threads == [1] * 2 + [len(every)] * 12


def test_choose_keeps_every_cpu_once_a_side_keeps_more_than_one_busy():
    one = placement.Usage(cpus=1.0, threads=1)
    assert placement.choose({"base": one, "head": placement.Usage(1.1, 1)}) == placement.ONE
    # lost parallelism: the base used two CPUs, the head one; both must show at full size
    assert placement.choose({"base": placement.Usage(1.9, 2), "head": one}) == placement.ALL
    # a neighbour left two busy threads 1.2 CPUs; a harness's per-step processes show no threads
    assert placement.choose({"base": placement.Usage(1.2, 2), "head": one}) == placement.ALL
    assert placement.choose({"base": placement.Usage(1.8, 0), "head": one}) == placement.ALL


def test_busy_threads_counts_the_threads_that_ran_a_quarter_of_the_steps():
    before = {1: 0.0, 2: 5.0}
    after = {1: 0.05, 2: 5.2, 3: 0.3}  # 3 started during the probe
    assert placement.busy_threads(before, after, wall=0.4) == 2


def test_a_reading_counts_the_children_a_session_waited_for():
    # The Go worker starts a process per step: once it has waited for one, the step's CPU time
    # is only in the worker's cutime.
    child = (
        "import time; t = time.process_time(); exec('while time.process_time() - t < 0.3: pass')"
    )
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}]); "
    parent += "print('waited', flush=True); input()"
    proc = subprocess.Popen(
        [sys.executable, "-c", parent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "waited"
        assert placement.processes([proc.pid]) == [proc.pid]  # the child is gone
        assert placement.read(proc.pid).cpu >= 0.3
    finally:
        proc.communicate("\n", timeout=30)


def test_the_gate_probes_each_benchmark_once_per_run_and_keeps_its_choice(tmp_path):
    # Through the rounds as the gate runs them: round 1 probes and says what it chose in each
    # worker's log; the later rounds (new worker processes) pin at once.
    from test_lockstep import three_rounds

    data = three_rounds(tmp_path, placement.AUTO)
    assert data.count == 3 and data.placements == {"ls": {"t/a": placement.ONE}}
    for side in ("base", "head"):
        logs = [(tmp_path / "logs" / f"round0{r}-{side}-ls.log").read_text() for r in (1, 2, 3)]
        assert "[benchtrack gate] placement t/a: one" in logs[0]
        assert not any("placement" in log for log in logs[1:])
