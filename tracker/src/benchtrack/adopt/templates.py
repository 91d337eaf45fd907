"""The files `benchtrack init` writes into a repository: `benchtrack.toml` (its
`[bench.suites.<name>]` tables and their `gate` tables, read by benchtrack.suites), the
`.gitignore` entries, and `.github/workflows/benchtrack.yml`, which calls the composite action
(`action.yml` at the root of this repository). docs/adopting.md shows their output for an
example repository and tracker/tests/test_adopt.py holds the two together and runs the workflow.
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path

from benchtrack.adopt.harnesses import Found
from benchtrack.errors import BadInput
from benchtrack.gate.shards import MOST as MAX_SHARDS  # the most a plan holds

CONFIG = Path("benchtrack.toml")
WORKFLOW = Path(".github/workflows/benchtrack.yml")
SHARD_PLAN = Path(".github/gate-shards.json")  # action.yml's shard-plan default
BUILDS = Path("target/benchtrack-builds/builds.tar")  # a sharded gate's builds, made once
GITIGNORE = Path(".gitignore")
# actions/checkout and the artifact actions as this repository's workflows pin them
# (docs/action-pins.md; tracker/tests/test_action_pins.py checks every pin of the tree).
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1"
UPLOAD = "actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f # v6.0.0"
DOWNLOAD = "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1"
# `uses:` of a remote action: owner/repo[/path]@ref
ACTION_RE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_./-]+")


def ignore_entries(suites: list[Found]) -> list[str]:
    """What benchtrack and the suites it declares write in the repository, for .gitignore:
    bench-local's history and previous run (`.bench/`); the raw outputs, result documents, logs
    and the gate's worktrees, caches and verdicts (`target/`); with a pytest suite, the test
    modules pytest compiles beside them (`__pycache__/`; uv's `.venv/` and `.pytest_cache/`
    ignore themselves)."""
    entries = [".bench/", "target/"]
    if any(s.suite.adapter == "pytest" for s in suites):
        entries.append("__pycache__/")
    return entries


def _ignore_key(line: str) -> str:
    """A .gitignore line as the name it ignores: `/target`, `target`, `**/target/` all read
    `target` (a comment or a `!` negation reads as itself, matching no entry)."""
    return line.strip().removeprefix("**/").strip("/")


def missing_ignores(existing: str | None, entries: list[str]) -> list[str]:
    """The `entries` a .gitignore (its text, None if there is none) lacks."""
    present = {_ignore_key(line) for line in (existing or "").splitlines()}
    return [e for e in entries if _ignore_key(e) not in present]


def gitignore_text(existing: str | None, missing: list[str]) -> str:
    """.gitignore with `missing` appended after what it holds (nothing removed or reordered; its
    own line endings), or a new one."""
    text = existing or ""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = ["# benchtrack (written by `benchtrack init`): local history, build and gate output"]
    if text and not text.endswith("\n"):
        text += newline
    return text + newline.join(lines + missing) + newline


def _quoted(text: str) -> str:
    """A TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# What init's gate spends: a round of every suite in about this many seconds, so that the
# screening's 5 rounds end within ~6 minutes with the builds of both sides on a 2-vCPU runner;
# the second stage measures only what is still open (docs/adopting.md has the measured times).
ROUND_SECONDS = 60.0
ROUNDS = 5  # the screening's, one look
# [gate.confirm], the second stage (tracker/GATE.md, steps 4-5): the screening's candidates
# confirmed and every benchmark it left open measured on until decided, as this repository's
# own gate does. Without it the gate is one stage: a PR that changes nothing ends with every
# benchmark its first look could not tell unchanged left "could not be told apart".
CONFIRM_ROUNDS = 16
CONFIRM_LOOKS: tuple[int, ...] = ()  # one look, at the last round
CONFIRM_MOST = 24
MINUTES = 15
PAIR_SECONDS = (0.25, 1.0)  # a benchmark's pairs in a round end after this long, within these


def shards_needed(suites: list[Found]) -> int:
    """How many shards (jobs of one runner) the gate needs so that each shard's round of its
    share of the benchmarks, at the shortest pair_seconds, fits ROUND_SECONDS: 1 for most
    suites; a suite of several hundred benchmarks is split (gate/shards.py)."""
    need = sum(s.gate.benchmarks * (PAIR_SECONDS[0] + s.gate.per_benchmark)
               for s in suites if s.gate is not None)  # fmt: skip
    return min(max(math.ceil(need / ROUND_SECONDS - 1e-9), 1), MAX_SHARDS)


def pair_seconds(suite: Found, total: int) -> float:
    """Seconds of pairs per benchmark and round: the round's time shared out over `total`
    benchmarks (all suites'), less what each costs besides its pairs (warm-ups, first steps)."""
    assert suite.gate is not None
    share = ROUND_SECONDS / max(total, 1) - suite.gate.per_benchmark
    return round(min(max(share, PAIR_SECONDS[0]), PAIR_SECONDS[1]), 2)


def gate_text(suites: list[Found]) -> str:
    """benchtrack.toml's `[gate]` (the one place that writes it): its statistics, budget and
    suites."""
    names = ", ".join(_quoted(s.name) for s in suites)
    lines = [
        "",
        "# The gate (benchtrack gate, tracker/GATE.md): on a pull request, base and head are built",
        "# in worktrees of their own and measured in rounds. threshold: the smallest loss that",
        "# fails a PR (a fraction); alpha: the false-fail probability per PR; rounds: the",
        "# screening's, every benchmark measured; minutes: a budget, builds included: a look",
        "# that would end after it moves to the rounds that fit.",
        "[gate]",
        "threshold = 0.05",
        "alpha = 0.01",
        f"rounds = {ROUNDS}",
        "looks = []",
        f"minutes = {MINUTES}",
        f"suites = [{names}]",
        "",
        "# The second stage: the screening's likely losses confirmed in rounds of their own, and",
        "# every benchmark it left open measured on in them until its change is told (regressed,",
        "# improved, or unchanged: inside ±80% of threshold) or cannot be by the last round.",
        "[gate.confirm]",
        f"rounds = {CONFIRM_ROUNDS}",
        f"looks = [{', '.join(map(str, CONFIRM_LOOKS))}]",
        f"most = {CONFIRM_MOST}",
    ]
    return "\n".join(lines) + "\n"


def suite_gate_text(s: Found, counted: int, shards: int = 1) -> list[str]:
    """A suite's `[bench.suites.<name>.gate]` lockstep table, when it has a step worker (the one
    place that writes them), or a comment that the gate runs its command whole, once per side
    per round. `counted`: the benchmarks init counted in all suites, dealt to `shards`."""
    if s.gate is None:
        return [
            f"# {s.name}: no step worker for its adapter: the gate runs its command whole,",
            "# once per side per round (slower, and blind to what changes between the runs).",
        ]
    g = s.gate
    total = math.ceil(counted / shards)  # a shard's round
    seconds = pair_seconds(s, total)
    where = f"{counted} in all" if shards == 1 else f"{counted} in all, {total} a shard of {shards}"
    lines = [
        *(f"# {line}" for line in _wrap(f"The gate measures {s.name} in lockstep: {g.why}.")),
        *(
            f"# {line}"
            for line in _wrap(
                f"pair_seconds: {ROUND_SECONDS:g} s a round shared out over the "
                f"benchmarks init counted in the sources ({g.benchmarks} here, {where}); "
                "with many more, lower it, or the first look's 5 rounds outgrow the budget."
            )
        ),
        f"[bench.suites.{s.name}.gate]",
        'adapter = "lockstep"',
        f"build = {_quoted(g.build)}",
        f"command = {_quoted(g.command)}",
        "pairs = 100",
        f"pair_seconds = {seconds:g}",
        "# auto: a benchmark that keeps one CPU busy has both sides' turns on one CPU (quieter);",
        "# one that keeps more busy (threads, a pool) is stepped with every CPU of the runner.",
        'cpus = "auto"',
    ]
    if g.processes > 1:
        lines += [
            f"# processes: {g.processes} worker pairs a round, each with its share of the pairs;",
            "# each process keeps a speed of its own, which the round's mean over them averages.",
            f"processes = {g.processes}",
        ]
    if shards > 1 and not g.build_once:
        lines += [
            "# build_once = false: each shard makes this environment; compiled suites' builds",
            "# are made once by the gate-build job and carried to the shards.",
            "build_once = false",
        ]
    if g.env:
        lines += [f"[bench.suites.{s.name}.gate.env]"]
        lines += [f"{k} = {_quoted(v)}" for k, v in g.env]
    return lines


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, 96, break_on_hyphens=False)


def config_text(suites: list[Found]) -> str:
    """benchtrack.toml: one `[bench.suites.<name>]` table per suite (benchtrack.suites), each
    followed by how the gate measures it (suite_gate_text), then `[gate]` (gate_text). With
    shards, a round is each shard's share of the benchmarks."""
    counted = sum(s.gate.benchmarks for s in suites if s.gate is not None)
    shards = shards_needed(suites)
    lines = [
        "# benchtrack: the suites to measure (docs/adopting.md). Each runs `command` with bash at",
        "# the repository root; the `adapter` reads what it wrote at `raw` (benchtrack ingest).",
    ]
    for found in suites:
        s = found.suite
        lines += [
            "",
            f"[bench.suites.{s.name}]",
            f"command = {_quoted(s.command)}",
            f"adapter = {_quoted(s.adapter)}",
            f"raw = {_quoted(s.raw)}",
            "",
            *suite_gate_text(found, counted, shards),
        ]
    return "\n".join(lines) + "\n" + gate_text(suites)


def carries_builds(suites: list[Found]) -> bool:
    """Whether a sharded gate has builds to make once and carry to its shards: a suite whose
    step worker's build is `build_once` (compiled binaries; a venv is made in each shard)."""
    return any(s.gate is not None and s.gate.build_once for s in suites)


def workflow_text(action: str, shards: int = 1, carried: bool = True) -> str:
    """The workflow: on a push to main, run and store; on a pull request, gate (≤ 26 lines).
    With shards, the gate is one job a shard (each its share of the plan at SHARD_PLAN, at
    alpha / N) and a merge job that makes their verdicts one (tracker/GATE.md, "Shards");
    `carried`: a gate-build job before them builds both sides once, the shards measure that."""
    if not ACTION_RE.fullmatch(action):
        raise BadInput("--action", None, "the composite action as OWNER/REPO@REF", action)
    head = f"""\
# benchtrack (written by `benchtrack init`): on a push to main, the suites of benchtrack.toml,
# stored on gh-pages with a dashboard; on a pull request, the gate against its merge base.
name: benchtrack
on:
  push:
    branches: [main]
  pull_request:
permissions: {{contents: read}}
jobs:
  bench:
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
    permissions: {{contents: write}} # the push to gh-pages, by the action's publish step only
    steps:
      - uses: {CHECKOUT}
        with: {{persist-credentials: false}}
      - uses: {action}
        with: {{mode: bench}}
"""
    gate = """\
  gate:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
"""
    if shards == 1:
        return (
            head
            + gate
            + f"""\
    steps:
      - uses: {CHECKOUT}
        with: {{fetch-depth: 0, persist-credentials: false}}
      - uses: {action}
        with: {{mode: gate}}
"""
        )
    each = ", ".join(f'"{k}/{shards}"' for k in range(1, shards + 1))
    build, fetch, builds = "", "", ""
    if carried:
        fetch = f"""\
      - uses: {DOWNLOAD}
        with: {{name: benchtrack-builds, path: {BUILDS.parent}}}
"""
        builds, gate = (
            f", builds: {BUILDS}",
            gate.replace("  gate:\n", "  gate:\n    needs: gate-build\n"),
        )
        build = f"""\
  # Both sides built once, for every shard (gate --build-only; the shards' gate --prebuilt)
  gate-build:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: {CHECKOUT}
        with: {{fetch-depth: 0, persist-credentials: false}}
      - uses: {action}
        with: {{mode: build, builds: {BUILDS}}}
      - uses: {UPLOAD}
        with: {{name: benchtrack-builds, path: {BUILDS}, retention-days: 1}}
"""
    return (
        head
        + build
        + gate
        + f"""\
    # {shards} shards (the benchmarks dealt by {SHARD_PLAN}; `benchtrack shard-plan` deals
    # them by the seconds a gate.json recorded), one verdict: the merge job's
    strategy:
      fail-fast: false
      matrix: {{shard: [{each}]}}
    steps:
      - uses: {CHECKOUT}
        with: {{fetch-depth: 0, persist-credentials: false}}
{fetch}      - uses: {action}
        with: {{mode: gate, shard: "${{{{ matrix.shard }}}}"{builds}}}
      - uses: {UPLOAD}
        if: ${{{{ !cancelled() }}}}
        with:
          name: benchtrack-shard-${{{{ strategy.job-index }}}}
          path: target/bench/gate/gate.json
          if-no-files-found: ignore
  gate-merge:
    needs: gate
    if: ${{{{ !cancelled() && github.event_name == 'pull_request' }}}}
    runs-on: ubuntu-latest
    steps:
      - uses: {CHECKOUT}
        with: {{persist-credentials: false}}
      - uses: {DOWNLOAD}
        with: {{pattern: benchtrack-shard-*, path: target/benchtrack-shards}}
      - uses: {action}
        with: {{mode: merge}}
"""
    )
