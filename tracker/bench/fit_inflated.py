"""The shards `benchtrack shard-plan --fit M` gives a synthetic suite of N benchmarks.

    uv run --frozen python tracker/bench/fit_inflated.py --inflate 1000 --fit 10 RECORDING [...]

A suite of N benchmarks made from each A/A recording's recorded noise as `evaluate --inflate N`
makes it (lab/shard_replay.py `inflate`, the same seed), its benchmarks' step seconds a round taken
as shard-plan takes them (each the median of its rounds, then the median over the recordings), and
the fewest shards whose every round (the gate's screening and confirmation, `--config`) fits M
minutes (gate/shards.py `fewest`): the count behind tracker/GATE.md's 1,000 (LAB.md, "Shards by the
rounds' time"). No such suite exists as a file for shard-plan itself to read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchtrack.commands import shard_plan
from benchtrack.errors import BadInput
from benchtrack.gate import config, shards
from benchtrack.lab import aa, shard_replay


def seconds(recordings: list[aa.AAData], count: int) -> dict[str, float]:
    """Each synthetic benchmark's seconds a round, over the recordings, as shard-plan reads a
    recording's."""
    inflated = [shard_replay.inflate(data, count) for data in recordings]
    return shard_plan.over_sources([shard_plan.seconds_in(d.doc, d.source) for d in inflated])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("recordings", nargs="+", type=Path)
    p.add_argument("--inflate", type=int, required=True, help="the synthetic suite's benchmarks")
    p.add_argument("--fit", type=float, required=True, metavar="MINUTES")
    p.add_argument("--config", type=Path, default=Path(config.CONFIG_NAME))
    args = p.parse_args(argv)
    try:
        if args.inflate < 1:
            raise BadInput("--inflate", None, "a whole number of benchmarks above 0", args.inflate)
        if not args.fit > 0:
            raise BadInput("--fit", None, "minutes above 0", args.fit)
        rounds = config.load(args.config).even_rounds
        each = seconds([aa.load(path) for path in args.recordings], args.inflate)
    except BadInput as e:
        print(f"fit_inflated: error: {e}", file=sys.stderr)
        return 2
    count = shards.fewest(each, rounds, args.fit)
    fits = f"{count} shards" if count else f"more than {shards.MOST} shards"
    print(f"{len(each)} benchmarks, {sum(each.values()):.0f} s a round; {rounds} rounds fit "
          f"{args.fit:g} min on {fits}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
