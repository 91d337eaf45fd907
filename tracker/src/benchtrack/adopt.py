"""What `benchtrack init` knows: a repository's benchmark suites, and the two files that track it.

`detect` finds the harnesses a repository already uses; `config_text` and `workflow_text` are the
one template each of `benchtrack.toml` (its `[bench.suites.<name>]` tables, benchtrack.suites)
and of `.github/workflows/benchtrack.yml`, which calls the composite action (`action.yml` at the
root of this repository). docs/adopting.md shows their output for an example repository and
tracker/tests/test_adopt.py holds the two together and runs the workflow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.ingest import HARNESSES
from benchtrack.result import SUITE_RE
from benchtrack.tomlcheck import read_toml

CONFIG = Path("benchtrack.toml")
WORKFLOW = Path(".github/workflows/benchtrack.yml")
# actions/checkout as this repository's workflows pin it (docs/action-pins.md).
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1"
# `uses:` of a remote action: owner/repo[/path]@ref
ACTION_RE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_./-]+")
_GO_BENCH = re.compile(r"^func Benchmark", re.MULTILINE)
_SKIP_DIRS = {".git", "target", "vendor", "node_modules", ".venv"}


@dataclass(frozen=True)
class Suite:
    name: str
    adapter: str
    command: str  # run with bash -c at the repository root
    raw: str  # what `command` writes, read by `adapter`


def declared(name: str, adapter: str, command: str, raw: str) -> Suite:
    """A suite given on the command line, checked as benchtrack.toml's reader checks it."""
    if not SUITE_RE.match(name):
        raise BadInput("--suite", None, "a lowercase suite name (a-z, 0-9, -, _)", name)
    if adapter not in HARNESSES:
        raise BadInput("--adapter", None, f"one of {', '.join(HARNESSES)}", adapter)
    for flag, value in (("--command", command), ("--raw", raw)):
        if not value or not value.strip():
            raise BadInput(flag, None, "a non-empty string", value)
    return Suite(name, adapter, command, raw)


def detect(root: Path) -> list[Suite]:
    """The harnesses `root` already uses: criterion, pytest-benchmark, `go test -bench`."""
    found: list[Suite] = []
    if "criterion" in read_toml(root / "Cargo.toml").get("dev-dependencies", {}):
        # criterion keeps its samples in its home, target/criterion, which the adapter reads
        found.append(Suite("rust", "criterion", "cargo bench", "target/criterion"))
    if any(_names_pytest_benchmark(dep) for dep in _python_dependencies(root / "pyproject.toml")):
        raw = "target/bench/raw/python.json"
        command = f"mkdir -p target/bench/raw && pytest --benchmark-only --benchmark-json={raw}"
        found.append(Suite("python", "pytest", command, raw))
    if any(_GO_BENCH.search(p.read_text(errors="replace")) for p in _go_tests(root)):
        raw = "target/bench/raw/go.txt"
        # 5 runs a benchmark: the adapter's samples (fewer than 5 would be refused as too few)
        command = f"mkdir -p target/bench/raw && go test -run '^$' -bench . -count 5 ./... > {raw}"
        found.append(Suite("go", "gotest", command, raw))
    return found


def _python_dependencies(path: Path) -> list[str]:
    data = read_toml(path)
    project = data.get("project", {})
    deps = list(project.get("dependencies", []))
    for group in (project.get("optional-dependencies", {}), data.get("dependency-groups", {})):
        for items in group.values():
            deps += [d for d in items if isinstance(d, str)]
    return deps


def _names_pytest_benchmark(requirement: str) -> bool:
    name = re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name.lower()) == "pytest-benchmark"


def _go_tests(root: Path):
    for path in sorted(root.rglob("*_test.go")):
        if not _SKIP_DIRS.intersection(path.relative_to(root).parts):
            yield path


def _quoted(text: str) -> str:
    """A TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_text(suites: list[Suite]) -> str:
    """benchtrack.toml: one `[bench.suites.<name>]` table per suite (benchtrack.suites)."""
    lines = [
        "# benchtrack: the suites to measure (docs/adopting.md). Each runs `command` with bash at",
        "# the repository root; the `adapter` reads what it wrote at `raw` (benchtrack ingest).",
    ]
    for s in suites:
        lines += [
            "",
            f"[bench.suites.{s.name}]",
            f"command = {_quoted(s.command)}",
            f"adapter = {_quoted(s.adapter)}",
            f"raw = {_quoted(s.raw)}",
        ]
    return "\n".join(lines) + "\n"


def workflow_text(action: str) -> str:
    """The workflow: on a push to main, run and store; on a pull request, gate (≤ 26 lines)."""
    if not ACTION_RE.fullmatch(action):
        raise BadInput("--action", None, "the composite action as OWNER/REPO@REF", action)
    return f"""\
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
  gate:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: {CHECKOUT}
        with: {{fetch-depth: 0, persist-credentials: false}}
      - uses: {action}
        with: {{mode: gate}}
"""
