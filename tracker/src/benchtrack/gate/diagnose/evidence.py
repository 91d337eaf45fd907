"""One side's evidence: what one call of a benchmark cost, by every measure the diagnosis reads.

Everything is per call (the step protocol says how many calls a step made), except the peak
resident memory (the session's, bytes) and the busy threads. `syscalls` is per call too, from the
worker's traced step before strace let go of it (`syscalls.py`), or None when none was counted
(and `note` says why); `traced_wall` is that step's seconds a call under strace (over `wall`:
what tracing cost; no other figure was read while it traced).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from benchtrack.gate.diagnose.procstat import Usage


@dataclass(frozen=True)
class Evidence:
    calls: int  # calls measured
    wall: float  # seconds a call
    user: float  # CPU seconds a call, all threads and waited-for children
    system: float
    queued: float  # seconds a call runnable but waiting for a CPU (live threads)
    voluntary: float  # context switches a call
    involuntary: float
    minor: float  # page faults a call
    major: float
    rss_growth: float  # bytes a call: resident memory that stayed
    peak: float  # bytes: the session's peak resident memory (sum of VmHWM)
    busy_threads: int  # threads on a CPU for at least a quarter of the wall time
    syscalls: dict[str, float] | None = None  # per call, by name
    note: str = ""  # why no syscalls were counted, when so
    traced_calls: int | None = None  # the traced step's calls
    traced_wall: float | None = None  # seconds a call of the traced step, under strace
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def cpu(self) -> float:
        return self.user + self.system

    @property
    def runnable(self) -> float:
        """Seconds a call some thread was on a CPU or waiting for one."""
        return self.cpu + self.queued

    @property
    def threads_at_once(self) -> float:
        """Runnable time over wall time: how many threads ran (or could have) at once; unlike
        CPU time over wall time, a neighbour taking the CPUs does not lower it."""
        return self.runnable / self.wall if self.wall > 0 else math.nan

    @property
    def off_cpu(self) -> float:
        """Seconds a call with not even one thread runnable: blocked (sleeping, I/O, a lock)."""
        return max(self.wall - self.runnable / max(self.threads_at_once, 1.0), 0.0)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("extra")
        return {k: v for k, v in out.items() if v is not None and v != ""}

    @classmethod
    def of(cls, usage: Usage, calls: int) -> Evidence:
        n = max(calls, 1)
        return cls(
            calls=calls,
            wall=usage.wall / n,
            user=usage.user / n,
            system=usage.system / n,
            queued=usage.queued / n,
            voluntary=usage.voluntary / n,
            involuntary=usage.involuntary / n,
            minor=usage.minor / n,
            major=usage.major / n,
            rss_growth=usage.rss_growth / n,
            peak=float(usage.peak),
            busy_threads=usage.busy_threads(),
        )
