"""`benchtrack evaluate`: the gate's false-fail rate and power on recorded A/A rounds, beside
github-action-benchmark's and pytest-benchmark's rules."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.markdown import Markdown

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.gate import config, worktree
from benchtrack.lab import aa, figures, report, shard_replay
from benchtrack.lab import evaluate as ev

NAME = "evaluate"
HELP = "Measure the gate's error rates (false-fail, power) on recorded A/A rounds"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "data",
        nargs="*",
        type=Path,
        default=[Path("target/bench/aa/aa.json")],
        help="A/A recordings from `benchtrack record-aa`, each an independent recording of one "
        "condition (default target/bench/aa/aa.json)",
    )
    p.add_argument(
        "--parts",
        action="store_true",
        help="the files are parts of one recording (e.g. one per suite), drawn as one PR",
    )
    p.add_argument("--config", type=Path, help=f"gate config (default <repo>/{config.CONFIG_NAME})")
    p.add_argument("--filter", help="regular expression: evaluate only the benchmarks it finds")
    p.add_argument("--prs", type=int, default=400, help="pseudo-PRs per cell (default 400)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, help="the gate's round limit (default [gate].rounds)")
    flags.add_threshold(p, "default threshold in percent (default [gate].threshold)")
    p.add_argument("--alpha", type=float, help="family-wise alpha override")
    p.add_argument("--jobs", type=int, help="runner-size jobs per PR (default [gate].jobs)")
    p.add_argument(
        "--minutes", type=float, help="the time budget replayed (default [gate].minutes)"
    )
    p.add_argument("--no-budget", action="store_true", help="let every pseudo-PR run every round")
    p.add_argument(
        "--build-seconds",
        type=float,
        help="the builds' seconds in the budget (default: each recording's own)",
    )
    p.add_argument(
        "--coin",
        choices=ev.COINS,
        default="pr",
        help="which recorded side is a pseudo-PR's base: one coin a PR (default: a side's "
        "offset kept for the whole recording stays in the PR) or one a round (each pseudo-PR "
        "an independent draw of the null; check first with side_episodes.py --t-summary)",
    )
    p.add_argument("--no-adaptive", action="store_true")
    p.add_argument(
        "--one-stage", action="store_true", help="leave out [gate.confirm]: the screening alone"
    )
    p.add_argument(
        "--shards",
        type=int,
        default=1,
        help="replay the gate split over N shards of one runner size (gate/shards.py): each its "
        "share of the benchmarks, balanced by their recorded seconds, at alpha / N; a PR's wall "
        "time its slowest shard's (the two-stage gate only)",
    )
    p.add_argument(
        "--inflate",
        type=int,
        help="evaluate a synthetic suite of N benchmarks made from each recording's lockstep "
        "benchmarks' recorded rounds and step seconds (lab/shard_replay.py), for the scaling "
        "figure",
    )
    flags.add_markdown(p, "the table")
    flags.add_json(p, "the evaluation (not the table)")


def run(args: argparse.Namespace) -> int:
    flags.check_markdown(args)
    if args.prs < 10:
        raise BadInput("--prs", None, "at least 10 pseudo-PRs", args.prs)
    if args.alpha is not None and not 0 < args.alpha < 1:
        raise BadInput("--alpha", None, "a fraction between 0 and 1", args.alpha)
    if args.jobs is not None and args.jobs < 1:
        raise BadInput("--jobs", None, "a whole number of at least 1", args.jobs)
    for flag, x in (("--minutes", args.minutes), ("--build-seconds", args.build_seconds)):
        if x is not None and not x >= 0:
            raise BadInput(flag, None, "a non-negative number", x)
    # the flags first, then the config: a repository only when none is given
    cfg = config.load(args.config or worktree.repo_root(Path.cwd()) / config.CONFIG_NAME)
    if args.threshold is not None:
        cfg = config.GateConfig(**{**cfg.__dict__, "threshold": args.threshold})
    minutes = args.minutes if args.minutes is not None else cfg.minutes
    budget = None if args.no_budget or args.no_adaptive or not minutes else minutes * 60
    looks = cfg.look_schedule(args.rounds, adaptive=not args.no_adaptive)
    # One PR spans a recording's parts (the counts, recorded in fewer rounds, are a part of
    # their own); several files are several recordings unless --parts says they are one.
    loaded = [aa.load_parts(path, args.filter) for path in args.data]
    recordings = [[p for parts in loaded for p in parts]] if args.parts else loaded
    if args.inflate is not None:
        if not 1 <= args.inflate <= 20_000:
            raise BadInput(
                "--inflate", None, "a number of benchmarks from 1 to 20,000", args.inflate
            )
        recordings = [[shard_replay.inflate(parts[0], args.inflate)] for parts in recordings]
    if args.shards != 1:
        return _sharded(args, cfg, recordings, looks, budget)
    results = []
    for parts in recordings:
        result = ev.evaluate(
            parts,
            thresholds=np.array(
                [cfg.threshold_for(config.split_key(n)[0]) for d in parts for n in d.names]
            ),
            alpha=args.alpha or cfg.alpha,
            **_replay_args(args, cfg, looks, budget),
            confirm=None if args.one_stage else cfg.confirm,
        )
        result.notes = [cfg.note_for(n) for n in result.benches.names]
        results.append(result)
    md = "\n".join(report.markdown(r) for r in results)
    if len(results) > 1:
        md += "\n" + report.combined_markdown(figures.Combined(results))
    flags.write_markdown(args.markdown, md)
    if args.json:
        docs = [report.to_dict(r) for r in results]
        flags.print_json(docs[0] if len(docs) == 1 else {"recordings": docs})
    elif not flags.markdown_on_stdout(args):
        Console().print(Markdown(md))
    return 0


def _replay_args(args, cfg, looks, budget) -> dict:
    return {
        "looks": looks,
        "prs": args.prs,
        "seed": args.seed,
        "jobs": args.jobs or cfg.jobs,
        "budget": budget,
        "build_seconds": args.build_seconds,
        "coin": args.coin,
    }


def _sharded(args, cfg, recordings, looks, budget) -> int:
    """`--shards N`: each recording's figures over a shard plan (gate/shards.py)."""
    if not 2 <= args.shards <= 64 or args.one_stage or not cfg.confirm:
        raise BadInput("--shards", None, "2 to 64, with the two-stage gate", args.shards)
    if args.json:  # a table only (per benchmark: tracker/bench/shard_detection.py)
        raise BadInput("--json", None, "without --shards (use --markdown)", True)
    md, runs = [], []
    for parts in recordings:
        out = shard_replay.replay(
            parts,
            args.shards,
            lambda n: cfg.threshold_for(config.split_key(n)[0]),
            args.alpha or cfg.alpha,
            **_replay_args(args, cfg, looks, budget),
            confirm=cfg.confirm,
        )
        md.append(f"`{parts[0].source}`\n\n" + shard_replay.markdown(out, figures.LOSSES))
        runs.append(out)
    if len(runs) > 1:  # one condition's recordings: their mean, interval and pooled detection
        sources = [parts[0].source for parts in recordings]
        md.append(shard_replay.combined_markdown(runs, sources))
    text = "\n".join(md)
    flags.write_markdown(args.markdown, text)
    if not flags.markdown_on_stdout(args):
        Console().print(Markdown(text))
    return 0
