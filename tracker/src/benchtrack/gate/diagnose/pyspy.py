"""Wall-time samples of a Python worker's steps, by py-spy, without stopping it.

For each untraced step of a side (measure.py), two `py-spy record` processes sample the side's
Python process (the session's first Python process, its children too: `--subprocesses`) while
the step runs: one with `--idle` (every thread, running or not: wall time), one without (the
threads on a CPU: on-CPU time); off-CPU time is their difference. Both are `--nonblocking`: py-spy
reads the process's memory (process_vm_readv) and /proc without a ptrace stop, so the worker runs
as it would; strace has let go of it before these steps (syscalls.detach). `--threads` keeps each
thread apart. The step starts once both recorders say they are sampling and they are stopped
(SIGINT: py-spy writes its collapsed stacks and exits) after the step's reply, so a window is the
step and a few milliseconds around it (`Samples.window` against `Samples.stepped`).

Each step's samples become seconds: the window's wall time over the intervals it held (the
thread sampled most often, which `--idle` samples every interval), so a recorder that fell behind
its rate under load still adds up to the window. Reading another process's memory needs
ptrace's permission: where Yama's scope forbids it (not root, `ptrace_scope` >= 1, as on hosted
CI runners) py-spy runs under `sudo -n` when sudo allows it without a password; else the profile
fails and says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack.gate import placement

PYSPY = "py-spy"
RATE = 250  # samples a second, each recorder
READY_SECONDS = 15.0  # py-spy finds the interpreter's state: a guard, not a figure
STOP_SECONDS = 10.0
_YAMA = Path("/proc/sys/kernel/yama/ptrace_scope")
_PROC = Path("/proc")
_THREAD = re.compile(r"^thread \((?:0x)?[0-9A-Fa-f]+\)(?:: (.*))?$")
# a process frame, whose command line may hold a `;` (python -c "a;b"): up to the next frame
_PROCESS = re.compile(r'process \d+:"(.*?)";(?=process \d+:"|thread \()')
Stack = tuple[str, ...]  # process ("": the sampled one), thread group, frames outermost first


class Failed(Exception):
    """The profile could not be taken: why, for "wall-time profile failed: …"."""


def available() -> str | None:
    """py-spy's path: beside this interpreter (the tracker's environment), else on PATH."""
    near = Path(sys.executable).parent / PYSPY
    return str(near) if near.is_file() else shutil.which(PYSPY)


@functools.cache  # asked once a profiled benchmark: one `py-spy --version` a gate run
def version(path: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    return PYSPY


def python_root(sid: int) -> int | None:
    """The first Python process of session `sid` whose parent is not one (a pool's processes
    are its children, which `--subprocesses` follows), or None."""
    found = {}
    for pid in placement.processes([sid]):
        with contextlib.suppress(OSError):
            exe = os.readlink(_PROC / str(pid) / "exe")
            stat = (_PROC / str(pid) / "stat").read_text()
            if Path(exe).name.startswith("python"):
                found[pid] = int(stat.rsplit(")", 1)[1].split()[1])
    roots = [pid for pid, parent in found.items() if parent not in found]
    return min(roots) if roots else None


@functools.cache
def sudo() -> list[str]:
    """["sudo", "-n"] where Yama forbids reading a non-child's memory and sudo allows it."""
    try:
        scope = int(_YAMA.read_text().strip())
    except (OSError, ValueError):
        return []
    if os.geteuid() == 0 or scope < 1 or shutil.which("sudo") is None:
        return []
    ok = subprocess.run(["sudo", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    return ["sudo", "-n"] if ok else []


@dataclass
class Samples:
    """One side's samples, in seconds a stack, over every step it recorded."""

    wall: Counter[Stack] = field(default_factory=Counter)
    cpu: Counter[Stack] = field(default_factory=Counter)
    threads: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # group -> ids
    calls: int = 0
    window: float = 0.0  # seconds sampled
    stepped: float = 0.0  # seconds of the steps themselves (the gate's clock)
    intervals: int = 0
    own_cpu: float = 0.0  # py-spy's own CPU seconds (both recorders)
    added: float = 0.0  # seconds the steps waited for the recorders to start and stop
    sampler: str = "py-spy"  # or "eu-stack" (native.py), "nytprof" (perlsub.py)
    rate: int = RATE  # samples a second
    stacks: int = 0  # eu-stack: the stacks read, and their seconds (the process stopped within)
    stack_seconds: float = 0.0
    unprofiled: float = 0.0  # perlsub: seconds a call of the measurement's (unsampled) steps
    # eu-stack: each thread group's CPU seconds within the windows, from schedstat at each
    # window's start and end (exact, where `cpu` is sampled states); empty for other samplers
    measured_cpu: Counter[tuple[str, str]] = field(default_factory=Counter)


def parse(text: str) -> tuple[Counter[Stack], dict[tuple[str, str], set[str]], Counter[str]]:
    """py-spy's raw (collapsed) output: `frame;frame;… count` a line, outermost first, with
    `--subprocesses` a `process PID:"cmd"` frame and with `--threads` a `thread (ID): name` one
    before the Python frames. Stacks keyed by process command (no pid), thread group (a name's
    digits as N: a pool's threads together) and frames; the thread ids of each group. The
    sampled process is "", a child `child: <its command>`. Then each thread's samples."""
    stacks: Counter[Stack] = Counter()
    threads: dict[tuple[str, str], set[str]] = {}
    each: Counter[str] = Counter()
    for line in text.splitlines():
        body, _, count = line.rpartition(" ")
        if not body or not count.isdigit():
            continue
        process, thread, tid, at, depth = "", "", "", 0, 0
        while m := _PROCESS.match(body, at):  # the sampled process first, then its children
            process = f"child: {_command(m.group(1))}" if depth else ""
            at, depth = m.end(), depth + 1
        frames = body[at:].split(";")
        if frames and (m := _THREAD.match(frames[0])):
            thread = re.sub(r"\d+", "N", m.group(1) or "(unnamed)")
            tid = frames[0].split(")", 1)[0]
            frames = frames[1:]
        threads.setdefault((process, thread), set()).add(f"{process}\0{tid}")
        stacks[(process, thread, *frames)] += int(count)
        each[f"{process}\0{tid}"] += int(count)
    return stacks, threads, each


def _command(line: str) -> str:
    """A child's command line as a label: its program's name, digits as N (a pool's processes,
    their pipes' and descriptors' numbers, together), at most 60 characters."""
    program, _, rest = line.partition(" ")
    return re.sub(r"\d+", "N", f"{Path(program).name} {rest}".strip())[:60]


class Recorders:
    """The two recorders of one step: start() waits until both sample; stop() their samples."""

    def __init__(self, pid: int, out: Path, path: str, rate: int = RATE) -> None:
        self.pid, self.out, self.rate = pid, out, rate
        out.mkdir(parents=True, exist_ok=True)
        base = [*sudo(), path, "record", "--pid", str(pid), "--nonblocking", "--threads",
                "--subprocesses", "--nolineno", "--format", "raw", "--rate", str(rate)]  # fmt: skip
        self.files = {"wall": out / "wall.txt", "cpu": out / "cpu.txt"}
        self.commands = {
            "wall": [*base, "--idle", "-o", str(self.files["wall"])],
            "cpu": [*base, "-o", str(self.files["cpu"])],
        }
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.started = self.starting = 0.0

    def start(self) -> None:
        t0 = time.monotonic()
        for f in self.files.values():
            f.unlink(missing_ok=True)
        for what, cmd in self.commands.items():
            self.procs[what] = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        for what, p in self.procs.items():
            said = _until_sampling(p, time.monotonic() + READY_SECONDS)
            if said is not None:
                self.kill()
                raise Failed(f"the {what} recorder did not start sampling: {said}")
        self.started = time.monotonic()
        self.starting = self.started - t0

    def stop(self, into: Samples, calls: int, stepped: float) -> None:
        stopping = time.monotonic()
        window = stopping - self.started
        for p in self.procs.values():
            with contextlib.suppress(OSError):
                os.kill(p.pid, signal.SIGINT)
        end = time.monotonic() + STOP_SECONDS
        for what, p in self.procs.items():
            cpu = _reap(p, end)
            if cpu is None:
                self.kill()
                raise Failed(f"the {what} recorder did not stop within {STOP_SECONDS:.0f} s")
            into.own_cpu += cpu
        read = {}
        for what, f in self.files.items():
            try:
                read[what] = parse(f.read_text(errors="replace"))
            except OSError as e:
                raise Failed(f"the {what} recorder wrote no samples ({e.strerror})") from None
        _, threads, per_thread = read["wall"]
        intervals = max(per_thread.values(), default=0)  # --idle: every thread, every interval
        if intervals == 0:
            raise Failed("it took no sample of the worker's Python threads")
        dt = window / intervals
        for what, counter in (("wall", into.wall), ("cpu", into.cpu)):
            for stack, n in read[what][0].items():
                counter[stack] += n * dt
        for group, ids in threads.items():
            into.threads.setdefault(group, set()).update(ids)
        into.calls += calls
        into.window += window
        into.stepped += stepped
        into.intervals += intervals
        into.added += self.starting + time.monotonic() - stopping  # the waits py-spy added

    def kill(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                with contextlib.suppress(OSError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _until_sampling(p: subprocess.Popen[bytes], deadline: float) -> str | None:
    """None once py-spy says it samples; else what it said instead (it exited, or timed out)."""
    assert p.stdout is not None
    said: list[str] = []
    buf = b""
    with selectors.DefaultSelector() as sel:
        sel.register(p.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return f"no word within {READY_SECONDS:.0f} s"
            chunk = os.read(p.stdout.fileno(), 4096)
            if not chunk:
                return said[0][:200] if said else "it exited without a word"
            *lines, buf = (buf + chunk).split(b"\n")
            for raw in lines:
                line = raw.decode(errors="replace").strip()
                if "Sampling process" in line:
                    return None
                if line:
                    said.append(line)


def _reap(p: subprocess.Popen[bytes], deadline: float) -> float | None:
    """Waits for `p` (until `deadline`): its CPU seconds, or None if it is still running."""
    while True:
        pid, _, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.returncode = 0  # reaped here: Popen must not wait for it again
            if p.stdout is not None:
                p.stdout.close()
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            return None
        time.sleep(0.002)
