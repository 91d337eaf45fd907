"""Step two bench binaries against each other as the gate's full-size lockstep does, round by
round, and print each round's pairs: a quick look at one benchmark outside a whole gate run.

    uv run --frozen python tracker/bench/lockstep_pair.py BASE_EXE HEAD_EXE '^walk/rayon$' \
        --rounds 4 [--before 'CMD'] [--idle poll|machine]

BASE_EXE and HEAD_EXE are step-mode workers (a criterion bench binary of rust/patterns, run
with `--bench`; e.g. the gate's own, under target/gate/selftest/cache/{base,head}/cargo/release/
deps/). Each round starts both afresh, as a gate round does, with BENCH_THREADS set to this
machine's CPUs. `--before` runs a command (bash -c) once before the rounds: what ran before a
benchmark in the gate's worker. Prints, per round and benchmark, the base's median and range over
its steps, the head's median and the round's value (the median of the pairs' ratios).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchtrack.gate.idle import polling
from benchtrack.gate.lockstep import Plan, measure, paired_values
from benchtrack.gate.lockstep_worker import Worker
from benchtrack.machine.cpuset import CpuSet


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base", type=Path)
    p.add_argument("head", type=Path)
    p.add_argument("filter", help="BENCH_FILTER: which benchmarks the binaries offer")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--before", help="a command (bash -c) run once before the rounds")
    p.add_argument("--idle", choices=("poll", "machine"), default="poll")
    p.add_argument("--profile", default="quick", help="BENCH_PROFILE (default: quick)")
    args = p.parse_args(argv)
    for exe in (args.base, args.head):
        if not os.access(exe, os.X_OK):
            print(f"lockstep_pair: {exe}: not an executable file", file=sys.stderr)
            return 2
    env = {
        **os.environ,
        "BENCH_FILTER": args.filter,
        "BENCH_PROFILE": args.profile,
        "BENCH_THREADS": str(CpuSet.allowed().count),
        "BENCH_STEP_CLOCK": "wall",
    }
    plan = Plan(pairs=100, seconds=0.5)  # the Rust gate suites' pairs and pair_seconds
    if args.before:
        subprocess.run(["bash", "-c", args.before], check=True, stdout=subprocess.DEVNULL)
    logs = Path(tempfile.mkdtemp(prefix="lockstep-pair."))
    with polling(args.idle) as idle:
        print(idle)
        for rnd in range(args.rounds):
            workers = {
                side: Worker(side, f"exec {exe.resolve()} --bench", logs, env, logs / side, None)
                for side, exe in (("base", args.base), ("head", args.head))
            }
            out = measure(workers, plan, flip=rnd % 2 == 1, timeout=600)
            for s in out.benchmarks:
                b, h = s.samples["base"], s.samples["head"]
                base_value, head_value = paired_values(b, h)  # the gate's round value
                ratio = head_value / base_value - 1
                print(
                    f"round {rnd + 1} {s.name}: {len(b)} pairs, base {statistics.median(b):,.0f} "
                    f"[{min(b):,.0f}, {max(b):,.0f}], head {statistics.median(h):,.0f}, "
                    f"{ratio:+.1%}"
                )
            for side, errors in out.errors.items():
                for e in errors:
                    print(f"round {rnd + 1} {side}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
