"""pytest-benchmark's `--benchmark-json` file (`target/bench/raw/python/pytest.json`) -> `python`.

`stats.data` holds one time per round, in seconds per call (pytest-benchmark divides each round
by its iterations), so a round's throughput is `items / data[i]`, `items` being the things one
call processes (`extra_info.items`, default 1). `value` is the median round throughput and `ci`
a bootstrap interval of it (benchtrack.stats.median_ci), as for the other suites.

Failed benchmarks come from the top-level `errors` list the suite's conftest adds. Names and units
come from `extra_info` (docs/conventions.md); without them a benchmark is
`python/<group>/<test name>` in `ops/s`, the name as pytest wrote it (`test_x[10-async]`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, errors_of, need, positive_numbers, read_json
from benchtrack.result import check_benchmark
from benchtrack.stats import median_ci

SUITE = "python"
KEEP_SAMPLES = (
    "per-round timings (keep the samples: use --benchmark-json, which includes them, or add "
    "--benchmark-save-data to --benchmark-save)"
)


def parse(path: Path) -> Parsed:
    if path.is_dir():
        path = path / "pytest.json"
    doc = read_json(path)
    raw = need(doc, "benchmarks", path, "", "pytest-benchmark's list of benchmarks")
    if not isinstance(raw, list):
        raise BadInput(path, "benchmarks", "a list", type(raw).__name__)
    parsed = Parsed(SUITE)
    for i, entry in enumerate(raw):
        parsed.benchmarks.append(_benchmark(entry, path, f"benchmarks[{i}]"))
    # The suite's conftest adds `errors` (tests that failed); plain pytest-benchmark has none.
    parsed.errors.extend(errors_of(doc, path))
    return parsed


def _benchmark(entry: Any, path: Path, where: str):
    stats = need(entry, "stats", path, where, "pytest-benchmark stats")
    if not isinstance(stats, dict) or "data" not in stats:
        raise BadInput(path, f"{where}.stats.data", KEEP_SAMPLES)
    times = positive_numbers(stats["data"], path, f"{where}.stats.data")
    extra = entry.get("extra_info") or {}
    if not isinstance(extra, dict):
        raise BadInput(path, f"{where}.extra_info", "an object", extra)
    items = extra.get("items", 1)
    if isinstance(items, bool) or not isinstance(items, int | float) or not 0 < items < 1e12:
        raise BadInput(path, f"{where}.extra_info.items", "a positive count per call", items)
    samples = [items / t for t in times]
    value, ci = median_ci(samples)
    data: dict[str, Any] = {
        "name": extra.get("name") or _fallback_name(entry, path, where),
        "unit": extra.get("unit") or "ops/s",
        "value": value,
        "ci": list(ci),
        "samples": samples,
    }
    params = {k: v for k, v in (entry.get("params") or {}).items() if _scalar(v)}
    if _scalar(extra.get("threads")):
        params["threads"] = extra["threads"]
    if params:
        data["params"] = params
    return check_benchmark(data, SUITE, path, where)


def _fallback_name(entry: dict[str, Any], path: Path, where: str) -> str:
    """`python/<group>/<test name as pytest wrote it>`, e.g. `python/default/test_x[10-async]`."""
    test = need(entry, "name", path, where, "the test's name")
    group = entry.get("group") or "default"
    return f"{SUITE}/{group}/{test}"


def _scalar(v: Any) -> bool:
    return isinstance(v, str | int | float | bool)
