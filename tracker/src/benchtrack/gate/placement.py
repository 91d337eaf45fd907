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
the step processes it waited for) against the wall time of its steps, and so is each of its
live threads'; the probe's pairs are not kept. Up to THREADED CPUs and one busy thread on both
sides: the benchmark's pairs (then and in every later round) run on the one CPU; more: with
every CPU, the workers put back on the one CPU after them. (The threads, because a neighbour
can leave two busy threads less than THREADED CPUs; the CPU time, because a harness that starts
a process per step leaves only its waited-for children's total.) (Why start there rather than
pin for the pairs only: a process's start and warm-up are part of what it keeps, and a
single-threaded benchmark's workers are then started as "one" starts them.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from benchtrack.machine.cpuset import CpuSet

ALL, ONE, AUTO = "all", "one", "auto"
# CPUs a side may keep busy and still be stepped on one: a single-threaded benchmark reads
# ~1.0 (plus the runtime's own threads: a collector, a timer); two busy threads read ~2.
THREADED = 1.3
# The probe's length (both sides' steps): /proc counts CPU time in clock ticks (10 ms), so at
# least ~0.2 s of steps a side keeps a tick's error within 5% of the ratio.
PROBE_SECONDS = 0.4
# A thread busy for this share of a side's probe steps counts as one that does the benchmark's
# work. Two such threads make it threaded even when a neighbour leaves them ~1.3 CPUs between
# them (two threads and a busy loop on 2 CPUs get 2/3 of a CPU each): CPU time alone would then
# read single-threaded, and lost parallelism would go unseen.
BUSY_SHARE = 0.25
_PROC = Path("/proc")
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: str, tid: str | None = None) -> list[str] | None:
    """/proc/<pid>/stat's (or its thread's, task/<tid>/stat) fields after the command name
    (which may hold spaces and parens)."""
    path = _PROC / pid / "stat" if tid is None else _PROC / pid / "task" / tid / "stat"
    try:
        text = path.read_text()
    except OSError:
        return None  # exited meanwhile
    return text.rpartition(")")[2].split()


def processes(sids: Iterable[int]) -> list[int]:
    """The live processes of the sessions `sids` (each worker starts its own: lockstep_worker)."""
    wanted = set(sids)
    out = []
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and (f := _stat(entry.name)) is not None and int(f[3]) in wanted:
            out.append(int(entry.name))
    return out


@dataclass(frozen=True)
class Reading:
    """Session `sid`'s CPU time at one moment (`read`)."""

    cpu: float  # its live processes' own (all threads, ended ones too) and waited-for children's
    threads: dict[int, float]  # each live thread's own (utime, stime), by thread id


def read(sid: int) -> Reading:
    """Session `sid`'s CPU time, from one scan of /proc: each live process's utime, stime,
    cutime and cstime (the Go worker's step processes, once waited for, are in its cutime),
    and each of its live threads' utime and stime."""
    ticks, threads = 0, {}
    for pid in processes([sid]):
        f = _stat(str(pid))
        if f is None:
            continue
        ticks += sum(int(x) for x in f[11:15])
        with contextlib.suppress(OSError):
            for task in (_PROC / str(pid) / "task").iterdir():
                if (t := _stat(str(pid), task.name)) is not None:
                    threads[int(task.name)] = (int(t[11]) + int(t[12])) / _TICK
    return Reading(ticks / _TICK, threads)


def busy_threads(before: dict[int, float], after: dict[int, float], wall: float) -> int:
    """Threads that ran at least BUSY_SHARE of `wall` between two readings' `threads`."""
    return sum(1 for tid, t in after.items() if t - before.get(tid, 0.0) >= BUSY_SHARE * wall)


def pin(sids: Iterable[int], cpus: set[int]) -> None:
    """Every thread of every process of the sessions `sids` onto `cpus` (threads started later
    inherit it from the thread that starts them)."""
    for pid in processes(sids):
        try:
            tids = [int(t.name) for t in (_PROC / str(pid) / "task").iterdir()]
        except OSError:
            continue
        for tid in tids:
            # ended meanwhile (ProcessLookupError), or not ours to move
            with contextlib.suppress(OSError):
                os.sched_setaffinity(tid, cpus)


@dataclass(frozen=True)
class Usage:
    """What one side's session used over its probe steps."""

    cpus: float  # CPU time over wall time
    threads: int  # threads busy for at least BUSY_SHARE of the wall time

    def __str__(self) -> str:
        return f"{self.cpus:.2f} CPUs busy in its probe, {self.threads} busy threads"


def choose(used: dict[str, Usage]) -> str:
    """ONE when every side kept at most THREADED CPUs and one thread busy in its probe steps,
    else ALL."""
    single = all(u.cpus <= THREADED and u.threads <= 1 for u in used.values())
    return ONE if single else ALL


# Where lockstep's two workers share a CPU and where the counts run beside them.
def one_cpu(cpus: str | None) -> str:
    """The CPU both lockstep workers share: the last of `cpus` or of this process's affinity."""
    return str(CpuSet.of(cpus).ids[-1])


def spare_cpus(cpus: str | None) -> str | None:
    """The CPUs the lockstep workers leave free (a taskset list), or None on a single CPU."""
    return CpuSet(CpuSet.of(cpus).ids[:-1]).taskset or None
