"""Count mode (``BENCH_COUNT=K``, run by ``benchtrack callgrind --lazy``): no timing; each
benchmark is warmed up once, then run K times, each run closed by ``os.getppid()``, at which
callgrind dumps its counters; one line per marker to ``BENCH_COUNT_LABELS`` names the dump.

pytest's start-up and collection cost billions of instructions, so valgrind starts with
instrumentation off and the first counted benchmark turns it on with callgrind's
START_INSTRUMENTATION client request. A client request is a magic instruction sequence that only
C can emit: a three-line C file is compiled once per machine into a shared library and called
through ctypes (no maintained Python package exposes the client requests on their own). Outside
valgrind the request is a no-op.

With ``BENCHTRACK_PROFILES`` set (the gate sets it), each benchmark then runs once more,
uninstrumented, under ``sys.settrace``, which counts the lines each Python function executes
(in threads started from then on too, and in the work a thread pool's existing workers run):
callgrind alone names only the interpreter's C functions. Written once per benchmark and gate
side as a ``benchtrack.profile/1`` file, the shape ``benchtrack.gate.function_diff`` reads (one more
run per benchmark, outside the counted ones, so the counts are untouched).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_SOURCE = b"""#include <valgrind/callgrind.h>
void benchtrack_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void benchtrack_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""
_lib: ctypes.CDLL | None = None


def iterations() -> int | None:
    """K from ``BENCH_COUNT``, or None when not counting; a bad value is a usage error."""
    raw = os.environ.get("BENCH_COUNT", "")
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1 or not os.environ.get("BENCH_COUNT_LABELS"):
        raise ValueError(
            f"BENCH_COUNT={raw!r}: expected a positive whole number, with BENCH_COUNT_LABELS set"
        )
    return int(raw)


def _client() -> ctypes.CDLL:
    global _lib
    if _lib is not None:
        return _lib
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "benchtrack"
    lib = cache / f"callgrind-client-{hashlib.sha256(_SOURCE).hexdigest()[:12]}.so"
    if not lib.exists():
        cache.mkdir(parents=True, exist_ok=True)
        src = lib.with_suffix(".c")
        src.write_bytes(_SOURCE)
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(tmp), str(src)], check=True)
        tmp.replace(lib)
    _lib = ctypes.CDLL(str(lib))
    return _lib


def _label(line: str) -> None:
    with open(os.environ["BENCH_COUNT_LABELS"], "a", encoding="utf-8") as f:
        f.write(line + "\n")


def count(name: str, unit: str, items: int, target: Callable[[], Any], iters: int) -> Any:
    """Warm up, then `iters` counted runs of `target`; returns the last run's result."""
    result = target()
    client = _client()
    client.benchtrack_start()
    _label(f"meta\t{name}\t{unit}")
    _label(f"start\t{name}")
    os.getppid()
    for _ in range(iters):
        result = target()
        os.getppid()
        _label(f"sample\t{name}\t{items}")
    # Off again until the next benchmark's counted runs: its warm-up and pytest's work between
    # the two run uninstrumented, several times faster (instructions are counted per run, between
    # markers, so what runs uninstrumented was never in a count).
    client.benchtrack_stop()
    profile(name, items, target)
    return result


def _where(code: Any) -> str:
    """A function as the profile names it: its qualified name and file (not its line: a change
    above it moves that, and base and head must name it alike)."""
    path = code.co_filename
    if path.startswith(os.getcwd() + os.sep):
        path = os.path.relpath(path)
    else:
        path = "/".join(path.split(os.sep)[-2:])
    return f"{code.co_qualname} ({path})"


def profile(name: str, items: int, target: Callable[[], Any]) -> None:
    """One more run of `target` counting each Python function's executed lines, written to
    $BENCHTRACK_PROFILES/<GATE_SIDE>/python-<benchmark>.json unless already there."""
    root = os.environ.get("BENCHTRACK_PROFILES")
    if not root:
        return
    side = os.path.join(root, os.environ.get("GATE_SIDE", "run"))
    path = os.path.join(side, "python-" + hashlib.sha1(name.encode()).hexdigest()[:16] + ".json")
    if os.path.exists(path):  # one per benchmark and side: lines counted repeat exactly
        return
    # One tally a thread: a shared one loses counts (two threads read the same count, both
    # write it plus one, when the GIL switches between the read and the write).
    tallies: dict[int, dict[Any, int]] = {}
    tracers: dict[int, Callable[..., Any]] = {}

    def counter(lines: dict[Any, int]) -> Callable[..., Any]:
        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                lines[frame.f_code] = lines.get(frame.f_code, 0) + 1
            return local

        return local

    def start(frame: Any, event: str, arg: Any) -> Any:
        # every call's frame traces its lines, into its own thread's tally
        ident = threading.get_ident()
        local = tracers.get(ident)
        if local is None:
            local = tracers[ident] = counter(tallies.setdefault(ident, {}))
        return local

    # Threads started from now on trace from their start; a thread pool's workers that already
    # exist (asyncio.to_thread's, started by the warm-up) only run what is handed to them, so
    # each item they run is traced for its duration. _WorkItem is private to
    # concurrent.futures, but looked up on the class at every call, so existing workers see the
    # wrapper; Python 3.11 has no way to trace a running thread from outside it (3.12 has
    # threading.settrace_all_threads).
    from concurrent.futures import thread as pool

    untraced = pool._WorkItem.run

    def traced(item: Any) -> None:
        sys.settrace(start)
        try:
            untraced(item)
        finally:
            sys.settrace(None)

    sys.settrace(start)
    threading.settrace(start)
    pool._WorkItem.run = traced  # type: ignore[method-assign]
    try:
        target()
    finally:
        pool._WorkItem.run = untraced  # type: ignore[method-assign]
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
    functions: dict[str, int] = {}
    for lines in tallies.values():
        for code, n in lines.items():
            functions[_where(code)] = functions.get(_where(code), 0) + n
    total = sum(functions.values())
    keep = {f: n for f, n in functions.items() if n >= total * 0.0005}
    run = {"elements": items, "total": total, "functions": keep}
    doc = {"schema": "benchtrack.profile/1", "source": "lines", "unit": "Python lines",
           "benchmarks": {name: [run]}}  # fmt: skip
    os.makedirs(side, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, path)
