"""Result documents -> github-action-benchmark bench records `{name, value, range, unit, extra}`.

In the key order the pinned action (v1.22.0; its zod schema's order since v1.20.7) stores them, so
the action's data.js (fed by `benchtrack export`) and ours (`benchtrack append`) hold the same
bytes for the same run. Entries written before keep the order they were written in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.history.extra import format_extra, format_range
from benchtrack.history.format import js_value
from benchtrack.result import Benchmark, ResultDocument, Runner


def bench_record(bench: Benchmark, runner: Runner) -> dict[str, Any]:
    """The action's BenchmarkResult for one benchmark on one runner size."""
    return {
        "name": bench.name,
        "value": js_value(bench.value),
        "range": format_range(bench.ci),
        "unit": bench.unit,
        "extra": format_extra(
            runner.label,
            runner.cpus,
            len(bench.samples),
            bench.ci,
            bench.suite,
            runner.cpu_model,
            runner.os,
        ),
    }


def merged_benchmarks(
    docs: Iterable[tuple[str, ResultDocument]], direction: str
) -> list[dict[str, Any]]:
    """The records of one direction from documents of one run: suites in the order given.

    A benchmark name may appear once: a suite given twice is a mistake, not a merge.
    """
    seen: dict[str, str] = {}
    records: list[dict[str, Any]] = []
    for source, doc in docs:
        for bench in doc.benchmarks:
            if bench.direction != direction:
                continue
            if bench.name in seen:
                expected = f"{bench.name!r} once per run (also in {seen[bench.name]})"
                raise BadInput(source, "benchmarks", expected)
            seen[bench.name] = source
            records.append(bench_record(bench, doc.runner))
    return records
