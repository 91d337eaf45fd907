"""criterion.rs benchmarks (and libtest's `#[bench]`): the bench binaries `cargo bench` builds,
one process per step.

`build` runs `cargo bench --no-run --message-format=json` (cargo's messages name each bench
binary; `CARGO_TARGET_DIR` per side, as tracker/GATE.md says why) and lists each binary's
benchmarks with `--bench --list`. A step runs one benchmark alone, `--bench --exact ID`:

- criterion: with a short measurement of its own (`--warm-up-time` 0.01 s,
  `--measurement-time` 0.02 s, the least `--sample-size`, 10), its samples read from
  `sample.json` in a scratch CRITERION_HOME; the step's time per call is the mean of its
  `FASTEST` fastest samples' time per iteration (below, why). criterion has no fixed iteration
  count, so a step's length is the measurement's, not n calls: the time reported for `run n` is
  n times that per-call time.
- libtest (`#[bench]`): libtest chooses its iterations; its printed median ns/iter times n.
"""

from __future__ import annotations

import argparse
import atexit
import json
import math
import os
import re
import shlex
import shutil
import statistics
from pathlib import Path

from benchtrack.ingest.libtest import BENCH_RE
from benchtrack.stepworker import (
    StepFailed,
    Target,
    build_log,
    private_copy,
    read_manifest,
    run,
    run_stdout,
    write_manifest,
)

# A step's 10 samples last ~2 ms each: a neighbour, or the VM's vCPU, only ever slows a sample,
# and a step holds some it did not touch. The mean of the 3 fastest (`low3mean`) cut the
# between-round spread of unicode-segmentation's 43 benchmarks (A/A, 8 rounds of 10 pairs)
# from 0.80% (the median sample) to 0.29% at the median benchmark
# (tracker/bench/criterion_step_estimators.py). A loss in every call moves all ten samples
# alike; one that strikes one call in many is in every sample holding that many calls
# (criterion's linear sampling runs sample k with k times the least count; flat, all alike).
FASTEST = 3


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cargo-args", default="", help="more `cargo bench` arguments (e.g. '-p mycrate')"
    )
    p.add_argument(
        "--measurement-time",
        type=float,
        default=0.02,
        help="criterion: seconds of measurement per step (default 0.02)",
    )
    p.add_argument(
        "--warm-up-time",
        type=float,
        default=0.01,
        help="criterion: seconds of warm-up per step (default 0.01)",
    )


def _binaries(cargo_args: str, kind: str) -> list[tuple[str, str]]:
    """(target name, executable) of the test binaries cargo builds, sorted by name: the bench
    targets for criterion (`harness = false`), every one for libtest, whose `#[bench]`
    functions may be in the library's or a binary's own test harness too."""
    argv = ["cargo", "bench", "--no-run", "--message-format=json", *shlex.split(cargo_args)]
    found = set()
    for line in run(argv).splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        target = msg.get("target") or {}
        built = msg.get("reason") == "compiler-artifact" and msg.get("executable")
        if built and (kind == "libtest" or "bench" in target.get("kind", [])):
            found.add((target["name"], msg["executable"]))
    return sorted(found)


def listed(output: str) -> list[str]:
    """`--list`'s `NAME: benchmark` (criterion) or `NAME: bench` (libtest) lines -> names."""
    names = []
    for line in output.splitlines():
        for suffix in (": benchmark", ": bench"):
            if line.endswith(suffix):
                names.append(line[: -len(suffix)])
                break
    return names


def _seed_from_base() -> None:
    """A head whose target dir does not exist yet (a fresh runner) starts from a copy of the
    base's, built just before, so only the workspace's own crates compile twice (as
    scripts/gate-cargo-build.sh does for this repository, tracker/GATE.md). The copy's workspace
    artifacts are cleaned first: cargo judges them by their sources' mtimes, and this side's
    checkout, made before the base was built, would look older than the base's binaries."""
    target = os.environ.get("CARGO_TARGET_DIR")
    base = os.environ.get("GATE_BASE_CACHE")
    if not target or not base or os.environ.get("GATE_SIDE", "base") == "base":
        return
    seed = Path(base) / Path(target).name
    if Path(target).exists() or not seed.is_dir():
        return
    build_log(f"{target} starts as a copy of {seed}")
    seeding = Path(f"{target}.seeding")
    shutil.rmtree(seeding, ignore_errors=True)
    run(["cp", "-a", "--reflink=auto", str(seed), str(seeding)])
    meta = json.loads(run_stdout(["cargo", "metadata", "--no-deps", "--format-version", "1"]))
    clean = [a for pkg in meta.get("packages", []) for a in ("-p", pkg["name"])]
    if clean:
        run(["cargo", "clean", "--release", *clean], env={"CARGO_TARGET_DIR": str(seeding)})
    seeding.rename(target)  # only a whole, cleaned copy takes the target dir's name


def build(args: argparse.Namespace) -> dict:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    try:
        _seed_from_base()
        for target, exe in _binaries(args.cargo_args, args.kind):
            names = listed(run([exe, "--bench", "--list"]))
            entry = {"target": target, "binary": exe, "names": names}
            if args.kind == "criterion" and names:
                entry.update(_cli_of(exe))
            build_log(f"{target}: {len(names)} benchmarks {entry.get('cli', '')}")
            entries.append(entry)
    except StepFailed as e:
        raise SystemExit(f"benchtrack step-worker {args.kind}: {e}") from None
    if not any(e["names"] for e in entries):
        raise SystemExit(f"benchtrack step-worker {args.kind}: cargo built no bench binary")
    manifest = {"binaries": entries}
    write_manifest(out / "manifest.json", manifest)
    return manifest


def _cli_of(exe: str) -> dict:
    """What this criterion's command line takes: `--exact` (0.4 on; before it the filter is a
    regular expression, anchored here) and fractional seconds (0.3 takes whole seconds, so its
    steps last at least 1 s of measurement: docs/adopting.md has what that costs)."""
    try:
        exact = "--exact" in run([exe, "--help"])
    except StepFailed:
        exact = False
    try:
        run([exe, "--bench", "--warm-up-time", "0.01", "--list"])
        fractional = True
    except StepFailed:
        fractional = False
    return {"exact": exact, "fractional": fractional}


def _filter(name: str, exact: bool) -> list[str]:
    if exact:
        return ["--exact", name]
    return ["^" + _RUST_META.sub(r"\\\1", name) + "$"]


_RUST_META = re.compile(r"([\\.+*?()|\[\]{}^$#&~-])")


def targets(args: argparse.Namespace) -> list[Target]:
    home = Path(args.dir) / f"criterion-home-{os.getpid()}"  # one per worker process
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    out = []
    for e in read_manifest(Path(args.dir) / "manifest.json")["binaries"]:
        e = {**e, "binary": private_copy(e["binary"])} if e["names"] else e
        for name in e["names"]:
            if args.kind == "libtest":
                step = _libtest_step(e["binary"], name)
            else:
                step = _criterion_step(e, name, home, args)
            out.append(Target(f"{args.suite}/{name}", step, warm_up=False))
    return out


def _criterion_step(entry: dict, name: str, home: Path, args: argparse.Namespace):
    warm, measure = args.warm_up_time, args.measurement_time
    if not entry.get("fractional", True):  # whole seconds only: the least it takes
        warm, measure = max(1, math.ceil(warm)), max(1, math.ceil(measure))
    argv = [
        entry["binary"], "--bench", *_filter(name, entry.get("exact", True)), "--noplot",
        "--warm-up-time", str(warm), "--measurement-time", str(measure),
        "--sample-size", "10", "--nresamples", "1000",
    ]  # fmt: skip

    def step(n: int) -> float:
        shutil.rmtree(home, ignore_errors=True)  # only this step's samples in it
        run(argv, env={"CRITERION_HOME": str(home)})
        found = [p for p in home.rglob("sample.json") if p.parent.name == "new"]
        if len(found) != 1:
            raise StepFailed(f"criterion wrote {len(found)} samples for {name!r}, expected one")
        return per_call(json.loads(found[0].read_text())) * n

    return step


def per_call(sample: dict) -> float:
    """A step's time per call from criterion's `sample.json`: the mean of its `FASTEST`
    fastest samples' time per iteration."""
    per_iter = sorted(t / i for i, t in zip(sample["iters"], sample["times"], strict=True) if i > 0)
    if not per_iter:
        raise StepFailed("criterion's sample.json holds no iterations")
    return statistics.fmean(per_iter[:FASTEST])


def _libtest_step(binary: str, name: str):
    def step(n: int) -> float:
        out = run([binary, "--bench", "--exact", name])
        for line in out.splitlines():
            m = BENCH_RE.match(line)
            if m and m["name"] == name:
                return float(m["value"].replace(",", "")) * n
        raise StepFailed(f"no `bench:` line for {name!r} in libtest's output")

    return step
