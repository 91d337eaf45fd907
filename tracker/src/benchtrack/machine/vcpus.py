"""How fast each CPU of the job runs a fixed piece of work now: the VM's vCPU speeds.

A shared VM's two vCPUs can run far apart in speed for hours (the host's load on the hardware
under them); a benchmark whose threads land on either then spreads between steps, and one
pinned to the slower one takes longer. Nothing else the gate reads shows it (/proc/stat's steal
counts only time the vCPU did not run at all), so each round starts by running the same loop
pinned to each CPU in turn, and the recording, gate.json and the job summary carry the spread.

Two clocks, because they tell two causes apart: the loop's wall time, what a step there sees
(a slow vCPU, and any other task the guest runs on that CPU), and the thread's CPU time, which
a task preempting it does not advance (a slow vCPU only). The minimum of a few runs of each: a
single interruption is not the CPU's speed.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass

LOOP = 100_000  # iterations a run: ~2 ms on the 2-vCPU VM (two periods of a 1 ms duty cycle)
RUNS = 5
# Apart by less than this is within what two even vCPUs read between rounds (a cache miss, a
# tick): the summary calls them even.
EVEN = 1.15


@dataclass(frozen=True)
class Reading:
    """One probe: per CPU (in `cpus` order), the fastest run's seconds by each clock."""

    cpus: tuple[int, ...]
    wall: tuple[float, ...]
    cpu: tuple[float, ...]

    def to_dict(self) -> dict[str, list]:
        return {"cpus": list(self.cpus), "wall": list(self.wall), "cpu": list(self.cpu)}


def _loop() -> tuple[int, int]:
    """One run of the work: its wall and thread CPU nanoseconds."""
    w0, c0 = time.perf_counter_ns(), time.thread_time_ns()
    s = 0
    for i in range(LOOP):
        s += i
    return time.perf_counter_ns() - w0, time.thread_time_ns() - c0


def probe(cpus: Iterable[int]) -> Reading | None:
    """The loop pinned to each of `cpus` in turn (this thread only; its affinity is put back
    after), or None where a thread cannot be pinned (not Linux, or a CPU not ours)."""
    ids = tuple(cpus)
    if not ids or not hasattr(os, "sched_setaffinity"):
        return None
    was = os.sched_getaffinity(0)
    wall, cpu = [], []
    try:
        for c in ids:
            os.sched_setaffinity(0, {c})
            runs = [_loop() for _ in range(RUNS)]
            wall.append(min(w for w, _ in runs) * 1e-9)
            cpu.append(min(t for _, t in runs) * 1e-9)
    except OSError:
        return None
    finally:
        os.sched_setaffinity(0, was)
    return Reading(ids, tuple(wall), tuple(cpu))


def is_reading(x: object) -> bool:
    """Whether `x` is a Reading.to_dict: CPUs and positive seconds by both clocks, one each."""
    if not isinstance(x, dict) or not all(
        isinstance(x.get(k), list) for k in ("cpus", "wall", "cpu")
    ):
        return False
    n = len(x["cpus"])
    return all(
        len(x[k]) == n
        and all(isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0 for t in x[k])
        for k in ("wall", "cpu")
    )


def apart(seconds: Iterable[float]) -> float:
    """The slowest CPU's time over the fastest's (1.0 for one CPU)."""
    xs = [x for x in seconds if x > 0]
    return max(xs) / min(xs) if xs else 1.0


def summary(readings: list[dict]) -> dict[str, float | int] | None:
    """Rounds' readings (Reading.to_dict): the median spread by each clock and the largest by
    wall time (None: no readings of two CPUs or more)."""
    two = [r for r in readings if len(r["cpus"]) > 1]
    if not two:
        return None
    walls = [apart(r["wall"]) for r in two]
    return {
        "wall_apart": round(statistics.median(walls), 2),
        "cpu_apart": round(statistics.median(apart(r["cpu"]) for r in two), 2),
        "wall_apart_max": round(max(walls), 2),
        "rounds": len(two),
    }


def uneven(readings: list[dict]) -> bool:
    """Whether rounds' readings read the CPUs apart: their median spread by wall time (what a
    step sees) at least EVEN. No reading of two CPUs: even (nothing to be apart)."""
    s = summary(readings)
    return s is not None and s["wall_apart"] >= EVEN


def describe(s: dict, per: str = "round") -> str:
    """The summary as the job summary says it: "vCPUs even: …" or "vCPUs uneven: … 1.62x apart"
    (`per`: what each reading was, a round or one of `benchtrack vcpus`'s readings)."""
    wall, cpu, n = s["wall_apart"], s["cpu_apart"], s["rounds"]
    state = "even" if wall < EVEN else "uneven"
    return (
        f"vCPUs {state}: a pinned loop {wall:.2f}x apart by wall time, {cpu:.2f}x by CPU time "
        f"(median of {n} {per}{'s' * (n != 1)})"
    )
