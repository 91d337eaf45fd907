"""Syscalls a call makes, counted by strace (Debian's) in the same start of the step worker whose
steps /proc reads: traced at first, then let go.

The worker starts under `strace -DDD -f` (`wrap`): strace runs as the worker's grandchild in a
session of its own (so /proc's readings of the worker's session never include it, and the worker
keeps its pid), and since the worker declares any tracer allowed before it execs (strace does it
for -D), a CI runner's Yama scope 1 permits the attach. Every thread and child is followed. After
the traced steps the gate sends strace SIGTERM (`detach`: with `-I2` it detaches from every
tracee and exits), and the worker goes on untraced: the steps /proc reads after that carry no
ptrace stops. The calls counted are the syscalls between the worker's read of the gate's
`run N` and its write of `ns …` (the step protocol's two messages), over all its threads and
processes (`steps`).

strace's overhead: under ptrace every syscall stops its thread twice (two context switches and
strace's own decoding), so the traced steps' times say nothing about the benchmark's; what they
are used for is sizing the traced step (measure.py). The counts themselves are of calls, which
the overhead does not change, except where the code's own timing decides how often it calls (a
poll loop's wake-ups): those may differ from an untraced run's.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import time
from collections import Counter
from pathlib import Path

from benchtrack.gate import placement

STRACE = "strace"
DETACH_SECONDS = 10.0  # strace detaches from every thread at once: a guard, not a figure
# read-like and write-like syscalls that can carry the step protocol's messages
_READS = frozenset({"read", "readv", "pread64", "recvfrom", "recvmsg"})
_WRITES = frozenset({"write", "writev", "pwrite64", "sendto", "sendmsg"})
_LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. ([A-Za-z0-9_]+) resumed>|([A-Za-z0-9_]+)\()(.*)$")
_RUN = re.compile(r'"run (\d+)')
_PROC = Path("/proc")


def available() -> str | None:
    """strace's path, or None."""
    return shutil.which(STRACE)


def wrap(command: str, trace: Path) -> str:
    """`command` (run by bash, as the gate runs a suite's) under strace, its trace in `trace`:
    strace a grandchild in its own session (-DDD), SIGTERM detaching it (-I2)."""
    return (
        f"exec {STRACE} -DDD -I2 -f -qq -s 16 -e signal=none -o {shlex.quote(str(trace))} -- "
        f"bash -c {shlex.quote(command)}"
    )


class TraceError(Exception):
    pass


def _status(pid: int, key: str) -> str | None:
    with contextlib.suppress(OSError):
        for line in (_PROC / str(pid) / "status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == key:
                return value.strip()
    return None


def _alive(pid: int) -> bool:
    state = _status(pid, "State")
    return state is not None and not state.startswith(("Z", "X"))


def tracers(sid: int) -> set[int]:
    """The strace processes tracing session `sid`'s processes."""
    found = set()
    for pid in placement.processes([sid]):
        tracer = int(_status(pid, "TracerPid") or 0)
        if tracer:
            found.add(tracer)
    return found


def detach(sid: int, wait: float = DETACH_SECONDS) -> None:
    """Ends the tracing of session `sid`: SIGTERM to its strace, which detaches from every
    thread and exits; returns once it has. TraceError when its tracer is not strace or has not
    let go within `wait` seconds (the gate must not read traced steps as the benchmark's)."""
    found = tracers(sid)
    for pid in found:
        with contextlib.suppress(OSError):
            comm = (_PROC / str(pid) / "comm").read_text().strip()
            if comm != STRACE:
                raise TraceError(f"the worker is traced by {comm!r} (pid {pid}), not strace")
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + wait
    while any(_alive(p) for p in found):
        if time.monotonic() > end:
            raise TraceError(f"strace did not let go of the worker within {wait:.0f} s")
        time.sleep(0.005)
    left = tracers(sid)
    if left:
        raise TraceError(f"the worker is still traced after strace exited (by pid {min(left)})")


def steps(text: str) -> list[tuple[int, Counter[str]]]:
    """Every complete step in a trace, in order: the N of its `run N` and its syscalls by name,
    between that read and the `ns`/`error` reply (a call strace split into `<unfinished ...>`
    and `<... resumed>` counted once). TraceError when it holds none."""
    out: list[tuple[int, Counter[str]]] = []
    found: Counter[str] | None = None
    n = 0
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        resumed, name, rest = m.group(2), m.group(3), m.group(4)
        call = resumed or name
        if found is None:
            if call in _READS and (run := _RUN.search(rest)):
                found, n = Counter(), int(run.group(1))
            continue
        if call in _WRITES and ('"ns ' in rest or '"error ' in rest):
            out.append((n, found))
            found = None
        elif name is not None:  # a call's start (a resumed line is one already counted)
            found[name] += 1
    if not out:
        raise TraceError(
            "the trace holds no complete step (no read of `run N` followed by its reply)"
            if found is not None
            else "the trace holds no step: no read of `run N` was traced"
        )
    return out
