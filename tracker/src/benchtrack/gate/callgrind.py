"""Instruction counts: run a harness in count mode under valgrind's callgrind.

Wall time of a CPU-bound benchmark on a shared 2-vCPU runner spreads tens of % from run to run
(each vCPU's speed changes under the neighbours' load; tracker/LAB.md, "The counts-first
design"); the instructions it executes do not. A harness in count mode (`BENCH_COUNT=K`) warms
each benchmark up once, then runs it K times, calling getppid(2) after the warm-up and after
each run and logging one line per call to `BENCH_COUNT_LABELS`:

    start<TAB>NAME                  before the first counted run
    sample<TAB>NAME<TAB>ELEMENTS    after each counted run (ELEMENTS: items one run handles)
    meta<TAB>GROUP<TAB>UNIT         not a marker: the group's throughput unit (e.g. items/s)

callgrind runs with `--dump-before=getppid`, so it writes its counters at every marker and zeroes
them: the n-th marker line names the n-th dump, and a `sample` dump holds exactly one run. The
raw output (`benchtrack.callgrind/1`) keeps every sample; `ingest callgrind` reads it.

Why callgrind and not cachegrind: callgrind can dump at a function, so one process yields one
count per benchmark run; valgrind 3.19 (Debian 12) has no cachegrind client requests. Only
user-space instructions are counted: time in the kernel (file I/O) and in sleeps is not, which is
why the gate keeps wall time for the benchmarks bound by them (benchtrack.toml says which).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.gate import function_diff
from benchtrack.ingest.callgrind import SCHEMA

MARKER = "getppid"
_SUMMARY = re.compile(rb"^summary:\s*(\d+)", re.M)


@dataclass
class Counted:
    name: str
    elements: int
    unit: str  # the harness's throughput unit, e.g. "items/s"
    instructions: list[int] = field(default_factory=list)  # one per counted run


class CountFailed(Exception):
    """The harness under callgrind failed, or its markers and dumps disagree."""


def valgrind_version() -> str:
    exe = shutil.which("valgrind")
    if exe is None:
        raise CountFailed("valgrind is not installed (apt-get install valgrind)")
    return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()


def count(
    command: list[str],
    *,
    iters: int,
    lazy: bool = False,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[list[Counted], str]:
    """Run `command` in count mode under callgrind; the counts per benchmark and its output.

    `lazy`: valgrind starts with instrumentation off (`--instr-atstart=no`, about 10x faster
    than counting) until the harness turns it on with callgrind's START_INSTRUMENTATION client
    request; for harnesses with a costly start-up (pytest imports and collects for seconds).
    Forked children are run on but not counted: only the command's own process has markers.
    """
    version = valgrind_version()
    with tempfile.TemporaryDirectory(prefix="benchtrack-callgrind-") as tmp:
        work = Path(tmp)
        labels = work / "labels.tsv"
        child_env = dict(os.environ if env is None else env)
        child_env.update(BENCH_COUNT=str(iters), BENCH_COUNT_LABELS=str(labels))
        # Python's hash seed changes dict and set layouts, hence the instructions, per process.
        child_env.setdefault("PYTHONHASHSEED", "0")
        options = [
            "--tool=callgrind",
            f"--dump-before={MARKER}",
            f"--callgrind-out-file={work}/cg.%p",
            "--child-silent-after-fork=yes",
            "--quiet",
        ]
        if lazy:
            options.append("--instr-atstart=no")
        with subprocess.Popen(
            ["valgrind", *options, *command],
            env=child_env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as proc:
            output, _ = proc.communicate()
        if proc.returncode != 0:
            raise CountFailed(f"exit {proc.returncode} under callgrind ({version}):\n{output}")
        lines = labels.read_text().splitlines() if labels.exists() else []
        # valgrind runs the command in its own process: the dumps named by its pid are its own.
        counted = segments(lines, _dumps(work, str(proc.pid)), labels)
        function_diff.keep_callgrind(lines, work, str(proc.pid))  # only with $BENCHTRACK_PROFILES
        return counted, output


def total(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> int:
    """The instructions `argv`'s own process runs under callgrind, start-up to exit: for a
    harness without a count mode, whose fixed costs two runs of different lengths cancel
    (benchtrack.stepworker.count)."""
    version = valgrind_version()
    with tempfile.TemporaryDirectory(prefix="benchtrack-callgrind-") as tmp:
        options = [
            "--tool=callgrind",
            f"--callgrind-out-file={tmp}/cg.%p",
            "--child-silent-after-fork=yes",
            "--quiet",
        ]
        with subprocess.Popen(
            ["valgrind", *options, *argv],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        ) as proc:
            output, _ = proc.communicate()
        if proc.returncode != 0:
            tail = "\n".join(output.strip().splitlines()[-5:])
            raise CountFailed(f"exit {proc.returncode} under callgrind ({version}):\n{tail}")
        # valgrind runs the command in its own process: its final dump is cg.<that pid>
        own = Path(tmp) / f"cg.{proc.pid}"
        m = _SUMMARY.search(own.read_bytes()) if own.is_file() else None
        if m is None:
            raise CountFailed(f"{' '.join(argv)}: no callgrind summary in {own.name}")
        return int(m.group(1))


def _dumps(work: Path, pid: str) -> dict[int, int]:
    out = {}
    for p in work.glob(f"cg.{pid}.*"):
        m = _SUMMARY.search(p.read_bytes())
        if m is None:
            raise CountFailed(f"{p.name}: no 'summary:' line")
        out[int(p.name.rsplit(".", 1)[1])] = int(m.group(1))
    return out


def segments(lines: list[str], dumps: dict[int, int], source: Path) -> list[Counted]:
    """Pair the marker lines with the numbered dumps: the n-th marker line, the n-th dump."""
    units: dict[str, str] = {}
    counted: dict[str, Counted] = {}
    n = 0
    for i, line in enumerate(lines, 1):
        parts = line.split("\t")
        kind = parts[0]
        if kind == "meta" and len(parts) == 3:
            units[parts[1]] = parts[2]
            continue
        if kind not in ("start", "sample"):
            raise BadInput(source, f"line {i}", "a start, sample or meta line", line)
        n += 1
        if n not in dumps:
            raise CountFailed(f"marker {n} ({line!r}) has no dump: another getppid() call?")
        if kind == "sample":
            if len(parts) != 3 or not parts[2].isdigit() or int(parts[2]) < 1:
                raise BadInput(source, f"line {i}", "sample<TAB>NAME<TAB>ELEMENTS", line)
            name = parts[1]
            item = counted.setdefault(name, Counted(name, int(parts[2]), ""))
            item.instructions.append(dumps[n])
    if len(dumps) > n:  # numbered dumps are the markers' (the one at exit has no number)
        raise CountFailed(f"{len(dumps)} dumps for {n} markers: something else called {MARKER}()")
    for item in counted.values():
        scope = item.name  # a meta line names the benchmark or one of its groups
        while scope and scope not in units:
            scope = scope.rsplit("/", 1)[0] if "/" in scope else ""
        item.unit = units.get(scope, "")
    return list(counted.values())


def raw_document(counted: list[Counted], command: list[str], version: str) -> dict:
    return {
        "schema": SCHEMA,
        "command": command,
        "valgrind": version,
        "benchmarks": [
            {"name": c.name, "elements": c.elements, "unit": c.unit, "instructions": c.instructions}
            for c in counted
        ],
    }


def write_raw(path: Path, doc: dict) -> None:
    atomic_write(path, json.dumps(doc, indent=1) + "\n")
