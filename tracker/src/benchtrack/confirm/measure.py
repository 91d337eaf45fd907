"""One lockstep check: `benchtrack gate --base BEFORE --head AFTER --filter BENCHMARK` in the
repository, its gate.json read back into a confirmations.json check.

The gate is run as the command it is (a process of its own, as CI runs it): its worktrees, builds,
rounds, screening and confirmation stages, budget and verdicts are the PR check's, so a confirmed
change point means what a failed PR means. Exit 0 and 1 are verdicts; 3 (a suite failed on a
side) and anything else leave the event unchecked, to be tried again next time, as does a gate
that gave the benchmark no row. The gate builds and runs only the suites that can hold the
benchmark (gate/suite_filter.py: the filter names it exactly).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_REGRESSION, BadInput
from benchtrack.gate import confirm as gate_confirm
from benchtrack.history import companion
from benchtrack.stats import IMPROVED, REGRESSED

# a row's figures as gate.json has them; `diagnosis`: the gate's "Why it is slower" of a loss
ROW_FIELDS = ("verdict", "change", "lo", "hi", "base", "head", "unit", "stage", "diagnosis")


def name_filter(benchmark: str) -> str:
    """The gate's --filter for one benchmark, whichever way a harness matches (gate/confirm.py's
    rule: the full name, or criterion's id without the suite's first segment)."""
    return gate_confirm.names_filter([benchmark])


@dataclass
class Gated:
    code: int
    doc: dict[str, Any] | None
    tail: str  # the gate's last lines of output, for a failure


def gate(
    repo: Path, base: str, head: str, benchmark: str, out: Path, extra: Sequence[str] = ()
) -> Gated:
    """Run the gate for `benchmark`, base vs head, writing gate.json and gate.md under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "gate.json").unlink(missing_ok=True)  # a previous run's is not this one's verdict
    argv = [sys.executable, "-m", "benchtrack", "gate", "--base", base, "--head", head]
    argv += ["--filter", name_filter(benchmark), "--out", str(out), *extra]
    proc = subprocess.run(
        argv, cwd=repo, capture_output=True, text=True, check=False, env={**os.environ}
    )
    if proc.returncode == EXIT_BAD_INPUT:
        raise BadInput("benchtrack gate", None, "arguments and a config it accepts", _tail(proc))
    path = out / "gate.json"
    doc = orjson.loads(path.read_bytes()) if path.is_file() else None
    return Gated(proc.returncode, doc, _tail(proc))


def _tail(proc: subprocess.CompletedProcess[str], lines: int = 12) -> str:
    return "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-lines:])


def rows(doc: Mapping[str, Any], benchmark: str) -> list[dict[str, Any]]:
    """The gate's rows of `benchmark` (its wall time first, then its other series)."""
    mine = [
        r for r in doc.get("benchmarks", []) if companion.split(r.get("name", ""))[0] == benchmark
    ]
    mine.sort(key=lambda r: (not r.get("primary", True), r["name"]))
    return [{"series": r["name"], **{k: r.get(k) for k in ROW_FIELDS}} for r in mine]


def outcome(found: Sequence[Mapping[str, Any]]) -> str:
    """regression / improvement by the first row with a verdict either way (wall time first),
    else noise: unchanged or not told apart, the step was not there in lockstep."""
    for r in found:
        if r["verdict"] == REGRESSED:
            return "regression"
        if r["verdict"] == IMPROVED:
            return "improvement"
    return "noise"


def stepped(gated: Gated, benchmark: str) -> bool | None:
    """Did the A/B find a change either way (None: it could not measure: the gate failed, or
    gave the benchmark no row, e.g. no suite of its config measured it; never "noise")."""
    if gated.code not in (EXIT_OK, EXIT_REGRESSION) or gated.doc is None:
        return None
    found = rows(gated.doc, benchmark)
    if not found:
        return None
    return outcome(found) != "noise"
