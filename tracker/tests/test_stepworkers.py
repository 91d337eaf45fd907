"""benchtrack's step workers for other repositories' harnesses (benchtrack.stepworker), each
driven by the gate's own lockstep code (gate/lockstep.py) against real harnesses built here:
a Go module, a Google Benchmark binary, a libtest `#[bench]` crate and pytest-benchmark tests.
(criterion's worker runs in test_adopt_lockstep.py, through a whole gate.)

What each must do: offer every benchmark in name order under `<suite>/<name>`, answer each step
with the time the harness measured (more calls, more time), and report a benchmark that fails
as that benchmark's error while the others go on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from statistics import median

import pytest

from benchtrack.gate import lockstep, lockstep_worker
from benchtrack.stepworker.criterion import per_call

BENCHTRACK = f"{sys.executable} -m benchtrack"


def measure(cwd: Path, command: str, tmp: Path, pairs: int = 5, **env: str) -> lockstep.Outcome:
    """Both sides' workers (the same command here: an A/A round) stepped by the gate's code,
    `pairs` pairs a benchmark."""
    full = {**os.environ, "BENCHTRACK": BENCHTRACK, **env}
    workers = {
        side: lockstep_worker.Worker(side, command, cwd, full, tmp / f"{side}.log", None)
        for side in ("base", "head")
    }
    plan = lockstep.Plan(pairs=pairs + 1, seconds=0.2, min_pairs=pairs)
    return lockstep.measure(workers, plan, flip=False, timeout=300)


def build(cwd: Path, kind: str, *args: str) -> None:
    argv = [sys.executable, "-m", "benchtrack", "step-worker", kind, *args, "--build"]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def check_steps(out: lockstep.Outcome, names: list[str], pairs: int = 5) -> None:
    assert [b.name for b in out.benchmarks] == names  # sorted, both sides paired
    for b in out.benchmarks:
        assert len(b.samples["base"]) == len(b.samples["head"]) >= pairs
        assert all(x > 0 for side in ("base", "head") for x in b.samples[side])


GO_BENCH = """\
package scratch

import (
\t"fmt"
\t"testing"
)

var sink int

func work(n int) int {
\ts := 0
\tfor i := 0; i < n; i++ {
\t\ts += i * i
\t}
\treturn s
}

func BenchmarkWork(b *testing.B) {
\tfor _, n := range []int{100, 10000} {
\t\tb.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
\t\t\tfor i := 0; i < b.N; i++ {
\t\t\t\tsink += work(n)
\t\t\t}
\t\t})
\t}
}

func BenchmarkBroken(b *testing.B) {
\tif b.N > 1 {
\t\tb.Fatal("fails past its first call")
\t}
}
"""


def go_module(tmp_path: Path) -> Path:
    repo = tmp_path / "mod"
    repo.mkdir()
    (repo / "go.mod").write_text("module example.com/scratch\n\ngo 1.21\n")
    (repo / "work_test.go").write_text(GO_BENCH)
    return repo


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go")
def test_gotest_worker_steps_each_benchmark_by_gos_own_time(tmp_path):
    repo = go_module(tmp_path)
    cache = tmp_path / "cache"
    build(repo, "gotest", "--suite", "go", "--dir", str(cache))
    command = f'$BENCHTRACK step-worker gotest --suite go --dir "{cache}"'
    out = measure(repo, command, tmp_path)
    check_steps(out, ["go/BenchmarkWork/n=100", "go/BenchmarkWork/n=10000"])
    fast, slow = (
        next(b for b in out.benchmarks if b.name == f"go/BenchmarkWork/n={n}") for n in (100, 10000)
    )
    # a hundred times the work per call: throughput far lower (steps are Go's ns/op, not the
    # process start-up, which would make them alike)
    assert median(fast.samples["base"]) > 20 * median(slow.samples["base"])
    # the benchmark that fails in a step is an error of that benchmark (of the side whose step
    # failed first: the gate moves on to the next benchmark then), and its worker exits 1
    (error,) = out.errors["base"] + out.errors["head"]
    assert error.name == "go/BenchmarkBroken" and "fails past its first call" in error.message
    assert out.exit_codes == {"base": 1, "head": 0} or out.exit_codes == {"base": 0, "head": 1}


@pytest.mark.skipif(
    shutil.which("go") is None or shutil.which("valgrind") is None, reason="needs Go, valgrind"
)
def test_gotest_counts_instructions_per_call_by_two_lengths_under_callgrind(tmp_path):
    repo = go_module(tmp_path)
    cache, out = tmp_path / "cache", tmp_path / "raw" / "go.json"
    build(repo, "gotest", "--suite", "go", "--dir", str(cache))
    argv = [sys.executable, "-m", "benchtrack", "step-worker", "gotest", "--suite", "go"]
    argv += ["--dir", str(cache), "--count", str(out), "--iters", "2"]
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, check=False)
    # BenchmarkBroken fails past its first call: its error is said, the others are written
    assert done.returncode == 1 and "go/BenchmarkBroken" in done.stderr, done.stderr
    from benchtrack.ingest import callgrind as ingest_callgrind

    parsed = {b.name: b for b in ingest_callgrind.parse(out).benchmarks}
    assert sorted(parsed) == ["go/BenchmarkWork/n=100", "go/BenchmarkWork/n=10000"]
    small, large = (parsed[f"go/BenchmarkWork/n={n}"] for n in (100, 10000))
    assert small.unit == "instructions/op" and small.direction == "smaller"
    # per call: the loop's work alone (the start-up cancels), a hundred times more for 100x n;
    # the two counted runs agree (how closely is a figure: test_adopt_lockstep's Go count test)
    assert 90 < large.value / small.value < 110
    assert 100 * 2 <= small.value < 100 * 20
    for b in (small, large):
        assert max(b.samples) / min(b.samples) < 1.25, b.samples


@pytest.mark.skipif(
    shutil.which("go") is None or shutil.which("valgrind") is None, reason="needs Go, valgrind"
)
def test_a_count_sized_by_a_slow_native_step_grows_until_the_calls_outweigh_the_start_up(tmp_path):
    """A native step timed beside a busy neighbour reads slow and guesses a small n1; the
    start-up's run-to-run variation (~5%) then dominated the difference (CI read one Go
    benchmark 27,081-40,774 instructions a call). Here the native step reads 10,000 times slow,
    made so on purpose rather than left to the machine: n1 is guessed as 2, and the count grows it
    by instructions, which do not depend on the machine's speed."""
    import argparse

    from benchtrack import stepworker
    from benchtrack.ingest import callgrind as ingest_callgrind
    from benchtrack.stepworker import gotest

    repo = go_module(tmp_path)
    cache = tmp_path / "cache"
    build(repo, "gotest", "--suite", "go", "--dir", str(cache))
    every = gotest.targets(argparse.Namespace(dir=str(cache), suite="go"))
    (target,) = [t for t in every if t.name == "go/BenchmarkWork/n=100"]
    slow = stepworker.Target(target.name, lambda n: 1e4 * target.step(n), argv=target.argv)
    counts = {}
    for label, t in (("natural", target), ("slow", slow)):
        out = tmp_path / f"{label}.json"
        assert stepworker.count([t], out, iters=2) == 0
        (b,) = ingest_callgrind.parse(out).benchmarks
        counts[label] = b
    doc = json.loads((tmp_path / "slow.json").read_text())
    (entry,) = doc["benchmarks"]
    assert entry["elements"] > 2, entry  # n1, grown from the guess of 2
    # the same count per call as at the natural n1, and its two runs agree
    assert abs(counts["slow"].value / counts["natural"].value - 1) < 0.02, counts
    assert max(counts["slow"].samples) / min(counts["slow"].samples) < 1.02, counts["slow"]


GBENCH = """\
#include <benchmark/benchmark.h>
#include <cstdint>
#include <vector>
static void BM_Sum(benchmark::State& state) {
  std::vector<uint64_t> xs(state.range(0), 3);
  for (auto _ : state) {
    uint64_t s = 0;
    for (auto x : xs) s += x * 0x9E3779B97F4A7C15ULL;
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_Sum)->Arg(64)->Arg(65536);
BENCHMARK_MAIN();
"""


@pytest.mark.skipif(
    shutil.which("g++") is None or not Path("/usr/include/benchmark/benchmark.h").is_file(),
    reason="needs g++ and libbenchmark-dev (cargo make setup installs them)",
)
def test_googlebenchmark_worker_steps_one_benchmark_per_process(tmp_path):
    (tmp_path / "bench.cc").write_text(GBENCH)
    argv = ["g++", "-O2", "bench.cc", "-o", "bench", "-lbenchmark", "-lpthread"]
    subprocess.run(argv, cwd=tmp_path, check=True, capture_output=True)
    cache = tmp_path / "cache"
    build(tmp_path, "googlebenchmark", "--suite", "cpp", "--dir", str(cache), "--binary", "bench")
    command = f'$BENCHTRACK step-worker googlebenchmark --suite cpp --dir "{cache}"'
    out = measure(tmp_path, command, tmp_path)
    check_steps(out, ["cpp/BM_Sum/64", "cpp/BM_Sum/65536"])
    small, big = out.benchmarks
    assert median(small.samples["base"]) > 50 * median(big.samples["base"])  # 1024 x the work
    assert out.errors == {"base": [], "head": []} and out.exit_codes == {"base": 0, "head": 0}


LIBTEST = """\
#![feature(test)]
extern crate test;

pub fn work(n: u64) -> u64 {
    // black_box each term: LLVM would sum the squares in closed form
    (0..n).fold(0u64, |s, i| s.wrapping_add(std::hint::black_box(i * i)))
}

#[cfg(test)]
mod benches {
    #[bench]
    fn small(b: &mut test::Bencher) {
        b.iter(|| super::work(test::black_box(100)));
    }
    #[bench]
    fn large(b: &mut test::Bencher) {
        b.iter(|| super::work(test::black_box(100_000)));
    }
}
"""


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_libtest_worker_steps_bench_functions(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/lib.rs").write_text(LIBTEST)
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "scratch"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    cache = tmp_path / "cache"
    # libtest's #[bench] needs nightly features: RUSTC_BOOTSTRAP lets a stable toolchain build it
    env = {"RUSTC_BOOTSTRAP": "1", "CARGO_TARGET_DIR": str(tmp_path / "target")}
    argv = [sys.executable, "-m", "benchtrack", "step-worker", "libtest", "--suite", "libtest"]
    argv += ["--dir", str(cache), "--cargo-args=--lib", "--build"]
    done = subprocess.run(argv, cwd=tmp_path, env={**os.environ, **env}, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    command = f'$BENCHTRACK step-worker libtest --suite libtest --dir "{cache}"'
    # Two pairs: each step is a process whose libtest bench loop runs ~1-3 s on its own.
    out = measure(tmp_path, command, tmp_path, pairs=2, **env)
    check_steps(out, ["libtest/benches::large", "libtest/benches::small"], pairs=2)
    large, small = out.benchmarks
    assert median(small.samples["base"]) > 50 * median(large.samples["base"])


PYTEST_BENCH = """\
import pytest


def work(n):
    return sum(i * i for i in range(n))


@pytest.mark.benchmark(group="sums")
def test_large(benchmark):
    assert benchmark(work, 20000) > 0


@pytest.mark.benchmark(group="sums")
def test_small(benchmark):
    benchmark.extra_info["items"] = 100
    assert benchmark(work, 100) > 0


def test_with_setup(benchmark):
    data = []

    def setup():
        data.append(list(range(1000)))
        return (data[-1],), {}

    assert benchmark.pedantic(sorted, setup=setup) == list(range(1000))


def test_broken(benchmark):
    benchmark(lambda: 1 / 0)


def test_not_a_benchmark():
    assert True
"""


def test_pytest_worker_serves_every_benchmark_in_one_process(tmp_path):
    (tmp_path / "test_bench.py").write_text(PYTEST_BENCH)
    command = (
        f"$BENCHTRACK step-worker pytest --suite py --python {sys.executable} "
        "--pytest-args 'test_bench.py -p no:cacheprovider'"
    )
    out = measure(tmp_path, command, tmp_path)
    # <suite>/<group>/<test>, sorted: the group from the marker, else "default"
    check_steps(out, ["py/default/test_with_setup", "py/sums/test_large", "py/sums/test_small"])
    _with_setup, large, small = out.benchmarks
    assert small.unit == "ops/s"
    assert median(small.samples["base"]) > 100 * median(large.samples["base"])
    for side in ("base", "head"):
        (error,) = out.errors[side]
        assert error.name == "py/default/test_broken" and "ZeroDivisionError" in error.message
    assert out.exit_codes == {"base": 1, "head": 1}  # pytest's own: a test failed
    log = (tmp_path / "base.log").read_text()
    assert "1 failed, 3 passed, 1 deselected" in log


def test_a_worker_runs_a_private_copy_of_each_binary_and_removes_it_on_exit(tmp_path):
    # The side's build outlives its workers (and its page cache with it); each worker runs its
    # binaries from copies of its own, gone when it exits.
    binary = tmp_path / "bench"
    binary.write_text("#!/bin/sh\necho ran\n")
    binary.chmod(0o755)
    code = (
        "import sys, subprocess\n"
        "from benchtrack.stepworker import private_copy\n"
        f"a = private_copy({str(binary)!r}); b = private_copy({str(binary)!r})\n"
        "print(a); print(a == b); print(subprocess.run([a], capture_output=True, text=True).stdout)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    copy, same, ran = done.stdout.splitlines()[:3]
    assert Path(copy) != binary and Path(copy).name == "bench"
    assert same == "True" and ran == "ran"  # one copy per binary, and it runs
    assert not Path(copy).exists() and not Path(copy).parent.exists()


def test_a_criterion_step_reads_its_undisturbed_samples_and_every_call_s_loss():
    """criterion's linear sampling: sample k runs k times d iterations. Two samples slowed 3x
    (a neighbour's burst) leave the step's time per call as it was; every call 10% slower makes
    it 10% slower."""
    iters = [10.0 * k for k in range(1, 11)]
    sample = {"iters": iters, "times": [100.0 * i for i in iters]}  # 100 ns an iteration
    assert per_call(sample) == pytest.approx(100.0)
    disturbed = [t * (3 if k in (4, 8) else 1) for k, t in enumerate(sample["times"])]
    assert per_call({"iters": iters, "times": disturbed}) == pytest.approx(100.0)
    slower = [t * 1.1 for t in sample["times"]]
    assert per_call({"iters": iters, "times": slower}) == pytest.approx(110.0)
