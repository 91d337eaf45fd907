"""One benchmark of each side, run alone, its calls read from /proc (and counted under strace).

Both sides' step workers (the suite's own harness, in the gate's worktrees, filtered to the one
benchmark) start together and take turns, as in lockstep: each warms the benchmark up and offers
it; one call sets that side's N, the calls of a step (so each side's step takes ~`seconds /
steps`, and a fast side's CPU time is still many of /proc's 10 ms ticks; the evidence is per
call); then `steps` steps a side, alternating, each read from /proc before and after
(`procstat`). Then, where strace is installed, each side once more under strace for one step of
the same N both sides (the slower side's ~TRACE_SECONDS untraced) (`syscalls`). Nothing here
decides anything: `classify` reads it.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from benchtrack.gate import lockstep_worker as lockstep
from benchtrack.gate.diagnose import procstat, syscalls
from benchtrack.gate.diagnose.evidence import Evidence

SIDES = ("base", "head")
SECONDS = 1.0  # a side's measured steps together
STEPS = 4
TRACE_SECONDS = 0.2  # the traced step's calls, at their untraced speed


@dataclass(frozen=True)
class Launch:
    """How to start one side's step worker (as the gate's rounds start it)."""

    command: str
    cwd: Path
    env: dict[str, str]
    log: Path
    cpu: str | None = None  # a taskset list, or None: every CPU this process has


class Failed(Exception):
    """The measurement could not be made: the reason, for "diagnosis failed: …"."""


def _start(side: str, launch: Launch, name: str, deadline: float, command: str | None = None):
    w = lockstep.Worker(side, command or launch.command, launch.cwd, launch.env, launch.log,
                        launch.cpu)  # fmt: skip
    w.deadline = deadline
    return w


@contextlib.contextmanager
def _started(what: str) -> Iterator[dict[str, lockstep.Worker]]:
    """The workers started inside, stopped at the end whatever happens; a worker that dies,
    times out or breaks the protocol is Failed."""
    workers: dict[str, lockstep.Worker] = {}
    try:
        yield workers
    except lockstep.WorkerFailed as e:
        raise Failed(f"the {e.side} side's {what} {e.message}") from None
    finally:
        for w in workers.values():
            w.stop()


def _ready(side: str, w: lockstep.Worker, name: str) -> None:
    """Walks the worker's offers up to `name` (a harness filter may offer more)."""
    errors: list[lockstep.StepError] = []
    while (r := w.next_ready(errors)) is not None:
        if r.name == name or r.name.endswith("/" + name) or name.endswith("/" + r.name):
            return
        w.send("next")
    mine = [e.message.splitlines()[0] for e in errors if e.message]
    why = f": {mine[0]}" if mine else ""
    raise Failed(f"the {side} side's worker did not offer the benchmark{why}")


def _run(side: str, w: lockstep.Worker, n: int) -> float:
    t = w.run(n)
    if isinstance(t, str):
        raise Failed(f"the {side} side's step failed: {t.splitlines()[0] if t else 'error'}")
    return t[0] * 1e-9


def measure(
    launches: dict[str, Launch],
    name: str,
    *,
    timeout: float,
    trace_dir: Path | None = None,
    seconds: float = SECONDS,
    steps: int = STEPS,
) -> dict[str, Evidence]:
    """Each side's evidence for benchmark `name`, or Failed saying why not. `trace_dir`: where
    the strace runs' traces go (None: no syscall counts)."""
    deadline = time.monotonic() + timeout
    with _started("worker") as workers:
        for side in SIDES:
            workers[side] = _start(side, launches[side], name, deadline)
        for side in SIDES:
            _ready(side, workers[side], name)
        single = {side: _run(side, workers[side], 1) for side in SIDES}
        n = {side: max(1, round(seconds / steps / t)) if t > 0 else 1 for side, t in single.items()}
        usage = {side: procstat.Usage() for side in SIDES}
        for k in range(steps):
            for side in SIDES if k % 2 == 0 else SIDES[::-1]:
                w = workers[side]
                before = procstat.read(w.proc.pid)
                t0 = time.monotonic()
                _run(side, w, n[side])
                wall = time.monotonic() - t0
                after = procstat.read(w.proc.pid)
                usage[side].add(before, replace(after, at=before.at + wall))
        for side in SIDES:
            workers[side].send("next")
            workers[side].finish()
    found = {
        side: replace(Evidence.of(usage[side], n[side] * steps),
                      extra={"calls_a_step": n[side], "steps": steps})
        for side in SIDES
    }  # fmt: skip
    if trace_dir is None:
        return found
    if syscalls.available() is None:
        note = "syscalls not counted: strace is not installed"
        return {side: replace(e, note=note) for side, e in found.items()}
    slowest = max(single.values())
    traced = max(1, min(min(n.values()), round(TRACE_SECONDS / slowest))) if slowest > 0 else 1
    try:
        counted = _traced(launches, name, traced, trace_dir, deadline)
    except Failed as e:
        return {side: replace(ev, note=f"syscalls not counted: {e}") for side, ev in found.items()}
    return {
        side: replace(ev, syscalls={k: v / traced for k, v in sorted(counted[side].items())})
        for side, ev in found.items()
    }


def _traced(
    launches: dict[str, Launch], name: str, n: int, trace_dir: Path, deadline: float
) -> dict[str, Counter[str]]:
    """Each side's syscalls over one step of `n` calls, under strace."""
    trace_dir.mkdir(parents=True, exist_ok=True)
    traces = {side: trace_dir / f"{side}.trace" for side in SIDES}
    with _started("traced worker") as workers:
        for side in SIDES:
            launch = launches[side]
            log = launch.log.with_name(f"{launch.log.stem}-strace{launch.log.suffix}")
            wrapped = syscalls.wrap(launch.command, traces[side])
            workers[side] = _start(side, replace(launch, log=log), name, deadline, wrapped)
        for side in SIDES:
            _ready(side, workers[side], name)
            _run(side, workers[side], n)
            workers[side].send("next")
        for side in SIDES:
            workers[side].finish()
    out = {}
    for side in SIDES:
        try:
            text = traces[side].read_text(errors="replace")
        except OSError as e:
            raise Failed(f"no trace from the {side} side ({e.strerror})") from None
        try:
            out[side] = syscalls.count(text)
        except syscalls.TraceError as e:
            raise Failed(f"the {side} side's {e}") from None
    return out
