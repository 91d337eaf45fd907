"""A trial gate's `gate.json` in a few lines (docs/adopting.md, "Tried on public repositories"):
its exit code, minutes, rounds a stage, the verdicts of its benchmarks' wall time and how many
were decided; with --spread, each benchmark's sd of its screening rounds' log-ratios.

    python3 tracker/bench/adopt_summary.py [--spread] GATE_JSON...
"""

from __future__ import annotations

import collections
import json
import math
import statistics
import sys


def summary(path: str, spread: bool) -> None:
    with open(path) as f:
        d = json.load(f)
    rows = [b for b in d["benchmarks"] if b.get("primary")]
    verdicts = collections.Counter(b["verdict"] for b in rows)
    decided = sum(verdicts[k] for k in ("unchanged", "regressed", "improved"))
    second = d.get("confirm") or {}
    print(
        f"{path}: exit {d['exit_code']}, {d.get('gate_seconds', d['seconds']) / 60:.1f} min, "
        f"screening {len(d['rounds']['round_seconds'])} rounds, second stage "
        f"{second.get('rounds', 0)} rounds; {dict(verdicts)}; decided {decided} of {len(rows)}"
    )
    for b in sorted(rows, key=lambda b: b["change"]):
        if b["verdict"] != "unchanged":
            print(
                f"  {b['name']} {b['verdict']} {100 * b['change']:+.1f}% "
                f"[{100 * b['lo']:+.1f}%, {100 * b['hi']:+.1f}%] {b['rounds']} rounds"
            )
    if spread:
        values = d["rounds"]["values"]
        sds = sorted(
            statistics.stdev(
                math.log(h / b) for b, h in zip(values["base"][n], values["head"][n], strict=True)
            )
            for n in values["base"]
        )
        print(
            f"  screening rounds' log-ratio sd: {sds[0]:.3f} to {sds[-1]:.3f}, median "
            f"{statistics.median(sds):.3f}, {sum(x < 0.05 for x in sds)} of {len(sds)} under 0.05"
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    for p in [a for a in args if a != "--spread"]:
        summary(p, "--spread" in args)
