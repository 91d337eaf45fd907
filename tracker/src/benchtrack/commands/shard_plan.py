"""`benchtrack shard-plan`: deal a gate's benchmarks to N shards by their recorded seconds."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import output_file, read_maybe_gzip
from benchtrack.gate import shards
from benchtrack.gate.config import split_key

NAME = "shard-plan"
HELP = "Deal the gate's benchmarks to N shards (gate --shard K/N) by their recorded step seconds"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "sources",
        nargs="+",
        type=Path,
        help="gate.json files (gate --out) or A/A recordings (record-aa): their step seconds",
    )
    p.add_argument("--shards", type=int, required=True, help="how many shards (2 to 64)")
    p.add_argument("--out", type=Path, required=True, help="the plan file to write")
    flags.add_json(p, "the plan")


def seconds_of(path: Path) -> dict[str, list[float]]:
    """Each benchmark's recorded seconds a round (its series' together) in one source."""
    import orjson

    try:
        doc = orjson.loads(read_maybe_gzip(path))
    except OSError as e:
        raise BadInput(path, None, "a gate.json or an A/A recording", e.strerror) from None
    except (orjson.JSONDecodeError, ValueError) as e:
        raise BadInput(path, None, "JSON (a gate.json or an A/A recording)", str(e)) from None
    rounds = doc.get("rounds") if isinstance(doc, dict) else None
    spent = (rounds or {}).get("bench_seconds") if isinstance(rounds, dict) else None
    spent = (
        spent
        if spent is not None
        else (doc.get("bench_seconds") if isinstance(doc, dict) else None)
    )
    if not isinstance(spent, dict) or not spent:
        raise BadInput(
            path, "bench_seconds", "the benchmarks' step seconds (a lockstep gate's)", None
        )
    out: dict[str, list[float]] = {}
    for key, values in spent.items():
        known = [float(x) for x in (values or []) if isinstance(x, (int, float))]
        if known:
            out.setdefault(split_key(str(key))[0], []).append(statistics.median(known))
    return out


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.shards <= 64:
        raise BadInput("--shards", None, "a whole number from 2 to 64", args.shards)
    output_file("--out", args.out)
    per: dict[str, list[float]] = {}
    for path in args.sources:
        for name, xs in seconds_of(path).items():
            per.setdefault(name, []).append(sum(xs))
    seconds = {name: statistics.median(xs) for name, xs in per.items()}
    doc = shards.write_plan(args.out, args.shards, seconds)
    if args.json:
        flags.print_json(doc)
    else:
        loads = [sum(seconds[n] for n, k in doc["benchmarks"].items() if k == j)
                 for j in range(1, args.shards + 1)]  # fmt: skip
        each = ", ".join(f"{x:.1f}" for x in loads)
        print(f"shard-plan: {len(seconds)} benchmarks in {args.shards} shards ({each} s a round)")
    return 0
