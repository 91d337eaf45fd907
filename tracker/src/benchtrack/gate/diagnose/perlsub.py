"""Wall-clock samples of a Perl worker's subs, by a sampler of our own inside perl
(perl/Devel/BenchtrackSample.pm, loaded with `PERL5OPT=-d:BenchtrackSample`).

A Perl worker's native stacks name the interpreter (Perl_pp_entersub), not its subs, and
Devel::NYTProf's sub profiler aborts on Coro's context switches (its documentation says to turn
it off for Coro), which the Perl suites use. So the sampler is Perl's own sub hook (DB::sub):
every sub call, Perl or XS, passes through it; it reads the monotonic clock before and after
each call and, when a sample is due (every millisecond), charges the samples due since the hook
before to what ran in between: the sub that returned (a blocking XS call, Time::HiRes::sleep or
an event loop's wait, is its own) or the caller of the sub being entered. Each sample carries
the running coro (a coro's stack is its own: the profile's thread) and the process's CPU time
over the wall time since the sample before (the on-CPU share; the rest is off-CPU: blocked, or
runnable and waiting for a CPU). No signal is sent: a sleep is never cut short.

Its cost is a Perl-level wrapper around every sub call, too much to sit under the diagnosis's
own figures, so it runs in a start of its own of both sides' workers, after the measurement
(measure.py): the same benchmark, the same calls a step, the steps alternating; the samples
written at the worker's exit are kept where they fall inside the gate's steps (both clocks are
CLOCK_MONOTONIC), and each is worth the steps' wall time over the samples kept, as py-spy's.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from benchtrack.gate.diagnose.pyspy import Failed, Samples

MODULE = "BenchtrackSample"
LIB = Path(__file__).parent / "perl"  # Devel/BenchtrackSample.pm
RATE = 1000  # samples a second: the module's period (1 ms)
PERIOD = 1.0 / RATE
TOP = "(top level)"  # code outside any sub (a script's main program)
_ANON = re.compile(r"\[(?:[^\]]*/)?([^/\]]+:\d+)\]")  # an anonymous sub's [file:line], its path


def env(base: dict[str, str], out: Path) -> dict[str, str]:
    """The worker's environment with the sampler loaded into every perl it starts."""
    opt = f"{base.get('PERL5OPT', '')} -d:{MODULE}".strip()
    lib = os.pathsep.join(p for p in (str(LIB), base.get("PERL5LIB", "")) if p)
    return {**base, "PERL5OPT": opt, "PERL5LIB": lib, "BENCHTRACK_SAMPLES": str(out)}


def frame(name: str) -> str:
    """A sub's name as the profile shows it: an anonymous sub's file without its directory."""
    return _ANON.sub(r"[\1]", name)


def read(text: str, windows: list[tuple[float, float]]) -> tuple[Counter, Counter, set[str]]:
    """The module's lines (`TIME COUNT ONCPU THREAD<TAB>SUB;SUB;…`) within `windows`, each
    counting the samples due since its window began at most (a hook after the gate's wait
    between steps counts that wait's, which are no step's): the samples by stack (process "",
    thread group, subs outermost first; TOP where no sub ran), the on-CPU samples by stack, and
    the thread groups seen."""
    wall: Counter = Counter()
    cpu: Counter = Counter()
    threads: set[str] = set()
    for line in text.splitlines():
        head, _, subs = line.partition("\t")
        parts = head.split(" ", 3)
        if len(parts) != 4:
            continue
        try:
            t, k, on = float(parts[0]), int(parts[1]), float(parts[2])
        except ValueError:
            continue
        start = next((a for a, b in windows if a <= t <= b), None)
        if start is None:
            continue
        k = min(k, int((t - start) / PERIOD) + 1)  # those due before the step began left out
        thread = re.sub(r"\d+", "N", parts[3]) or "main"
        stack = ("", thread, *([frame(s) for s in subs.split(";") if s] or [TOP]))
        wall[stack] += k
        cpu[stack] += k * min(max(on, 0.0), 1.0)
        threads.add(thread)
    return wall, cpu, threads


def add(into: Samples, path: Path, steps: list[tuple[float, float, int]]) -> None:
    """One side's samples (the module's file at `path`) of its profiled `steps` (start, end,
    calls) added to `into`, in seconds: the steps' wall time over the samples kept."""
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise Failed(f"the sampler wrote no samples ({e.strerror})") from None
    wall, cpu, threads = read(text, [(a, b) for a, b, _ in steps])
    n = sum(wall.values())
    if n == 0:
        raise Failed("it took no sample within the steps")
    window = sum(b - a for a, b, _ in steps)
    dt = window / n
    for stack, k in wall.items():
        into.wall[stack] += k * dt
    for stack, k in cpu.items():
        into.cpu[stack] += k * dt
    for thread in threads:
        into.threads.setdefault(("", thread), set()).add(thread)
    into.calls += sum(c for _, _, c in steps)
    into.window += window
    into.stepped += window
    into.intervals += int(n)
