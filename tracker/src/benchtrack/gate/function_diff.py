"""Which functions' instructions grew most from base to head: the first place to look.

The gate's count suites run each benchmark under valgrind's callgrind, one dump per counted run
(`benchtrack.gate.callgrind`). With `BENCHTRACK_PROFILES=DIR` in its environment (the gate sets it),
`benchtrack callgrind` keeps each run's cost per function as a profile,
`DIR/<side>/<source>-<pid>.json` (`<side>` from `GATE_SIDE`), and harnesses of interpreted
languages add their own view: callgrind sees the interpreter's C functions (CPython's
`_PyEval_EvalFrameDefault` runs every Python function; Debian's perl binary is stripped, so
callgrind names nothing in it at all), so the Python harness counts the lines each Python function
executes (`sys.settrace`) and the Perl harness the statements each sub executes (a `-d` hook), in
a run of their own outside the counted ones. After the rounds, `attach` diffs the two sides for
each counted benchmark that regressed and puts its top functions into gate.json.

Why a parser of callgrind's out format here rather than `callgrind_annotate`: the annotate script
prints a report for people (thresholds, truncated names, one process per dump), which would have
to be parsed back; the format itself is small and specified (valgrind's "Callgrind Format
Specification": name compression `(id) name`, a cost line per position, and after each `calls=`
line one line of inclusive cost, which is not the caller's own). A function's own (exclusive)
instructions are summed; a callee's are its own: a slower helper shows as itself, not as every
caller above it.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from benchtrack.fsutil import atomic_write
from benchtrack.mdtext import code, pct

SCHEMA = "benchtrack.profile/1"
ENV = "BENCHTRACK_PROFILES"
TOP = 3
MIN_SHARE = 0.001  # a function whose growth is under 0.1% of the benchmark's work is not named
KEEP_SHARE = 0.0005  # a profile keeps the functions holding at least 0.05% of a run's cost
# What each source counts, as the comment says it.
UNITS = {"callgrind": "instructions", "lines": "Python lines", "statements": "Perl statements"}
# Language-level profiles name the code the PR changed; callgrind names an interpreter's C.
PREFERENCE = ("lines", "statements", "callgrind")
_NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]+$")


def own_costs(text: str) -> dict[str, int]:
    """Each function's own instructions (the first event) in one callgrind dump."""
    names: dict[str, dict[str, str]] = {"fn": {}, "ob": {}}
    fn, ob = "???", "???"
    positions = 1
    skip_next = False  # the cost line after `calls=` is the callee's inclusive cost
    out: dict[str, int] = {}
    for line in text.splitlines():
        if not line:
            continue
        head = line[0]
        if head.isdigit() or head in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if len(fields) > positions:
                key = fn if not _ADDRESS.match(fn) else f"??? ({os.path.basename(ob)})"
                out[key] = out.get(key, 0) + int(fields[positions])
            continue
        kind, eq, value = line.partition("=")
        if not eq:
            if line.startswith("positions:"):
                positions = len(line.split(":", 1)[1].split())
            continue
        if kind == "calls":
            skip_next = True
        elif kind in ("fn", "cfn", "ob", "cob"):
            table = names["fn" if kind in ("fn", "cfn") else "ob"]
            m = _NAMED.match(value)
            name = value
            if m:
                name = (
                    table.setdefault(m.group(1), m.group(2) or "???")
                    if m.group(2)
                    else table.get(m.group(1), "???")
                )
            if kind == "fn":
                fn = name
            elif kind == "ob":
                ob = name
    return out


def compact(costs: dict[str, int]) -> tuple[int, dict[str, int]]:
    """The run's total and the functions worth keeping (a share of at least KEEP_SHARE)."""
    total = sum(costs.values())
    floor = total * KEEP_SHARE
    return total, {f: c for f, c in sorted(costs.items(), key=lambda kv: -kv[1]) if c >= floor}


def write(
    source: str, runs: dict[str, list[dict[str, Any]]], directory: Path | None = None
) -> Path | None:
    """One profile file of `runs` ({benchmark: [{elements, total, functions}]}) for this process,
    under $BENCHTRACK_PROFILES/<side>/; None (nothing written) when the variable is not set."""
    root = directory or (Path(os.environ[ENV]) if os.environ.get(ENV) else None)
    if root is None or not runs:
        return None
    path = root / os.environ.get("GATE_SIDE", "run") / f"{source}-{os.getpid()}.json"
    doc = {"schema": SCHEMA, "source": source, "unit": UNITS[source], "benchmarks": runs}
    atomic_write(path, orjson.dumps(doc))
    return path


def keep_callgrind(lines: list[str], work: Path, pid: str) -> Path | None:
    """The hook in `benchtrack callgrind`: each `sample` dump's own costs per function, kept as a
    profile when $BENCHTRACK_PROFILES is set (the dumps themselves are in a temporary directory,
    and the gate's worktrees are removed at the end). The n-th marker line names dump n."""
    if not os.environ.get(ENV):
        return None
    runs: dict[str, list[dict[str, Any]]] = {}
    n = 0
    for line in lines:
        parts = line.split("\t")
        if parts[0] not in ("start", "sample"):
            continue
        n += 1
        dump = work / f"cg.{pid}.{n}"
        if parts[0] != "sample" or len(parts) != 3 or not dump.is_file():
            continue
        total, functions = compact(own_costs(dump.read_text(errors="replace")))
        runs.setdefault(parts[1], []).append(
            {"elements": int(parts[2]), "total": total, "functions": functions}
        )
    return write("callgrind", runs)


@dataclass(frozen=True)
class Grown:
    function: str
    base: float  # its own cost per element on the base side (median over the runs)
    head: float
    share: float  # (head - base) over the base's whole cost per element

    def as_dict(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "base": self.base,
            "head": self.head,
            "share": self.share,
        }


def read(side_dir: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """source -> benchmark -> runs, of every profile under one side's directory."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for path in sorted(side_dir.glob("*.json")) if side_dir.is_dir() else []:
        try:
            doc = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError:
            continue  # a profile is a hint, never a verdict: one that does not read is skipped
        if (
            not isinstance(doc, dict)
            or doc.get("schema") != SCHEMA
            or doc.get("source") not in UNITS
        ):
            continue
        for name, runs in (doc.get("benchmarks") or {}).items():
            out.setdefault(doc["source"], {}).setdefault(name, []).extend(runs)
    return out


def _per_element(runs: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """The median total and the median own cost of each function, per element, over the runs."""
    totals = [r["total"] / max(r["elements"], 1) for r in runs]
    functions = {f for r in runs for f in r["functions"]}
    return statistics.median(totals), {
        f: statistics.median(r["functions"].get(f, 0) / max(r["elements"], 1) for r in runs)
        for f in functions
    }


def top(base: list[dict[str, Any]], head: list[dict[str, Any]], n: int = TOP) -> list[Grown]:
    """The `n` functions whose own cost per element grew most (only those that grew)."""
    base_total, b = _per_element(base)
    _, h = _per_element(head)
    grown = [Grown(f, b.get(f, 0.0), h.get(f, 0.0), (h.get(f, 0.0) - b.get(f, 0.0)) / base_total)
             for f in set(b) | set(h)]  # fmt: skip
    # what grew by less than MIN_SHARE of the benchmark is the runs' own jitter, no lead
    grown = [g for g in grown if g.head > g.base and g.share >= MIN_SHARE]
    return sorted(grown, key=lambda g: (-(g.head - g.base), g.function))[:n]


def _benchmark(row_name: str, names: Iterable[str]) -> str | None:
    """The profile's name for a gate row (`rust/streams/iterator (instructions)`): the same
    name, or one the harness wrote without the suite (`streams/iterator`)."""
    base = row_name.removesuffix(" (instructions)")
    for name in names:
        if name == base or base.endswith("/" + name):
            return name
    return None


def diff(profiles: Path, rows: list[str]) -> dict[str, dict[str, Any]]:
    """For each row (a regressed counted benchmark), the top functions of the preferred source
    that has it on both sides: {row: {source, unit, functions: [...]}}."""
    sides = {side: read(profiles / side) for side in ("base", "head")}
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        for source in PREFERENCE:
            base, head = sides["base"].get(source, {}), sides["head"].get(source, {})
            name = _benchmark(row, base.keys() & head.keys())
            if name is None:
                continue
            found = top(base[name], head[name])
            if found:
                out[row] = {"source": source, "unit": UNITS[source],
                            "functions": [g.as_dict() for g in found]}  # fmt: skip
                break
    return out


def attach(doc: dict[str, Any], profiles: Path) -> None:
    """Put the top functions of every regressed counted benchmark into the gate.json `doc`."""
    rows = [
        r["name"]
        for r in doc.get("benchmarks", [])
        if r.get("verdict") == "regressed"
        and r.get("gates", True)
        and str(r.get("unit", "")).startswith("instructions/")
    ]
    found = diff(profiles, rows) if rows else {}
    if found:
        doc["functions"] = found


def lines(entry: dict[str, Any]) -> str:
    """`f` +x% · `g` +y% · ...: the top functions of one benchmark, each as inert code."""
    return " · ".join(
        f"{code(f['function'], 120)} {pct(f['share'])}" for f in entry.get("functions", [])[:TOP]
    )


def markdown(functions: dict[str, dict[str, Any]]) -> str:
    """gate.md's section: for each regressed counted benchmark, where its instructions grew."""
    if not functions:
        return ""
    out = [
        "#### Where the work grew",
        "",
        "Per regressed counted benchmark, the functions whose own work per element grew most "
        "from base to head (as a share of the benchmark's): the first place to look.",
        "",
    ]
    for row, entry in functions.items():
        out.append(f"- {code(row)} ({entry.get('unit', '')}): {lines(entry)}")
    return "\n".join(out) + "\n"
