"""Where each benchmark's spread comes from, on a recorded A/A run (`benchtrack record-aa`).

For each benchmark (series), three robust spreads of log values, in %:

- within a run: sample to sample inside one harness process (median over runs of the MAD-sd of
  the run's samples); what more samples per run can average away;
- run to run: between the two adjacent runs of a round (base and head, seconds apart):
  sd of the paired log-ratio / sqrt(2); what the gate's pairing leaves;
- over time: between rounds of the same side (sd of the run medians, minutes apart): the drift
  that pairing cancels.

and the gate's own figure, the sd of a round's paired log-ratio, with the quantity the gate
uses (`time` or `instructions`). Usage:

    uv run --frozen python tracker/bench/noise_decompose.py RECORDING.json [...] [--markdown]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from benchtrack.gate.config import split_key
from benchtrack.lab import aa

MAD_TO_SD = 1.4826


def robust_sd(x: np.ndarray) -> float:
    x = x[np.isfinite(x)]
    if x.size < 2:
        return float("nan")
    mad = float(np.median(np.abs(x - np.median(x)))) * MAD_TO_SD
    return mad if mad > 0 else float(np.std(x, ddof=1))


def _median(x: list[float]) -> float:
    """The median of the finite values; NaN when there are none (a count has no within-run
    spread when each round holds fewer than two runs)."""
    finite = [v for v in x if np.isfinite(v)]
    return float(np.median(finite)) if finite else float("nan")


def rows(data: aa.AAData) -> list[dict]:
    out = []
    for i, key in enumerate(data.names):
        within = [
            robust_sd(np.log(np.asarray(run, dtype=float)))
            for side in ("base", "head")
            for run in data.samples[side][i]
            if run and len(run) >= 3
        ]
        b, h = np.log(data.values["base"][i]), np.log(data.values["head"][i])
        lr = h - b
        name, series = split_key(key)
        out.append(
            {
                "name": name,
                "series": series,
                "within": float(np.nanmedian(within)) if within else float("nan"),
                "run_to_run": robust_sd(lr) / np.sqrt(2),
                "over_time": float(np.nanmean([robust_sd(b), robust_sd(h)])),
                "pair_sd": float(np.nanstd(lr, ddof=1)),
                "rounds": int(np.sum(np.isfinite(lr))),
            }
        )
    return out


def grouped(table: list[dict]) -> list[dict]:
    """Median of each spread over the benchmarks of a `<suite>/<group>` and series."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in table:
        groups.setdefault(("/".join(r["name"].split("/")[:2]) + "/*", r["series"]), []).append(r)
    return [
        {
            "name": f"{name} ({len(rs)})",
            "series": series,
            **{
                k: _median([r[k] for r in rs])
                for k in ("within", "run_to_run", "over_time", "pair_sd")
            },
        }
        for (name, series), rs in groups.items()
    ]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", nargs="+", type=Path)
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    p.add_argument(
        "--by-group", action="store_true", help="one row per <suite>/<group> and series: medians"
    )
    args = p.parse_args(argv)
    table = [r for path in args.data for part in aa.load_parts(path) for r in rows(part)]
    if args.by_group:
        table = grouped(table)
    table.sort(key=lambda r: (r["name"], r["series"]))

    def pct(x: float) -> str:
        return "-" if not np.isfinite(x) else f"{100 * x:.2f}"

    if args.markdown:
        print("| benchmark | series | within a run % | run to run % | over time % | pair sd % |")
        print("|---|---|--:|--:|--:|--:|")
    for r in table:
        cells = [r["name"], r["series"], *(pct(r[k]) for k in ("within", "run_to_run"))]
        cells += [pct(r["over_time"]), pct(r["pair_sd"])]
        if args.markdown:
            print("| " + " | ".join(f"`{c}`" if j == 0 else c for j, c in enumerate(cells)) + " |")
        else:
            print(f"{cells[0]:42s} {cells[1]:12s} " + " ".join(f"{c:>8s}" for c in cells[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
