"""`cpus = "auto"`: where a lockstep benchmark's turns are taken, chosen by what it uses.

A benchmark that keeps more than one CPU busy (a thread pool, a multi-threaded runtime, a
process pool) must be stepped with every CPU of the job, or lost parallelism and contention
would not show. A single-threaded one uses one CPU whatever the runner has; stepped with every
CPU, each side's process settles on a vCPU of its own, and on a shared VM two vCPUs run at
different speeds for seconds at a time, which reads as a change between the sides
(docs/adopting.md has an adopter's rounds both ways). Its two sides then share one CPU, as
`cpus = "one"` does for a whole suite, which needs the suite's author to know which
benchmarks run threads; `init` cannot.

How: the workers start on one CPU, as with `cpus = "one"`. The first time a run of the gate
meets a benchmark, a few probe pairs run with every CPU given to both workers' threads, and
each side's CPU time is read from /proc (the worker's whole session: its threads, its children,
the step processes it waited for) against the wall time of its steps; the probe's pairs are not
kept. Up to THREADED CPUs on both sides: the benchmark's pairs (then and in every later round)
run on the one CPU; more: with every CPU, the workers put back on the one CPU after them. (Why
start there rather than pin for the pairs only: a process's start and warm-up are part of what
it keeps, and a single-threaded benchmark's workers are then started as "one" starts them.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

ALL, ONE, AUTO = "all", "one", "auto"
# CPUs a side may keep busy and still be stepped on one: a single-threaded benchmark reads
# ~1.0 (plus the runtime's own threads: a collector, a timer); two busy threads read ~2.
THREADED = 1.3
# The probe's length (both sides' steps): /proc counts CPU time in clock ticks (10 ms), so at
# least ~0.2 s of steps a side keeps a tick's error within 5% of the ratio.
PROBE_SECONDS = 0.4
_PROC = Path("/proc")
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: str) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name (which may hold spaces and parens)."""
    try:
        text = (_PROC / pid / "stat").read_text()
    except OSError:
        return None  # exited meanwhile
    return text.rpartition(")")[2].split()


def session(sid: int) -> list[int]:
    """The live processes of session `sid` (a worker starts its own: lockstep.Worker)."""
    out = []
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and (f := _stat(entry.name)) is not None and int(f[3]) == sid:
            out.append(int(entry.name))
    return out


def cpu_seconds(sid: int) -> float:
    """CPU time of session `sid`: its live processes' own (all their threads, ended ones
    included) and that of the children they waited for (utime, stime, cutime, cstime)."""
    ticks = 0
    for pid in session(sid):
        f = _stat(str(pid))
        if f is not None:
            ticks += sum(int(x) for x in f[11:15])
    return ticks / _TICK


def pin(sids: Iterable[int], cpus: set[int]) -> None:
    """Every thread of every process of the sessions `sids` onto `cpus` (threads started later
    inherit it from the thread that starts them)."""
    for sid in sids:
        for pid in session(sid):
            try:
                tids = [int(t.name) for t in (_PROC / str(pid) / "task").iterdir()]
            except OSError:
                continue
            for tid in tids:
                # ended meanwhile (ProcessLookupError), or not ours to move
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(tid, cpus)


def choose(used: dict[str, float]) -> str:
    """ONE when every side kept at most THREADED CPUs busy in its probe steps, else ALL."""
    return ONE if max(used.values()) <= THREADED else ALL
