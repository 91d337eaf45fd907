"""`[bench.suites.<name>]` of benchtrack.toml: the suites this repository measures, in order.

    [bench.suites.rust]
    command = "cargo make bench-rust-raw"   # run with bash -c at the repository root
    adapter = "criterion"                   # the benchtrack.ingest harness reading `raw`
    raw = "target/bench/raw/rust"           # what `command` writes (a file, or criterion's dir)
    build = "cargo bench --no-run"          # optional: run before `command`, untimed
    profile = "count"                       # optional: a fixed BENCH_PROFILE (default --profile)
    companion = true                        # optional: the values are instruction counts of
                                            # other suites' benchmarks, stored beside them as
                                            # `<name> (instructions)` (benchtrack.companion)
    [bench.suites.rust.env]                 # optional: added to the command's environment
    CARGO_TERM_COLOR = "never"

Every part reads this one declaration: `bench-local` (and so the CI bench job) runs the tables in
order, the dashboard lists suites in that order (those not declared after, alphabetically), and
the gate measures each one too unless `[suites.<name>]` declares that name for the gate itself
(gate/config.py). The tracker's code names no suite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import HARNESSES
from benchtrack.result import SUITE_RE
from benchtrack.tomlcheck import Checker, read_toml

CONFIG_NAME = "benchtrack.toml"
KEYS = {"command", "adapter", "raw", "build", "env", "profile", "companion"}


@dataclass(frozen=True)
class BenchSuite:
    name: str
    command: str
    adapter: str
    raw: str  # relative to the repository root
    build: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    profile: str | None = None  # a fixed BENCH_PROFILE (None: bench-local's --profile)
    companion: bool = False  # instruction counts, stored as `<name> (instructions)`


def read(path: Path, *, required: bool) -> dict[str, Any]:
    """The TOML document at `path`; a missing file is {} unless `required`."""
    missing = "the suites' [bench.suites.<name>] tables (not found)" if required else None
    return read_toml(path, missing)


def parse(data: dict[str, Any], source: str) -> dict[str, BenchSuite]:
    """The `[bench.suites]` tables, in file order ({} when there are none)."""
    v = Checker(source)
    bench = v.table(data.get("bench", {}), "bench")
    v.known(bench, "bench", {"suites"})
    out: dict[str, BenchSuite] = {}
    for name, raw in v.table(bench.get("suites", {}), "bench.suites").items():
        where = f"bench.suites.{name}"
        if not SUITE_RE.match(name):
            raise BadInput(source, where, "a lowercase suite name (a-z, 0-9, -, _)", name)
        s = v.table(raw, where)
        v.known(s, where, KEYS)
        adapter = v.string(s, "adapter", where)
        if adapter not in HARNESSES:
            raise BadInput(source, f"{where}.adapter", f"one of {', '.join(HARNESSES)}", adapter)
        companion = s.get("companion", False)
        if not isinstance(companion, bool):
            raise BadInput(source, f"{where}.companion", "true or false", companion)
        out[name] = BenchSuite(
            name=name,
            command=v.string(s, "command", where),
            adapter=adapter,
            raw=v.string(s, "raw", where),
            build=v.string(s, "build", where) if "build" in s else None,
            env={
                str(k): v.scalar(x, f"{where}.env.{k}")
                for k, x in v.table(s.get("env", {}), f"{where}.env").items()
            },
            profile=v.string(s, "profile", where) if "profile" in s else None,
            companion=companion,
        )
    return out


def load(path: Path) -> dict[str, BenchSuite]:
    """The suites to measure: at least one, or BadInput naming the file and `bench.suites`."""
    suites = parse(read(path, required=True), str(path))
    if not suites:
        raise BadInput(path, "bench.suites", "at least one [bench.suites.<name>] table")
    return suites


def order(path: Path) -> tuple[str, ...]:
    """The declared suites' names in file order; () without the file or the tables."""
    return tuple(parse(read(path, required=False), str(path)))
