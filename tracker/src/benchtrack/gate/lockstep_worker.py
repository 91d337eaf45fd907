"""One side's step worker: its process, and the protocol lockstep speaks with it (the protocol is
in gate/lockstep.py's docstring and docs/architecture.md)."""

from __future__ import annotations

import contextlib
import math
import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from benchtrack.machine.cpuset import pinned
from benchtrack.machine.processes import stop_group
from benchtrack.result import NAME_RULE, is_name

TAIL_LINES = 30


@dataclass(frozen=True)
class Ready:
    name: str
    unit: str
    elements: float
    clock: str = "wall"


@dataclass(frozen=True)
class StepError:
    name: str
    message: str
    side: str | None = None  # the side that failed; None: both (they disagree)


T = TypeVar("T", Ready, StepError)


class WorkerFailed(Exception):
    """The worker died, timed out or broke the protocol; `tail` is its log's end."""

    def __init__(self, side: str, message: str, tail: str) -> None:
        super().__init__(f"{side}: {message}")
        self.side, self.message, self.tail = side, message, tail


class Worker:
    """One side's harness process: `command` under bash in `cwd`, its output in `log`."""

    def __init__(
        self, side: str, command: str, cwd: Path, env: dict[str, str], log: Path, cpu: str | None
    ) -> None:
        self.side, self.log = side, log
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        env = {**env, "BENCH_STEP": f"{to_r},{from_w}"}
        argv = pinned(cpu, ["bash", "-c", command])
        log.parent.mkdir(parents=True, exist_ok=True)
        self._logfile = log.open("w", encoding="utf-8", errors="replace")
        self._logfile.write(f"$ {command}\n(cwd {cwd}, lockstep, cpu {cpu or 'any'})\n")
        self._logfile.flush()
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdout=self._logfile,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            pass_fds=(to_r, from_w),
            start_new_session=True,  # a cancel stops everything it started
        )
        os.close(to_r)
        os.close(from_w)
        self._out = to_w
        self._in = from_r
        self._buffer = b""
        self.deadline = math.inf

    def send(self, line: str) -> None:
        try:
            os.write(self._out, line.encode() + b"\n")
        except BrokenPipeError:
            raise self.failed("exited while commands were pending") from None

    def read(self) -> str | None:
        """The next line the worker writes; None when it closed its end (it exited)."""
        while b"\n" not in self._buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self.failed("timed out")
            ready, _, _ = select.select([self._in], [], [], left)
            if not ready:
                raise self.failed("timed out")
            chunk = os.read(self._in, 65536)
            if not chunk:
                if self._buffer:
                    raise self.failed(f"ended inside a line: {self._buffer[:200]!r}")
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def next_ready(self, errors: list[StepError]) -> Ready | None:
        """The next benchmark the worker offers (errors before it go to `errors`); None at end."""
        while (line := self.read()) is not None:
            word, _, rest = line.partition(" ")
            if word == "ready":
                parts = rest.split("\t")
                try:
                    ready = Ready(parts[0], parts[1], float(parts[2]), *parts[3:4])
                except (IndexError, ValueError):
                    expected = "expected 'ready NAME<tab>UNIT<tab>ELEMENTS[<tab>CLOCK]'"
                    raise self.failed(f"{expected}, got {line!r}") from None
                if not ready.elements > 0:
                    raise self.failed(f"expected elements > 0, got {line!r}")
                return self._named(ready)
            if word == "error":
                name, _, message = rest.partition("\t")
                errors.append(self._named(StepError(name, message or "failed")))
                continue
            raise self.failed(f"expected 'ready' or 'error', got {line!r}")
        return None

    def _named(self, offer: T) -> T:
        """`offer`, whose name keeps the contract every name the gate writes keeps (result.
        NAME_RULE); else the worker broke the protocol: one that flowed on would be written
        into gate.json, which gate-merge and gate-comment then refuse."""
        if not is_name(offer.name):
            raise self.failed(f"a benchmark name {NAME_RULE}, got {offer.name!r}")
        return offer

    def run(self, n: int) -> tuple[float, ...] | str:
        """Nanoseconds for `n` calls (one per clock), or the benchmark's error message."""
        self.send(f"run {n}")
        line = self.read()
        if line is None:
            raise self.failed("exited during a step")
        word, _, rest = line.partition(" ")
        if word == "error":
            return rest or "failed"
        try:
            ns = tuple(float(x) for x in rest.split()) if word == "ns" else ()
        except ValueError:
            ns = ()
        if not ns or not all(x > 0 for x in ns):
            raise self.failed(f"expected 'ns NANOSECONDS' > 0, got {line!r}")
        return ns

    def note(self, line: str) -> None:
        """A line of the gate's own in the worker's log (what it chose for this worker)."""
        if not self._logfile.closed:
            self._logfile.write(f"[benchtrack gate] {line}\n")
            self._logfile.flush()

    def failed(self, message: str) -> WorkerFailed:
        self.note(message)  # in its log, so the tail the suite's failure shows says it
        self.stop()
        return WorkerFailed(self.side, message, self.tail())

    def tail(self) -> str:
        if not self._logfile.closed:  # stop() and finish() close it
            self._logfile.flush()
        lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(lines[-TAIL_LINES:])

    def finish(self) -> int:
        """Waits for the exit after the last benchmark; the exit code."""
        self._out = _closed(self._out)
        try:
            code = self.proc.wait(timeout=max(1.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            code = 124
        self._close()
        return code

    def stop(self) -> None:
        """SIGTERM to the worker's process group, SIGKILL after 5 s."""
        stop_group(self.proc)
        self._close()

    def _close(self) -> None:
        self._out, self._in = _closed(self._out), _closed(self._in)
        self._logfile.close()


def _closed(fd: int) -> int:
    """Close `fd` once; -1 from then on. Never a second os.close of a number: by then another
    thread (the counts beside the rounds) may have been given it, and would lose its pipe (a
    Popen's exec-status pipe read EBADF in CI when finish() and _close() both closed `_out`)."""
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)
    return -1
