"""What else the machine was doing while benchmarks ran: load average and CPU time shares from
/proc (Linux), so every recorded figure carries the load it was measured under.

`steal` is time the hypervisor gave this VM's vCPUs to someone else: on shared runners it is the
neighbours' load, invisible to `top` inside the VM.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import psutil

STAT = Path("/proc/stat")
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal (guest counted in user)
_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
_BUSY = ("user", "nice", "system", "irq", "softirq")  # neither waiting nor stolen
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_times() -> dict[str, int] | None:
    try:
        first = STAT.read_text().splitlines()[0].split()  # read here: a test may point it elsewhere
    except (OSError, IndexError):
        return None
    return dict(zip(_FIELDS, map(int, first[1 : 1 + len(_FIELDS)]), strict=False))


class LoadMeter:
    """Samples the 1-minute load average when asked; CPU shares between creation and `summary`."""

    def __init__(self) -> None:
        self.start = _cpu_times()
        self.loads: list[float] = []
        self.sample()

    def sample(self) -> None:
        with contextlib.suppress(OSError):  # no load average on this platform
            self.loads.append(os.getloadavg()[0])

    def summary(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.loads:
            out["loadavg_1m"] = {
                "min": min(self.loads),
                "median": round(statistics.median(self.loads), 2),
                "max": max(self.loads),
                "samples": len(self.loads),
            }
        end = _cpu_times()
        if self.start and end:
            delta = {k: end[k] - self.start.get(k, 0) for k in end}
            total = sum(delta.values()) or 1
            out["cpu_pct"] = {
                "busy": round(100 * (total - delta["idle"] - delta["iowait"]) / total, 1),
                "steal": round(100 * delta.get("steal", 0) / total, 2),
                "iowait": round(100 * delta["iowait"] / total, 2),
            }
        return out


def _tree_cpu_seconds(proc: psutil.Process) -> float:
    """CPU time (user + system) of `proc` and every live descendant, each with the children it
    has reaped: work finished by a process that exited is still counted by its parent."""
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):  # exited between the listing and the read
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
    return total


class NeighbourMeter:
    """How many CPUs the rest of the machine keeps busy: /proc/stat's busy time (steal
    excluded: that is the hypervisor's other guests, which no choice inside the VM avoids) less
    this process tree's own CPU time, per second of wall time.

    `neighbour()` averages over at least `window` seconds since the last reading it returned: a
    shorter span is left to grow (the /proc/stat tick is 10 ms and a short burst is no reason to
    move work), so the first reading covers everything since the meter was made."""

    def __init__(self, window: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.window = window
        self.clock = clock  # the wall clock the spans are measured by
        self.me = psutil.Process()
        self.readings: list[float] = []
        self._mark = self._now()

    def _now(self) -> tuple[float, float, float] | None:
        times = _cpu_times()
        if times is None:  # no /proc/stat: nothing can be said about the neighbours
            return None
        busy = sum(times[k] for k in _BUSY) / _TICK
        return self.clock(), busy, _tree_cpu_seconds(self.me)

    def neighbour(self) -> float | None:
        """The neighbours' CPUs over the span since the last reading, or the last reading if
        that span is shorter than the window (None before any, or without /proc/stat)."""
        now = self._now()
        if now is None or self._mark is None:
            return None
        wall = now[0] - self._mark[0]
        if wall < self.window:
            return self.readings[-1] if self.readings else None
        others = (now[1] - self._mark[1]) - (now[2] - self._mark[2])
        self._mark = now
        self.readings.append(round(max(others, 0.0) / wall, 2))
        return self.readings[-1]
