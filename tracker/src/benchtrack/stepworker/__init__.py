"""Step workers for the harnesses other repositories use (`benchtrack step-worker KIND`).

The gate's lockstep runner (gate/lockstep.py) starts one worker per side and asks it for short
steps of one benchmark at a time. This repository's harnesses have a step mode of their own; an
adopter's do not, so benchtrack serves their steps by driving each harness's own runner for one
benchmark with an exact filter and a fixed (or short) measurement, and reports the time the
harness itself measured for the step, never the process's start-up:

- `gotest`: `go test -c` binaries, `-test.bench '^Name$' -test.benchtime Nx` per step;
- `criterion`: the bench binaries, `--bench --exact ID` with a short measurement per step;
- `libtest`: `#[bench]` binaries, `--bench --exact NAME` per step;
- `googlebenchmark`: a binary, `--benchmark_filter='^NAME$'` with a short min time per step;
- `pytest`: one pytest process serving every benchmark's steps (a plugin, `-p`), since pytest's
  start-up (collection, imports) takes far longer than a step.

A compiled harness starts a process per step: it has no mode that waits for commands, and adding
one would mean changing the adopter's code. What that costs in spread is measured in
docs/adopting.md. Each module has `build(args)` (once per side, before the rounds: compile and
list the benchmarks into a manifest) and `targets(args)` (the benchmarks to serve).
"""

from __future__ import annotations

import atexit
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from benchtrack.fsutil import atomic_write


class StepFailed(Exception):
    """A step (or a warm-up) of one benchmark failed: its message goes to the gate."""


@dataclass
class Target:
    """One benchmark a worker serves: `step(n)` runs n calls, returns nanoseconds for them."""

    name: str
    step: Callable[[int], float]
    unit: str = "ops/s"
    elements: float = 1.0
    # A harness started afresh each step needs no warm-up step of its own: the gate's first
    # `run 1` checks that it runs (a failure there is that benchmark's error too).
    warm_up: bool = True
    # The command (argv, working directory, environment added) of a step of exactly n calls,
    # where the harness takes a fixed call count (Go's `-test.benchtime Nx`): what `count` runs
    # under callgrind.
    argv: Callable[[int], tuple[list[str], Path, dict[str, str]]] | None = None


_COPIES: dict[str, str] = {}


def private_copy(binary: str) -> str:
    """A copy of `binary` for this worker process alone, in memory (tmpfs) where there is one,
    removed when the worker exits. A side's build outlives its workers, and so does the page
    cache behind its binaries' code: a state of those pages (where they landed, once read back
    after the kernel reclaimed them) then slows one side in every round for as long as it lasts,
    which reads as a change (tracker/GATE.md, "What a side keeps"). Run from a copy, the code is
    in pages of this worker's own, new each round."""
    if binary not in _COPIES:
        shm = Path("/dev/shm")
        usable = (
            shm.is_dir()
            and os.access(shm, os.W_OK)
            and not os.statvfs(shm).f_flag & os.ST_NOEXEC  # some mount it noexec
        )
        where = shm if usable else None
        scratch = tempfile.mkdtemp(prefix="benchtrack-step-", dir=where)
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        copy = Path(scratch) / Path(binary).name
        shutil.copy2(binary, copy)
        _COPIES[binary] = str(copy)
    return _COPIES[binary]


def selected(names: Iterable[str]) -> list[str]:
    """`names` matching `BENCH_FILTER` (a regular expression searched in the name), sorted:
    the gate merges the two sides' lists by name."""
    pattern = os.environ.get("BENCH_FILTER")
    rx = re.compile(pattern) if pattern else None
    return sorted(n for n in names if rx is None or rx.search(n))


def channel() -> tuple[TextIO, TextIO]:
    """The gate's two pipes from `BENCH_STEP="<in>,<out>"`."""
    raw = os.environ.get("BENCH_STEP", "")
    try:
        fd_in, fd_out = (int(x) for x in raw.split(","))
    except ValueError:
        raise SystemExit(
            f"benchtrack step-worker: BENCH_STEP={raw!r}: expected '<in>,<out>' (two file "
            "descriptors); the gate sets it for a lockstep suite's command"
        ) from None
    return (
        os.fdopen(fd_in, "r", encoding="utf-8"),
        os.fdopen(fd_out, "w", encoding="utf-8", buffering=1),
    )


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "failed"


def serve(targets: list[Target]) -> int:
    """Offer each target in name order, answer `run N` with `ns T` until `next`. A benchmark
    whose warm-up fails is an `error`; the exit code is 1 if any failed, else 0."""
    commands, replies = channel()
    failed = False
    chosen = set(selected(t.name for t in targets))
    for t in sorted((t for t in targets if t.name in chosen), key=lambda t: t.name):
        try:
            if t.warm_up:
                t.step(1)  # the warm-up, and the check that it runs at all
        except StepFailed as e:
            replies.write(f"error {t.name}\t{_one_line(str(e))}\n")
            failed = True
            continue
        # The harnesses time their own runs by the wall clock; a suite asking for CPU time
        # reads it in the clock word and refuses the step (the gate never mixes clocks).
        replies.write(f"ready {t.name}\t{t.unit}\t{t.elements:g}\twall\n")
        for line in commands:
            word, _, arg = line.strip().partition(" ")
            if word == "next":
                break
            if word != "run" or not arg.isdigit():
                raise SystemExit(
                    f"benchtrack step-worker: expected 'run N' or 'next', got {line!r}"
                )
            try:
                ns = t.step(int(arg))
            except StepFailed as e:
                replies.write(f"error {_one_line(str(e))}\n")
                failed = True
                continue
            replies.write(f"ns {ns:.0f}\n")
    return 1 if failed else 0


# A counted run's length: about this long natively (a few hundred times that under callgrind),
# long enough that the work of the calls, not the start-up, is what is counted.
COUNT_NS = 5e6
# ...and, in instructions, at least this many times what both runs share: a run's start-up
# varies by ~5% from run to run (the runtime's threads, the loader), so at 10x it moves a
# call's count by ~0.5%. The time only guesses n1 (a step timed beside a busy neighbour reads
# slow and would size it small: CI once read one Go benchmark 27,081-40,774 instructions a
# call at such an n1); the instructions, which do not depend on the machine's speed, settle it.
FIXED_SHARE = 10


def _sized(t: Target, n1: int) -> tuple[int, int]:
    """n1 grown until the n1 calls' instructions are FIXED_SHARE times what the runs share,
    and the difference at that n1. At a guess far too small, the start-up's variation can
    even make the longer run count less: n1 then grows a hundredfold."""
    from benchtrack.gate import callgrind

    for _ in range(6):
        first, second = (callgrind.total(*t.argv(n)) for n in (n1, 2 * n1))
        calls, shared = second - first, max(2 * first - second, 0)
        if calls > 0 and (calls >= FIXED_SHARE * shared or n1 >= 10**8):
            return n1, calls
        if n1 >= 10**8:
            break
        grow = FIXED_SHARE * shared * 1.2 / calls if calls > 0 else 100
        n1 = min(10**8, max(2 * n1, math.ceil(n1 * grow)))
    raise StepFailed(f"{2 * n1} calls counted no more than {n1} ({second} and {first})")


def count(targets: list[Target], out: Path, iters: int) -> int:
    """Instruction counts per call for a harness without a count mode: each selected target's
    step of n1 calls and of n2 = 2·n1 calls under callgrind, `iters` times; the difference
    over n2 − n1 calls cancels what both runs share (the process's start-up, the harness's
    first probing call, its set-up). n1 is guessed from native steps (the fastest of three,
    to about COUNT_NS) and grown until the calls outweigh the shared part (FIXED_SHARE).
    Written as `benchtrack callgrind`'s raw output (benchtrack.callgrind/1), the names those
    of the lockstep steps, so the counts sit beside their wall time. Exit 1 when a benchmark
    failed (the others are written), 0 otherwise."""
    from benchtrack.gate import callgrind

    chosen = set(selected(t.name for t in targets))
    counted: list[callgrind.Counted] = []
    failed = False
    for t in sorted((t for t in targets if t.name in chosen), key=lambda t: t.name):
        if t.argv is None:
            raise SystemExit(f"benchtrack step-worker: {t.name}: the harness takes no call count")
        try:
            per_call = max(min(t.step(10) for _ in range(3)) / 10, 1.0)
            n1, calls = _sized(t, max(2, min(10**8, round(COUNT_NS / per_call))))
            runs = [calls]
            for _ in range(iters - 1):
                first, second = (callgrind.total(*t.argv(n)) for n in (n1, 2 * n1))
                if second <= first:
                    raise StepFailed(f"{2 * n1} calls counted no more than {n1} ({second})")
                runs.append(second - first)
        except (StepFailed, callgrind.CountFailed) as e:
            print(f"benchtrack step-worker: {t.name}: {_one_line(str(e))}", file=sys.stderr)
            failed = True
            continue
        counted.append(callgrind.Counted(t.name, n1, t.unit, runs))
        build_log(f"{t.name}: {n1} calls counted, {runs[0] / n1:.1f} instructions each")
    doc = callgrind.raw_document(counted, sys.argv, callgrind.valgrind_version())
    out.parent.mkdir(parents=True, exist_ok=True)
    callgrind.write_raw(out, doc)
    return 1 if failed else 0


def write_manifest(path: Path, data: dict[str, Any]) -> None:
    """What `build` found (binaries, their directories, the benchmarks' names), for the worker
    of every round: listing a harness's benchmarks may run them, which need not be repeated."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=1).encode())


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(
            f"benchtrack step-worker: {path}: the manifest its --build writes ({e}); is the "
            "suite's `build` the same command with --build?"
        ) from None


def run(
    argv: list[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 3600,
) -> str:
    """`argv`'s output (stdout and stderr together); a failure is StepFailed with its tail."""
    # BENCH_STEP is the gate's channel to this worker, not to the harness it runs.
    env = {**{k: v for k, v in os.environ.items() if k != "BENCH_STEP"}, **(env or {})}
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise StepFailed(f"{argv[0]}: {e}") from None
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        tail = " | ".join(out.strip().splitlines()[-5:])
        raise StepFailed(f"{Path(argv[0]).name} exited {proc.returncode}: {tail}")
    return out


def run_stdout(argv: list[str]) -> str:
    """`argv`'s standard output alone (a JSON document, say); a failure is StepFailed."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise StepFailed(f"{argv[0]}: {e}") from None
    if proc.returncode != 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-5:])
        raise StepFailed(f"{Path(argv[0]).name} exited {proc.returncode}: {tail}")
    return proc.stdout


def build_log(message: str) -> None:
    """A line of the build's log (stderr: the gate keeps it in build-<side>-<suite>.log)."""
    print(f"benchtrack step-worker: {message}", file=sys.stderr, flush=True)
