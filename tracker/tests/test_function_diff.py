"""Where the work grew: callgrind's per-function costs, the Python and Perl harnesses' own
profiles, and the diff the gate puts into gate.json. Real valgrind on a real C program, the real
Python count mode, the real Perl suite under its `-d` hook."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from benchtrack.gate import callgrind, function_diff

REPO = Path(__file__).resolve().parents[2]

# Name compression, a `calls=` line (whose next cost line is the callee's, not the caller's), an
# unknown function (an address), two positions, subposition compression.
DUMP = """\
# callgrind format
version: 1
positions: instr line
events: Ir
summary: 1000

ob=(1) /usr/bin/prog
fl=(1) prog.c
fn=(1) main
0x10 3 100
+2 4 50
cfn=(2) helper
calls=7 0x40 9
* 5 700
ob=(2) /lib/libc.so.6
fn=(3) 0x0000000004936728
0x99 0 20
ob=(1)
fn=(2)
0x40 9 600
fi=(2) inlined.h
+1 2 30
fe=(1)
fn=(1)
* 6 200
"""


def test_own_costs_read_callgrinds_format() -> None:
    costs = function_diff.own_costs(DUMP)
    assert costs == {"main": 350, "helper": 630, "??? (libc.so.6)": 20}
    total, kept = function_diff.compact({**costs, "tiny": 0})
    assert total == 1000 and "tiny" not in kept


C_PROGRAM = """
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) static void helper(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) static void steady(long n) { for (long i = 0; i < n; i++) sink ^= i; }
int main(void) {
    long extra = EXTRA;
    FILE *labels = fopen(getenv("BENCH_COUNT_LABELS"), "a");
    int iters = atoi(getenv("BENCH_COUNT"));
    setvbuf(labels, NULL, _IONBF, 0);
    fprintf(labels, "meta\\ttoy\\titems/s\\n");
    helper(100000 + extra); steady(100000);
    fprintf(labels, "start\\ttoy/loop\\n");
    getppid();
    for (int k = 0; k < iters; k++) {
        helper(100000 + extra); steady(100000);
        getppid();
        fprintf(labels, "sample\\ttoy/loop\\t1000\\n");
    }
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
def test_the_gate_names_the_function_whose_instructions_grew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = tmp_path / "profiles"
    monkeypatch.setenv(function_diff.ENV, str(profiles))
    for side, extra in (("base", 0), ("head", 25000)):
        exe = tmp_path / f"toy-{side}"
        src = tmp_path / f"toy-{side}.c"
        src.write_text(C_PROGRAM.replace("EXTRA", str(extra)))
        subprocess.run(["cc", "-O1", "-g", "-o", str(exe), str(src)], check=True)
        monkeypatch.setenv("GATE_SIDE", side)
        callgrind.count([str(exe)], iters=2)
    assert len(list((profiles / "base").glob("callgrind-*.json"))) == 1
    doc = {
        "benchmarks": [
            {
                "name": "toy/loop (instructions)",
                "unit": "instructions/item",
                "verdict": "regressed",
            },
            {"name": "toy/other", "unit": "items/s", "verdict": "regressed"},  # timed: no profile
        ]
    }
    function_diff.attach(doc, profiles)
    entry = doc["functions"]["toy/loop (instructions)"]
    assert entry["source"] == "callgrind" and entry["unit"] == "instructions"
    top = entry["functions"]
    assert top[0]["function"] == "helper"  # steady did the same work on both sides
    assert all(f["function"] != "steady" for f in top)
    assert top[0]["share"] == pytest.approx(0.25 * top[0]["base"] / (top[0]["base"] * 2), rel=0.1)
    assert list(doc["functions"]) == ["toy/loop (instructions)"]
    assert "`helper` +" in function_diff.markdown(doc["functions"])


def _countmode():
    """The Python suite's count harness (python/benchmarks is not a package)."""
    sys.path.insert(0, str(REPO / "python/benchmarks"))
    try:
        import countmode
    finally:
        sys.path.pop(0)
    return countmode


def test_the_python_harness_counts_lines_per_python_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    countmode = _countmode()

    def inner(n: int) -> int:
        return sum(i for i in range(n))

    def target(n: int = 50) -> int:
        total = 0
        for _ in range(3):
            total += inner(n)
        return total

    monkeypatch.setenv(function_diff.ENV, str(tmp_path))
    for side, n in (("base", 50), ("head", 60)):
        monkeypatch.setenv("GATE_SIDE", side)
        countmode.profile("toy/py", 3, lambda n=n: target(n))
        countmode.profile("toy/py", 3, lambda: target(1000))  # once per benchmark and side
    found = function_diff.diff(tmp_path, ["toy/py (instructions)"])["toy/py (instructions)"]
    assert found["source"] == "lines" and found["unit"] == "Python lines"
    names = [f["function"] for f in found["functions"]]
    assert names[0].startswith("test_the_python_harness_counts_lines_per_python_function.<locals>")
    assert any("<genexpr>" in n for n in names)  # the generator that ran 10 more items a call


def test_the_python_harness_counts_every_line_a_thread_pool_already_running_executes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncio.to_thread hands work to the loop's pool, whose threads the warm-up started before
    # the profile run: their lines were missing (python/cpu/to_thread_gather's profile named
    # only the event loop, and the self-test's function-diff check failed on it); and threads
    # sharing one tally lost counts when the GIL switched inside the tracer.
    import asyncio

    countmode = _countmode()

    def in_thread(n: int) -> int:
        v = 0
        for i in range(n):
            v += i
        return v

    async def gathered(n: int) -> list[int]:
        return list(await asyncio.gather(*(asyncio.to_thread(in_thread, n) for _ in range(4))))

    monkeypatch.setenv(function_diff.ENV, str(tmp_path))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # the GIL switches often, as between busy threads
    try:
        with asyncio.Runner() as runner:
            runner.run(gathered(10))  # the warm-up: the pool's threads start here
            for side, n in (("base", 50_000), ("head", 60_000)):
                monkeypatch.setenv("GATE_SIDE", side)
                countmode.profile("toy/threads", 4, lambda n=n: runner.run(gathered(n)))
    finally:
        sys.setswitchinterval(interval)
    found = function_diff.diff(tmp_path, ["toy/threads (instructions)"])
    [top, *_] = found["toy/threads (instructions)"]["functions"]
    assert ".in_thread" in top["function"], top
    for side, n in (("base", 50_000), ("head", 60_000)):
        [doc] = [orjson.loads(p.read_bytes()) for p in (tmp_path / side).glob("python-*.json")]
        [run] = doc["benchmarks"]["toy/threads"]
        lines = [c for f, c in run["functions"].items() if ".in_thread" in f]
        assert lines == [4 * (2 * n + 3)]  # 4 calls: the loop's line n + 1 times, its body n


def test_the_perl_suite_counts_statements_per_sub(tmp_path: Path) -> None:
    out = tmp_path / "perl.json"
    env = {**os.environ, "BENCH_COUNT_PROFILE": str(out), "BENCH_FILTER": "async_pool/trivial"}
    proc = subprocess.run(
        ["perl", "-Iperl/lib", "-d:BenchtrackProfile", "perl/bin/bench", "--quiet"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    doc = orjson.loads(out.read_bytes())
    assert doc["schema"] == function_diff.SCHEMA and doc["source"] == "statements"
    [run] = doc["benchmarks"]["perl/coro/async_pool/trivial"]
    assert run["elements"] == 100 and run["total"] > 0
    assert any(f.startswith("CoroPatterns::") for f in run["functions"])
    # statements repeat exactly: the per-task closure runs once per task
    per_task = [n for f, n in run["functions"].items() if f.startswith("CoroPatterns::__ANON__")]
    assert per_task and all(n % 100 == 0 for n in per_task)
