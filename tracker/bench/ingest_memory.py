"""Peak memory and time of `benchtrack ingest pytest` on a pytest-benchmark file of many rounds.

    uv run --frozen python tracker/bench/ingest_memory.py [--benchmarks 15] [--rounds 100000]

pytest-benchmark records ~100,000 rounds of a fast function; the median's bootstrap over them
once asked numpy for a 10,000 × 100,000 int64 array (7.45 GiB). This writes such a file (each
benchmark's rounds lognormal around 2.3 µs, seeded), runs `benchtrack ingest pytest` on it in a
child of a fresh process, and prints the child's peak RSS (getrusage's ru_maxrss) and its wall
time. tracker/tests/test_ingest_formats.py runs `measure` and holds the default file under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# A fresh parent, so that its children's peak RSS is the ingest's alone.
PROBE = (
    "import resource, subprocess, sys; "
    "code = subprocess.run(sys.argv[1:], capture_output=True).returncode; "
    "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


@dataclass(frozen=True)
class Ingest:
    code: int  # the ingest's exit code
    peak_kb: int
    seconds: float
    mib: float  # size of the pytest-benchmark file
    out: Path  # the result document it wrote


def measure(benchmarks: int, rounds: int, tmp: Path) -> Ingest:
    """Write the file into `tmp`, ingest it in a child of a fresh process, and measure that."""
    rng = random.Random(1)
    benches = [
        {
            "name": f"test_fast_{i:02d}",
            "group": None,
            "extra_info": {},
            "stats": {"data": [rng.lognormvariate(-13, 0.1) for _ in range(rounds)]},
        }
        for i in range(benchmarks)
    ]
    raw, out = tmp / "pytest.json", tmp / "result.json"
    raw.write_text(json.dumps({"benchmarks": benches}))
    ingest = [sys.executable, "-m", "benchtrack", "ingest", "pytest", str(raw), "--out", str(out)]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *ingest], capture_output=True, text=True, check=True
    )
    seconds = time.monotonic() - started
    code, peak_kb = map(int, done.stdout.split())
    return Ingest(code, peak_kb, seconds, raw.stat().st_size / 2**20, out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--benchmarks", type=int, default=15)
    p.add_argument("--rounds", type=int, default=100_000)
    args = p.parse_args()
    for flag, value in (("--benchmarks", args.benchmarks), ("--rounds", args.rounds)):
        if value < 1:
            p.error(f"{flag}: expected a whole number >= 1, got {value}")  # exit 2, nothing run
    with tempfile.TemporaryDirectory() as tmp:
        got = measure(args.benchmarks, args.rounds, Path(tmp))
    if got.code != 0:
        sys.exit(f"ingest exited {got.code}")
    print(
        f"{args.benchmarks} benchmarks x {args.rounds} rounds ({got.mib:.0f} MiB of JSON): "
        f"peak RSS {got.peak_kb / 1024:.0f} MiB, {got.seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
