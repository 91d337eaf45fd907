"""`benchtrack bench-local`: run the suites here, compare with the last local run, keep history.

The suites are benchtrack.toml's `[bench.suites.<name>]` tables (benchtrack.suites), in order.
For each runner size (this machine, or each `--cpus` pinned with taskset: `--cpus 2` is CPUs 0-1,
`--cpus 0,2` those two; `--cpus 1 --cpus 2` runs twice) and each suite: run its `build` (if any)
and `command` with progress, ingest its `raw` output with its `adapter` into a result document,
compare it with the previous local run of the same runner key, then append everything to the
local history and rebuild the dashboard there. A `companion` suite counts instructions of other
suites' benchmarks and stores them as their companion series `<name> (instructions)`
(benchtrack.history.companion).

Where things go:
- result documents: `target/bench/results/<suite>.json` (`.../<runner-key>/<suite>.json` with
  several `--cpus`); suite logs: `target/bench/logs/<runner-key>/<suite>.log`;
- the previous run, for the next comparison: `.bench/last/<runner-key>/<suite>.json` (the
  history's data.js keeps no samples, and `target/` is wiped by `cargo clean`);
- the history: `.bench/history/bench/<runner-key>/data.js`, the dashboard beside it; after the
  append, entries `[history.retention]` of ./benchtrack.toml no longer keeps move to archive.js.

A suite that fails is reported and the others still run; the exit code is then 3. Otherwise 1
when a benchmark regressed beyond the threshold against the previous run, else 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from benchtrack import detect, suites
from benchtrack.commands import flags
from benchtrack.commands.compare import add_report_arguments, exit_code, print_report
from benchtrack.commands.ingest import add_metadata_arguments
from benchtrack.compare import SuiteComparison, compare_documents
from benchtrack.dashboard import read, site
from benchtrack.errors import EXIT_OK, EXIT_REGRESSION, BadInput, BenchtrackError
from benchtrack.gate import suite_run
from benchtrack.history import new_entries, open_store
from benchtrack.history.archive import describe
from benchtrack.history.companion import as_companion
from benchtrack.history.retention import load as load_retention
from benchtrack.ingest import ingest, names_own_suite
from benchtrack.machine.cpuset import CpuSet
from benchtrack.machine.runner import detect_commit, detect_runner, now_utc, parse_cpus
from benchtrack.report.terminal import console
from benchtrack.result import BenchError, Commit, ResultDocument, Runner
from benchtrack.suites import Suite

NAME = "bench-local"
HELP = "Run the suites here with progress, compare with the previous local run, keep history"


CONFIG = Path(suites.CONFIG_NAME)  # at the repository root, where bench-local runs
RESULTS = Path("target/bench/results")
LOGS = Path("target/bench/logs")
LAST = Path(".bench/last")
HISTORY = Path(".bench/history")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=CONFIG,
        help=f"the suites' config (default ./{CONFIG})",
    )
    parser.add_argument(
        "--suite",
        help=f"comma-separated suites to run (default: every [bench.suites.<name>] of {CONFIG}, "
        "in order)",
    )
    parser.add_argument(
        "--filter",
        default=os.environ.get("BENCH_FILTER") or None,
        help="benchmark name filter for the harnesses (default: $BENCH_FILTER)",
    )
    parser.add_argument(
        "--profile",
        choices=("quick", "full"),
        default=os.environ.get("BENCH_PROFILE") or "quick",
        help="quick (default, or $BENCH_PROFILE) or full (the harnesses' own defaults)",
    )
    flags.add_cpus(
        parser,
        "run pinned, each --cpus its own runner size (repeat it: --cpus 1 --cpus 2)",
        repeat=True,
    )
    parser.add_argument(
        "--history",
        type=Path,
        default=HISTORY,
        help=f"local history directory (default {HISTORY})",
    )
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="results only: no comparison with the last run, no history (CI: publish appends)",
    )
    parser.add_argument(
        "--raw-command",
        help="command run per suite to produce its raw output, {suite} replaced (default: the "
        f"suite's `command` in {CONFIG})",
    )
    add_metadata_arguments(parser)
    add_report_arguments(parser)


@dataclass
class SuiteRun:
    suite: str
    runner: Runner
    doc: ResultDocument | None
    results: Path
    comparison: SuiteComparison | None = None
    previous: bool = False


def run(args: argparse.Namespace) -> int:
    flags.check_markdown(args)
    declared = suites.load(args.config)
    chosen = _suites(args.suite, declared, args.config)
    cpu_sets = _cpu_sets(args.cpus)
    label_cpus = parse_cpus(args.runner_cpus, "--runner-cpus") if args.runner_cpus else None
    git = detect_commit(args.commit)
    # checked before minutes of measuring: a bad retention or history is exit 2 with nothing
    # run or written (the last run, kept for the next comparison, included)
    args.retention = None if args.no_history else load_retention(args.config)
    if not args.no_history and not args.filter:
        _check_history(args.history)
    out = console(stderr=args.json or flags.markdown_on_stdout(args))
    if git.dirty:
        out.print(
            f"note: the working tree has uncommitted changes; results are labelled "
            f"{git.commit.id[:12]}",
            markup=False,
        )
    runs: list[SuiteRun] = []
    for cpus in cpu_sets:
        runner = detect_runner(args.runner_label, cpus.count if cpus else label_cpus)
        for spec in chosen:
            suite = spec.name
            results = RESULTS / (f"{runner.key}/" if len(cpu_sets) > 1 else "") / f"{suite}.json"
            doc = _measure(spec, runner, cpus, git.commit, args, out)
            doc.dump(results)
            run = SuiteRun(suite, runner, doc, results)
            runs.append(_compare(run, args.threshold, out, baseline=not args.no_history))
    comparisons = [r.comparison for r in runs if r.comparison is not None]
    print_report(comparisons, args)
    for r in runs:
        if not r.previous:
            out.print(
                f"{r.suite} on {r.runner.key}: no previous local run to compare with "
                f"(this one is kept in {LAST / r.runner.key})",
                markup=False,
            )
    _append_history(runs, args, out)
    code = exit_code(comparisons)
    if code == EXIT_REGRESSION:
        # Two separate runs differ by more than either run's own spread (measured: 12 of 80
        # benchmarks "regressed" re-running one commit on a quiet machine), so this comparison
        # shows changes; judging them is the interleaved gate's job.
        out.print(
            "note: separate runs differ by more than each run's ±; to confirm a regression, "
            "run base and head interleaved: cargo make gate -- --base <ref>",
            markup=False,
        )
        return EXIT_OK
    return code


def _check_history(history: Path) -> None:
    """The history this run will append to, as `validate-history` checks it: a data.js that
    could not take the append (or that CI's publish would refuse) is found before measuring."""
    if not history.exists():
        return  # the first run makes it
    problems = open_store(history).validate()
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise BadInput(
            history,
            None,
            "a valid history to append to (benchtrack validate-history lists its problems; "
            "nothing was run)",
            "; ".join(problems[:3]) + more,
        )


def _suites(text: str | None, declared: dict[str, Suite], config: Path) -> list[Suite]:
    if text is None:
        return list(declared.values())
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in declared]
    if unknown or not names:
        expected = f"a comma-separated subset of {','.join(declared)} ({config})"
        raise BadInput("--suite", None, expected, text)
    return [declared[n] for n in names]


def _cpu_sets(given: list[CpuSet] | None) -> list[CpuSet | None]:
    """One per runner size; None: run unpinned, on whatever CPUs this process may use."""
    if not given:
        return [None]
    counts = [c.count for c in given]
    twice = next((c for c in given if counts.count(c.count) > 1), None)
    if twice is not None:  # a runner size is its CPU count: two would share one history
        raise BadInput("--cpus", None, "one --cpus per CPU count (each is a runner size)", twice)
    return list(given)


def _measure(
    spec: Suite, runner: Runner, cpus: CpuSet | None, commit: Commit, args, out
) -> ResultDocument:
    """Run one suite and ingest what it wrote; a failure becomes the document's `errors`."""
    suite = spec.name
    log = LOGS / runner.key / f"{suite}.log"
    command = args.raw_command.format(suite=suite) if args.raw_command else spec.command
    if spec.build and not args.raw_command:
        command = f"{spec.build} && {command}"  # built first, into the same log
    env = dict(os.environ)
    env.pop("BENCH_FILTER", None)
    env.update(spec.env)
    env["BENCH_PROFILE"] = spec.profile or args.profile
    # This tracker, for commands that call one (a step worker's counts), as the gate sets it.
    env["BENCHTRACK"] = f"{sys.executable} -m benchtrack"
    if args.filter:
        env["BENCH_FILTER"] = args.filter
    taskset = cpus.taskset if cpus else None
    ran = _run_with_progress(spec, command, env, taskset, log, f"{suite} on {runner.key}", out)
    raw, seconds = ran.raw, ran.seconds
    failure = None
    if ran.code != 0:
        failure = f"`{command}` exited {ran.code} after {seconds:.0f}s; log: {log}"
    try:
        own = names_own_suite(spec.adapter)
        doc = ingest(spec.adapter, raw, commit, runner, now_utc(), None if own else suite)
        if spec.companion:
            doc = as_companion(doc, raw)
    except BenchtrackError as error:
        # Without output there is nothing to ingest: the document records why.
        message = failure or f"its output could not be ingested: {error}"
        doc = _failed(suite, runner, commit, message, raw)
    else:
        if failure and not doc.errors:  # the harness died without naming a benchmark
            errors = (BenchError(f"{suite}/run", failure),)
            doc = ResultDocument(doc.suite, doc.created, commit, runner, doc.benchmarks, errors)
    state = "failed" if doc.errors else "done"
    out.print(
        f"{suite} on {runner.key}: {state} in {seconds:.0f}s, {len(doc.benchmarks)} benchmarks"
        + (f", {len(doc.errors)} errors (log: {log})" if doc.errors else ""),
        markup=False,
    )
    return doc


def _failed(suite: str, runner: Runner, commit: Commit, message: str, source) -> ResultDocument:
    error = BenchError(f"{suite}/run", message)
    return ResultDocument(suite, now_utc(), commit, runner, (), (error,)).validated(source)


def _run_with_progress(
    spec: Suite, command: str, env: dict[str, str], cpus: str | None, log: Path, what: str, out
) -> suite_run.Ran:
    """The suite run as the gate runs it (gate/suite_run.run); on a terminal, a spinner shows
    the elapsed time and the log's last line."""
    if not out.is_terminal:
        out.print(f"{what}: running {command} (log: {log})", markup=False)
        return suite_run.run(spec, Path(), env, cpus, log, command=command)
    with out.status(f"{what}: starting") as status:

        def tick(elapsed: float) -> None:
            tail = _escape(_last_line(log))
            status.update(f"[bold]{what}[/] {elapsed:5.0f}s  [dim]{tail}[/]")

        return suite_run.run(spec, Path(), env, cpus, log, command=command, progress=tick)


def _last_line(path: Path, width: int = 70) -> str:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - 2048))
            lines = f.read().decode(errors="replace").replace("\r", "\n").splitlines()
    except OSError:
        return ""
    lines = [line.strip() for line in lines if line.strip()]
    return lines[-1][:width] if lines else ""


def _escape(text: str) -> str:
    return text.replace("[", r"\[")


def _compare(run: SuiteRun, threshold: float, out, baseline: bool = True) -> SuiteRun:
    """Compare with the last local run of this runner size (or, without `baseline`, with nothing:
    CI's table of results), then keep this run as the next one's baseline."""
    if run.doc is None:
        return run
    last = LAST / run.runner.key / f"{run.suite}.json"
    previous = None
    if baseline and last.is_file():
        try:
            previous = ResultDocument.load(last)
        except BadInput as error:
            out.print(f"warning: ignoring the previous run: {error}", markup=False)
    run.previous = previous is not None or not baseline
    run.comparison = compare_documents(
        previous, run.doc, threshold, base_source=last, head_source=run.results
    )
    if baseline and run.doc.benchmarks:  # an empty run does not replace a useful baseline
        run.doc.dump(last)
    return run


def _append_history(runs: list[SuiteRun], args, out) -> None:
    docs = [(str(r.results), r.doc) for r in runs if r.doc is not None and r.doc.benchmarks]
    if not docs:
        return
    if args.no_history:
        return
    if args.filter:
        # A filtered run is a partial point; the history keeps one point per commit, so it would
        # block the full run of the same commit.
        out.print("history: not appended (a --filter run measures only part of the suites)")
        return
    store = open_store(args.history)
    outcomes = store.append(new_entries(docs))
    for o in outcomes:
        out.print(
            f"history: {o.status} {o.benches} benches for {o.commit_id[:12]} to "
            f"{args.history}/bench/{o.runner_key}/data.js ({o.entry_name})",
            markup=False,
        )
    if args.retention is not None:
        moves = store.prune(args.retention)
        for line in describe(str(args.history), args.config, args.retention, moves):
            out.print(f"history: {line}", markup=False)
    _detect(args.history, out)  # before the site, which draws its markers
    _build_site(args.history, out, args.config)


def _detect(history: Path, out) -> None:
    """Print the change points new in the local history; bench/changes.json feeds the dashboard."""
    try:
        all_changes, new = detect.run(history, write=True)
    except BenchtrackError as error:
        out.print(f"change points: not computed: {error}", markup=False)
        return
    if new:
        detect.table(all_changes, new, console=out)
    else:
        out.print(f"change points: none new ({len(all_changes)} in all)", markup=False)


def _build_site(history: Path, out, config: Path) -> None:
    try:
        with read.open_history(str(history)) as loaded:
            report = site.build_site(loaded, history, order=suites.order(config))
    except BenchtrackError as error:
        out.print(f"dashboard: not built: {error}", markup=False)
        return
    index = Path(report.out) / "index.html"
    out.print(f"dashboard: open file://{index.resolve()}", markup=False)
