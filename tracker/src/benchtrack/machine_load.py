"""What else the machine was doing while benchmarks ran: load average and CPU time shares from
/proc (Linux), so every recorded figure carries the load it was measured under.

`steal` is time the hypervisor gave this VM's vCPUs to someone else: on shared runners it is the
neighbours' load, invisible to `top` inside the VM.
"""

from __future__ import annotations

import contextlib
import os
import statistics
from pathlib import Path

STAT = Path("/proc/stat")
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal (guest counted in user)
_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def _cpu_times() -> dict[str, int] | None:
    try:
        first = STAT.read_text().splitlines()[0].split()
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
