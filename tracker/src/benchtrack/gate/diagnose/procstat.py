"""What a worker's session did, from /proc: read before and after its measured steps.

Per process of the session (lockstep.Worker starts each worker in a session of its own, so a
process pool's workers and a harness's children are in it): /proc/<pid>/stat's user and system
time (its own, ended threads' included, and its waited-for children's) and its minor and major
page faults (likewise); /proc/<pid>/status's VmRSS and VmHWM (peak). Per live thread:
/proc/<pid>/task/<tid>/schedstat (time on a CPU and time runnable but waiting for one, in ns) and
its status's voluntary and involuntary context switches. What /proc does not keep: the switches
and run-queue wait of a thread that ended between two readings (its CPU time and faults are in
its process's totals).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack.gate import placement

_PROC = Path("/proc")
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
TICKS = 2  # a span's ticks may differ from the threads' ns by one tick at each reading


@dataclass(frozen=True)
class Thread:
    cpu: float  # seconds on a CPU (schedstat)
    queued: float  # seconds runnable, waiting for a CPU (schedstat)
    voluntary: int
    involuntary: int


@dataclass(frozen=True)
class Snapshot:
    """A session's counters at one moment (`read`)."""

    at: float  # time.monotonic()
    user: float  # seconds, its processes' (and waited-for children's)
    system: float
    minor: int  # page faults
    major: int
    rss: int  # bytes, the sum over its processes
    peak: int  # bytes, the sum of its processes' VmHWM
    threads: dict[int, Thread] = field(default_factory=dict)


def _fields(path: Path) -> list[str] | None:
    try:
        text = path.read_text()
    except OSError:
        return None  # exited meanwhile
    return text.rpartition(")")[2].split()


def _status(path: Path) -> dict[str, str]:
    out = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(":")
            out[key] = value.strip()
    return out


def _kb(value: str | None) -> int:
    return int(value.split()[0]) * 1024 if value else 0


def _thread(task: Path) -> Thread | None:
    try:
        run, wait, _ = task.joinpath("schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    status = _status(task / "status")
    return Thread(
        int(run) * 1e-9,
        int(wait) * 1e-9,
        int(status.get("voluntary_ctxt_switches", 0)),
        int(status.get("nonvoluntary_ctxt_switches", 0)),
    )


def read(sid: int) -> Snapshot:
    """Session `sid`'s counters now."""
    user = system = 0.0
    minor = major = rss = peak = 0
    threads: dict[int, Thread] = {}
    for pid in placement.processes([sid]):
        proc = _PROC / str(pid)
        f = _fields(proc / "stat")
        if f is None:
            continue
        # after the command name: minflt cminflt majflt cmajflt utime stime cutime cstime
        minor += int(f[7]) + int(f[8])
        major += int(f[9]) + int(f[10])
        user += (int(f[11]) + int(f[13])) / _TICK
        system += (int(f[12]) + int(f[14])) / _TICK
        status = _status(proc / "status")
        rss += _kb(status.get("VmRSS"))
        peak += _kb(status.get("VmHWM"))
        with contextlib.suppress(OSError):
            for task in (proc / "task").iterdir():
                if (t := _thread(task)) is not None:
                    threads[int(task.name)] = t
    return Snapshot(time.monotonic(), user, system, minor, major, rss, peak, threads)


@dataclass
class Usage:
    """What a session did between snapshots, summed over one or more spans."""

    wall: float = 0.0
    user: float = 0.0
    system: float = 0.0
    queued: float = 0.0
    voluntary: int = 0
    involuntary: int = 0
    minor: int = 0
    major: int = 0
    rss_growth: int = 0  # bytes: resident memory at the end less at the start of each span
    peak: int = 0  # bytes: the largest sum of VmHWM read
    # each thread's CPU seconds over the spans (for the threads busy a share of the wall time)
    thread_cpu: dict[int, float] = field(default_factory=dict)

    def add(self, before: Snapshot, after: Snapshot) -> None:
        self.wall += after.at - before.at
        self.minor += after.minor - before.minor
        self.major += after.major - before.major
        self.rss_growth += after.rss - before.rss
        self.peak = max(self.peak, before.peak, after.peak)
        zero = Thread(0.0, 0.0, 0, 0)
        seen_cpu = seen_queued = 0.0
        span = max(after.at - before.at, 0.0)
        for tid, t in after.threads.items():
            # started within the span: all of it; but no thread is on a CPU, or waiting for
            # one, longer than the span (one missed by the first reading, in a race with its
            # start, would bring its whole life's)
            b = before.threads.get(tid, zero)
            cpu, queued = (
                min(max(t.cpu - b.cpu, 0.0), span),
                min(max(t.queued - b.queued, 0.0), span),
            )
            self.queued += queued
            self.voluntary += max(t.voluntary - b.voluntary, 0)
            self.involuntary += max(t.involuntary - b.involuntary, 0)
            self.thread_cpu[tid] = self.thread_cpu.get(tid, 0.0) + cpu
            seen_cpu += cpu
            seen_queued += queued
        # The CPU time: the live threads' (schedstat, in ns), unless the processes' (in clock
        # ticks, ended threads and waited-for children included) is more by over TICKS ticks:
        # then threads ended within the span, whose run-queue wait went with them, and their CPU
        # time beyond the live threads' is taken to have waited as theirs did. Split into user
        # and system time as the ticks split it.
        user, system = after.user - before.user, after.system - before.system
        ticked = user + system
        cpu = seen_cpu
        if ticked - seen_cpu > TICKS / _TICK:
            cpu = ticked
            if seen_cpu > 0:
                self.queued += (ticked - seen_cpu) * seen_queued / seen_cpu
        self.user += cpu * user / ticked if ticked > 0 else cpu
        self.system += cpu * system / ticked if ticked > 0 else 0.0

    def busy_threads(self) -> int:
        """Threads on a CPU for at least placement.BUSY_SHARE of the wall time."""
        return sum(1 for t in self.thread_cpu.values() if t >= placement.BUSY_SHARE * self.wall)
