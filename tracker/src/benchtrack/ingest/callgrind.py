"""Instruction counts (`benchtrack callgrind`'s raw output, schema `benchtrack.callgrind/1`) ->
benchmarks of unit `instructions/<thing>`, direction smaller.

Each sample is one counted run's instructions divided by the elements it handled, so the value
sits beside the wall-time throughput (`<things>/s`) of the benchmark of the same name. PATH is
one raw file or a directory of them (one per harness process, e.g. per criterion binary).
"""

from __future__ import annotations

from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, need, positive_numbers, read_json
from benchtrack.result import check_benchmark
from benchtrack.stats import median_ci

# The raw format `benchtrack callgrind` (gate/callgrind.py) writes and this adapter reads.
SCHEMA = "benchtrack.callgrind/1"
IRREGULAR = {"directories": "directory", "queries": "query"}


def count_unit(throughput_unit: str) -> str:
    """`items/s` -> `instructions/item`: the work one instruction count is divided by."""
    things = throughput_unit.removesuffix("/s")
    thing = IRREGULAR.get(things) or (things[:-1] if things.endswith("s") else things)
    return f"instructions/{thing or 'run'}"


def parse(path: Path) -> Parsed:
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise BadInput(path, None, "benchtrack callgrind output (*.json)", "an empty directory")
    suite = None
    parsed: Parsed | None = None
    for file in files:
        doc = read_json(file)
        schema = need(doc, "schema", file, "", f'"{SCHEMA}"')
        if schema != SCHEMA:
            raise BadInput(file, "schema", f'"{SCHEMA}"', schema)
        raw = need(doc, "benchmarks", file, "", "a list of counted benchmarks")
        if not isinstance(raw, list):
            raise BadInput(file, "benchmarks", "a list", type(raw).__name__)
        for i, entry in enumerate(raw):
            where = f"benchmarks[{i}]"
            name = need(entry, "name", file, where, "a benchmark name")
            elements = need(entry, "elements", file, where, "the elements one run handles")
            if isinstance(elements, bool) or not isinstance(elements, int) or elements < 1:
                raise BadInput(file, f"{where}.elements", "a positive whole number", elements)
            counts = positive_numbers(
                need(entry, "instructions", file, where, "instructions per counted run"),
                file,
                f"{where}.instructions",
            )
            samples = [c / elements for c in counts]
            value, ci = median_ci(samples)
            suite = suite or str(name).split("/", 1)[0]
            parsed = parsed or Parsed(suite)
            data = {
                "name": name,
                "unit": count_unit(str(need(entry, "unit", file, where, "a throughput unit"))),
                "direction": "smaller",
                "value": value,
                "ci": list(ci),
                "samples": samples,
            }
            parsed.benchmarks.append(check_benchmark(data, suite, file, where))
    if parsed is None:
        raise BadInput(path, "benchmarks", "at least one counted benchmark", "none")
    return parsed
