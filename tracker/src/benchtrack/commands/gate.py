"""`benchtrack gate --base REF [--head REF]`: the PR check, base and head interleaved here."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from benchtrack.commands import flags
from benchtrack.errors import BadInput
from benchtrack.fsutil import output_dir, output_file
from benchtrack.gate import (
    config,
    function_diff,
    idle,
    prebuilt,
    render,
    shards,
    skip,
    stages,
    suite_filter,
    worktree,
)
from benchtrack.gate.diagnose import run as diagnose
from benchtrack.gate.diagnose import text as diagnosis_text
from benchtrack.gate.outcome import Outcome
from benchtrack.gate.rounds import RoundPlan, build_sides
from benchtrack.gate.suite_run import toolchain_pins
from benchtrack.machine import runner, vcpus
from benchtrack.report import terminal
from benchtrack.result import runner_key

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
    p.add_argument(
        "--filter",
        help="regular expression on benchmark names, on top of a suite's own "
        "(default: $BENCH_FILTER); exact names, ^(?:A|B)$, leave out unbuilt the suites whose own "
        "filters find none of them",
    )
    p.add_argument(
        "--shard",
        help="K/N: measure shard K of N only (at alpha / N), as --shard-plan deals the benchmarks; "
        "`gate-merge` makes the N verdicts one",
    )
    p.add_argument("--shard-plan", type=Path, help="the plan `benchtrack shard-plan` wrote")
    built = p.add_mutually_exclusive_group()
    built.add_argument(
        "--build-only",
        type=Path,
        metavar="FILE",
        help="build both sides, write the builds to FILE (a tar) and stop: one build for the "
        "shards of a runner size",
    )
    built.add_argument(
        "--prebuilt",
        type=Path,
        metavar="FILE",
        help="measure the builds --build-only wrote to FILE, running no build; builds of another "
        "base, head, config or suites are refused (exit 2), a changed build too (exit 3)",
    )
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
    started = time.monotonic()  # the job's whole gate, for the summary's "took"
    console = Console(stderr=True)
    # a message may hold a name or a path: text, not rich markup (`[/tmp]` would raise)
    say = lambda msg: console.print(f"[dim]gate:[/] {escape(msg)}", highlight=False)  # noqa: E731
    root = worktree.repo_root(Path.cwd())
    config_path = args.config or root / config.CONFIG_NAME
    cfg = config.load(config_path)
    if args.threshold is not None:
        cfg = config.GateConfig(**{**cfg.__dict__, "threshold": args.threshold})
    if args.rounds is not None and args.rounds < 3:
        raise BadInput("--rounds", None, "at least 3 rounds", args.rounds)
    # --filter, else the job's BENCH_FILTER: the gate applies it on top of a suite's own filter,
    # which would replace an inherited BENCH_FILTER in that suite's harness
    name_filter = args.filter or os.environ.get("BENCH_FILTER", "").strip() or None
    if name_filter:
        source = "--filter" if args.filter else "BENCH_FILTER"
        try:
            re.compile(name_filter)
        except re.error as e:
            raise BadInput(source, None, f"a regular expression ({e})", name_filter) from None
    shard, only = _shard(args)
    if shard is not None:  # each shard at alpha / N: the PR's false fails stay within alpha
        cfg = config.GateConfig(**{**cfg.__dict__, "alpha": cfg.alpha / shard["of"]})
    # a filter of exact names: the suites whose own filters find none of them are not built
    suites, left_out = suite_filter.narrow(cfg.select(args.suite), name_filter)
    if left_out:
        say(f"the filter leaves nothing to {', '.join(left_out)}: not built or run")
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
    builds_out = output_file("--build-only", args.build_only)
    shas = {"base": base_sha, "head": head_sha}
    refs = {
        "base": {"ref": args.base, "sha": base_sha, "subject": base_subject},
        "head": {"ref": args.head, "sha": head_sha, "subject": head_subject},
    }
    files = skip.unaffected(root, base_sha, head_sha, cfg.skip_paths)
    built_config = prebuilt.config_digest(config_path)
    if files and builds_out is not None:  # the shards skip it too: a manifest, nothing built
        prebuilt.pack(builds_out, shas, (), 0, [], [], built_config, 0.0)
        say(f"only skip_paths changed: nothing built; wrote {builds_out}")
        return 0
    if files:  # nothing to build or measure; the required check still gets its verdict
        outcome = Outcome.skip(files, cfg.alpha, {**refs, "threshold": cfg.threshold})
        return _report(args, outcome, outcome.to_dict(), out_dir, say)
    pre = None  # the builds --prebuilt names, checked before anything is written
    if args.prebuilt is not None:
        pre = prebuilt.read(args.prebuilt)
        prebuilt.check(pre, shas, [s.name for s in suites], built_config)
    logs = root / "target" / "gate" / "logs"
    profiles = _profiles(out_dir)  # the count suites' functions per side (function_diff)
    made: list[worktree.Checkout] = []
    # The sides whose checkout began, inside the try: a cancel at any point of it (even after git
    # made the worktree, before `made` holds it) removes what was made.
    begun: list[str] = []
    failures: list = []
    budget = None if args.no_adaptive or not minutes else minutes * 60
    if pre is not None and budget is not None:  # the PR waited for the build job's builds too
        budget = max(budget - pre.manifest["build_seconds"], 0.0)
        pre.meta["budget_seconds"] = round(budget, 1)
    runs = diagnose.Runs()  # why each losing benchmark is slower (gate/diagnose/)
    # Idle CPUs poll for the whole run (idle.py): builds are unaffected, every round quieter.
    with idle.polling(cfg.idle, sudo=args.idle_sudo) as idle_state:
        say(idle_state)
        try:
            begun.append("base")
            made.append(worktree.checkout(root, "base", args.base, base_sha, base_subject))
            begun.append("head")
            made.append(worktree.checkout(root, "head", args.head, head_sha, head_subject))
            sides = (made[0], made[1])
            pins = toolchain_pins(sides[1].path)
            plan = RoundPlan(
                suites, sides, looks, pins, name_filter, only=only, cpus=cpus, budget=budget
            )
            if builds_out is not None:
                return _build_only(builds_out, plan, logs, say, built_config)
            if pre is not None:
                plan = _restore(pre, plan, logs, failures, say)
            outcome, data, second = stages.screen_then_confirm(cfg, plan, logs, say, failures)
            runs = diagnose.measure_all(
                outcome, data, suites, sides, pins, cpus, logs, say, out=out_dir
            )
        finally:
            os.environ.pop(function_diff.ENV, None)
            if not args.keep_worktrees:
                for side in begun:
                    worktree.discard(root, worktree.path_for(root, side))
    outcome.suite_failures = failures
    outcome.looks = looks
    outcome.meta = {
        **refs,
        "suites": [s.name for s in suites],
        **({"suites_left_out": left_out} if left_out else {}),
        "rounds": data.count,
        "seconds": data.seconds + second.get("seconds", 0.0),
        "build_seconds": round(data.build_seconds, 1),
        # (a diagnosis's seconds are gate.json's diagnosis_seconds, there only when one ran)
        **({"diagnosis_seconds": round(runs.seconds, 1)} if runs.found else {}),
        # worktrees, builds, both stages and the diagnosis: the PR's wait for this job
        "gate_seconds": round(time.monotonic() - started, 1),
        "minutes": minutes,
        "stopped_by_budget": data.stopped_by_budget,
        "counts_inside_from": data.counts_inside_from,
        "confirm": second or None,
        "neighbour_cpus": data.neighbour,
        # both stages' rounds: how far apart the job's vCPUs ran (machine/vcpus.py)
        "vcpus": vcpus.summary(data.vcpus + second.get("vcpus", [])),
        "threshold": cfg.threshold,
        "jobs": cfg.jobs,
        "n_looks": len(looks),
        "cpus": cpus,
        "idle": idle_state,
        **({"shard": shard} if shard is not None else {}),
        **({"prebuilt": pre.meta} if pre is not None else {}),
        **_runner(),
    }
    doc = outcome.to_dict(data)
    function_diff.attach(doc, profiles)  # the top functions of each regressed counted benchmark
    diagnose.attach(doc, runs, outcome)  # after the function diff: "more work" quotes it
    return _report(args, outcome, doc, out_dir, say, f"; logs in {logs}")


def _build_only(
    out: Path, plan: RoundPlan, logs: Path, say: Callable[[str], None], config_sha: str
) -> int:
    """Both sides of each `build_once` suite built, their caches and the manifest written to
    `out`, nothing measured; the other suites are built by each job that measures them."""
    started = time.monotonic()
    when = prebuilt.sources_time(plan.sides)  # before the builds: their products are newer
    failures: list = []
    once = [s for s in plan.suites if s.build_once]
    built = build_sides(replace(plan, suites=once), logs, say, failures)
    shas = {co.side: co.sha for co in plan.sides}
    names = [s.name for s in built]
    each = [s.name for s in plan.suites if not s.build_once]
    seconds = time.monotonic() - started
    prebuilt.pack(out, shas, plan.sides, when, names, failures, config_sha, seconds, each)
    failed = f"; failed: {', '.join(f.suite for f in failures)}" if failures else ""
    names_text = ", ".join(names) or "no suite"
    say(f"built {names_text} on both sides in {seconds:.0f} s{failed}; wrote {out}")
    return 0


def _restore(
    pre: prebuilt.Prebuilt,
    plan: RoundPlan,
    logs: Path,
    failures: list,
    say: Callable[[str], None],
) -> RoundPlan:
    """The plan measuring the builds `pre` carries, the build job's failures kept; the suites
    not built once (`build_once = false`) built here."""
    started = time.monotonic()
    prebuilt.restore(pre, plan.sides)
    failures.extend(pre.failures)
    failed = {f.suite for f in pre.failures}
    pre.meta["restore_seconds"] = round(time.monotonic() - started, 1)
    say(
        f"builds from {pre.path} ({pre.meta['build_seconds']} s in the build job) restored in "
        f"{pre.meta['restore_seconds']} s"
    )
    here = [s for s in plan.suites if not s.build_once]
    live = build_sides(replace(plan, suites=here), logs, say, failures) if here else []
    kept = [s for s in plan.suites if s in live or (s.build_once and s.name not in failed)]
    pre.meta["built_here"] = [s.name for s in live]
    pre.meta["seconds"] = round(time.monotonic() - started, 1)  # restored, and built here
    return replace(plan, suites=kept, builds=False)


def _runner() -> dict[str, str]:
    """The runner size CI gave this job ($BENCHTRACK_RUNNER_LABEL/_CPUS), for the comment."""
    label, cpus = os.environ.get(runner.ENV_LABEL), os.environ.get(runner.ENV_CPUS, "")
    return {"runner": runner_key(label, int(cpus))} if label and cpus.isdigit() else {}


def _shard(args: argparse.Namespace) -> tuple[dict | None, Callable[[str], bool] | None]:
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
    return {"index": k, "of": n, "benchmarks": planned}, shards.wanted(split, k, n)


def _profiles(out_dir: Path) -> Path:
    """An empty directory for this run's profiles, handed to the suites in $BENCHTRACK_PROFILES
    (and none left of a previous run's wall-time profiles)."""
    profiles = out_dir / "profiles"
    shutil.rmtree(profiles, ignore_errors=True)
    shutil.rmtree(out_dir / diagnose.PROFILES, ignore_errors=True)  # the diagnoses' (py-spy)
    os.environ[function_diff.ENV] = str(profiles)
    return profiles


def _report(
    args: argparse.Namespace,
    outcome: Outcome,
    doc: dict,
    out_dir: Path,
    say: Callable[[str], None],
    more: str = "",
) -> int:
    """gate.json and gate.md in `out_dir`, the verdict on the terminal; the exit code."""
    tail = function_diff.markdown(doc.get("functions", {}))
    tail += diagnosis_text.markdown(diagnose.entries(doc))
    markdown = render.write(out_dir, outcome, doc, tail)
    if args.summary:
        with args.summary.open("a", encoding="utf-8") as f:
            f.write(markdown if markdown.endswith("\n") else markdown + "\n")
    if args.json:
        flags.print_json(doc)
    else:
        render.terminal(outcome, terminal.console())
    say(f"wrote {out_dir / 'gate.json'} and {out_dir / 'gate.md'}{more}")
    return outcome.exit_code
