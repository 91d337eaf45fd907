"""One benchmark of each side, run alone: its syscalls counted (strace) and its calls read from
/proc, in one start of each side's worker.

Both sides' step workers (the suite's own harness, in the gate's worktrees, filtered to the one
benchmark) start together, under strace where it is installed (`syscalls.wrap`), and take turns,
as in lockstep: each warms the benchmark up and offers it; one traced call sizes the traced step
(TRACE_SECONDS of calls at the traced speed, at least two, the same N both sides), whose
syscalls are counted (`syscalls.steps`); then strace lets go of both (`syscalls.detach`), and
the rest is untraced: one call sets that side's N, the calls of a step (so each side's step
takes ~`seconds / steps`,
and a fast side's CPU time is still many of /proc's 10 ms ticks; the evidence is per call); then
`steps` steps a side, alternating, each read from /proc before and after (`procstat`). strace's
overhead (each syscall stops its thread twice) is in the traced steps only, whose times are kept
(`Evidence.traced_wall`, against `wall`: what tracing cost) and used for nothing else. Nothing
here decides anything: `classify` reads it.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from benchtrack.gate import lockstep_worker as lockstep
from benchtrack.gate.diagnose import native, perlsub, procstat, pyspy, syscalls
from benchtrack.gate.diagnose.evidence import Evidence

SIDES = ("base", "head")
SECONDS = 1.0  # a side's measured steps together
STEPS = 4
TRACE_SECONDS = 0.25  # the traced step's calls, at the traced speed
TRACE_CALLS = 10_000  # and at most this many


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


def _start(side: str, launch: Launch, deadline: float, command: str | None = None):
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
    profile_dir: Path | None = None,
    seconds: float = SECONDS,
    steps: int = STEPS,
) -> dict[str, Evidence]:
    """Each side's evidence for benchmark `name`, or Failed saying why not. `trace_dir`: where
    the traces go (None: no syscall counts, no strace); `profile_dir`: where the wall-time
    samplers write (None: no profile): py-spy's of a Python worker's untraced steps, eu-stack
    samples a native one's, a Perl worker runs again with its sub sampler (`_Profile`); each
    side's samples go in its `extra["profile"]` (pyspy.Samples, or why there are none)."""
    deadline = time.monotonic() + timeout
    note = ""
    traces: dict[str, Path] = {}
    if trace_dir is not None and syscalls.available() is None:
        note = "syscalls not counted: strace is not installed"
    elif trace_dir is not None:
        trace_dir.mkdir(parents=True, exist_ok=True)
        traces = {side: trace_dir / f"{side}.trace" for side in SIDES}
    with _started("worker") as workers:
        for side in SIDES:
            launch = launches[side]
            wrapped = syscalls.wrap(launch.command, traces[side]) if traces else None
            workers[side] = _start(side, launch, deadline, wrapped)
        for side in SIDES:
            _ready(side, workers[side], name)
        traced, traced_wall = _traced(workers) if traces else (0, {})
        single = {side: _run(side, workers[side], 1) for side in SIDES}
        n = {side: max(1, round(seconds / steps / t)) if t > 0 else 1 for side, t in single.items()}
        usage = {side: procstat.Usage() for side in SIDES}
        profile = _Profile(profile_dir, workers)
        for k in range(steps):
            for side in SIDES if k % 2 == 0 else SIDES[::-1]:
                w = workers[side]
                recording = profile.start(side)
                before = procstat.read(w.proc.pid)
                t0 = time.monotonic()
                try:
                    _run(side, w, n[side])
                except BaseException:
                    profile.drop(recording)
                    raise
                wall = time.monotonic() - t0
                after = procstat.read(w.proc.pid)
                profile.stop(side, recording, n[side], wall)
                usage[side].add(before, replace(after, at=before.at + wall))
        for side in SIDES:  # both sides end together (a harness's teardown can take seconds)
            workers[side].send("next")
        for side in SIDES:
            workers[side].finish()
    if profile.sampler == "perl" and profile.why is None and profile_dir is not None:
        per_call = {side: Evidence.of(usage[side], n[side] * steps).wall for side in SIDES}
        # its steps half the measurement's, sized at the sampled speed (DIAGNOSE.md: 1.1-9.5x)
        profile.perl(launches, name, deadline, per_call, seconds / steps / 2, steps, profile_dir)
    found = {
        side: replace(Evidence.of(usage[side], n[side] * steps), note=note,
                      extra={"calls_a_step": n[side], "steps": steps,
                             **({"profile": profile.found(side)} if profile_dir else {})})
        for side in SIDES
    }  # fmt: skip
    if not traces:
        return found
    try:
        counted = {side: _counted(side, traces[side], traced) for side in SIDES}
    except Failed as e:
        return {side: replace(ev, note=f"syscalls not counted: {e}") for side, ev in found.items()}
    return {
        side: replace(ev, syscalls={k: v / traced for k, v in sorted(counted[side].items())},
                      traced_calls=traced, traced_wall=traced_wall[side])
        for side, ev in found.items()
    }  # fmt: skip


class _Profile:
    """The samplers of each side's untraced steps: py-spy's recorders where the worker runs
    Python (pyspy.py), eu-stack where it runs native code (native.py: a Rust bench binary);
    where it runs Perl, a sub sampler in a start of its own after the measurement (`perl`,
    perlsub.py). A profile that fails stops profiling and keeps why, never the measurement."""

    def __init__(self, where: Path | None, workers: dict[str, lockstep.Worker]) -> None:
        self.where = where
        self.why: str | None = None
        self.samples = {side: pyspy.Samples() for side in SIDES}
        self.roots: dict[str, int] = {}
        self.path: str | None = None
        self.sampler = "py-spy"
        if where is None:
            return
        roots = {side: pyspy.python_root(w.proc.pid) for side, w in workers.items()}
        if all(roots.values()):
            self.path = pyspy.available()
            self.why = None if self.path else "not run: py-spy is not installed"
            self.roots = {side: root for side, root in roots.items() if root}
            return
        self.sampler = "eu-stack"
        self.samples = {side: pyspy.Samples(sampler="eu-stack", rate=native.RATE) for side in SIDES}
        for side, w in workers.items():
            pid = native.target(w.proc.pid)
            exe = native.executable(pid) if pid else ""
            if pid is None or exe.startswith("python"):
                self.why = f"not run: the {side} side's worker has no process to sample"
                return
            if exe.startswith("perl"):
                self.sampler = "perl"
                self.samples = {s: pyspy.Samples(sampler="perl", rate=perlsub.RATE) for s in SIDES}
                return
            self.roots[side] = pid
        self.path = native.available()
        if self.path is None:
            self.why = "failed: eu-stack is not installed (Debian: elfutils)"

    def start(self, side: str) -> pyspy.Recorders | native.Recorder | None:
        if self.where is None or self.path is None or self.why is not None:
            return None  # (a Perl worker is sampled in a start of its own: `perl`)
        try:
            rec: pyspy.Recorders | native.Recorder
            if self.sampler == "eu-stack":
                rec = native.Recorder(self.roots[side], self.path)
            else:
                rec = pyspy.Recorders(self.roots[side], self.where / side, self.path)
            rec.start()
        except (pyspy.Failed, OSError, subprocess.SubprocessError) as e:
            self.why = f"failed: the {side} side's {self.sampler}: {e}"
            return None
        return rec

    def stop(self, side: str, rec: pyspy.Recorders | native.Recorder | None, calls: int,
             wall: float) -> None:  # fmt: skip
        if rec is None:
            return
        try:
            rec.stop(self.samples[side], calls, wall)
        except (pyspy.Failed, OSError) as e:
            rec.kill()
            self.why = f"failed: the {side} side's {self.sampler}: {e}"

    @staticmethod
    def drop(rec: pyspy.Recorders | native.Recorder | None) -> None:
        if rec is not None:
            rec.kill()

    def found(self, side: str) -> pyspy.Samples | str:
        return self.why if self.why is not None else self.samples[side]

    def perl(self, launches: dict[str, Launch], name: str, deadline: float,
             per_call: dict[str, float], step: float, steps: int, where: Path) -> None:  # fmt: skip
        """A Perl worker's samples (perlsub.py): both sides' workers started again with the
        sampler loaded; one call a side times the sampled speed, then `steps` steps a side
        alternating of the calls that take ~`step` seconds at it, each step's window kept; the
        samples read once the workers have exited (written at exit). `per_call`: the
        measurement's seconds a call, which the file shows beside the sampled ones."""
        where.mkdir(parents=True, exist_ok=True)
        files = {side: where / f"{side}.perl-samples" for side in SIDES}
        windows: dict[str, list[tuple[float, float, int]]] = {side: [] for side in SIDES}
        began = time.monotonic()
        try:
            with _started("profiled worker") as workers:
                for side in SIDES:
                    files[side].unlink(missing_ok=True)
                    env = perlsub.env(launches[side].env, files[side])
                    workers[side] = _start(side, replace(launches[side], env=env), deadline)
                for side in SIDES:
                    _ready(side, workers[side], name)
                single = {side: _run(side, w, 1) for side, w in workers.items()}
                n = {side: max(1, round(step / t)) if t > 0 else 1 for side, t in single.items()}
                for k in range(steps):
                    for side in SIDES if k % 2 == 0 else SIDES[::-1]:
                        t0 = time.monotonic()
                        _run(side, workers[side], n[side])
                        windows[side].append((t0, time.monotonic(), n[side]))
                for side in SIDES:
                    workers[side].send("next")
                for side in SIDES:
                    workers[side].finish()
            for side in SIDES:
                perlsub.add(self.samples[side], files[side], windows[side])
                self.samples[side].added = (time.monotonic() - began) / len(SIDES)
                self.samples[side].unprofiled = per_call[side]
        except (Failed, pyspy.Failed, OSError) as e:
            self.why = f"failed: the Perl sampler's run: {e}"


def _traced(workers: dict[str, lockstep.Worker]) -> tuple[int, dict[str, float]]:
    """The traced step: one call a side times the traced speed, then a step of the same N both
    sides (~TRACE_SECONDS at the slower side's traced speed); then strace lets go of both. The
    N, and each side's seconds a call under strace."""
    first = {side: _run(side, w, 1) for side, w in workers.items()}
    slowest = max(first.values())
    n = max(2, min(TRACE_CALLS, round(TRACE_SECONDS / slowest))) if slowest > 0 else 2
    walls = {side: _run(side, w, n) / n for side, w in workers.items()}
    for side, w in workers.items():
        try:
            syscalls.detach(w.proc.pid)
        except syscalls.TraceError as e:  # its steps would be traced: no figure of it is
            raise Failed(f"the {side} side's {e}") from None
    return n, walls


def _counted(side: str, trace: Path, n: int) -> dict[str, int]:
    """The syscalls of the traced step of `n` calls (the trace's last), by name."""
    try:
        text = trace.read_text(errors="replace")
    except OSError as e:
        raise Failed(f"no trace from the {side} side ({e.strerror})") from None
    try:
        found = syscalls.steps(text)
    except syscalls.TraceError as e:
        raise Failed(f"the {side} side's {e}") from None
    calls, counted = found[-1]
    if calls != n:
        raise Failed(f"the {side} side's trace ends with a step of {calls} calls, not {n}")
    return dict(counted)
