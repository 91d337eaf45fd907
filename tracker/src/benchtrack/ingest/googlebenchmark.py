"""Google Benchmark's JSON (`--benchmark_format=json` or `--benchmark_out=FILE`) -> suite
`googlebenchmark` (or `--suite`).

Format: the user guide's "Output Formats" (https://google.github.io/benchmark/user_guide, JSON:
a `context` object and a `benchmarks` list) and the fields github-action-benchmark reads
(`GoogleCppBenchmarkJson`, src/extract.ts at c38cce98: `name`, `run_name`, `run_type`,
`repetitions`, `repetition_index`, `threads`, `iterations`, `real_time`, `cpu_time`,
`time_unit`); checked against the fixture written by libbenchmark 1.7.1 (tests/fixtures/).

- one benchmark per `run_name` (the name as the library wrote it: `BM_StringCopy/512`,
  `BM_VectorPush/64/real_time`): `<suite>/<run_name>`, its `real_time` per iteration in
  `time_unit`, smaller is better (the wall time, as github-action-benchmark takes it).
- `run_type: "iteration"` entries are its runs: `--benchmark_repetitions=N` gives N samples
  (median and bootstrap CI, N >= 5); one run is one figure. The library's own aggregates
  (`_mean`, `_median`, `_stddev`, `_cv`) are skipped, ours are computed from the runs; with
  `--benchmark_report_aggregates_only` the `median` aggregate is the one figure.
- `bytes_per_second` / `items_per_second` (SetBytesProcessed / SetItemsProcessed) become
  `<suite>/<run_name> - bytes/s` / `- items/s`, bigger is better. Other user counters are not
  read: their direction and meaning are the benchmark's own.
- `error_occurred: true` (SkipWithError) is an error carrying `error_message`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, figures_benchmark, need, read_json
from benchtrack.result import BenchError

DEFAULT_SUITE = "googlebenchmark"
TIME_UNITS = ("ns", "us", "ms", "s")
RATES = {"bytes_per_second": "bytes/s", "items_per_second": "items/s"}


def parse(path: Path, suite: str, harness: str) -> Parsed:
    doc = read_json(path)
    raw = need(doc, "benchmarks", path, "", "Google Benchmark's list of runs")
    if not isinstance(raw, list):
        raise BadInput(path, "benchmarks", "a list", type(raw).__name__)
    # run_name -> where first seen, time unit, its iteration runs, its median aggregate
    runs: dict[str, dict[str, Any]] = {}
    parsed = Parsed(suite)
    failed: dict[str, str] = {}
    for i, entry in enumerate(raw):
        where = f"benchmarks[{i}]"
        name = str(entry.get("run_name") or need(entry, "name", path, where, "a name"))
        if entry.get("error_occurred"):
            failed.setdefault(name, str(entry.get("error_message") or "error_occurred"))
            continue
        run_type = entry.get("run_type", "iteration")
        if run_type == "aggregate" and entry.get("aggregate_name") != "median":
            continue
        unit = need(entry, "time_unit", path, where, f"one of {', '.join(TIME_UNITS)}")
        if unit not in TIME_UNITS:
            raise BadInput(path, f"{where}.time_unit", f"one of {', '.join(TIME_UNITS)}", unit)
        one = runs.setdefault(name, {"where": where, "unit": unit, "runs": [], "median": None})
        if one["unit"] != unit:
            raise BadInput(path, f"{where}.time_unit", f"{one['unit']} as in {one['where']}", unit)
        figures = {"real_time": _positive(entry, "real_time", path, where)}
        for key in RATES:
            if key in entry:
                figures[key] = _positive(entry, key, path, where)
        if run_type == "aggregate":
            one["median"] = figures
        elif run_type == "iteration":
            one["runs"].append(figures)
        else:
            raise BadInput(path, f"{where}.run_type", '"iteration" or "aggregate"', run_type)
    for name, one in runs.items():
        if name in failed:
            continue
        figures = one["runs"] or [one["median"]]
        if figures == [None]:
            continue  # only mean/stddev/cv aggregates: nothing to take as the run's figure
        where = one["where"]
        full = f"{suite}/{name}"
        series = [(full, one["unit"], "smaller", "real_time")]
        series += [(f"{full} - {unit}", unit, "bigger", key) for key, unit in RATES.items()]
        for bench_name, unit, direction, key in series:
            values = [f[key] for f in figures if key in f]
            if not values:
                continue
            if len(values) != len(figures):
                raise BadInput(path, where, f"{key} in every run of {name!r} or in none", values)
            parsed.benchmarks.append(
                figures_benchmark(
                    bench_name,
                    unit,
                    direction,
                    values,
                    path,
                    where,
                    suite,
                    more_runs=" (--benchmark_repetitions=5 or more)",
                )
            )
    parsed.errors.extend(BenchError(f"{suite}/{n}", m) for n, m in failed.items())
    if not parsed.benchmarks and not parsed.errors:
        raise BadInput(path, "benchmarks", "at least one run with real_time (none found)")
    return parsed


def _positive(entry: Any, key: str, path: Path, where: str) -> float:
    value = need(entry, key, path, where, "a number")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e300:
        raise BadInput(path, f"{where}.{key}", "a positive finite number", value)
    return float(value)
