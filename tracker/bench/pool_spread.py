"""What several processes a round would do to a lockstep benchmark's spread, on A/A recordings.

    uv run --frozen python tracker/bench/pool_spread.py RECORDING.json [...] \
        [--name NAME ...] [--processes K] [--share F]

A recording's rounds each ran one process pair. K consecutive rounds stand in for the K
process pairs of one round, each contributing the first F of its pairs (F = 1/K: the same
seconds a round as one process; F = 2/K: twice). For each named benchmark (default: every
paired one of a suite whose name is given with --suite), the sd between rounds of a round's
value, root-mean-square over the recordings:

- one process: the recorded rounds as they are (the median of their pairs' log-ratios);
- K processes, `processes`: the mean of each process's median (the `pool = "processes"` rule);
- K processes, `pairs`: the median of all their pairs' log-ratios (`pool = "pairs"`).

Under A/A a smaller sd is a narrower interval at the same number of rounds. The stand-in is
close, not exact: a real process pair of a K-process round also starts and warms up anew.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import read_maybe_gzip


def rounds_of(doc: dict, name: str) -> list[list[float]]:
    """Each recorded round's pair log-ratios of one benchmark."""
    b = doc["benchmarks"][name]
    return [
        [math.log(h / x) for x, h in zip(base, head, strict=False) if x > 0 and h > 0]
        for base, head in zip(b["base"], b["head"], strict=True)
    ]


def values(rounds: list[list[float]], k: int, share: float, pool: str) -> list[float]:
    """Round values of K-process rounds made of K consecutive recorded rounds."""
    out = []
    for i in range(0, len(rounds) - k + 1, k):
        parts = [r[: max(2, math.ceil(len(r) * share))] for r in rounds[i : i + k]]
        if pool == "pairs":
            out.append(statistics.median(x for p in parts for x in p))
        else:
            out.append(statistics.fmean(statistics.median(p) for p in parts))
    return out


def rms(xs: list[float]) -> float:
    return math.sqrt(statistics.fmean(x * x for x in xs))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recordings", type=Path, nargs="+")
    ap.add_argument("--name", action="append", default=[], help="a benchmark (repeatable)")
    ap.add_argument("--suite", help="every paired benchmark of this gate suite")
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--share", type=float, help="of a recorded round's pairs (default 1/K)")
    args = ap.parse_args(argv)
    k = args.processes
    share = args.share or 1 / k
    docs = []
    for path in args.recordings:
        try:
            docs.append((path, orjson.loads(read_maybe_gzip(path))))
        except (OSError, orjson.JSONDecodeError, BadInput) as e:
            print(f"pool_spread: {path}: expected an A/A recording (JSON): {e}", file=sys.stderr)
            return 2
    names = list(args.name)
    for path, doc in docs:
        if not isinstance(doc.get("benchmarks"), dict):
            print(f"pool_spread: {path}: field benchmarks: expected an object", file=sys.stderr)
            return 2
        if args.suite:
            names += [
                n
                for n, b in doc["benchmarks"].items()
                if b.get("suite") == args.suite and b.get("paired") and n not in names
            ]
        missing = [n for n in names if n not in doc["benchmarks"]]
        if missing:
            print(f"pool_spread: {path}: field benchmarks: no {missing[0]}", file=sys.stderr)
            return 2
    if not names:
        print("pool_spread: expected --name or --suite", file=sys.stderr)
        return 2
    print(f"sd between rounds (RMS over {len(docs)} recordings); {k} processes, {share:.2f} each")
    print(f"{'benchmark':<42} {'1 process':>10} {'processes':>10} {'pairs':>10}")
    for name in sorted(names):
        one, mean, pooled = [], [], []
        for _, doc in docs:
            r = rounds_of(doc, name)
            one.append(statistics.stdev(statistics.median(x) for x in r))
            mean.append(statistics.stdev(values(r, k, share, "processes")))
            pooled.append(statistics.stdev(values(r, k, share, "pairs")))
        cells = " ".join(f"{100 * rms(x):>9.1f}%" for x in (one, mean, pooled))
        print(f"{name:<42} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
