"""`cargo bench`'s libtest output (`#[bench]`, text on stdout) -> suite `libtest` (or `--suite`).

Format, from libtest's pretty formatter (rust-lang/rust `library/test/src/formatters/pretty.rs`,
found with the code search: `"{:>14} ns/iter (+/- {})"` of `ns_iter_summ.median` and
`ns_iter_summ.max - ns_iter_summ.min`, thousands separated by `,`) and as github-action-benchmark
reads it (`extractCargoResult`, src/extract.ts of benchmark-action/github-action-benchmark at
c38cce98):

    test NAME ... bench:      37,174 ns/iter (+/- 7,527)
    test NAME ... bench:       1,234 ns/iter (+/- 56) = 3319 MB/s

- `NAME` is kept as written (`tests::bench_fib_20`; the spaces libtest pads it with to align the
  column are not part of it): benchmark `<suite>/NAME`, unit `ns/iter`,
  smaller is better. libtest prints one summary per benchmark, its median: one figure, `ci` the
  median ± libtest's spread (max - min of its winsorized samples, which that interval holds).
- ` = N MB/s` (set by `Bencher::bytes`) becomes `<suite>/NAME - MB/s`, bigger is better
  (github-action-benchmark's ` - <unit>` spelling for a benchmark's second metric).
- `test NAME ... FAILED` is an error of NAME, and so is `0 ns/iter` (optimised away: no figure);
  `ok`/`ignored` tests are not benchmarks.

A hand-written line parser: no maintained Python package reads this format.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, figures_benchmark, read_text, spread_around
from benchtrack.result import BenchError

DEFAULT_SUITE = "libtest"
_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
BENCH_RE = re.compile(
    rf"^test (?P<name>.+?)\s+\.\.\. bench:\s+(?P<value>{_NUMBER}) (?P<unit>\S+/iter) "
    rf"\(\+/- (?P<dev>{_NUMBER})\)(?: = (?P<mbs>{_NUMBER}) MB/s)?\s*$"
)
FAILED_RE = re.compile(r"^test (?P<name>.+?)\s+\.\.\. FAILED\s*$")
# A line that claims to be a benchmark result but that BENCH_RE does not read: refused, so a
# format change is an error, never benchmarks silently missing.
CLAIM_RE = re.compile(r"^test .+\s\.\.\. bench:")


def parse(path: Path, suite: str, harness: str) -> Parsed:
    parsed = Parsed(suite)
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        where = f"line {number}"
        match = BENCH_RE.match(line)
        if match is None:
            if CLAIM_RE.match(line):
                raise BadInput(
                    path, where, "'test NAME ... bench: N ns/iter (+/- D)' as libtest prints", line
                )
            if failed := FAILED_RE.match(line):
                parsed.errors.append(
                    BenchError(f"{suite}/{failed['name']}", "libtest: FAILED (see its output)")
                )
            continue
        name = f"{suite}/{match['name']}"
        value, dev = _number(match["value"]), _number(match["dev"])
        if value == 0:  # not a measurement: result documents hold positive figures
            parsed.errors.append(BenchError(name, "0 ns/iter: below libtest's resolution"))
            continue
        parsed.benchmarks.append(
            figures_benchmark(
                name,
                match["unit"],
                "smaller",
                [value],
                path,
                where,
                suite,
                spread=spread_around(value, dev),
            )
        )
        if match["mbs"] is not None:
            mbs = _number(match["mbs"])
            parsed.benchmarks.append(
                figures_benchmark(f"{name} - MB/s", "MB/s", "bigger", [mbs], path, where, suite)
            )
    if not parsed.benchmarks and not parsed.errors:
        raise BadInput(path, None, "libtest bench lines 'test NAME ... bench: ...' (none found)")
    return parsed


def _number(text: str) -> float:
    return float(text.replace(",", ""))
