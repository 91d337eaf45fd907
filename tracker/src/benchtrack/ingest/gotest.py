"""`go test -bench` text output -> suite `gotest` (or `--suite`).

Format: the Go benchmark data format, https://go.googlesource.com/proposal/+/master/design/14313-benchmark-format.md
(quoted by github-action-benchmark's `extractGoResult`, src/extract.ts at c38cce98): "A benchmark
result line has the general form: <name> <iterations> <value> <unit> [<value> <unit>...]", fields
separated by runs of spaces, an even number of them and at least four; a `pkg: <path>` line names
the package of the lines after it.

    BenchmarkJoin-2    20000    41.53 ns/op    240.78 MB/s    16 B/op    1 allocs/op

- the name is kept as written, sub-benchmark path included, but for the `-<GOMAXPROCS>`
  suffix `testing` appends when GOMAXPROCS is not 1 (`BenchmarkFib/n=10-2` is
  `BenchmarkFib/n=10`, with `params.gomaxprocs` 2): the suffix is the runner's CPU count, so
  with it every series would change name with the runner size. It is taken off only when every
  result line of the output ends in the same `-P`, P >= 2 (one GOMAXPROCS for the whole run);
  with `-cpu 1,2,4` the suffixes tell the runs apart and stay. `<suite>/<name>`; when the
  output holds several packages, `<suite>/<pkg>/<name>` keeps their equal names apart.
- the first metric (always `ns/op`) is the benchmark; each further one is
  `<suite>/<name> - <unit>` (github-action-benchmark's spelling), in its own unit as written.
  Direction: `<thing>/s` (MB/s) bigger is better, every other unit (ns/op, B/op, allocs/op, a
  `b.ReportMetric` unit) smaller.
- `-count N` repeats each line: N runs are N samples (median and bootstrap CI, N >= 5), one run is
  one figure; 2-4 runs are refused (too few to bootstrap).
- `--- FAIL: <name>` is an error of that benchmark.

A hand-written parser: the format's reference reader is Go (golang.org/x/perf/benchfmt); no
maintained Python package reads it.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, figures_benchmark, read_text
from benchtrack.result import BenchError, direction_of_unit

DEFAULT_SUITE = "gotest"
PROCS_RE = re.compile(r"-(?P<procs>[0-9]+)$")
PKG_RE = re.compile(r"^pkg:\s+(?P<pkg>\S+)\s*$")
FAIL_RE = re.compile(r"^\s*--- FAIL: (?P<name>\S+)")


def parse(path: Path, suite: str, harness: str) -> Parsed:
    lines = read_text(path).splitlines()
    packages = {m["pkg"] for line in lines if (m := PKG_RE.match(line))}
    procs = _gomaxprocs(lines)
    pkg = ""
    # (name, unit) -> (first line, runs), in the order the output first shows them
    series: dict[tuple[str, str], tuple[str, list[float]]] = {}
    failed: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        if m := PKG_RE.match(line):
            pkg = m["pkg"]
            continue
        if m := FAIL_RE.match(line):
            failed.setdefault(_name(suite, pkg, m["name"], packages), f"go test: {line.strip()}")
            continue
        fields = line.split()
        if not fields or not fields[0].startswith("Benchmark") or len(fields) < 2:
            continue
        if not fields[1].isdigit():
            continue  # `BenchmarkX` printed by the benchmark itself, not a result line
        if len(fields) < 4 or len(fields) % 2:
            raise BadInput(
                path, where, "'<name> <iterations> <value> <unit> [<value> <unit>...]'", line
            )
        name = _name(suite, pkg, fields[0].removesuffix(f"-{procs}" if procs else ""), packages)
        for i in range(2, len(fields), 2):
            value, unit = _value(fields[i], path, where), fields[i + 1]
            key = (name if i == 2 else f"{name} - {unit}", unit)
            series.setdefault(key, (where, []))[1].append(value)
    parsed = Parsed(suite)
    for (name, unit), (where, runs) in series.items():
        if name in failed:
            continue
        if not all(runs):  # 0 allocs/op: nothing to track, and not a positive figure
            if any(runs):
                raise BadInput(path, where, f"{unit} of {name!r} all zero or all positive", runs)
            continue
        parsed.benchmarks.append(
            figures_benchmark(
                name,
                unit,
                direction_of_unit(unit),
                runs,
                path,
                where,
                suite,
                more_runs=" (go test -count 5 or more)",
                params={"gomaxprocs": int(procs)} if procs else None,
            )
        )
    parsed.errors.extend(BenchError(name, message) for name, message in failed.items())
    if not parsed.benchmarks and not parsed.errors:
        raise BadInput(path, None, "go test -bench result lines 'BenchmarkX N V unit' (none found)")
    return parsed


def _gomaxprocs(lines: list[str]) -> str | None:
    """The `-P` every result line's name ends in, P >= 2 (one GOMAXPROCS for the run), else
    None: names without it, or several of them (`-cpu 1,2,4`), are kept as they are."""
    suffixes = set()
    for line in lines:
        fields = line.split()
        if len(fields) >= 4 and fields[0].startswith("Benchmark") and fields[1].isdigit():
            m = PROCS_RE.search(fields[0])
            suffixes.add(m["procs"] if m else None)
    if len(suffixes) != 1:
        return None
    (procs,) = suffixes
    return procs if procs is not None and int(procs) >= 2 else None


def _name(suite: str, pkg: str, name: str, packages: set[str]) -> str:
    return f"{suite}/{pkg}/{name}" if len(packages) > 1 else f"{suite}/{name}"


def _value(text: str, path: Path, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BadInput(path, where, "a number before each unit", text) from None
    if not 0 <= value < float("inf"):
        raise BadInput(path, where, "a finite number >= 0", text)
    return value
