"""Criterion.rs output (its home, `target/bench/raw/rust/`) -> suite `rust`.

Per benchmark criterion writes `<id>/new/{benchmark,estimates,sample}.json` (`base/` and
`change/` hold the previous run and criterion's own comparison: ignored, we compare ourselves).

- `sample.json`: `iters[i]` iterations took `times[i]` ns, so sample i's throughput is
  `per_iter * iters[i] / times[i] * 1e9`, where `per_iter` is the declared `Throughput`
  (elements, bytes or bits per iteration; none declared: 1 iteration = 1 op, unit `ops/s`).
- `value` is the throughput at criterion's **median** estimate of the time per iteration (robust
  to the long tail of slow samples, and the same statistic the other suites' values and `compare`
  use); `ci` is that estimate's confidence interval turned into throughput. The inversion swaps
  the bounds: the lower time bound is the upper throughput bound.
- The unit of elements comes from `meta/<group>.json` (written by each bench binary, see
  docs/conventions.md), else `elements/s`; its `threads` becomes `params.threads`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, need, positive_numbers, read_json
from benchtrack.result import CONTROL_RE, check_benchmark

SUITE = "rust"
NS_PER_S = 1e9


def parse(home: Path) -> Parsed:
    if not home.is_dir():
        what = "not found" if not home.exists() else "a file"
        raise BadInput(home, None, f"criterion's home directory (CRITERION_HOME), {what}")
    found = sorted(
        p
        for p in home.rglob("benchmark.json")
        if p.parent.name == "new" and "report" not in p.parts
    )
    if not found:
        raise BadInput(home, None, "criterion output: <id>/new/benchmark.json files (none found)")
    metas: dict[str, dict[str, Any]] = {}
    parsed = Parsed(SUITE)
    for i, path in enumerate(found):
        parsed.benchmarks.append(_benchmark(path.parent, home, metas, f"benchmarks[{i}]"))
    return parsed


def _benchmark(new: Path, home: Path, metas: dict[str, dict[str, Any]], where: str):
    bench_file = new / "benchmark.json"
    info = read_json(bench_file)
    group = need(info, "group_id", bench_file, "", "criterion's group id")
    parts = [SUITE, group, info.get("function_id"), info.get("value_str")]
    # criterion's id as it wrote it (`group/function/value`), spaces and all
    name = "/".join(str(p) for p in parts if p not in (None, ""))
    if CONTROL_RE.search(name):
        raise BadInput(
            bench_file,
            "group_id/function_id/value_str",
            "an id without control characters or bidi controls",
            name,
        )
    meta = _meta(home, group, metas)
    per_iter, unit = _throughput(info.get("throughput"), meta, bench_file)

    sample_file = new / "sample.json"
    sample = read_json(sample_file)
    iters = positive_numbers(
        need(sample, "iters", sample_file, "", "iterations"), sample_file, "iters"
    )
    times = positive_numbers(need(sample, "times", sample_file, "", "ns"), sample_file, "times")
    if len(iters) != len(times):
        raise BadInput(sample_file, "times", f"{len(iters)} times, one per iters entry", len(times))
    samples = [per_iter * n / t * NS_PER_S for n, t in zip(iters, times, strict=True)]

    est_file = new / "estimates.json"
    median = need(read_json(est_file), "median", est_file, "", "criterion's median estimate")
    point = _ns(
        need(median, "point_estimate", est_file, "median", "ns"), est_file, "median.point_estimate"
    )
    interval = need(median, "confidence_interval", est_file, "median", "an interval")
    where_ci = "median.confidence_interval"
    t_lo = _ns(
        need(interval, "lower_bound", est_file, where_ci, "ns"), est_file, f"{where_ci}.lower_bound"
    )
    t_hi = _ns(
        need(interval, "upper_bound", est_file, where_ci, "ns"), est_file, f"{where_ci}.upper_bound"
    )

    data: dict[str, Any] = {
        "name": name,
        "unit": unit,
        "value": per_iter / point * NS_PER_S,
        "ci": [per_iter / t_hi * NS_PER_S, per_iter / t_lo * NS_PER_S],
        "samples": samples,
    }
    if isinstance(meta.get("threads"), int):
        data["params"] = {"threads": meta["threads"]}
    return check_benchmark(data, SUITE, new, where)


def _ns(value: Any, source: Path, where: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value < float("inf")
    ):
        raise BadInput(source, where, "a positive time in ns", value)
    return float(value)


def _meta(home: Path, group: str, cache: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if group not in cache:
        path = home / "meta" / f"{group}.json"
        meta = read_json(path) if path.is_file() else {}
        if not isinstance(meta, dict):
            raise BadInput(path, None, "a JSON object {group, unit, threads, profile}", meta)
        cache[group] = meta
    return cache[group]


def _throughput(declared: Any, meta: dict[str, Any], source: Path) -> tuple[float, str]:
    """(units per iteration, unit) from criterion's serialized `Throughput` enum."""
    if declared is None:
        return 1.0, "ops/s"
    if not isinstance(declared, dict) or len(declared) != 1:
        raise BadInput(
            source, "throughput", 'criterion\'s Throughput, e.g. {"Elements": 100}', declared
        )
    ((kind, amount),) = declared.items()
    if kind == "ElementsAndBytes" and isinstance(amount, dict):  # elements are the primary one
        kind, amount = "Elements", amount.get("elements")
    units = {
        "Elements": meta.get("unit") or "elements/s",
        "Bytes": "bytes/s",
        "BytesDecimal": "bytes/s",
        "Bits": "bits/s",
    }
    if kind not in units:
        raise BadInput(source, "throughput", f"one of {', '.join(units)}", kind)
    if isinstance(amount, bool) or not isinstance(amount, int | float) or amount <= 0:
        raise BadInput(source, f"throughput.{kind}", "a positive count per iteration", amount)
    return float(amount), units[kind]
