"""`benchtrack gate --base REF [--head REF]`: the PR check, base and head interleaved here."""

from __future__ import annotations

import argparse
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import orjson
from rich.console import Console

from benchtrack import function_diff, idle, runner
from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write, output_dir
from benchtrack.gate import config, confirm, decide, render, shards, skip, worktree
from benchtrack.gate.diagnose import run as diagnose
from benchtrack.gate.diagnose import text as diagnosis_text
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Outcome, Row, analyse
from benchtrack.gate.rounds import interleave, toolchain_pins
from benchtrack.report import terminal
from benchtrack.result import runner_key
from benchtrack.stats import INCONCLUSIVE, REGRESSED

NAME = "gate"
HELP = "Compare base and head in interleaved rounds on this machine; exit 1 on a regression"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, help="git ref of the base (e.g. main, origin/main)")
    p.add_argument("--head", default="HEAD", help="git ref of the head (default HEAD)")
    p.add_argument(
        "--merge-base",
        action="store_true",
        help="measure the merge base of BASE and HEAD as the base (a PR's check)",
    )
    p.add_argument("--config", type=Path, help=f"gate config (default <repo>/{config.CONFIG_NAME})")
    p.add_argument(
        "--suite", action="append", help="suite to run (repeatable; default [gate].suites)"
    )
    p.add_argument("--filter", help="regular expression on benchmark names (also BENCH_FILTER)")
    p.add_argument(
        "--shard",
        help="K/N: measure shard K of N only (at alpha / N), as --shard-plan deals the benchmarks; "
        "`gate-merge` makes the N verdicts one",
    )
    p.add_argument("--shard-plan", type=Path, help="the plan `benchtrack shard-plan` wrote")
    p.add_argument("--rounds", type=int, help="most rounds (default [gate].rounds)")
    flags.add_threshold(p, "default threshold in percent (default [gate].threshold)")
    p.add_argument("--no-adaptive", action="store_true", help="run every round, no early stop")
    p.add_argument(
        "--minutes", type=float, help="time budget, builds included (default [gate].minutes)"
    )
    flags.add_cpus(p, "pin the measurements with taskset")
    p.add_argument(
        "--out", type=Path, help="directory for gate.json and gate.md (default target/bench/gate)"
    )
    flags.add_json(p, "the outcome (gate.json)")
    p.add_argument("--summary", type=Path, help="also append gate.md here (GITHUB_STEP_SUMMARY)")
    p.add_argument("--keep-worktrees", action="store_true", help="keep target/gate/worktrees")
    p.add_argument(
        "--idle-sudo",
        action="store_true",
        help="if /dev/cpu_dma_latency is not writable, ask `sudo -n` for access first (CI)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    say = lambda msg: console.print(f"[dim]gate:[/] {msg}", highlight=False)  # noqa: E731
    root = worktree.repo_root(Path.cwd())
    cfg = config.load(args.config or root / config.CONFIG_NAME)
    if args.threshold is not None:
        cfg = config.GateConfig(**{**cfg.__dict__, "threshold": args.threshold})
    if args.rounds is not None and args.rounds < 3:
        raise BadInput("--rounds", None, "at least 3 rounds", args.rounds)
    if args.filter:
        try:
            re.compile(args.filter)
        except re.error as e:
            raise BadInput("--filter", None, f"a regular expression ({e})", args.filter) from None
    shard, only = _shard(args)
    if shard is not None:  # each shard at alpha / N: the PR's false fails stay within alpha
        cfg = config.GateConfig(**{**cfg.__dict__, "alpha": cfg.alpha / shard["of"]})
    suites = cfg.select(args.suite)
    cpus = args.cpus.taskset if args.cpus else None
    looks = cfg.look_schedule(args.rounds, adaptive=not args.no_adaptive)
    minutes = args.minutes if args.minutes is not None else cfg.minutes
    if minutes is not None and minutes <= 0:
        raise BadInput("--minutes", None, "a positive number of minutes", minutes)
    base_sha, base_subject = worktree.resolve(root, args.base, "--base")
    head_sha, head_subject = worktree.resolve(root, args.head, "--head")
    if args.merge_base:
        base_sha, base_subject = worktree.merge_base(root, base_sha, head_sha)
    dirty = worktree.dirty_paths(root)
    if dirty:
        say(
            f"[yellow]warning:[/] {len(dirty)} uncommitted change(s) in {root} are not measured "
            f"(the gate compares commits; commit them to include them): {', '.join(dirty[:5])}"
        )
    if base_sha == head_sha:
        say("[yellow]warning:[/] base and head are the same commit (an A/A run)")
    out_dir = output_dir("--out", args.out or root / "target" / "bench" / "gate")
    refs = {
        "base": {"ref": args.base, "sha": base_sha, "subject": base_subject},
        "head": {"ref": args.head, "sha": head_sha, "subject": head_subject},
    }
    files = skip.unaffected(root, base_sha, head_sha, cfg.skip_paths)
    if files:  # nothing to build or measure; the required check still gets its verdict
        outcome = Outcome.skip(files, cfg.alpha, {**refs, "threshold": cfg.threshold})
        return _report(args, outcome, outcome.to_dict(), out_dir, say)
    logs = root / "target" / "gate" / "logs"
    profiles = _profiles(out_dir)  # the count suites' functions per side (function_diff)
    made: list[worktree.Checkout] = []  # inside the try: a cancel while adding head removes base
    failures: list = []
    budget = None if args.no_adaptive or not minutes else minutes * 60
    # Screen, then confirm (gate/confirm.py): each stage spends half of alpha; one stage, all.
    share = cfg.alpha * confirm.SHARE if cfg.confirm else None
    second: dict = {}
    runs = diagnose.Runs()  # why each losing benchmark is slower (gate/diagnose/)
    # Idle CPUs poll for the whole run (idle.py): builds are unaffected, every round quieter.
    with idle.polling(cfg.idle, sudo=args.idle_sudo) as idle_state:
        say(idle_state)
        try:
            made.append(worktree.checkout(root, "base", args.base, base_sha, base_subject))
            made.append(worktree.checkout(root, "head", args.head, head_sha, head_subject))
            sides = (made[0], made[1])
            pins = toolchain_pins(sides[1].path)
            data = interleave(
                suites,
                sides,
                looks=looks,
                pins=pins,
                name_filter=args.filter,
                only=only,
                cpus=cpus,
                logs=logs,
                stop_when=lambda d: analyse(d, cfg, looks, alpha=share).can_stop,
                progress=say,
                failures=failures,
                budget=budget,
            )
            outcome = analyse(data, cfg, looks, alpha=share)
            at = decide.level(cfg, looks) if cfg.confirm else None
            if cfg.confirm:  # told unchanged by the equivalence test on the screening's rounds
                outcome.rows = decide.settle(outcome.rows, data, at)[0]
            picked = confirm.candidates(outcome, cfg.confirm) if cfg.confirm else []
            opened = decide.open_rows(outcome, picked) if cfg.confirm else []
            if (picked or opened) and cfg.confirm:
                left = None if budget is None else max(budget - data.seconds, 0.0)
                second = _second(
                    cfg, picked, opened, data, at, suites, sides, pins, cpus, logs, say,
                    failures, left,
                )  # fmt: skip
                second["screened_seconds"] = data.seconds
                outcome = confirm.merge(outcome, second.pop("outcome"), picked)
                settled = second.pop("settled")
                outcome.rows = [settled.get(r.name, r) for r in outcome.rows]
            runs = diagnose.measure_all(outcome, data, suites, sides, pins, cpus, logs, say)
        finally:
            os.environ.pop(function_diff.ENV, None)
            if not args.keep_worktrees:
                for co in made:
                    worktree.remove(root, co)
    outcome.suite_failures = failures
    outcome.looks = looks
    outcome.meta = {
        **refs,
        "suites": [s.name for s in suites],
        "rounds": data.count,
        "seconds": data.seconds + second.get("seconds", 0.0),
        "minutes": minutes,
        "stopped_by_budget": data.stopped_by_budget,
        "counts_inside_from": data.counts_inside_from,
        "confirm": second or None,
        "neighbour_cpus": data.neighbour,
        "threshold": cfg.threshold,
        "jobs": cfg.jobs,
        "n_looks": len(looks),
        "cpus": cpus,
        "idle": idle_state,
        **({"shard": shard} if shard is not None else {}),
        **_runner(),
    }
    doc = outcome.to_dict(data)
    function_diff.attach(doc, profiles)  # the top functions of each regressed counted benchmark
    diagnose.attach(doc, runs, outcome)  # after the function diff: "more work" quotes it
    return _report(args, outcome, doc, out_dir, say, f"; logs in {logs}")


def _runner() -> dict[str, str]:
    """The runner size CI gave this job ($BENCHTRACK_RUNNER_LABEL/_CPUS), for the comment."""
    label, cpus = os.environ.get(runner.ENV_LABEL), os.environ.get(runner.ENV_CPUS, "")
    return {"runner": runner_key(label, int(cpus))} if label and cpus.isdigit() else {}


def _shard(args: argparse.Namespace) -> tuple[dict | None, str | None]:
    """`--shard K/N` with its plan: (gate.json's `shard`, the gate-side filter), or Nones."""
    if args.shard is None:
        if args.shard_plan is not None:
            raise BadInput("--shard-plan", None, "given with --shard K/N", str(args.shard_plan))
        return None, None
    m = re.fullmatch(r"([0-9]+)/([0-9]+)", args.shard)
    if m is None or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise BadInput("--shard", None, "K/N with 1 <= K <= N, e.g. 1/2", args.shard)
    if args.shard_plan is None:
        raise BadInput("--shard-plan", None, "the plan file (benchtrack shard-plan)", None)
    n, split = shards.read_plan(args.shard_plan)
    k = int(m.group(1))
    if int(m.group(2)) != n:
        raise BadInput("--shard", None, f"K/{n}: the plan has {n} shards", args.shard)
    planned = sorted(b for b, j in split.items() if j == k)
    return {"index": k, "of": n, "benchmarks": planned}, shards.name_filter(split, k) or None


def _profiles(out_dir: Path) -> Path:
    """An empty directory for this run's profiles, handed to the suites in $BENCHTRACK_PROFILES."""
    profiles = out_dir / "profiles"
    shutil.rmtree(profiles, ignore_errors=True)
    os.environ[function_diff.ENV] = str(profiles)
    return profiles


def _second(
    cfg, picked, opened, screened, at, suites, sides, pins, cpus, logs, say, failures, budget
) -> dict:
    """The second stage (gate/decide.py): the screening's candidates (gate/confirm.py) and the
    benchmarks it left open, measured in segments between the stage's looks, each series until
    it is decided or out of reach, within what is left of the time budget; its outcome, the rows
    the equivalence test settled, and what it did, for gate.json."""
    plan = cfg.confirm
    looks = plan.look_schedule()
    keys = {r.name for r in picked}
    share = cfg.alpha * confirm.SHARE
    rows = {r.name: r for r in [*picked, *opened]}
    active = dict(rows)
    say(
        f"confirming {len(picked)} candidate(s), deciding {len(opened)} open benchmark(s): "
        f"{', '.join(sorted(active))}"
    )
    data = Rounds()
    outcome = analyse(data, cfg, looks, alpha=share, keys=keys)
    settled: dict[str, Row] = {}
    prev, stopped, spent, pace = 0, False, 0.0, 0.0
    for k, last in enumerate(looks):
        if not active or stopped:
            break
        chosen = list(active.values())
        rounds = last - prev
        if budget is not None and k > 0:  # at the last segment's pace (its series, or more)
            fit = int((budget - spent) // pace) if pace > 0 else rounds
            if fit < rounds:
                stopped = True
                say(f"second stage: the budget holds {max(fit, 0)} more round(s), not {rounds}")
                if fit <= 0:
                    break
                rounds = fit
        segment = interleave(
            confirm.suites_for(chosen, suites),
            sides,
            looks=[rounds],
            pins=pins,
            name_filter=confirm.name_filters(chosen),
            builds=False,
            cpus=cpus,
            logs=logs / "confirm" / f"look{k + 1}",
            stop_when=lambda d: False,
            progress=say,
            failures=failures,
        )
        spent += segment.seconds
        pace = segment.seconds / max(segment.count, 1)
        data = data.then(segment)
        prev = last
        outcome = analyse(data, cfg, looks, alpha=share, keys=keys)
        pooled = screened.then(data)
        candidates_done = outcome.can_stop
        open_now = [rows[n] for n in active if n not in settled]
        fresh = decide.settle([replace(r, verdict=INCONCLUSIVE) for r in open_now], pooled, at, 2)
        settled.update({r.name: r for r in fresh[0] if r.name in fresh[1]})
        reach = decide.within_reach(
            [rows[n] for n in active if n not in settled], pooled, at, screened.count + looks[-1]
        )
        regressed = {r.name for r in outcome.rows if r.verdict == REGRESSED}
        active = {
            n: r
            for n, r in active.items()
            if n not in settled
            and n not in regressed
            and (n in reach or (n in keys and not candidates_done))
        }
    return {
        "outcome": outcome,
        "settled": settled,
        "candidates": sorted(keys),
        "open": sorted(r.name for r in opened),
        "decided_unchanged": sorted(settled),
        "equivalence_level": at,
        "rounds": data.count,
        # Each series' round values (as the screening's under "rounds"): what a reader needs to
        # see which rounds made an interval wide.
        "values": {
            side: {k: v for k, v in by.items() if k in rows} for side, by in data.values.items()
        },
        "seconds": data.seconds,
        "stopped_by_budget": stopped,
        "n_looks": len(looks),
    }


def _report(
    args: argparse.Namespace,
    outcome: Outcome,
    doc: dict,
    out_dir: Path,
    say: Callable[[str], None],
    more: str = "",
) -> int:
    """gate.json and gate.md in `out_dir`, the verdict on the terminal; the exit code."""
    atomic_write(out_dir / "gate.json", orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    markdown = render.markdown(outcome) + function_diff.markdown(doc.get("functions", {}))
    markdown += diagnosis_text.markdown(diagnose.entries(doc))
    atomic_write(out_dir / "gate.md", markdown)
    if args.summary:
        with args.summary.open("a", encoding="utf-8") as f:
            f.write(markdown if markdown.endswith("\n") else markdown + "\n")
    if args.json:
        flags.print_json(doc)
    else:
        render.terminal(outcome, terminal.console())
    say(f"wrote {out_dir / 'gate.json'} and {out_dir / 'gate.md'}{more}")
    return outcome.exit_code
