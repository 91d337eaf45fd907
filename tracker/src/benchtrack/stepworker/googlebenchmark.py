"""Google Benchmark binaries, one process per step.

The binaries are the repository's own build's (the suite's `build` command builds them, e.g.
with cmake; `--binary` names each). `build` lists their benchmarks (`--benchmark_list_tests`).
A step runs one benchmark alone, `--benchmark_filter='^NAME$'` with a short
`--benchmark_min_time` and one repetition, and reads the library's JSON: its `real_time` per
iteration (in `time_unit`) times n is the step's time. Google Benchmark chooses the iterations
to fill the min time, as criterion does.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
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

_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_META = re.compile(r"([\\.+*?()|\[\]{}^$])")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--binary", action="append", default=[], help="a benchmark binary (repeatable)")
    p.add_argument(
        "--min-time", default="0.05", help="--benchmark_min_time per step (default 0.05 s)"
    )


def build(args: argparse.Namespace) -> dict:
    if not args.binary:
        raise SystemExit("benchtrack step-worker googlebenchmark: --binary PATH (at least one)")
    entries = []
    for binary in args.binary:
        path = Path(binary).resolve()
        try:
            out = run([str(path), "--benchmark_list_tests=true"])
        except StepFailed as e:
            raise SystemExit(f"benchtrack step-worker googlebenchmark: {binary}: {e}") from None
        names = [line.strip() for line in out.splitlines() if line.strip()]
        build_log(f"{binary}: {len(names)} benchmarks")
        entries.append({"binary": str(path), "names": names})
    manifest = {"binaries": entries}
    write_manifest(Path(args.dir) / "manifest.json", manifest)
    return manifest


def targets(args: argparse.Namespace) -> list[Target]:
    out = []
    for e in read_manifest(Path(args.dir) / "manifest.json")["binaries"]:
        for name in e["names"]:
            scratch = Path(args.dir) / f"step-{os.getpid()}.json"  # one per worker process
            atexit.register(scratch.unlink, missing_ok=True)
            step = _stepper(private_copy(e["binary"]), name, args.min_time, scratch)
            out.append(Target(f"{args.suite}/{name}", step, warm_up=False))
    return out


def _stepper(binary: str, name: str, min_time: str, scratch: Path):
    pattern = "^" + _META.sub(r"\\\1", name) + "$"
    argv = [
        binary, f"--benchmark_filter={pattern}",
        f"--benchmark_min_time={min_time}", "--benchmark_repetitions=1",
        f"--benchmark_out={scratch}", "--benchmark_out_format=json",
    ]  # fmt: skip

    def step(n: int) -> float:
        scratch.unlink(missing_ok=True)
        run(argv)
        try:
            doc = json.loads(scratch.read_text())
        except (OSError, ValueError):
            raise StepFailed(f"no JSON from {Path(binary).name} for {name!r}") from None
        for b in doc.get("benchmarks", []):
            if b.get("run_name", b.get("name")) == name and b.get("run_type") != "aggregate":
                if b.get("error_occurred"):
                    raise StepFailed(str(b.get("error_message") or "error_occurred"))
                return float(b["real_time"]) * _NS[b.get("time_unit", "ns")] * n
        raise StepFailed(f"{Path(binary).name} ran no benchmark named {name!r}")

    return step
