"""The Perl runner's JSON (`target/bench/raw/perl/perl.json`, schema `benchtrack.perl/1`) -> `perl`.

The runner already reports per-round values in the final unit (iterations per second, or KB of
peak RSS with `direction: smaller`), so this adapter only summarises: `value` is the median round
and `ci` a bootstrap interval of it (benchtrack.stats.median_ci). `direction` and `params` are
kept, and the runner's `errors` (benchmarks that died) are carried over.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, errors_of, need, positive_numbers, read_json
from benchtrack.result import check_benchmark
from benchtrack.stats import median_ci

SUITE = "perl"
SCHEMA = "benchtrack.perl/1"


def parse(path: Path) -> Parsed:
    if path.is_dir():
        path = path / "perl.json"
    doc = read_json(path)
    schema = need(doc, "schema", path, "", f'"{SCHEMA}"')
    if schema != SCHEMA:
        raise BadInput(path, "schema", f'"{SCHEMA}"', schema)
    raw = need(doc, "benchmarks", path, "", "the runner's list of benchmarks")
    if not isinstance(raw, list):
        raise BadInput(path, "benchmarks", "a list", type(raw).__name__)
    parsed = Parsed(SUITE)
    for i, entry in enumerate(raw):
        where = f"benchmarks[{i}]"
        samples = positive_numbers(
            need(entry, "samples", path, where, "per-round values"), path, f"{where}.samples"
        )
        value, ci = median_ci(samples)
        data: dict[str, Any] = {
            "name": need(entry, "name", path, where, "a benchmark name"),
            "unit": need(entry, "unit", path, where, "a unit"),
            "value": value,
            "ci": list(ci),
            "samples": samples,
        }
        if entry.get("direction", "bigger") != "bigger":
            data["direction"] = entry["direction"]
        if entry.get("params"):
            data["params"] = entry["params"]
        parsed.benchmarks.append(check_benchmark(data, SUITE, path, where))
    parsed.errors.extend(errors_of(doc, path))
    return parsed
