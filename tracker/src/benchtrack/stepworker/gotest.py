"""Go's `testing` benchmarks: one `go test -c` binary per package, one process per step.

`build` compiles every package whose tests declare a `func Benchmark` (`go test -c`, the Go
build cache making a second build cheap) into the side's cache and lists its benchmarks,
sub-benchmarks included, by running each once (`-test.benchtime 1x`): `-test.list` names only
the top-level ones. A step of n calls is the binary run with an exact per-level filter,
`-test.bench '^BenchmarkX$/^4KB$' -test.benchtime {n}x -test.cpu 1`, and its time is Go's own
ns/op times n (Go prints ns/op to 3-4 significant digits, so a step is exact to ~0.05-0.5%).

`-test.cpu 1` (GOMAXPROCS 1) as the lockstep CPU gives anyway, and so no `-<GOMAXPROCS>` suffix:
the names are those `ingest gotest` stores, without the suffix (benchtrack.ingest.gotest).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from benchtrack.stepworker import (
    StepFailed,
    Target,
    build_log,
    private_copy,
    read_manifest,
    run,
    write_manifest,
)

_BENCH_FUNC = re.compile(r"^func Benchmark", re.MULTILINE)
_META = re.compile(r"([\\.+*?()|\[\]{}^$])")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--packages", default="./...", help="go packages to look in (default ./...)")


def _packages(pattern: str) -> list[tuple[str, Path]]:
    """(import path, directory) of the packages whose test files declare a benchmark."""
    out = run(["go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", pattern])
    found = []
    for line in out.splitlines():
        if "\t" not in line:
            continue
        pkg, directory = line.split("\t", 1)
        tests = sorted(Path(directory).glob("*_test.go"))
        if any(_BENCH_FUNC.search(t.read_text(errors="replace")) for t in tests):
            found.append((pkg, Path(directory)))
    return found


def results(output: str) -> dict[str, tuple[int, float]]:
    """Result lines `BenchmarkX/sub  N  V ns/op ...` -> name -> (iterations, ns/op)."""
    found = {}
    for line in output.splitlines():
        fields = line.split()
        result = len(fields) >= 4 and fields[0].startswith("Benchmark") and fields[1].isdigit()
        if result and fields[3] == "ns/op":
            found[fields[0]] = (int(fields[1]), float(fields[2]))
    return found


def _flags(bench: str, times: int) -> list[str]:
    return [
        "-test.run", "^$", "-test.bench", bench, "-test.benchtime", f"{times}x",
        "-test.count", "1", "-test.cpu", "1",
    ]  # fmt: skip


def exact(name: str) -> str:
    """`-test.bench` for exactly `name`: Go matches each `/`-separated level on its own."""
    return "/".join("^" + _META.sub(r"\\\1", level) + "$" for level in name.split("/"))


def build(args: argparse.Namespace) -> dict:
    bins = Path(args.dir)
    bins.mkdir(parents=True, exist_ok=True)
    entries = []
    for i, (pkg, directory) in enumerate(_packages(args.packages)):
        binary = bins / f"pkg{i}.test"
        build_log(f"go test -c {pkg}")
        try:
            run(["go", "test", "-c", "-o", str(binary), pkg])
            names = sorted(results(run([str(binary), *_flags(".", 1)], cwd=directory)))
        except StepFailed as e:
            raise SystemExit(f"benchtrack step-worker gotest: {pkg}: {e}") from None
        build_log(f"{pkg}: {len(names)} benchmarks")
        entries.append({"pkg": pkg, "dir": str(directory), "binary": str(binary), "names": names})
    if not any(e["names"] for e in entries):
        raise SystemExit(f"benchtrack step-worker gotest: no benchmark in {args.packages}")
    manifest = {"packages": entries}
    write_manifest(bins / "manifest.json", manifest)
    return manifest


def targets(args: argparse.Namespace) -> list[Target]:
    entries = [e for e in read_manifest(Path(args.dir) / "manifest.json")["packages"] if e["names"]]
    several = len(entries) > 1  # as ingest gotest names them: the package only when several
    out = []
    for e in entries:
        for name in e["names"]:
            full = f"{args.suite}/{e['pkg']}/{name}" if several else f"{args.suite}/{name}"
            binary = private_copy(e["binary"])
            step = _stepper(binary, e["dir"], name)
            argv = _argv(binary, e["dir"], name)
            out.append(Target(full, step, warm_up=False, argv=argv))
    return out


# Under callgrind: Go's asynchronous preemption signals trip valgrind 3.19's callgrind (an
# assertion in its signal handling), and a count has one goroutine to run anyway.
COUNT_ENV = {"GODEBUG": "asyncpreemptoff=1"}


def _argv(binary: str, directory: str, name: str):
    pattern = exact(name)
    return lambda n: ([binary, *_flags(pattern, n)], Path(directory), COUNT_ENV)


def _stepper(binary: str, directory: str, name: str):
    pattern = exact(name)

    def step(n: int) -> float:
        out = run([binary, *_flags(pattern, n)], cwd=Path(directory))
        got = results(out).get(name)
        if got is None:
            tail = " | ".join(out.strip().splitlines()[-5:])
            raise StepFailed(f"no result line for {name}: {tail}")
        iterations, ns_per_op = got
        return ns_per_op * iterations

    return step
