"""The gate's diagnosis on a patches file's slowdowns: does it name the kind each one declares?

    uv run --frozen python tracker/bench/diagnose_selftest.py [--patches FILE]
        [--kind wait|work|all] [--only REGEX] [--profile] [--out FILE] [--build-only]
    uv run --frozen python tracker/bench/diagnose_selftest.py --reclassify REPORT [--out FILE]

Clones HEAD twice under target/diagnose-selftest/<the patches file's name>/ (`base` as it is,
`head` with the chosen patches committed, as `gate-selftest` makes its PR), builds the lockstep
suites that step the slowed benchmarks on both sides (build caches kept there across runs;
--build-only stops there), and for each slowed benchmark
with a `diagnosis` in the patches file runs the gate's diagnosis exactly as the gate does after a
verdict (gate/diagnose/run.py's launches, measure.py, classify.py). The patches file is
[gate.selftest]'s (tracker/bench/selftest-patches.toml) or --patches (the held-out set,
tracker/bench/diagnose-heldout.toml), in the format of benchtrack/selftest/patches.py.

For each benchmark it prints and reports (`score`): the kind named first beside the declared one;
whether one of its `names` (a syscall or function) is named anywhere in the diagnosis; the
kinds named that the change does not cause (neither the declared one nor its `also`: a false
kind); its line and the diagnosis's seconds. The JSON report (each benchmark's line, evidence,
score and seconds, and `traced`: each side's traced step's seconds a call over its untraced
steps', what strace cost it; the counts, the machine's CPUs and load average) goes to --out (default
report.json beside the clones). Not a gate run: no rounds, no verdict, so each diagnosis
is of a slowdown the patch knows is there. Exit 0 when it ran (the counts are the result), 2 on
bad input. --reclassify REPORT classifies a report's evidence again with today's classify.py
and scores it against its patches file as it is now: no run, the same evidence (what a change
to the rules does to measured runs). --only REGEX diagnoses only the slowed benchmarks it
matches (and builds only their suites); --profile takes each Python benchmark's wall-time
profile too, as the gate does (py-spy: profile_diff.py), its files under the clones'
`profiles/` and its entry in the report (what the profile adds: the seconds, with and without).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from benchtrack import git
from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.gate import config, suite_run, worktree
from benchtrack.gate.diagnose import classify, measure, run, text
from benchtrack.gate.diagnose.evidence import Evidence
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


def named_names(entry: dict[str, Any]) -> list[str]:
    """Every syscall and function the diagnosis names, in the line's order."""
    out: list[str] = []
    for kind in entry.get("kinds") or []:
        out += [s["name"] for s in kind.get("syscalls") or []]
        out += [f["function"] for f in kind.get("functions") or []]
    return out


def score(slow: selftest_patches.Slow, entry: dict[str, Any]) -> dict[str, Any]:
    """The diagnosis `entry` against what `slow` declares: the kind named first and whether it
    is the declared one; whether one of `slow.names` is named (None: none declared); the kinds
    named that the change does not cause (false kinds)."""
    kinds = [k.get("kind", "") for k in entry.get("kinds") or []]
    named = kinds[0] if kinds else ""
    names = named_names(entry)
    return {
        "declared": slow.diagnosis,
        "named": named,
        "right": named == slow.diagnosis,
        "names": list(slow.names),
        "named_names": names,
        "names_right": any(n in names for n in slow.names) if slow.names else None,
        "false_kinds": [k for k in kinds if k != slow.diagnosis and k not in slow.also],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--patches", type=Path, help="a patches file (default: [gate.selftest]'s)")
    p.add_argument("--kind", choices=("wait", "work", "all"), default="wait")
    p.add_argument("--only", help="a regular expression: the slowed benchmarks to diagnose")
    p.add_argument("--profile", action="store_true", help="the wall-time profile too (py-spy)")
    p.add_argument("--out", type=Path)
    p.add_argument("--build-only", action="store_true", help="build both sides, then stop")
    p.add_argument("--reclassify", type=Path, help="a report to classify again (no run)")
    args = p.parse_args(argv)
    if args.reclassify is not None:
        return reclassify(args.reclassify, args.out)
    root = worktree.repo_root(Path.cwd())
    cfg = config.load(root / config.CONFIG_NAME)
    if args.patches is not None:
        source = args.patches.resolve()
    elif cfg.selftest_patches:
        source = root / cfg.selftest_patches
    else:
        raise BadInput(root / config.CONFIG_NAME, "gate.selftest.patches", "the patches file")
    by_kind = selftest_patches.load(source)
    chosen = tuple(p for k, ps in by_kind.items() if args.kind in (k, "all") for p in ps)
    slows = [s for p in chosen for s in p.slows if s.diagnosis]
    if args.only:
        try:
            only = re.compile(args.only)
        except re.error as e:
            raise BadInput("--only", None, f"a regular expression ({e})", args.only) from None
        slows = [s for s in slows if only.search(s.glob)]
    if not slows:
        raise BadInput(source, "slows", "a slowdown with a `diagnosis`")
    suites = cfg.select(None)
    home = root / "target" / "diagnose-selftest" / source.stem
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
    pins = suite_run.toolchain_pins(made.path)
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
            env = suite_run.child_env(co, suite, pins, None, False, sides[0].cache)
            suite_run.build(suite, co, env, logs / f"build-{co.side}-{suite.name}.log")
        built.add(suite.build)
    if args.build_only:
        return 0
    report = []
    load_before = os.getloadavg()
    for slow, suite in plan:
        if suite is None:
            entry = {"status": text.NOT_RUN, "reason": "no lockstep suite steps it by that name"}
            seconds = 0.0
        else:
            row = Row(slow.glob, suite.name, "", "bigger", 0, 0, -slow.loss, -1, 0, "regressed",
                      cfg.threshold, 0)  # fmt: skip
            launches = run.launches(suite, row, sides, pins, None, Rounds(), logs)
            t0 = time.monotonic()
            try:
                traces = logs / "traces" / slow.glob.replace("/", "_")
                samples = logs / "samples" / slow.glob.replace("/", "_")
                found = measure.measure(
                    launches, slow.glob, timeout=suite.timeout, trace_dir=traces,
                    profile_dir=samples if args.profile else None,
                )  # fmt: skip
                entry = run.entry(classify.classify(found["base"], found["head"]), found)
                if args.profile:
                    entry["profile"] = run.profile(slow.glob, found, home / "profiles")
            except measure.Failed as e:
                entry = {"status": text.FAILED, "reason": str(e)}
            seconds = time.monotonic() - t0
        report.append(scored_entry(slow, entry, seconds))
    out = args.out or home / "report.json"
    doc = {"patches": shown(source, root), "base": made.base, "head": made.head,
           "kind": args.kind, "only": args.only, "profile": args.profile, **counts(report),
           "cpus": len(os.sched_getaffinity(0)),
           # the machine's load average (1, 5, 15 min) before and after: how busy other work
           # kept its CPUs (lost parallelism costs little where they are all busy)
           "load": {"before": load_before, "after": os.getloadavg()},
           "benchmarks": report}  # fmt: skip
    atomic_write(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    return 0


def shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def scored_entry(slow: selftest_patches.Slow, entry: dict[str, Any], seconds: float):
    """A benchmark's row of the report (printed as a line too)."""
    scored = score(slow, entry)
    line = text.line(entry)
    print(f"{slow.glob}\tdeclared {slow.diagnosis}\tnamed {scored['named'] or '—'}\t"
          f"names {scored['names_right']}\tfalse {scored['false_kinds']}\t{seconds:.1f} s\t"
          f"{line}", flush=True)  # fmt: skip
    return {"benchmark": slow.glob, **scored, "seconds": round(seconds, 1), "line": line,
            "traced": traced(entry), "diagnosis": entry}  # fmt: skip


def traced(entry: dict[str, Any]) -> dict[str, float]:
    """Each side's traced step's seconds a call over its untraced steps': what strace cost."""
    sides = entry.get("sides") or {}
    return {side: round(e["traced_wall"] / e["wall"], 2) for side, e in sides.items()
            if e.get("traced_wall") and e.get("wall")}  # fmt: skip


def counts(report: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's counts: kinds right first, declared names named, false kinds, seconds."""
    right = sum(b["right"] for b in report)
    with_names = [b for b in report if b["names_right"] is not None]
    names_right = sum(b["names_right"] for b in with_names)
    false = sum(bool(b["false_kinds"]) for b in report)
    print(f"{right} of {len(report)} named the declared kind first; {names_right} of "
          f"{len(with_names)} named a declared syscall or function; {false} named a false kind",
          flush=True)  # fmt: skip
    return {"right": right, "of": len(report), "names_right": names_right,
            "names_of": len(with_names), "false_kinds": false,
            "seconds": round(sum(b["seconds"] for b in report), 1)}  # fmt: skip


def reclassify(report_path: Path, out: Path | None) -> int:
    """The report's evidence classified again by today's rules, scored against its patches."""
    root = worktree.repo_root(Path.cwd())
    doc = orjson.loads(report_path.read_bytes())
    source = root / doc["patches"]
    slows = {s.glob: s for ps in selftest_patches.load(source).values() for p in ps
             for s in p.slows}  # fmt: skip
    report = []
    for b in doc["benchmarks"]:
        entry = b["diagnosis"]
        sides = entry.get("sides")
        if sides:
            found = {side: Evidence(**e) for side, e in sides.items()}
            entry = run.entry(classify.classify(found["base"], found["head"]), found)
        report.append(scored_entry(slows[b["benchmark"]], entry, b["seconds"]))
    again = {**doc, **counts(report), "reclassified": shown(report_path.resolve(), root),
             "benchmarks": report}  # fmt: skip
    target = out or report_path.with_name(report_path.stem + "-reclassified.json")
    atomic_write(target, orjson.dumps(again, option=orjson.OPT_INDENT_2) + b"\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BadInput as e:
        print(f"diagnose_selftest: {e}", file=sys.stderr)
        sys.exit(2)
