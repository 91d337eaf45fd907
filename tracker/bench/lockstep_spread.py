"""Where a lockstep benchmark's round-to-round spread comes from, on an A/A recording.

    uv run --frozen python tracker/bench/lockstep_spread.py RECORDING.json [--worst N] [--markdown]

For each paired (lockstep) series: the pairs a round, the standard error of a round's median
pair log-ratio as the pairs inside the round predict it (sd of the round's pair log-ratios over
sqrt(pairs), times 1.25 for a median; the median over rounds), and the sd of the rounds' median
log-ratios the gate's interval is built from. Under A/A both should agree if the pairs of a
round were independent draws; a between-round sd many times the within-round error says the
spread is fixed for a whole round: something each round's worker processes get once (their
memory layout, their threads' placement) and keep, which more pairs cannot average away, and
more processes per round would.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import orjson

from benchtrack.fsutil import read_maybe_gzip


def spreads(doc: dict) -> list[tuple[str, int, float, float]]:
    rows = []
    for name, b in sorted(doc["benchmarks"].items()):
        if not b.get("paired"):
            continue
        within, medians, pairs = [], [], []
        for base, head in zip(b["base"], b["head"], strict=True):
            r = [math.log(h / x) for x, h in zip(base, head, strict=False) if x > 0 and h > 0]
            if len(r) < 3:
                continue
            pairs.append(len(r))
            medians.append(statistics.median(r))
            within.append(1.25 * statistics.stdev(r) / math.sqrt(len(r)))
        if len(medians) >= 3:
            rows.append(
                (
                    name,
                    int(statistics.median(pairs)),
                    statistics.median(within),
                    statistics.stdev(medians),
                )
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("recording", type=Path)
    ap.add_argument("--worst", type=int, default=0, help="only the N largest between/within")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    rows = spreads(orjson.loads(read_maybe_gzip(args.recording)))
    rows.sort(key=lambda r: r[3] / max(r[2], 1e-9), reverse=True)
    if args.worst:
        rows = rows[: args.worst]
    head = ("benchmark", "pairs", "within-round se %", "between-round sd %", "ratio")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|--:|--:|--:|--:|")
    for name, n, w, b in rows:
        cells = (f"`{name}`" if args.markdown else name, n, f"{100 * w:.2f}", f"{100 * b:.2f}")
        ratio = f"{b / w:.1f}" if w > 0 else "inf"
        if args.markdown:
            print("| " + " | ".join(map(str, (*cells, ratio))) + " |")
        else:
            print(f"{cells[0]:45} {n:5} {cells[2]:>8} {cells[3]:>8} {ratio:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
