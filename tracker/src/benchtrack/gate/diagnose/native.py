"""Wall-clock stacks of a native worker's steps (Rust), by elfutils' `eu-stack`, every thread.

For each untraced step of a side (measure.py) a thread of the gate takes RATE samples a second
of the side's native process (`target`: the deepest process of the worker's session, e.g. the
criterion bench binary its script started): each sample reads every thread's state from
/proc/PID/task/TID/stat (R: on a CPU; any other: off it, blocked in a futex, epoll or sleep),
then runs `eu-stack -q -p PID`, which attaches with ptrace, unwinds every thread (addresses
only) and lets go. Each sample is every thread's stack, so a thread's wall time is all its
samples and its on-CPU time the samples where it was running; off-CPU is their difference, as
with py-spy. A thread group's own CPU time in the window is also measured, from each thread's
schedstat at the window's start and end (`Samples.measured_cpu`): a thread on a CPU a tenth of
the time can be caught running in none of a step's ~25 stacks, and profile_diff reads a group
whose CPU time is under 1% of its wall time on both sides as idle (its frames not ranked), so
that reading is the measured one. strace has let go of the worker before these steps
(syscalls.detach): one tracer at a time. Where Yama forbids attaching to a non-child,
eu-stack runs under `sudo -n` as py-spy does (pyspy.sudo).

Unlike py-spy, this sampler stops the process while it reads it (`Samples.stacks` and
`stack_seconds`: the stacks read and eu-stack's time, within which the process stopped), so its
rate is modest; each sample is worth the window's wall time over the samples taken in it (one
still running when the step ends is dropped). After the step, `eu-addr2line -p PID` names the
addresses from the process's mapped files (no stop): a Rust bench build keeps its function
symbols unless stripped; binutils' `c++filt` demangles them (legacy and v0 manglings) where it
is installed, and the hashes and crate disambiguators go; an address without a symbol is
"(no symbol)".
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

from benchtrack.gate import placement
from benchtrack.gate.diagnose.pyspy import Failed, Samples, sudo

EU_STACK = "eu-stack"
RATE = 25  # samples a second: each stops the process a few ms (DIAGNOSE.md's figures)
SAMPLE_SECONDS = 10.0  # one eu-stack's guard against a hang: not a figure
MAIN = "main"  # the process's first thread (tid == pid), as Rust names it
NO_SYMBOL = "(no symbol)"
_PROC = Path("/proc")
_FRAME = re.compile(r"^#(\d+)\s+0x([0-9a-fA-F]+)")
_TID = re.compile(r"^TID (\d+):$")
_HASH = re.compile(r"::h[0-9a-f]{16}$")
_CRATE = re.compile(r"\[[0-9a-f]{1,16}\]")
_ESCAPES = {"$LT$": "<", "$GT$": ">", "$RF$": "&", "$BP$": "*", "$C$": ",", "$SP$": "@",
            "$u20$": " ", "$u27$": "'", "$u5b$": "[", "$u5d$": "]", "$u7b$": "{", "$u7d$": "}",
            "$u7e$": "~", "..": "::"}  # fmt: skip


def available() -> str | None:
    return shutil.which(EU_STACK)


@functools.cache
def version(path: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        return f"{EU_STACK} ({out.stdout.splitlines()[0].strip()})"
    return EU_STACK


def _stat(pid: int | str, tid: int | str | None = None) -> list[str] | None:
    """/proc's stat fields after the command's `)`: [state, ppid, pgrp, session, …]."""
    where = _PROC / str(pid) / "task" / str(tid) if tid is not None else _PROC / str(pid)
    try:
        return (where / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def target(sid: int) -> int | None:
    """The process to sample in session `sid`: the deepest (a script's bench binary, under its
    shell), the lowest pid of those as deep; None where the session has no live process."""
    parents = {}
    for pid in placement.processes([sid]):
        if (f := _stat(pid)) is not None:
            parents[pid] = int(f[1])

    def depth(pid: int) -> int:
        d = 0
        while (pid := parents.get(pid, 0)) in parents:
            d += 1
        return d

    return min(parents, key=lambda p: (-depth(p), p)) if parents else None


def executable(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(os.readlink(_PROC / str(pid) / "exe")).name
    return ""


def _group(pid: int, task: Path) -> str:
    """A thread's group: its name, digits as N; the first thread MAIN (OSError if it ended)."""
    name = (task / "comm").read_text().strip()
    return MAIN if task.name == str(pid) else re.sub(r"\d+", "N", name) or "(unnamed)"


def _threads(pid: int) -> dict[str, tuple[str, bool]]:
    """Each thread of `pid`: its group and whether it was on a CPU (state R)."""
    out = {}
    with contextlib.suppress(OSError):
        for task in (_PROC / str(pid) / "task").iterdir():
            f = _stat(pid, task.name)
            with contextlib.suppress(OSError):
                group = _group(pid, task)
                if f is not None:
                    out[task.name] = (group, f[0] == "R")
    return out


def _cpu(pid: int) -> dict[str, tuple[str, float]]:
    """Each thread of `pid`: its group and its CPU seconds so far (schedstat's time on a CPU,
    in ns: every moment, not a sample's state)."""
    out = {}
    with contextlib.suppress(OSError):
        for task in (_PROC / str(pid) / "task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                ns = int((task / "schedstat").read_text().split()[0])
                out[task.name] = (_group(pid, task), ns * 1e-9)
    return out


def parse(text: str) -> dict[str, tuple[int, ...]]:
    """eu-stack's output (`-q`: addresses only): each thread id's frames, outermost first, as
    addresses to look up: a caller's return address less one (inside its call instruction)."""
    out: dict[str, list[int]] = {}
    frames: list[int] | None = None
    for line in text.splitlines():
        if m := _TID.match(line.strip()):
            frames = out.setdefault(m.group(1), [])
        elif frames is not None and (m := _FRAME.match(line.strip())):
            frames.append(int(m.group(2), 16) - (m.group(1) != "0"))
    return {tid: tuple(reversed(f)) for tid, f in out.items()}


def symbols(pid: int, addresses: set[int], path: str) -> dict[int, str]:
    """Each address's function in process `pid`'s mapped files (eu-addr2line -p: /proc/PID/maps
    and the files, no stop), demangled; NO_SYMBOL where none is found. Looked up after the
    step, once an address of a process (`_looked`: keyed by the pid and the process's start
    time, since a pid is reused, up to pid_max, within a long gate or test run)."""
    f = _stat(pid)
    key = (pid, f[19] if f is not None and len(f) > 19 else "")
    new = sorted(a for a in addresses if (*key, a) not in _looked)
    if new:
        addr2line = str(Path(path).with_name("eu-addr2line"))
        cmd = [addr2line, "-p", str(pid), "-S", "-a", *map(hex, new)]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=SAMPLE_SECONDS * 3)
        found: dict[int, str] = {}
        at = None
        for line in out.stdout.splitlines():
            if re.fullmatch(r"0x[0-9a-fA-F]+", line):
                at = int(line, 16)
            elif at is not None and at not in found:
                found[at] = line.rsplit("+0x", 1)[0] if not line.startswith("??") else ""
        names = demangle({n for n in found.values() if n})
        for a in new:
            _looked[(*key, a)] = names.get(found.get(a, ""), NO_SYMBOL)
    return {a: _looked[(*key, a)] for a in addresses}


_looked: dict[tuple[int, str, int], str] = {}
_names: dict[str, str] = {}


def demangle(symbols: set[str]) -> dict[str, str]:
    """Each symbol's readable name: c++filt (one call for those not seen before), then the
    legacy mangling's escapes, hash and the crates' disambiguators and a symbol version gone."""
    new = sorted(s for s in symbols if s not in _names)
    plain = new
    if new and (cxxfilt := shutil.which("c++filt")):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([cxxfilt], input="\n".join(new) + "\n", capture_output=True,
                                 text=True, timeout=30).stdout.splitlines()  # fmt: skip
            plain = out if len(out) == len(new) else new
    for raw, name in zip(new, plain, strict=True):
        name = name.split("@", 1)[0] if not name.startswith("@") else name
        name = re.sub(r"\.llvm\.\d+$", "", name)
        name = _CRATE.sub("", _HASH.sub("", name))
        for k, v in _ESCAPES.items():
            name = name.replace(k, v)
        _names[raw] = name or raw
    return {s: _names[s] for s in symbols}


class Recorder:
    """The sampler of one step: start() starts sampling; stop() adds the samples taken within
    the step's window (one still running when it ends is left out: the worker waits for the
    gate by then) to a side's Samples, each worth the window over their number."""

    def __init__(self, pid: int, path: str, rate: int = RATE) -> None:
        self.pid, self.path, self.period = pid, path, 1.0 / rate
        self.taken: list[tuple[float, dict[str, tuple[str, bool]], dict[str, tuple[int, ...]]]] = []
        self.stack_seconds = 0.0  # eu-stack's time, all samples (the process stopped within)
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started = 0.0
        self._usage = os.times()
        self._cpu: dict[str, tuple[str, float]] = {}

    def _sample(self) -> None:
        states = _threads(self.pid)
        t0 = time.monotonic()
        cmd = [*sudo(), self.path, "-q", "-p", str(self.pid)]
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)  # fmt: skip
        try:
            out, err = p.communicate(timeout=SAMPLE_SECONDS)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise Failed(f"eu-stack took over {SAMPLE_SECONDS:.0f} s for one stack") from None
        self.stack_seconds += time.monotonic() - t0
        stacks = parse(out.decode(errors="replace"))
        if not stacks:
            said = err.decode(errors="replace").strip().splitlines()
            raise Failed(f"eu-stack read no stack: {said[0][:200] if said else p.returncode}")
        self.taken.append((t0, states, stacks))

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                t0 = time.monotonic()
                self._sample()
                self._stop.wait(max(0.0, self.period - (time.monotonic() - t0)))
        except (Failed, OSError) as e:
            self.error = str(e)

    def start(self) -> None:
        self._usage = os.times()
        self._cpu = _cpu(self.pid)
        self._thread = threading.Thread(target=self._loop, name="benchtrack-eu-stack", daemon=True)
        self.started = time.monotonic()
        self._thread.start()

    def stop(self, into: Samples, calls: int, stepped: float) -> None:
        stopping = time.monotonic()
        cpu = _cpu(self.pid)  # before the sampler's last stop and detach (kill() waits for it)
        self.kill()
        window = stopping - self.started
        usage = os.times()  # eu-stack's CPU: the gate's waited-for children
        into.own_cpu += (usage.children_user - self._usage.children_user
                         + usage.children_system - self._usage.children_system)  # fmt: skip
        if self.error is not None:
            raise Failed(self.error)
        taken = [(states, stacks) for t0, states, stacks in self.taken if t0 < stopping]
        if not taken:
            raise Failed("it took no stack of the worker within the step")
        try:
            names = symbols(self.pid, {f for _, st in taken for fs in st.values() for f in fs},
                            self.path)  # fmt: skip
        except subprocess.SubprocessError as e:
            raise Failed(f"eu-addr2line did not name the frames: {e}") from None
        dt = window / len(taken)
        for states, stacks in taken:
            for tid, frames in stacks.items():
                group, running = states.get(tid, (MAIN if tid == str(self.pid) else "?", False))
                stack = ("", group, *(names[f] for f in frames))
                into.wall[stack] += dt
                if running:
                    into.cpu[stack] += dt
                into.threads.setdefault(("", group), set()).add(tid)
        for tid, (group, seconds) in cpu.items():  # a thread that ended within: not counted
            into.measured_cpu[("", group)] += seconds - self._cpu.get(tid, (group, 0.0))[1]
        into.calls += calls
        into.window += window
        into.stepped += stepped
        into.intervals += len(taken)
        into.added += time.monotonic() - stopping
        into.stack_seconds += self.stack_seconds
        into.stacks += len(self.taken)

    def kill(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(SAMPLE_SECONDS + 5)
