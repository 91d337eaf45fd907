"""The gate's diagnosis on the self-test's slowdowns: does it name the kind each one declares?

    uv run --frozen python tracker/bench/diagnose_selftest.py [--kind wait|work|all] [--out FILE]

Clones HEAD twice under target/diagnose-selftest/ (`base` as it is, `head` with the chosen patches
of [gate.selftest] committed, as `gate-selftest` makes its PR), builds the lockstep suites that step
the slowed benchmarks on both sides (build caches kept there across runs), and for each slowed
benchmark with a `diagnosis` in the patches file runs the gate's diagnosis exactly as the gate does
after a verdict (gate/diagnose/run.py's launches, measure.py, classify.py) and prints the kind it
names first beside the declared one, its line and its seconds; the JSON report (each benchmark's
line, evidence and seconds, the machine's CPUs and load average) goes to --out (default
target/diagnose-selftest/report.json). Not a gate run: no rounds, no verdict, so each diagnosis is
of a slowdown the self-test knows is there. Exit 0 when it ran (the count of kinds named right is
the result), 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import orjson

from benchtrack import git
from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.gate import config, rounds, worktree
from benchtrack.gate.diagnose import classify, measure, run, text
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Row
from benchtrack.gate.worktree import Checkout
from benchtrack.selftest import branch
from benchtrack.selftest import patches as selftest_patches
from benchtrack.suites import Suite


def stepping(name: str, suites: list[Suite]) -> Suite | None:
    """The lockstep gate suite whose harness filter takes `name` (as the harness matches it: the
    full name, or criterion's id without its first segment)."""
    for s in suites:
        if not s.lockstep:
            continue
        pattern = re.compile(s.env.get("BENCH_FILTER", ""))
        if pattern.search(name) or pattern.search(name.split("/", 1)[-1]):
            return s
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", choices=("wait", "work", "all"), default="wait")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    root = worktree.repo_root(Path.cwd())
    cfg = config.load(root / config.CONFIG_NAME)
    if not cfg.selftest_patches:
        raise BadInput(root / config.CONFIG_NAME, "gate.selftest.patches", "the patches file")
    by_kind = selftest_patches.load(root / cfg.selftest_patches)
    chosen = tuple(p for k, ps in by_kind.items() if args.kind in (k, "all") for p in ps)
    slows = [s for p in chosen for s in p.slows if s.diagnosis]
    if not slows:
        raise BadInput(root / cfg.selftest_patches, "slows", "a slowdown with a `diagnosis`")
    suites = cfg.select(None)
    home = root / "target" / "diagnose-selftest"
    logs = home / "logs"
    made = branch.prepare(root, home / "head", patches=chosen)
    branch.discard(home / "base")
    git.run(root, "clone", "--no-local", "--quiet", "--no-checkout", str(root), str(home / "base"))
    git.run(home / "base", "checkout", "--quiet", "--detach", made.base)
    cache = home / "cache"
    sides = (
        Checkout("base", "HEAD", made.base, "", home / "base", cache / "base"),
        Checkout("head", branch.BRANCH, made.head, "", made.path, cache / "head"),
    )
    pins = rounds.toolchain_pins(made.path)
    plan: list[tuple[selftest_patches.Slow, Suite | None]] = [
        (s, stepping(s.glob, suites) if not any(c in s.glob for c in "*?[") else None)
        for s in slows
    ]
    built: set[str] = set()
    for _, suite in plan:
        if suite is None or suite.build in built:
            continue
        for co in sides:
            print(f"build {suite.name} ({co.side})", file=sys.stderr, flush=True)
            env = rounds.child_env(co, suite, pins, None, False, sides[0].cache)
            rounds.build(suite, co, env, logs / f"build-{co.side}-{suite.name}.log")
        built.add(suite.build)
    report, right = [], 0
    load_before = os.getloadavg()
    for slow, suite in plan:
        if suite is None:
            entry = {"status": text.NOT_RUN, "reason": "no lockstep suite steps it by that name"}
            named, seconds = "", 0.0
        else:
            row = Row(slow.glob, suite.name, "", "bigger", 0, 0, -slow.loss, -1, 0, "regressed",
                      cfg.threshold, 0)  # fmt: skip
            launches = run.launches(suite, row, sides, pins, None, Rounds(), logs)
            t0 = time.monotonic()
            try:
                traces = logs / "traces" / slow.glob.replace("/", "_")
                found = measure.measure(
                    launches, slow.glob, timeout=suite.timeout, trace_dir=traces
                )
                entry = run.entry(classify.classify(found["base"], found["head"]), found)
            except measure.Failed as e:
                entry = {"status": text.FAILED, "reason": str(e)}
            seconds = time.monotonic() - t0
            kinds = entry.get("kinds") or [{}]
            named = kinds[0].get("kind", "")
        right += named == slow.diagnosis
        line = text.line(entry)
        print(f"{slow.glob}\tdeclared {slow.diagnosis}\tnamed {named or '—'}\t{seconds:.1f} s\t"
              f"{line}", flush=True)  # fmt: skip
        report.append({"benchmark": slow.glob, "declared": slow.diagnosis, "named": named,
                       "right": named == slow.diagnosis, "seconds": round(seconds, 1),
                       "line": line, "diagnosis": entry})  # fmt: skip
    print(f"{right} of {len(plan)} named the declared kind first", flush=True)
    out = args.out or home / "report.json"
    doc = {"base": made.base, "head": made.head, "kind": args.kind, "right": right,
           "of": len(plan), "seconds": round(sum(b["seconds"] for b in report), 1),
           "cpus": len(os.sched_getaffinity(0)),
           # the machine's load average (1, 5, 15 min) before and after: how busy other work
           # kept its CPUs (lost parallelism costs little where they are all busy)
           "load": {"before": load_before, "after": os.getloadavg()},
           "benchmarks": report}  # fmt: skip
    atomic_write(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BadInput as e:
        print(f"diagnose_selftest: {e}", file=sys.stderr)
        sys.exit(2)
