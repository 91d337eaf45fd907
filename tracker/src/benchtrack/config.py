"""`benchtrack.toml` at the repository root: the one file that configures benchtrack, read here.

Its tables, each parsed by the module named for it:
- `[bench.suites.<name>]` and each one's `[bench.suites.<name>.gate]`: the suites (suites.py);
- `[gate]`, `[gate.confirm]`, `[gate.thresholds]`, `[gate.notes]`, `[gate.selftest]`: the gate
  (gate/config.py);
- `[history.retention]`: what stays in a history's data.js (history/retention.py).

The gate's suites once had a namespace of their own, `[suites.<name>]`; it is refused (exit 2)
with where its keys go now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.tomlcheck import read_toml

CONFIG_NAME = "benchtrack.toml"


def read(path: Path, missing: str | None = None) -> dict[str, Any]:
    """The document at `path`, the old form refused. A missing file is {} when `missing` is None,
    else BadInput expecting `missing` (what the caller needed from it)."""
    data = read_toml(path, missing)
    refuse_old(data, str(path))
    return data


def refuse_old(data: dict[str, Any], source: str) -> None:
    """`[suites.<name>]`, the gate's old namespace: BadInput naming the first table and where its
    keys go now."""
    old = data.get("suites")
    if old is None:
        return
    name = next(iter(old), "<name>") if isinstance(old, dict) and old else "<name>"
    raise BadInput(
        source,
        f"suites.{name}",
        "no [suites.<name>] tables: a gate suite's keys (command, build, adapter, raw, env, "
        "timeout, series, rounds, pairs, pair_seconds, cpus, cpu_time, processes) go under the "
        "bench suite whose benchmarks it measures, as [bench.suites.<suite>.gate] (or "
        "[[bench.suites.<suite>.gate]] with a `name` per part; tracker/GATE.md, Configuration)",
        "a [suites] table",
    )
