"""A real, timed `benchtrack confirm` run on a local clone of this repository (issue 47's time bar).

    uv run --frozen python tracker/bench/confirm_timed.py [--work DIR] [--bisect [--warm]]
        [--report FILE]

Builds the setup, then runs the command as confirm.yml's step does (`benchtrack confirm`, the real
gate for every A/B), timed:

- a clone of this repository's HEAD (its real suites: rust, python, perl) in `DIR/repo`, and on its
  main a short history of merges ("Merge pull request #N"), each a branch merged with --no-ff:
  some apply one of gate-selftest's slowdowns (tracker/bench/selftest-patches.toml: real code doing
  more work than a benchmark declares), the others change a comment in a suite's source (the gate
  measures them: a comment is not in `[gate] skip_paths`, and rebuilds);
- a history directory `DIR/pages` (gh-pages' `bench/`) whose `changes.json` events name the
  candidates: by default (`five`) 5 of them, each on one merge: 3 real steps (a Rust, a Python and
  a Perl benchmark each slowed 20% by its merge) and 2 blips (a benchmark at a merge that changed a
  comment only); with `--bisect`, one step event spanning 8 merges, the 6th of them the slowdown
  (python/sleep/awaited: longer sleeps), which a confirmed check bisects in lockstep (3 probes).

Then `python -m benchtrack confirm DIR/pages --runner local-2cpu --json --out DIR/out` in the clone
(the history as a directory rather than `--publish`: no origin; the publish itself is a commit
and a push, test_confirm covers it; no `--idle-sudo`: run as root, the gate holds the idle
states polling without it, as gate.json's `idle` says). The gate's caches (`target/gate/` of
the clone: each side's cargo target dir and venv) start empty, as on a CI runner (confirm.yml
restores no gate cache); the machine's cargo registry and uv cache are warm (CI's setup step
fetches them). `--warm` keeps DIR's clone from a previous run with its gate caches (what a
runner restoring them would have), puts its main back at the commit it was cloned at and makes
the merges again.

The report (JSON, `--report`): the wall time, each gate's (the A/B of each candidate, each bisect
probe: the suites it built and ran, its seconds, builds, rounds, confirmation stage), the
outcomes against the truth, and the machine: CPUs, model, `/proc/loadavg` before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchtrack.detect import events
from benchtrack.detect.publish import SCHEMA as CHANGES_SCHEMA
from benchtrack.selftest import patches

ROOT = Path(__file__).resolve().parents[2]
RUNNER = "local-2cpu"
PATCHES = ROOT / "tracker" / "bench" / "selftest-patches.toml"
# the slowdowns used, by the file they patch: (file, the benchmark the event names, its loss)
STEPS = {
    "perl": ("perl/lib/CoroBench/Suite.pm", "perl/coro/pool_chan/trivial"),
    "python": ("python/src/asyncio_patterns/cpu.py", "python/cpu/sequential"),
    "rust": ("rust/patterns/benches/streams.rs", "rust/streams/async_next"),
    "bisect": ("python/src/asyncio_patterns/sleep.py", "python/sleep/awaited"),
}
# comment-only changes: (file, its comment syntax)
COMMENTS = {
    "python": ("python/src/asyncio_patterns/sleep.py", "#"),
    "rust": ("rust/patterns/src/walk.rs", "//"),
    "perl": ("perl/lib/CoroBench/Suite.pm", "#"),
    "python-cpu": ("python/src/asyncio_patterns/cpu.py", "#"),
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def merge(repo: Path, number: int, name: str, change) -> str:
    """A branch off main with one commit (`change(repo)` edits the checkout), merged into main
    with --no-ff as GitHub's merge button does; the merge's sha."""
    git(repo, "checkout", "-q", "-B", name, "main")  # -B: a --warm clone has the names
    change(repo)
    git(repo, "commit", "-q", "-am", name.replace("-", " "))
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from lab/{name}", name)
    return git(repo, "rev-parse", "HEAD")


def slowdown(path: str):
    [patch] = [p for p in patches.load(PATCHES)["work"] if p.path == path]
    return lambda repo: patches.apply(patch, repo)


def comment(key: str, n: int):
    path, mark = COMMENTS[key]

    def edit(repo: Path) -> None:
        with (repo / path).open("a") as f:
            f.write(f"{mark} lab: a comment, no change ({n})\n")

    return edit


def change(series: str, commit: str, base: str, at: int) -> dict[str, Any]:
    """A change point as detect writes one (a 20% loss of throughput), on the runner size."""
    return {
        "series": series,
        "runner": RUNNER,
        "commit": commit,
        "base": base,
        "change": -0.2,
        "before": 100.0,
        "after": 80.0,
        "unit": "items/s",
        "regression": True,
        "first_seen": f"2026-04-{at:02d}T00:00:00Z",
    }


def build_five(repo: Path) -> tuple[list[dict], dict[str, str]]:
    """5 merges, each a candidate: 3 steps, 2 blips (oldest first); the truth per benchmark."""
    plan = [
        ("perl", "slower-perl-pool", slowdown(STEPS["perl"][0]), STEPS["perl"][1], True),
        ("python", "comment-sleep", comment("python", 1), "python/sleep/gather", False),
        ("python", "slower-python-cpu", slowdown(STEPS["python"][0]), STEPS["python"][1], True),
        ("rust", "comment-walk", comment("rust", 2), "rust/streams/iterator", False),
        ("rust", "slower-rust-streams", slowdown(STEPS["rust"][0]), STEPS["rust"][1], True),
    ]
    changes, truth = [], {}
    for i, (_, name, edit, benchmark, real) in enumerate(plan):
        base = git(repo, "rev-parse", "HEAD")
        head = merge(repo, 101 + i, name, edit)
        changes.append(change(benchmark, head, base, i + 1))
        truth[benchmark] = {"real": real, "merge": head, "pr": 101 + i, "subject": name}
    return changes, truth


def build_bisect(repo: Path) -> tuple[list[dict], dict[str, str]]:
    """8 merges, the 6th a Python slowdown (longer sleeps), the others comments; one event over
    all 8."""
    base = git(repo, "rev-parse", "HEAD")
    keys = ["python", "rust", "perl", "python", "python-cpu", None, "rust", "perl"]
    step = None
    for i, key in enumerate(keys):
        if key is None:
            step = merge(repo, 201 + i, "slower-python-sleep", slowdown(STEPS["bisect"][0]))
        else:
            merge(repo, 201 + i, f"comment-{i + 1}", comment(key, i + 1))
    head = git(repo, "rev-parse", "HEAD")
    benchmark = STEPS["bisect"][1]
    truth = {benchmark: {"real": True, "merge": step, "pr": 206, "subject": "slower-python-sleep"}}
    return [change(benchmark, head, base, 1)], truth


def setup(work: Path, bisect: bool, warm: bool) -> tuple[Path, Path, dict]:
    """The clone and its merges, the history; `warm`: the clone of a previous run kept (its
    gate caches, as a runner restoring them would have), the new merges on top of its main."""
    repo, pages = work / "repo", work / "pages"
    if warm and repo.is_dir():
        shutil.rmtree(pages, ignore_errors=True)
        shutil.rmtree(work / "out", ignore_errors=True)
        # main back to the commit it was cloned at (the merges are made again: a slowdown's
        # patch applies once); target/gate, untracked, keeps what the previous run built
        start = git(repo, "rev-parse", "refs/remotes/origin/HEAD")
        git(repo, "checkout", "-q", "-B", "main", start)
    else:
        shutil.rmtree(work, ignore_errors=True)
        branch = git(ROOT, "branch", "--show-current")
        git(ROOT, "clone", "-q", "--no-local", "--branch", branch, str(ROOT), str(repo))
        git(repo, "checkout", "-q", "-B", "main")
        git(repo, "config", "user.name", "lab")
        git(repo, "config", "user.email", "lab@example.invalid")
    changes, truth = (build_bisect if bisect else build_five)(repo)
    position = {c["commit"]: i for i, c in enumerate(changes)}
    doc = {"schema": CHANGES_SCHEMA, "changes": changes, "events": events.group(changes, position)}
    (pages / "bench").mkdir(parents=True)
    (pages / "bench" / "changes.json").write_text(json.dumps(doc, indent=1))
    return repo, pages, truth


def gates(out: Path) -> list[dict[str, Any]]:
    """Each gate.json under `out` (an A/B or a probe), the figures of its time."""
    found = []
    for path in sorted(out.glob("*/*/gate.json"), key=lambda p: p.stat().st_mtime):
        doc = json.loads(path.read_text())
        confirm, rounds = doc.get("confirm") or {}, doc.get("rounds") or {}
        found.append(
            {
                "gate": str(path.parent.relative_to(out)),
                "suites": doc.get("suites"),  # built and run; the filter left the rest out
                "seconds": doc.get("seconds"),
                "gate_seconds": doc.get("gate_seconds"),
                "build_seconds": rounds.get("build_seconds"),
                "round_seconds": rounds.get("round_seconds"),
                "confirm_rounds": confirm.get("rounds"),
                "confirm_seconds": confirm.get("seconds"),
                "verdicts": {b["name"]: b.get("verdict") for b in doc.get("benchmarks", [])},
            }
        )
    return found


def machine() -> dict[str, Any]:
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")), platform.processor(),
    )  # fmt: skip
    return {"cpus": os.cpu_count(), "model": model}


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, default=Path("/tmp/benchtrack-confirm-timed"))
    p.add_argument("--bisect", action="store_true", help="one step over 8 merges, bisected")
    p.add_argument("--report", type=Path, help="write the report (JSON) here")
    p.add_argument(
        "--warm", action="store_true", help="keep DIR's clone and its gate caches (a CI cache)"
    )
    args = p.parse_args()
    started = time.monotonic()
    repo, pages, truth = setup(args.work, args.bisect, args.warm)
    setup_seconds = time.monotonic() - started
    before = loadavg()
    argv = [sys.executable, "-m", "benchtrack", "confirm", str(pages), "--runner", RUNNER]
    argv += ["--json", "--out", str(args.work / "out")]
    env = {**os.environ, "NO_COLOR": "1"}
    t0 = time.monotonic()
    proc = subprocess.run(argv, cwd=repo, capture_output=True, text=True, env=env, check=False)
    wall = time.monotonic() - t0
    after = loadavg()
    sys.stderr.write(proc.stderr[-4000:])
    made = json.loads(proc.stdout)["checks"] if proc.stdout.strip() else []
    outcomes = []
    for c in made:
        real = truth[c["benchmark"]]
        culprit = (c.get("culprit") or {}).get("commit")
        outcomes.append(
            {
                "benchmark": c["benchmark"],
                "real_step": real["real"],
                "outcome": c["outcome"],
                "confirmed": c["confirmed"],
                "right": c["confirmed"] == real["real"]
                and (not real["real"] or culprit == real["merge"]),
                "culprit_pr": (c.get("culprit") or {}).get("pr"),
                "true_pr": real["pr"] if real["real"] else None,
                "probes": len((c.get("culprit") or {}).get("probes") or c.get("probes") or []),
                "change": [r.get("change") for r in c["rows"]],
            }
        )
    report = {
        "command": " ".join(["benchtrack", *argv[3:]]),
        "mode": "bisect-8" if args.bisect else "five",
        "exit": proc.returncode,
        "wall_seconds": round(wall, 1),
        "setup_seconds": round(setup_seconds, 1),
        "gates": gates(args.work / "out"),
        "outcomes": outcomes,
        "machine": {**machine(), "loadavg_before": before, "loadavg_after": after},
        "caches": (
            "warm gate caches (target/gate kept from a previous run)"
            if args.warm
            else "cold gate caches (target/gate of a fresh clone)"
        )
        + "; warm cargo registry and uv cache",
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.report:
        args.report.write_text(text + "\n")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
