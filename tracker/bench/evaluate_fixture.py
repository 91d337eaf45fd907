"""Cut a part out of a real A/A recording (tracker/tests/fixtures/aa/README.md).

    uv run --frozen python tracker/bench/evaluate_fixture.py IN.json OUT.json --rounds 16 --keep 12

Keeps the first `--rounds` rounds and `--keep` benchmarks (0: all) spread evenly over the sorted
names matching `--only` (a regular expression; up to two smaller-is-better metrics among them),
samples rounded to 5 significant digits. Nothing is synthesised: every value is a real
measurement from IN.json.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import orjson

from benchtrack.fsutil import read_maybe_gzip


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    p.add_argument("--rounds", type=int, default=16)
    p.add_argument("--keep", type=int, default=12)
    p.add_argument("--only", default="")
    a = p.parse_args()
    doc = orjson.loads(read_maybe_gzip(a.src))
    names = sorted(n for n in doc["benchmarks"] if re.search(a.only, n))
    if a.keep <= 0:
        a.keep = len(names)
    smaller = [n for n in names if doc["benchmarks"][n].get("direction") == "smaller"][:2]
    rest = [n for n in names if n not in smaller]
    step = max(1, len(rest) // max(1, a.keep - len(smaller)))
    chosen = sorted(smaller + rest[::step][: a.keep - len(smaller)])
    doc["benchmarks"] = {
        n: {
            **doc["benchmarks"][n],
            **{
                side: [
                    [float(f"{x:.5g}") for x in r] if r is not None else None
                    for r in doc["benchmarks"][n][side][: a.rounds]
                ]
                for side in ("base", "head")
            },
        }
        for n in chosen
    }
    doc["rounds"] = min(doc["rounds"], a.rounds)
    doc["orders"] = doc["orders"][: a.rounds]
    suites = {doc["benchmarks"][n].get("suite") for n in chosen}
    doc["run_seconds"] = {
        k: v[: 2 * a.rounds] for k, v in doc["run_seconds"].items() if k in suites
    }
    doc["suites"] = [s for s in doc.get("suites", []) if s in suites]
    doc["fixture_of"] = {"source": a.src.name, "rounds": a.rounds, "benchmarks": len(names)}
    a.dst.write_bytes(orjson.dumps(doc) + b"\n")


if __name__ == "__main__":
    main()
