"""`benchtrack matrix`: the runner-size config as a GitHub Actions matrix (`fromJSON`)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import append_line
from benchtrack.gate import shards
from benchtrack.machine import runner_sizes

NAME = "matrix"
HELP = "print the CI matrix of runner sizes from .github/bench-runners.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, default=runner_sizes.DEFAULT_CONFIG, help="the runner-size file"
    )
    parser.add_argument(
        "--larger-runners",
        choices=["true", "false", ""],
        default=os.environ.get("BENCH_LARGER_RUNNERS", ""),
        help='include sizes marked enabled = "larger-runners" (default: $BENCH_LARGER_RUNNERS)',
    )
    parser.add_argument(
        "--github-output",
        action="store_true",
        help="also write matrix=…, keys=…, gates=… and sharded=… to $GITHUB_OUTPUT",
    )
    parser.add_argument(
        "--shard-plan",
        type=Path,
        default=Path(".github/gate-shards.json"),
        help="the gate's shard plan (benchtrack shard-plan), if the file exists: `gates` then "
        "holds a job per runner size and shard (default .github/gate-shards.json)",
    )


def run(args: argparse.Namespace) -> int:
    sizes = runner_sizes.load(args.config, larger_runners=args.larger_runners == "true")
    matrix = json.dumps({"include": [s.to_matrix() for s in sizes]}, separators=(",", ":"))
    keys = json.dumps([s.key for s in sizes], separators=(",", ":"))
    n = shards.read_plan(args.shard_plan)[0] if args.shard_plan.is_file() else 1
    gates = json.dumps({"include": gate_jobs(sizes, n)}, separators=(",", ":"))
    print(matrix)
    if args.github_output:
        out = os.environ.get("GITHUB_OUTPUT")
        if not out:
            raise BadInput("$GITHUB_OUTPUT", None, "the path GitHub Actions sets for step outputs")
        append_line(out, f"matrix={matrix}")
        append_line(out, f"keys={keys}")
        append_line(out, f"gates={gates}")
        append_line(out, f"sharded={'true' if n > 1 else 'false'}")
    return 0


def gate_jobs(sizes: list, n: int) -> list[dict[str, object]]:
    """The PR gate's jobs: one a runner size, or with N shards one a size and shard, each
    saying its shard (`K/N`, "" unsharded), its name's part ("shard K of N") and the artifact
    its verdict goes to (`gate-<key>` for the comment; `shard-<key>-K` for the merge job)."""
    if n <= 1:
        return [
            {**s.to_matrix(), "shard": "", "label": "", "artifact": f"gate-{s.key}"} for s in sizes
        ]
    return [
        {
            **s.to_matrix(),
            "shard": f"{k}/{n}",
            "label": f"shard {k} of {n}",  # a job's name: no "/" (a job path's separator)
            "artifact": f"shard-{s.key}-{k}",
        }
        for s in sizes
        for k in range(1, n + 1)
    ]
