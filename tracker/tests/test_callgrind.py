"""Instruction counts under real valgrind: a tiny harness in count mode, its raw output, ingest,
and the gate's choice of the series that gates each benchmark."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchtrack.errors import BadInput
from benchtrack.gate import callgrind, config
from benchtrack.ingest import callgrind as ingest_callgrind

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")

# A count-mode harness as the suites implement it: warm up, then one marker per counted run.
HARNESS = textwrap.dedent(
    """
    import os, sys
    labels = open(os.environ["BENCH_COUNT_LABELS"], "a", buffering=1)
    iters = int(os.environ["BENCH_COUNT"])
    labels.write("meta\\ttoy/loop\\titems/s\\n")

    def body(n):
        s = 0
        for i in range(n):
            s += i * i
        return s

    for name, n in (("toy/loop/small", 20_000), ("toy/loop/large", 40_000)):
        body(n)
        labels.write(f"start\\t{name}\\n")
        os.getppid()
        for _ in range(iters):
            body(n)
            os.getppid()
            labels.write(f"sample\\t{name}\\t{n}\\n")
    if len(sys.argv) > 1:
        os.getppid()  # an unlabelled marker: the counts can no longer be attributed
    """
)


def _harness(tmp_path: Path) -> Path:
    path = tmp_path / "harness.py"
    path.write_text(HARNESS)
    return path


def test_counts_are_per_run_repeatable_and_scale_with_the_work(tmp_path: Path) -> None:
    counted, _ = callgrind.count([sys.executable, str(_harness(tmp_path))], iters=3)
    by = {c.name: c for c in counted}
    assert set(by) == {"toy/loop/small", "toy/loop/large"}
    small, large = by["toy/loop/small"], by["toy/loop/large"]
    assert small.unit == "items/s" and small.elements == 20_000
    assert len(small.instructions) == 3
    # Each sample is one run: the same work counts the same (within 0.5%) ...
    assert max(small.instructions) / min(small.instructions) < 1.005
    # ... and twice the work counts twice the instructions (the warm-up and markers excluded).
    ratio = min(large.instructions) / min(small.instructions)
    assert 1.9 < ratio < 2.1


def test_raw_output_ingests_as_instructions_per_element(tmp_path: Path) -> None:
    out = tmp_path / "raw" / "toy.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchtrack",
            "callgrind",
            "--iters",
            "2",
            "--out",
            str(out),
            "--",
            sys.executable,
            str(_harness(tmp_path)),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == callgrind.SCHEMA
    parsed = ingest_callgrind.parse(out.parent)
    b = {x.name: x for x in parsed.benchmarks}["toy/loop/small"]
    assert b.unit == "instructions/item" and b.direction == "smaller"
    assert 10 < b.value < 10_000  # instructions per loop iteration of CPython


def test_an_unlabelled_marker_fails_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "toy.json"
    harness = str(_harness(tmp_path))
    argv = ["callgrind", "--iters", "1", "--out", str(out), "--", sys.executable, harness, "x"]
    proc = subprocess.run([sys.executable, "-m", "benchtrack", *argv], capture_output=True)
    assert proc.returncode == 3
    assert b"something else called getppid" in proc.stderr
    assert not out.exists()


def test_bad_arguments_exit_2_before_running(tmp_path: Path) -> None:
    for argv in (
        ["callgrind", "--out", str(tmp_path), "--", "true"],  # a directory
        ["callgrind", "--out", str(tmp_path / "x.json")],  # no command
        ["callgrind", "--iters", "0", "--out", str(tmp_path / "x.json"), "--", "true"],
    ):
        proc = subprocess.run([sys.executable, "-m", "benchtrack", *argv], capture_output=True)
        assert proc.returncode == 2, (argv, proc.stderr)
    assert list(tmp_path.iterdir()) == []


def test_ingest_names_the_bad_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "schema": callgrind.SCHEMA,
                "benchmarks": [{"name": "a/b/c", "elements": 0, "unit": "items/s"}],
            }
        )
    )
    with pytest.raises(BadInput, match=r"benchmarks\[0\]\.elements"):
        ingest_callgrind.parse(bad)


def test_every_series_can_fail_and_the_old_gating_table_is_refused() -> None:
    # Wall time judges every benchmark; its instructions beside it can fail the PR too, never
    # make it an improvement (gate/outcome.py). A config that still picks one series per
    # benchmark ([gate.gating]) is told so, exit 2, naming the table.
    suites = {"s": {"command": "true", "adapter": "criterion", "raw": "r"}}
    with pytest.raises(BadInput, match=r"gate\.gating") as refused:
        config.parse(
            {"gate": {"gating": {"rust/streams/*": "instructions"}}, "bench": {"suites": suites}},
            "t",
        )
    assert refused.value.exit_code == 2 and "every series" in str(refused.value)


# Two benchmarks under the Python suite's own harness (python/benchmarks/conftest.py), counted
# lazily as the gate counts them: instrumentation is on for each benchmark's counted runs only.
PYTEST_MODULE = textwrap.dedent(
    """
    import pytest

    pytestmark = pytest.mark.bench_group("toy")


    def loop(n):
        s = 0
        for i in range(n):
            s += i * i
        return s


    @pytest.mark.parametrize("variant", ["heavy", "light"])
    def test_toy(bench, variant):
        n = 400_000 if variant == "heavy" else 20_000
        assert bench(loop, n, unit="items/s", items=n) > 0
    """
)


def test_lazy_counts_of_a_benchmark_do_not_depend_on_what_ran_before_it(tmp_path: Path) -> None:
    """Instrumentation goes off after each benchmark's counted runs and on again before the next
    one's: a count is about the same alone as after another benchmark, whose warm-up and counted
    runs it never includes."""
    bench_dir = REPO / "python" / "benchmarks"
    for helper in ("conftest.py", "countmode.py", "stepmode.py"):
        shutil.copy(bench_dir / helper, tmp_path / helper)
    (tmp_path / "bench_toy.py").write_text(PYTEST_MODULE)
    # without the plugins the toy needs none of (their imports, under valgrind, were most of it)
    pytest_args = ["-p", "no:cacheprovider", "-o", "python_files=bench_*.py", "-q"]
    pytest_args += ["-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:asyncio"]
    pytest_args += ["-p", "no:xdist.looponfail"]  # xdist's second plugin: it imports execnet
    pytest_args += [f"--rootdir={tmp_path}", "-c", os.devnull, "--benchmark-disable", "."]
    light: list[int] = []
    for filt in ("toy/", "toy/light"):
        env = {**os.environ, "BENCH_FILTER": filt, "XDG_CACHE_HOME": str(tmp_path / "cache")}
        counted, output = callgrind.count(
            [sys.executable, "-m", "pytest", *pytest_args],
            iters=1,
            lazy=True,
            env=env,
            cwd=tmp_path,
        )
        by = {c.name: c.instructions[0] for c in counted}
        assert set(by) == (
            {"python/toy/heavy", "python/toy/light"} if filt == "toy/" else {"python/toy/light"}
        ), output
        light.append(by["python/toy/light"])
    # Not exactly equal: the interpreter's allocator and GC state carry over from the first
    # benchmark (1.2% seen); a count left on or off across the toggle would be far out.
    assert abs(light[0] / light[1] - 1) < 0.03, light
