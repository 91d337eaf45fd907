"""Each lockstep series' round-to-round spread under several conditions, side by side.

    uv run --frozen python tracker/bench/spread_by_condition.py NAME=REC[,REC...] [NAME=...] \
        [--markdown]

For each condition (its recordings' rounds pooled) and each paired series of the first
condition's first recording: the sd of the rounds' median pair log-ratios (head/base, %), the
spread the gate's interval is built from (lockstep_spread.py's between-round column); then each
condition's median over the series, and how many series each condition after the first spreads
less than the first. Short recordings give rough sds (10 rounds: about ±25%): compare conditions
recorded alike, one after the other.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import read_maybe_gzip
from benchtrack.result import parse_json


def round_logs(doc: dict, name: str) -> list[float]:
    """A series' rounds: the median of each round's pair log-ratios (rounds with both sides)."""
    b = doc["benchmarks"].get(name)
    if not b:
        return []
    out = []
    for base, head in zip(b["base"], b["head"], strict=True):
        if base and head:
            out.append(statistics.median(math.log(h / x) for x, h in zip(base, head, strict=True)))
    return out


def _condition(text: str) -> tuple[str, list[dict]]:
    name, sep, files = text.partition("=")
    if not sep or not name or not files:
        raise BadInput(text, None, "NAME=RECORDING[,RECORDING...]", text)
    docs = []
    for f in files.split(","):
        path = Path(f)
        if not path.is_file():
            raise BadInput(path, None, "an A/A recording (benchtrack record-aa)", "no such file")
        docs.append(parse_json(read_maybe_gzip(path), path))
    return name, docs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("conditions", nargs="+", metavar="NAME=REC[,REC...]")
    p.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = p.parse_args(argv)
    try:
        conds = [_condition(c) for c in args.conditions]
    except BadInput as e:
        print(f"spread_by_condition: {e}", file=sys.stderr)
        return 2
    first = conds[0][1][0]["benchmarks"]
    names = [n for n, b in first.items() if b.get("paired")]
    rows = []
    for n in names:
        sds = []
        for _, docs in conds:
            xs = [x for d in docs for x in round_logs(d, n)]
            sds.append(100 * statistics.stdev(xs) if len(xs) > 2 else math.nan)
        rows.append((n, sds))
    heads = [f"{c} ({sum(len(round_logs(d, names[0])) for d in docs)} rounds)" for c, docs in conds]
    sep = " | " if args.markdown else "  "
    if args.markdown:
        print("| series | " + " | ".join(heads) + " |")
        print("|---|" + "--:|" * len(heads))
    else:
        print(f"{'series':48s}" + sep.join(f"{h:>22s}" for h in heads))
    for n, sds in rows:
        cells = [f"{s:.1f}" for s in sds]
        print(f"| `{n}` | " + " | ".join(cells) + " |" if args.markdown else
              f"{n:48s}" + sep.join(f"{c:>22s}" for c in cells))  # fmt: skip
    medians = [statistics.median(r[1][k] for r in rows) for k in range(len(conds))]
    print(("median: " if not args.markdown else "\nMedian sd: ") + ", ".join(
        f"{c} {m:.2f}%" for (c, _), m in zip(conds, medians, strict=True)))  # fmt: skip
    for k in range(1, len(conds)):
        less = sum(r[1][k] < r[1][0] for r in rows)
        print(f"{conds[k][0]} spreads less than {conds[0][0]}: {less} of {len(rows)} series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
