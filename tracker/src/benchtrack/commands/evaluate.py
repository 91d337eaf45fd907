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
from benchtrack.gate import aa, config, worktree
from benchtrack.gate import evaluate as ev

NAME = "evaluate"
HELP = "Measure the gate's error rates (false-fail, power) on recorded A/A rounds"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "data",
        nargs="*",
        type=Path,
        default=[Path("target/bench/aa/aa.json")],
        help="A/A recording from `benchtrack record-aa` (default target/bench/aa/aa.json)",
    )
    p.add_argument("--config", type=Path, help=f"gate config (default <repo>/{config.CONFIG_NAME})")
    p.add_argument("--filter", help="regular expression: evaluate only the benchmarks it finds")
    p.add_argument("--prs", type=int, default=400, help="pseudo-PRs per cell (default 400)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, help="the gate's round limit (default [gate].rounds)")
    flags.add_threshold(p, "default threshold in percent (default [gate].threshold)")
    p.add_argument("--alpha", type=float, help="family-wise alpha override")
    p.add_argument("--no-adaptive", action="store_true")
    flags.add_markdown(p, "the table")
    flags.add_json(p, "the evaluation (not the table)")


def run(args: argparse.Namespace) -> int:
    root = worktree.repo_root(Path.cwd())
    cfg = config.load(args.config or root / config.CONFIG_NAME)
    flags.check_markdown(args)
    if args.prs < 10:
        raise BadInput("--prs", None, "at least 10 pseudo-PRs", args.prs)
    if args.alpha is not None and not 0 < args.alpha < 1:
        raise BadInput("--alpha", None, "a fraction between 0 and 1", args.alpha)
    if args.threshold is not None:
        cfg = config.GateConfig(**{**cfg.__dict__, "threshold": args.threshold})
    # Several recordings, and the parts of one with fewer rounds for some suites (the counts):
    # one PR spans them all, each part drawing its own window.
    data = [part for path in args.data for part in aa.load_parts(path, args.filter)]
    # A benchmark recorded as two series (time, instructions) is judged by the one that gates it.
    measured = {n for d in data for n in d.names}
    data = [aa.subset(d, [cfg.gates(n, measured) for n in d.names]) for d in data]
    data = [d for d in data if d.names]
    looks = cfg.look_schedule(args.rounds, adaptive=not args.no_adaptive)
    result = ev.evaluate(
        data,
        thresholds=np.array(
            [cfg.threshold_for(config.split_key(n)[0]) for d in data for n in d.names]
        ),
        alpha=args.alpha or cfg.alpha,
        looks=looks,
        prs=args.prs,
        seed=args.seed,
    )
    result.notes = [cfg.note_for(config.split_key(n)[0]) for n in result.data.names]
    md = ev.markdown(result)
    flags.write_markdown(args.markdown, md)
    if args.json:
        flags.print_json(ev.to_dict(result))
    elif not flags.markdown_on_stdout(args):
        Console().print(Markdown(md))
    return 0
