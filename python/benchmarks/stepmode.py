"""Step mode (``BENCH_STEP="<in>,<out>"``, set by the gate's lockstep runner): no timing of its
own; each benchmark, once warmed up, is offered on the ``<out>`` file descriptor and timed in
steps the runner asks for on ``<in>``, while the other side's process takes turns on the same CPU
(tracker/src/benchtrack/gate/lockstep.py has the protocol). The benchmarks come in sorted name
order, so the runner can pair the two sides' lists by merging them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, TextIO

_channel: tuple[TextIO, TextIO] | None = None


def active() -> bool:
    return bool(os.environ.get("BENCH_STEP"))


def fds() -> tuple[int, int]:
    """The two descriptors of ``BENCH_STEP``; a malformed value is a ValueError naming it."""
    raw = os.environ["BENCH_STEP"]
    try:
        fd_in, fd_out = (int(x) for x in raw.split(","))
    except ValueError:
        expected = "expected two file descriptors, '<in>,<out>'"
        raise ValueError(f"BENCH_STEP={raw!r}: {expected}") from None
    return fd_in, fd_out


def _open() -> tuple[TextIO, TextIO]:
    global _channel
    if _channel is None:
        fd_in, fd_out = fds()
        _channel = (
            os.fdopen(fd_in, "r", encoding="utf-8"),
            os.fdopen(fd_out, "w", encoding="utf-8", buffering=1),
        )
    return _channel


def _clock() -> tuple[str, Callable[[], tuple[int, ...]]]:
    """The step clock: wall time; with ``BENCH_STEP_CLOCK=cpu`` the process's CPU time (all its
    threads, user and system), which a neighbour preempting the step does not add to; with
    ``wall+cpu`` both, read around the same calls (the reply is ``ns WALL CPU``)."""
    which = os.environ.get("BENCH_STEP_CLOCK", "wall")
    clocks = {
        "wall": lambda: (time.perf_counter_ns(),),
        "cpu": lambda: (time.process_time_ns(),),
        "wall+cpu": lambda: (time.perf_counter_ns(), time.process_time_ns()),
    }
    if which not in clocks:
        raise ValueError(f"BENCH_STEP_CLOCK={which!r}: expected one of {', '.join(clocks)}")
    return which, clocks[which]


def failed(name: str, message: str) -> None:
    """A benchmark that failed before it was offered (its setup or warm-up raised)."""
    _open()[1].write(f"error {name}\t{' '.join(message.split())}\n")


def serve(name: str, unit: str, items: int, target: Callable[[], Any]) -> Any:
    """Warm up (the result the test checks), offer the benchmark, time the steps asked for."""
    try:
        result = target()
    except BaseException as e:
        failed(name, f"{type(e).__name__}: {e}")
        raise
    commands, replies = _open()
    which, clock = _clock()
    replies.write(f"ready {name}\t{unit}\t{items}\t{which}\n")
    for line in commands:
        word, _, arg = line.strip().partition(" ")
        if word == "next":
            break
        if word != "run" or not arg.isdigit():
            raise ValueError(f"step mode: expected 'run N' or 'next', got {line!r}")
        n = int(arg)
        try:
            t0 = clock()
            for _ in range(n):
                target()
            t1 = clock()
        except Exception as e:  # the runner records it; the test itself reports it too
            replies.write(f"error {type(e).__name__}: {' '.join(str(e).split())}\n")
            continue
        replies.write(f"ns {' '.join(str(b - a) for a, b in zip(t0, t1, strict=True))}\n")
    return result
