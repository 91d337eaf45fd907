"""Side by side: what several gate runs (their gate.json) measured for the benchmarks named.

    uv run --frozen python tracker/bench/gate_changes.py \
        tracker/bench/recordings/gate-selftest-s{6,7,8}.gate.json \
        --name rust/streams/unfold --name rust/streams/async_next

Prints a row per benchmark and a column per file: the change, its interval and the verdict, so
a reader can check a figure GATE.md quotes from those runs. With --rounds, each round's
head/base ratio too (the confirmation's rounds when the benchmark was confirmed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import read_maybe_gzip


def bad_input(message: str) -> None:
    print(f"gate_changes: {message}", file=sys.stderr)
    raise SystemExit(2)


def load(path: Path) -> dict:
    try:
        doc = json.loads(read_maybe_gzip(path))
    except (OSError, json.JSONDecodeError, BadInput) as e:
        bad_input(f"{path}: expected a readable gate.json ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        bad_input(f"{path}: field 'benchmarks': expected a list (is it a gate.json?)")
    return doc


def round_ratios(doc: dict, name: str) -> list[float | None]:
    """head/base per round: the confirmation's rounds when it measured `name`, else the
    screening's."""
    confirm = doc.get("confirm") or {}
    values = confirm.get("values") if name in confirm.get("candidates", []) else None
    values = values or doc["rounds"]["values"]
    base, head = values["base"].get(name, []), values["head"].get(name, [])
    return [h / b if b and h else None for b, h in zip(base, head, strict=False)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", type=Path)
    p.add_argument("--name", action="append", required=True, help="a benchmark (repeatable)")
    p.add_argument("--rounds", action="store_true", help="each round's head/base ratio too")
    args = p.parse_args(argv)
    docs = [(f, load(f)) for f in args.files]
    for name in args.name:
        print(name)
        for f, doc in docs:
            row = next((b for b in doc["benchmarks"] if b["name"] == name), None)
            if row is None:
                print(f"  {f.name}: not measured")
                continue
            print(
                f"  {f.name}: {row['change']:+.1%} [{row['lo']:+.1%}, {row['hi']:+.1%}] "
                f"{row['verdict']}, {row['rounds']} rounds"
            )
            if args.rounds:
                ratios = round_ratios(doc, name)
                cells = ("—" if r is None else f"{r - 1:+.1%}" for r in ratios)
                print("    rounds: " + " ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
