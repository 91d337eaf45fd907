"""`benchtrack record-aa`: measure one commit as both sides of the gate's rounds (A/A data)."""

from __future__ import annotations

import argparse
import dataclasses
import platform
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from benchtrack.commands import flags
from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, BadInput
from benchtrack.fsutil import atomic_write, output_file
from benchtrack.gate import config, idle, worktree
from benchtrack.gate.machine_load import LoadMeter
from benchtrack.gate.rounds import RoundPlan, interleave
from benchtrack.gate.suite_run import toolchain_pins
from benchtrack.lab import aa
from benchtrack.machine.cpuset import CpuSet
from benchtrack.machine.runner import cpu_model

NAME = "record-aa"
HELP = "Record A/A rounds (one commit as base and head) for `benchtrack evaluate`"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ref", default="HEAD", help="commit to measure (default HEAD)")
    p.add_argument("--config", type=Path, help=f"gate config (default <repo>/{config.CONFIG_NAME})")
    p.add_argument("--suite", action="append", help="suite to run (repeatable)")
    p.add_argument("--filter", help="regular expression on benchmark names")
    p.add_argument("--rounds", type=int, default=30, help="rounds to record (default 30)")
    flags.add_cpus(p, "pin the measurements with taskset")
    p.add_argument("--out", type=Path, default=Path("target/bench/aa/aa.json"))
    p.add_argument("--keep-worktree", action="store_true")
    flags.add_json(p, "what was recorded")


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    say = lambda msg: console.print(f"[dim]record-aa:[/] {msg}", highlight=False)  # noqa: E731
    if args.rounds < 3:
        raise BadInput("--rounds", None, "at least 3 rounds", args.rounds)
    output_file("--out", args.out)  # before minutes of measuring, not after
    root = worktree.repo_root(Path.cwd())
    cfg = config.load(args.config or root / config.CONFIG_NAME)
    suites = cfg.select(args.suite)
    cpus = args.cpus.taskset if args.cpus else None
    sha, subject = worktree.resolve(root, args.ref, "--ref")
    # One worktree per side, as the gate has (both sides of a counted suite run at once and each
    # writes its raw output in its checkout), and per suite selection, so recordings of
    # different suites can run side by side.
    stem = "aa-" + "-".join(s.name for s in suites)
    # The sides whose checkout began, inside the try: a cancel at any point of it (even after git
    # made the worktree, before the checkout returned it) removes what was made, as the gate does.
    begun: list[str] = []
    logs = root / "target" / "gate" / f"logs-{stem}"
    try:
        made = []
        for side in ("base", "head"):
            begun.append(f"{stem}-{side}")
            co = worktree.checkout(root, begun[-1], args.ref, sha, subject)
            made.append(dataclasses.replace(co, side=side))
        data, meta, load, failures = _record(args, cfg, suites, made, cpus, logs, say)
    finally:
        if not args.keep_worktree:
            for name in begun:
                worktree.discard(root, worktree.path_for(root, name))
    meta["load"] = load.summary()
    meta["failures"] = aa.failures(failures)  # evaluate refuses a recording with a suite missing
    doc = aa.to_dict(data, meta)
    atomic_write(args.out, aa.dump(doc))
    say(
        f"wrote {args.out}: {data.count} rounds, {len(doc['benchmarks'])} benchmarks, "
        f"{data.seconds:.0f} s"
    )
    for f in failures:
        console.print(
            f"[red]{f.suite} failed to {f.what} ({f.side})[/]; log {f.log}\n{f.tail}", markup=True
        )
    if args.json:
        flags.print_json(
            {
                "out": str(args.out),
                "commit": sha,
                "rounds": data.count,
                "benchmarks": sorted(doc["benchmarks"]),
                "seconds": data.seconds,
                "failures": [
                    {**x, "log": str(f.log)} for x, f in zip(doc["failures"], failures, strict=True)
                ],
            }
        )
    return EXIT_BENCHMARK_FAILED if failures else EXIT_OK


def _record(args, cfg, suites, sides, cpus, logs: Path, say):
    """The rounds on both sides' checkouts, checkpointed as they go: (the rounds, the
    recording's meta, its load meter, the suites' failures)."""
    co = sides[0]
    failures: list = []
    meta = {
        "commit": co.sha,
        "subject": co.subject,
        "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": f"{CpuSet.allowed().count} CPUs ({cpus or 'unpinned'}), {cpu_model()}, "
        f"{platform.system()} {platform.machine()}",
        "suites": [s.name for s in suites],
        "filter": args.filter,
        "env": {s.name: s.env for s in suites},
        "commands": {s.name: s.command for s in suites},
    }
    load = LoadMeter()

    def checkpoint(data) -> bool:  # a long recording that is interrupted keeps its rounds
        load.sample()
        meta["load"] = load.summary()
        meta["failures"] = aa.failures(failures)
        atomic_write(args.out, aa.dump(aa.to_dict(data, meta)))
        return False

    # The gate's schedule: its rounds go on while the counts run beside them, and only its
    # first look waits for the counts; so the recording waits there first, not every round
    # (which made each count round's counting a round's wait: evaluate's no-change minutes were
    # long by what the rounds after it would have overlapped). Checkpoints from that look on.
    first = min(cfg.look_schedule(None, adaptive=True)[0], args.rounds)
    meta["counts_wait_from"] = first
    with idle.polling(cfg.idle) as idle_state:  # as the gate measures (idle.py)
        say(idle_state)
        meta["idle"] = idle_state
        looks = list(range(first, args.rounds + 1))
        plan = RoundPlan(
            suites, tuple(sides), looks, toolchain_pins(co.path), args.filter, cpus=cpus
        )
        data = interleave(
            plan,
            logs,
            stop_when=checkpoint,
            progress=say,
            failures=failures,
        )
    return data, meta, load, failures
