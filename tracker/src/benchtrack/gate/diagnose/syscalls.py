"""Syscalls a call makes, from a run of the step worker under `strace -f` (Debian's strace).

The worker runs under `strace -f -qq -o FILE` from its start (so no ptrace permission beyond
tracing one's own child is needed: a CI runner's Yama scope 1 allows it), every thread and child
followed. Its trace holds the whole process's life; the calls measured are the syscalls between
the worker's read of the gate's `run N` and its write of `ns …` (the step protocol's two
messages), over all its threads and processes, divided by N. Why a run of its own: under ptrace
every syscall stops the thread twice, so this run's times say nothing about the benchmark's (the
other run's do); the cost is the time of a second start and step a side.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections import Counter
from pathlib import Path

STRACE = "strace"
# read-like and write-like syscalls that can carry the step protocol's messages
_READS = frozenset({"read", "readv", "pread64", "recvfrom", "recvmsg"})
_WRITES = frozenset({"write", "writev", "pwrite64", "sendto", "sendmsg"})
_LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. ([A-Za-z0-9_]+) resumed>|([A-Za-z0-9_]+)\()(.*)$")


def available() -> str | None:
    """strace's path, or None."""
    return shutil.which(STRACE)


def wrap(command: str, trace: Path) -> str:
    """`command` (run by bash, as the gate runs a suite's) under strace, its trace in `trace`."""
    return (
        f"exec {STRACE} -f -qq -s 16 -e signal=none -o {shlex.quote(str(trace))} -- "
        f"bash -c {shlex.quote(command)}"
    )


class TraceError(Exception):
    pass


def count(text: str) -> Counter[str]:
    """The syscalls between the first `run N` read and the `ns`/`error` reply after it, by name
    (a call strace split into `<unfinished ...>` and `<... resumed>` counted once)."""
    found: Counter[str] = Counter()
    inside = False
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        resumed, name, rest = m.group(2), m.group(3), m.group(4)
        call = resumed or name
        if not inside:
            if call in _READS and '"run ' in rest:
                inside = True
            continue
        if call in _WRITES and ('"ns ' in rest or '"error ' in rest):
            return found
        if name is not None:  # a call's start (a resumed line is one already counted)
            found[name] += 1
    raise TraceError(
        "the trace holds no complete step (no read of `run N` followed by its reply)"
        if inside
        else "the trace holds no step: no read of `run N` was traced"
    )
