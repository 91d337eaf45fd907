"""A synthetic suite of many benchmarks for the gate's lockstep runner
(tracker/bench/engine_1000.py): a step harness (docs/architecture.md, "step mode") whose calls
take a known time, moved by noise drawn from a recording's rounds.

Benchmark `synth/gG/bNNNN` (NNNN < BENCH_SYNTH_N, default 1000; G = NNNN // 100) costs a
known time a call, 50 us to 2 ms (set by its index), times its factor in `synth-slow.json` at
the checkout's root, if any (a PR that slows it). The head side's worker (GATE_SIDE), one a
round, draws per benchmark one of the noise table's recorded rounds (`synth-noise.json`: for
each of the recording's lockstep benchmarks, every round's log-ratio head/base; benchmark i
takes the table's row i mod rows) and offsets its calls by it, so a round's ratio is a recorded
round's; every step of either side gets a jitter of 0.5% (normal). A step of N calls is answered
`ns` N x time x exp(offset + jitter), and the harness sleeps that long, so steps take real time
and cost no CPU. Plain Python 3, no dependencies: the gate runs it as it is.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys
import time
from pathlib import Path

JITTER = 0.005


def per_call(i: int) -> float:
    """Benchmark i's known seconds a call: 50 us to 2 ms, spread over the indices."""
    return 50e-6 * (1 + (i * 7919) % 40)


def main() -> int:
    step = os.environ.get("BENCH_STEP")
    if not step:
        print("engine_1000_harness: runs in step mode only (BENCH_STEP)", file=sys.stderr)
        return 2
    fd_in, fd_out = (int(x) for x in step.split(","))
    commands = os.fdopen(fd_in, "r")
    replies = os.fdopen(fd_out, "w", buffering=1)
    n = int(os.environ.get("BENCH_SYNTH_N", "1000"))
    wanted = re.compile(os.environ.get("BENCH_FILTER") or "")
    root = Path.cwd()
    noise = json.loads((root / "synth-noise.json").read_text())["offsets"]
    slow_file = root / "synth-slow.json"
    slow = json.loads(slow_file.read_text()) if slow_file.exists() else {}
    rng = random.Random(os.urandom(16))
    head = os.environ.get("GATE_SIDE") == "head"
    for i in range(n):
        name = f"synth/g{i // 100}/b{i:04d}"  # language/group/name (docs/conventions.md)
        if not wanted.search(name):
            continue
        seconds = per_call(i) * float(slow.get(name, 1.0))
        offset = rng.choice(noise[i % len(noise)]) if head else 0.0
        time.sleep(seconds)  # the warm-up call
        replies.write(f"ready {name}\tcalls/s\t1\n")
        for line in commands:
            word, _, arg = line.strip().partition(" ")
            if word != "run":
                break  # `next`
            ns = int(arg) * seconds * math.exp(offset + rng.gauss(0.0, JITTER)) * 1e9
            time.sleep(ns * 1e-9)
            replies.write(f"ns {int(ns)}\n")
        else:
            return 0  # the runner closed our input: it is done with this worker
    return 0


if __name__ == "__main__":
    sys.exit(main())
