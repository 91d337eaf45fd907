"""How noisy each series the history stores per main commit is, run to run (tracker/DETECT.md).

The history keeps one value per commit per runner size and series: a benchmark's wall-time
throughput (peak RSS in KB for `perl/rss/*`) and its instruction count, `<name> (instructions)`.
Change-point detection finds 5% steps when a series' per-point noise is <= 2% (DETECT.md's
evaluation). This prints, per benchmark, each series' robust run-to-run sd: 1.4826 x the MAD of
the log per-run values (the sd when the MAD is 0 but the runs differ), where a run is one side of
one round of an A/A recording (`benchtrack record-aa`: whole-suite runs, each run's value the
median of its samples, as ingest stores it), so 2 x rounds runs per benchmark. Then the quiet
series (the lower sd) and how many benchmarks have some series at or under the limit. Usage:

    uv run --frozen python tracker/bench/history_noise.py RECORDING.json [...] [--limit 2]
        [--markdown]

Each recording adds the series it holds; a series recorded twice is an error (exit 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from noise_decompose import robust_sd

from benchtrack.errors import BadInput
from benchtrack.gate.config import split_key
from benchtrack.lab import aa

SERIES = ("time", "instructions")


def per_run_sd(data: aa.AAData) -> dict[tuple[str, str], tuple[float, int]]:
    """(benchmark, series) -> (robust sd of the log per-run values, runs)."""
    out = {}
    for i, key in enumerate(data.names):
        runs = np.concatenate([data.values[side][i] for side in ("base", "head")])
        runs = runs[np.isfinite(runs) & (runs > 0)]
        out[split_key(key)] = (robust_sd(np.log(runs)), int(runs.size))
    return out


def table(paths: list[Path]) -> tuple[dict[str, dict[str, tuple[float, int]]], list[dict]]:
    """benchmark -> series -> (sd, runs), and each recording's header (file, commit, machine,
    load), from the recordings."""
    found: dict[str, dict[str, tuple[float, int]]] = {}
    where: dict[tuple[str, str], Path] = {}
    headers = []
    for path in paths:
        parts = aa.load_parts(path)
        doc = parts[0].doc
        headers.append({"file": path, **{k: doc.get(k) for k in ("commit", "machine", "load")}})
        for part in parts:
            for (name, series), sd in per_run_sd(part).items():
                if (name, series) in where:
                    raise BadInput(
                        path, f"benchmarks.{name}", f"a series not in {where[name, series]}", series
                    )
                where[name, series] = path
                found.setdefault(name, {})[series] = sd
    return found, headers


def quiet(series: dict[str, tuple[float, int]]) -> tuple[str, float]:
    """The series with the smallest sd (the one change points are found on)."""
    finite = {s: v[0] for s, v in series.items() if np.isfinite(v[0])}
    if not finite:
        return "-", float("nan")
    best = min(finite, key=lambda s: (finite[s], SERIES.index(s)))
    return best, finite[best]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", nargs="+", type=Path, help="A/A recordings (benchtrack record-aa)")
    p.add_argument("--limit", type=float, default=2.0, help="sd limit in %% (default 2)")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = p.parse_args(argv)
    try:
        found, headers = table(args.data)
    except BadInput as error:
        print(f"history_noise: {error}", file=sys.stderr)
        return 2
    limit = args.limit / 100

    def pct(cell: tuple[float, int] | None) -> str:
        return "-" if cell is None or not np.isfinite(cell[0]) else f"{100 * cell[0]:.2f}"

    for h in headers:
        load = h["load"] or {}
        avg = load.get("loadavg_1m", {})
        print(
            f"{'- ' if args.markdown else ''}`{h['file'].name}` at {str(h['commit'])[:7]}: "
            f"{h['machine']}; load average {avg.get('min', float('nan')):.2f}-"
            f"{avg.get('max', float('nan')):.2f}, busy {load.get('cpu_pct', {}).get('busy')}%"
        )
    print()
    head = [
        "benchmark",
        "time sd %",
        "instructions sd %",
        "runs",
        "quiet series",
        f"<= {args.limit:g}%",
    ]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|--:|--:|--:|---|---|")
    ok = 0
    for name in sorted(found):
        series = found[name]
        best, sd = quiet(series)
        good = bool(np.isfinite(sd) and sd <= limit)
        ok += good
        runs = "/".join(str(series[s][1]) for s in SERIES if s in series)
        cells = [name, pct(series.get("time")), pct(series.get("instructions")), runs, best]
        cells.append("yes" if good else "no")
        if args.markdown:
            print("| " + " | ".join(f"`{c}`" if j == 0 else c for j, c in enumerate(cells)) + " |")
        else:
            widths = (-44, 9, 17, 6, -12, 3)
            print(
                " ".join(
                    f"{c:{'<' if w < 0 else '>'}{abs(w)}s}"
                    for c, w in zip(cells, widths, strict=True)
                )
            )
    print()
    print(
        f"{ok} of {len(found)} benchmarks have a stored series with a robust run-to-run sd "
        f"<= {args.limit:g}%"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
