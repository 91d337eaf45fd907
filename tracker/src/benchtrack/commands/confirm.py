"""`benchtrack confirm [HISTORY]`: the change-point events not yet checked on this runner size,
each measured with the gate's lockstep A/B (the commit before vs the commit after), the outcome
appended to `bench/confirmations.json`; a confirmed step over several merges bisected to one."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from benchtrack import git, suites
from benchtrack.commands import flags
from benchtrack.confirm import bisect, measure, status, store
from benchtrack.dashboard import read, site
from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, BadInput
from benchtrack.fsutil import output_dir
from benchtrack.history import publish
from benchtrack.result import runner_key

NAME = "confirm"
HELP = (
    "check change points on main's history with the gate's lockstep A/B (before vs after, this "
    "runner size), bisect confirmed ones, append the outcomes to bench/confirmations.json"
)
MOST = 5


HISTORY = "a history directory with bench/changes.json (with --publish: gh-pages on origin)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("history", nargs="?", type=Path, metavar="HISTORY", help=HISTORY)
    p.add_argument(
        "--publish",
        action="store_true",
        help="read gh-pages from origin, then commit the checks and the rebuilt dashboard there "
        "(push with retry)",
    )
    p.add_argument("--branch", default=publish.BRANCH, help="the history's branch (--publish)")
    p.add_argument(
        "--runner",
        help="the runner key these A/Bs stand for (default <BENCHTRACK_RUNNER_LABEL>-"
        "<BENCHTRACK_RUNNER_CPUS>cpu)",
    )
    flags.add_cpus(p, "the gate's --cpus (default: $BENCH_TASKSET)")
    p.add_argument("--most", type=int, default=MOST, help=f"most events checked (default {MOST})")
    p.add_argument("--list", action="store_true", help="list the events to check; measure none")
    p.add_argument("--no-bisect", action="store_true", help="do not bisect confirmed ranges")
    p.add_argument(
        "--gate-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="one more argument for every `benchtrack gate` run (repeatable), e.g. --rounds=6",
    )
    p.add_argument(
        "--out", type=Path, help="directory for each A/B's gate.json (default target/bench/confirm)"
    )
    flags.add_json(p, "the new checks")


def _runner(args: argparse.Namespace) -> str:
    if args.runner:
        return args.runner
    label, cpus = (
        os.environ.get("BENCHTRACK_RUNNER_LABEL"),
        os.environ.get("BENCHTRACK_RUNNER_CPUS"),
    )
    if not label or not (cpus or "").isdigit():
        raise BadInput("--runner", None, "a runner key (or BENCHTRACK_RUNNER_LABEL and _CPUS)")
    return runner_key(label, int(cpus))


def gate_cpus(taskset: str) -> str:
    """A taskset list (BENCH_TASKSET, or --cpus's CPUs) as the gate's --cpus reads a list: one
    CPU `k` alone would read as a count (k CPUs, none for CPU 0), so it goes as `k-k`."""
    return f"{taskset}-{taskset}" if taskset.isdigit() else taskset


def read_events(history: Path) -> list[dict[str, Any]]:
    """changes.json's events (detect/events.py), checked for what confirm reads."""
    path = history / "bench" / "changes.json"
    if not path.is_file():
        raise BadInput(path, None, "the change points `benchtrack detect HISTORY --write` writes")
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, "valid JSON", str(error)) from None
    events = doc.get("events") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        raise BadInput(path, "events", "a list (written by `benchtrack detect --write`)")
    for i, e in enumerate(events):
        ok = (
            isinstance(e, dict)
            and isinstance(e.get("benchmark"), str)
            and isinstance(e.get("regression"), bool)
            and isinstance(e.get("runners"), list)
            and isinstance(e.get("parts"), list)
            and all(isinstance(p, dict) and isinstance(p.get("runner"), str) for p in e["parts"])
        )
        if not ok:
            raise BadInput(path, f"events[{i}]", "{benchmark, regression, runners, parts}")
    return events


def _known(repo: Path, *commits: str) -> bool:
    return all(
        git.run(repo, "cat-file", "-e", f"{c}^{{commit}}", check=False).returncode == 0
        for c in commits
    )


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _run_url() -> str | None:
    server, repo, run = (
        os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else None


def check_one(
    repo: Path,
    event: dict[str, Any],
    base: str,
    head: str,
    runner: str,
    out: Path,
    extra: list[str],
    do_bisect: bool,
    say,
) -> dict[str, Any] | None:
    """The check of `event` on `runner` (None: the gate could not measure it)."""
    b = event["benchmark"]
    say(f"{b} on {runner}: {base[:12]}..{head[:12]}")
    gated = measure.gate(repo, base, head, b, out / "ab", extra)
    if measure.stepped(gated, b) is None:
        say(f"  not measured (gate exit {gated.code}):\n{gated.tail}")
        return None
    rows = measure.rows(gated.doc or {}, b)
    found = measure.outcome(rows)
    check: dict[str, Any] = {
        "event": event.get("id") or f"{b}@{head}",
        "benchmark": b,
        "runner": runner,
        "base": base,
        "head": head,
        "expected": status.expected(event),
        "outcome": found,
        "confirmed": found == status.expected(event),
        "rows": rows,
        "checked": _now(),
        "run": _run_url(),
        "culprit": None,
    }
    say(f"  {found}" + (" (confirmed)" if check["confirmed"] else ""))
    commits = bisect.merges(repo, base, head) if check["confirmed"] else []
    if len(commits) == 1:
        check["culprit"] = _culprit(repo, commits[0], [])
    elif len(commits) > 1 and do_bisect:

        def probe(commit: str) -> bool | None:
            say(f"  bisect: {base[:12]} vs {commit[:12]}")
            g = measure.gate(repo, base, commit, b, out / f"probe-{commit[:12]}", extra)
            shown = measure.stepped(g, b)
            return None if shown is None else measure.outcome(measure.rows(g.doc or {}, b)) == found

        result = bisect.search(commits, probe)
        probes = [{"commit": c, "stepped": s} for c, s in result.probes]
        if result.culprit:
            check["culprit"] = _culprit(repo, result.culprit, probes)
            say(f"  the step is {result.culprit[:12]}")
        else:
            check["range"] = {"from": commits[result.low], "to": commits[result.high]}
            check["probes"] = probes
    return check


def _culprit(repo: Path, commit: str, probes: list[dict[str, Any]]) -> dict[str, Any]:
    message = bisect.subject(repo, commit)
    return {
        "commit": commit,
        "pr": bisect.pr_number(message),
        "subject": message.strip().splitlines()[0] if message.strip() else "",
        "probes": probes,
    }


def run(args: argparse.Namespace) -> int:
    if args.most < 1:
        raise BadInput("--most", None, "at least 1 event", args.most)
    if args.publish == (args.history is not None):
        raise BadInput("benchtrack confirm", "HISTORY", "a history directory, or --publish")
    runner = _runner(args)
    extra = list(args.gate_arg)
    cpus = args.cpus.taskset if args.cpus else os.environ.get("BENCH_TASKSET", "").strip()
    if cpus:
        extra += ["--cpus", gate_cpus(cpus)]
    repo = Path.cwd()
    out = output_dir("--out", args.out or repo / "target" / "bench" / "confirm")
    say = lambda msg: print(f"benchtrack confirm: {msg}", file=sys.stderr)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="benchtrack-confirm-") as tmp:
        if args.publish:
            publish.fetch_branch(repo, branch=args.branch)
            history = publish.snapshot(repo, args.branch, Path(tmp) / "history")
        else:
            history = args.history
            if not history.is_dir():
                raise BadInput(history, None, "a history directory")
        events = read_events(history)
        checks = store.read(store.path_of(history))  # a damaged file stops here: exit 2
        todo = [(e, s) for e, s in status.to_check(events, checks, runner) if _known(repo, *s)][
            : args.most
        ]
        if args.list:
            for e, (base, head) in todo:
                print(f"{e['benchmark']}\t{runner}\t{base}\t{head}")
            return EXIT_OK
        new, failed = [], 0
        for n, (event, (base, head)) in enumerate(todo):
            found = check_one(
                repo, event, base, head, runner, out / str(n), extra, not args.no_bisect, say
            )
            if found is None:
                failed += 1
                continue
            new.append(found)
            if not args.publish:  # each check kept as soon as it is made
                store.append(store.path_of(history), [found])
        if args.publish and new:
            _publish(repo, Path(tmp) / "site", new, args.branch)
    if args.json:
        flags.print_json({"runner": runner, "checks": new, "not_measured": failed})
    else:
        say(f"{len(new)} checked, {failed} not measured, on {runner}")
    return EXIT_BENCHMARK_FAILED if failed else EXIT_OK


def _publish(repo: Path, work: Path, new: list[dict[str, Any]], branch: str) -> None:
    """The checks appended to gh-pages' confirmations.json and the dashboard rebuilt, on the
    newest tip (a lost push race starts over from the new tip: nothing of another's is lost)."""
    config = Path("benchtrack.toml")
    order = suites.order(config) if config.is_file() else ()

    def build(history: Path) -> None:
        store.append(store.path_of(history), new)
        with read.open_history(str(history)) as opened:
            site.build_site(opened, history, order=order)

    publish.publish_site(repo, work, build, branch=branch)
