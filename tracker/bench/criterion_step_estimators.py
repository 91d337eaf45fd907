"""Which of criterion's samples a gate step should read: A/A, estimators side by side.

    uv run --frozen python tracker/bench/criterion_step_estimators.py record CACHE ROUNDS PAIRS OUT
    uv run --frozen python tracker/bench/criterion_step_estimators.py report OUT

`record` runs in a checkout whose `benchtrack record-aa` has built both sides (CACHE is its
gate cache, holding `aa-<suite>-{base,head}/criterion/manifest.json`; the suite is `rust`). Per
round each side's bench binaries are copied to /dev/shm (as the step worker does), and each
benchmark's steps alternate base and head in ABBA order, PAIRS pairs, on CPU 1, each step the
worker's own command line (`--warm-up-time 0.01 --measurement-time 0.02 --sample-size 10`).
From every step's `sample.json` several estimates of the time per iteration are kept, so the
estimators see the same steps; OUT maps benchmark -> estimator -> rounds -> pair log-ratios.

`report` prints, per benchmark and estimator, the sd of the rounds' median pair log-ratio (what
the gate's interval is built from), how many benchmarks spread over 3.49% (the most that 8
rounds allow for 95% detection of -10% at the gate's defaults: `benchtrack evaluate`'s "spread
allowing 95% at -10%"), and the median benchmark's.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import read_maybe_gzip
from benchtrack.machine.cpuset import pinned
from benchtrack.stepworker.criterion import per_call

# Each from a step's samples: per-iteration times, iteration counts, sample times.
ESTIMATORS = {
    "median": lambda per, iters, times: statistics.median(per),  # the worker's, before
    "min": lambda per, iters, times: min(per),
    "q25": lambda per, iters, times: sorted(per)[2],
    "total": lambda per, iters, times: sum(times) / sum(iters),
    # The worker's own estimate now (stepworker/criterion.py): the mean of the 3 fastest.
    "low3mean": lambda per, iters, times: per_call({"iters": iters, "times": times}),
}
LIMIT = 3.49  # % (see the docstring)


def _step(binary: str, name: str, home: str) -> tuple[list[float], list[float], list[float]]:
    shutil.rmtree(home, ignore_errors=True)
    pattern = "^" + name.replace("/", "\\/") + "$"
    argv = pinned("1", [
        binary, "--bench", pattern, "--noplot",
        "--warm-up-time", "0.01", "--measurement-time", "0.02",
        "--sample-size", "10", "--nresamples", "1000",
    ])  # fmt: skip
    env = {**os.environ, "CRITERION_HOME": home}
    subprocess.run(argv, env=env, check=True, capture_output=True)
    [found] = [p for p in Path(home).rglob("sample.json") if p.parent.name == "new"]
    sample = json.loads(found.read_text())
    iters, times = sample["iters"], sample["times"]
    return [t / i for i, t in zip(iters, times, strict=True) if i > 0], iters, times


def record(cache: str, rounds: int, pairs: int, out: str) -> None:
    sides = ("base", "head")
    manifest = {
        s: json.loads(Path(cache, f"aa-rust-{s}", "criterion", "manifest.json").read_text())
        for s in sides
    }
    data: dict = {}
    for rnd in range(rounds):
        started = time.monotonic()
        scratch = {s: tempfile.mkdtemp(prefix="estimators-", dir="/dev/shm") for s in sides}
        copies = {}
        for s in sides:
            for e in manifest[s]["binaries"]:
                copies[s, e["target"]] = shutil.copy2(e["binary"], scratch[s])
        for e in manifest["base"]["binaries"]:
            for name in e["names"]:
                per = {s: {k: [] for k in ESTIMATORS} for s in sides}
                for p in range(pairs):
                    first = (p % 4 in (0, 3)) != (rnd % 2 == 1)
                    for s in sides if first else sides[::-1]:
                        samples = _step(copies[s, e["target"]], name, f"{scratch[s]}/home")
                        for k, estimate in ESTIMATORS.items():
                            per[s][k].append(estimate(*samples))
                for k in ESTIMATORS:
                    # Throughput log-ratio head/base: time base over time head.
                    logs = [
                        math.log(b / h) for b, h in zip(per["base"][k], per["head"][k], strict=True)
                    ]
                    data.setdefault(name, {}).setdefault(k, []).append(logs)
        for d in scratch.values():
            shutil.rmtree(d)
        Path(out).write_text(json.dumps(data))  # each round: a cut-off run keeps its rounds
        print(f"round {rnd + 1}: {time.monotonic() - started:.0f} s", flush=True)


def report(out: str) -> None:
    try:
        data = json.loads(read_maybe_gzip(out))
        keys = list(next(iter(data.values())))
    except (OSError, ValueError, StopIteration, TypeError, AttributeError, BadInput) as e:
        expected = "benchmark -> estimate -> rounds -> pair log-ratios (this script's `record`)"
        print(f"{out}: expected {expected}: {str(e) or 'no benchmarks'}", file=sys.stderr)
        sys.exit(2)
    print(f"{'benchmark':36}" + "".join(f"{k:>10}" for k in keys))
    spreads: dict[str, list[float]] = {k: [] for k in keys}
    for name, by in sorted(data.items()):
        row = []
        for k in keys:
            values = [statistics.median(logs) for logs in by[k]]
            row.append(100 * statistics.stdev(values))
            spreads[k].append(row[-1])
        print(f"{name:36}" + "".join(f"{x:10.2f}" for x in row))
    rounds = len(next(iter(data.values()))[keys[0]])
    print(f"\n{len(data)} benchmarks, {rounds} rounds; sd of the rounds' median log-ratio, %:")
    for k in keys:
        s, over = spreads[k], sum(x > LIMIT for x in spreads[k])
        print(f"  {k:10} median {statistics.median(s):.2f}, over {LIMIT}%: {over}")


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["record", cache, rounds, pairs, out]:
            record(cache, int(rounds), int(pairs), out)
        case ["report", out]:
            report(out)
        case _:
            sys.exit(__doc__.split("\n\n")[1])
