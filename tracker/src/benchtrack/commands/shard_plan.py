"""`benchtrack shard-plan`: deal a gate's benchmarks to N shards by their recorded seconds."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import output_file, read_maybe_gzip
from benchtrack.gate import config, shards, worktree
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
    count = p.add_mutually_exclusive_group(required=True)
    count.add_argument("--shards", type=int, help=f"how many shards (2 to {shards.MOST})")
    count.add_argument(
        "--fit",
        type=float,
        metavar="MINUTES",
        help="as many shards as it takes for each one's rounds (the gate's screening and "
        "confirmation rounds, every benchmark in each; the even state's, not uneven_rounds) "
        "to fit MINUTES at the recorded seconds",
    )
    where = f"<repo>/{config.CONFIG_NAME}"
    p.add_argument("--config", type=Path, help=f"gate config for --fit (default {where})")
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
    return seconds_in(doc, path)


def seconds_in(doc: object, source: Path | str) -> dict[str, list[float]]:
    """seconds_of a source's document: each benchmark's series' median seconds a round."""
    rounds = doc.get("rounds") if isinstance(doc, dict) else None
    spent = (rounds or {}).get("bench_seconds") if isinstance(rounds, dict) else None
    spent = (
        spent
        if spent is not None
        else (doc.get("bench_seconds") if isinstance(doc, dict) else None)
    )
    if not isinstance(spent, dict) or not spent:
        raise BadInput(
            source, "bench_seconds", "the benchmarks' step seconds (a lockstep gate's)", None
        )
    out: dict[str, list[float]] = {}
    for key, values in spent.items():
        known = [float(x) for x in (values or []) if isinstance(x, (int, float))]
        if known:
            out.setdefault(split_key(str(key))[0], []).append(statistics.median(known))
    return out


def over_sources(each: list[dict[str, list[float]]]) -> dict[str, float]:
    """A benchmark's seconds a round: its series' together in each source, the median over them."""
    per: dict[str, list[float]] = {}
    for source in each:
        for name, xs in source.items():
            per.setdefault(name, []).append(sum(xs))
    return {name: statistics.median(xs) for name, xs in per.items()}


def run(args: argparse.Namespace) -> int:
    if args.shards is not None and not 2 <= args.shards <= shards.MOST:
        raise BadInput("--shards", None, f"a whole number from 2 to {shards.MOST}", args.shards)
    if args.fit is not None and not args.fit > 0:
        raise BadInput("--fit", None, "minutes above 0", args.fit)
    output_file("--out", args.out)
    seconds = over_sources([seconds_of(path) for path in args.sources])
    rounds = _rounds(args.config) if args.fit is not None else 0
    count = args.shards or _fitting(seconds, rounds, args.fit)
    if count == 1:
        whole = sum(seconds.values()) * rounds / 60
        print(f"shard-plan: {len(seconds)} benchmarks' {rounds} rounds fit {args.fit:g} min "
              f"on one runner ({whole:.1f} min): no plan written")  # fmt: skip
        return 0
    doc = shards.write_plan(args.out, count, seconds)
    if args.json:
        flags.print_json(doc)
    else:
        per_shard = shards.shard_seconds(seconds, doc["benchmarks"])
        loads = [per_shard.get(j, 0.0) for j in range(1, count + 1)]
        each = ", ".join(f"{x:.1f}" for x in loads)
        fits = f"; {rounds} rounds: {max(loads) * rounds / 60:.1f} min at most" if rounds else ""
        print(f"shard-plan: {len(seconds)} benchmarks in {count} shards ({each} s a round{fits})")
    return 0


def _rounds(path: Path | None) -> int:
    """The rounds a shard takes at most when its vCPUs read even (GateConfig.even_rounds)."""
    return config.load(path or worktree.repo_root(Path.cwd()) / config.CONFIG_NAME).even_rounds


def _fitting(seconds: dict[str, float], rounds: int, minutes: float) -> int:
    count = shards.fewest(seconds, rounds, minutes)
    if count is None:
        alone = max(seconds.values()) * rounds / 60
        raise BadInput("--fit", None, f"minutes that {shards.MOST} shards' {rounds} rounds can fit "
                       f"(its slowest benchmark's alone: {alone:.1f})", minutes)  # fmt: skip
    return count
