"""A Go benchmark step's spread two ways: a fresh process of the test binary per step (what the
gate's Go step worker does), against one process running the same steps (`-test.count K`).

    python3 tracker/bench/step_spread_go.py BINARY DIR

BINARY is a `go test -c` binary of xxhash (github.com/cespare/xxhash/v2), DIR its package
directory; prints docs/adopting.md's table ("A step's spread"): per benchmark the robust sd
(1.4826 * MAD / median) of the steps' ns/op and the sd of adjacent steps' log-ratios (what a
lockstep pair sees), in %.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys

CASES = [
    ("BenchmarkSum64/4B", 2_000_000),
    ("BenchmarkSum64/4KB", 20_000),
    ("BenchmarkSum64/10MB", 10),
]
STEPS = 40


def ns_per_op(out: str, name: str) -> list[float]:
    return [float(line.split()[2]) for line in out.splitlines() if line.split()[:1] == [name]]


def flags(name: str, n: int, count: int) -> list[str]:
    pattern = "/".join(f"^{level}$" for level in name.split("/"))
    return [
        "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", f"{n}x",
        "-test.count", str(count), "-test.cpu", "1",
    ]  # fmt: skip


def spreads(xs: list[float]) -> tuple[float, float]:
    logs = [math.log(x) for x in xs]
    pairs = [100 * (b - a) for a, b in zip(logs[::2], logs[1::2], strict=False)]
    med = statistics.median(xs)
    mad = statistics.median(abs(x - med) for x in xs)
    return 1.4826 * mad / med * 100, statistics.pstdev(pairs)


def run(binary: str, cwd: str, argv: list[str]) -> str:
    return subprocess.run([binary, *argv], cwd=cwd, capture_output=True, text=True).stdout


def main(binary: str, cwd: str) -> None:
    print(
        "| benchmark | step | a process per step: robust sd % | adjacent pairs' sd % "
        "| one process: robust sd % | adjacent pairs' sd % |"
    )
    print("|---|--:|--:|--:|--:|--:|")
    for name, n in CASES:
        fresh = []
        for _ in range(STEPS):
            fresh += ns_per_op(run(binary, cwd, flags(name, n, 1)), name)
        long = ns_per_op(run(binary, cwd, flags(name, n, STEPS)), name)
        (a, b), (c, d) = spreads(fresh), spreads(long)
        ms = statistics.median(fresh) * n / 1e6
        print(f"| `{name}` | {n}x ({ms:.1f} ms) | {a:.2f} | {b:.2f} | {c:.2f} | {d:.2f} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
