"""Each benchmark's detection of one loss over a shard plan, per recording and pooled.

    uv run --frozen python tracker/bench/shard_detection.py RECORDING.json.gz [...] \
        [--loss 0.05] [--bar 0.9] [--shards 2] [--build-seconds S]

`benchtrack evaluate --shards N` prints how many benchmarks reach a rate, and lists only those
under 95% at −10%; this lists every benchmark under `--bar` at `--loss` (pooled: its detection
averaged over the recordings, as evaluate pools), each recording's rate, and its rounds' sd and
mean log-ratio (head/base, %) in each: a spread series, or one a side kept apart. The replay is
evaluate's own (lab/shard_replay.py), with the repository's benchtrack.toml, `--prs 400 --seed 1`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchtrack.gate import config
from benchtrack.lab import aa, shard_replay


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recordings", nargs="+", type=Path)
    ap.add_argument("--loss", type=float, default=0.05)
    ap.add_argument("--bar", type=float, default=0.9)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--build-seconds", type=float, default=None)
    args = ap.parse_args()
    cfg = config.load(Path("benchtrack.toml"))
    rates, spread = [], {}
    for path in args.recordings:
        parts = aa.load_parts(path, None)
        out = shard_replay.replay(
            parts,
            args.shards,
            lambda n: cfg.threshold_for(config.split_key(n)[0]),
            cfg.alpha,
            looks=cfg.look_schedule(None, adaptive=True),
            prs=400,
            seed=1,
            jobs=cfg.jobs,
            budget=cfg.minutes * 60,
            build_seconds=args.build_seconds,
            confirm=cfg.confirm,
        )
        rates.append(out.detect(args.loss))
        d = parts[0]
        for i, name in enumerate(d.names):
            x = 100 * (np.log(d.values["head"][i]) - np.log(d.values["base"][i]))
            spread.setdefault(name, []).append((np.nanstd(x, ddof=1), np.nanmean(x)))
    names = sorted(set().union(*rates))
    pooled = {n: float(np.nanmean([r.get(n, np.nan) for r in rates])) for n in names}
    for n in sorted(names, key=pooled.get):
        if pooled[n] < args.bar:
            each = " ".join(f"{100 * r.get(n, np.nan):5.1f}" for r in rates)
            sds = "; ".join(f"sd {s:.1f} mean {m:+.1f}" for s, m in spread.get(n, []))
            print(f"{100 * pooled[n]:5.1f}  {each}  {n}  ({sds})")
    reached = sum(p >= args.bar for p in pooled.values())
    print(f"{reached} of {len(names)} at >= {args.bar:.0%} of -{args.loss:.0%}, pooled")


if __name__ == "__main__":
    main()
