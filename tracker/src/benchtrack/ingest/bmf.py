"""Bencher Metric Format (BMF) JSON -> suite `bmf` (or `--suite`); and result documents -> BMF
(`benchtrack export --format bmf`). Read and write share the mapping below, so a document
written here reads back to the same names, units, directions, values and intervals.

Format: https://bencher.dev/docs/reference/bencher-metric-format (its JSON Schema: an object of
benchmarks, each an object of measures, each `{value: number, lower_value?: number,
upper_value?: number}`, `value` required). Every project has the built-in measures `latency`
(nanoseconds) and `throughput` (operations / second); any other measure key is created by
Bencher from its name or slug (slug at most 64 characters), with the unit the user gives it.

- a benchmark with one measure is `<suite>/<benchmark>`; with several, each is
  `<suite>/<benchmark> - <measure>` (github-action-benchmark's spelling for a second metric).
- `latency` -> unit `ns`, smaller is better; `throughput` -> `ops/s`, bigger; another measure
  is its own unit, its direction read from it (`<thing>/s` bigger, anything else smaller:
  Bencher keeps no direction in BMF).
- `value` one figure; `lower_value`/`upper_value` its `ci` (absent: the value).

Writing is the inverse: each benchmark's harness name (its name after `<suite>/`) is a BMF
benchmark with one measure: `latency` for `ns`, `throughput` for `ops/s`, else its unit; `value`,
`lower_value`, `upper_value` from `value` and `ci`; names `X - <measure>` of one X go back
under X as its measures. A unit whose direction is not the one read
back (`items` declared bigger) is refused, not written wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import Parsed, figures_benchmark, read_json
from benchtrack.result import ResultDocument, direction_of_unit

DEFAULT_SUITE = "bmf"
# Bencher's built-in measures and the unit each is measured in.
BUILT_IN = {"latency": ("ns", "smaller"), "throughput": ("ops/s", "bigger")}
MAX_MEASURE = 64


def parse(path: Path, suite: str, harness: str) -> Parsed:
    doc = read_json(path)
    if not isinstance(doc, dict) or not doc:
        raise BadInput(path, None, "a BMF object {benchmark: {measure: {value}}}", doc)
    parsed = Parsed(suite)
    for bench, measures in doc.items():
        where = _key(bench)
        if not isinstance(measures, dict) or not measures:
            raise BadInput(path, where, "an object of measures {measure: {value}}", measures)
        for measure, metric in measures.items():
            at = f"{where}.{_key(measure)}"
            unit, direction = BUILT_IN.get(measure, (measure, direction_of_unit(measure)))
            value = _number(metric, "value", path, at, required=True)
            lo = _number(metric, "lower_value", path, at) or value
            hi = _number(metric, "upper_value", path, at) or value
            if not lo <= value <= hi:
                raise BadInput(path, at, f"lower_value <= value ({value}) <= upper_value", metric)
            name = f"{suite}/{bench}" if len(measures) == 1 else f"{suite}/{bench} - {measure}"
            parsed.benchmarks.append(
                figures_benchmark(name, unit, direction, [value], path, at, suite, spread=(lo, hi))
            )
    return parsed


def to_bmf(docs: list[tuple[str, ResultDocument]]) -> dict[str, Any]:
    """Result documents of one run as one BMF object (see the module docstring)."""
    rows: list[tuple[str, str, dict[str, float]]] = []  # (benchmark key, measure, metric)
    seen: dict[str, str] = {}
    for source, doc in docs:
        for i, bench in enumerate(doc.benchmarks):
            where = f"benchmarks[{i}]"
            key = bench.name.split("/", 1)[1]
            measure = _measure(bench.unit, bench.direction, source, where)
            if key in seen:
                raise BadInput(source, f"{where}.name", f"{key!r} once (also in {seen[key]})")
            seen[key] = str(source)
            metric = {"value": bench.value, "lower_value": bench.ci[0], "upper_value": bench.ci[1]}
            rows.append((key, measure, metric))
    # `X - <measure>` names, as `parse` spells a benchmark's several measures, go back under X
    # when X has several of them (one alone would read back as plain `X`).
    suffixed = [k.removesuffix(f" - {m}") for k, m, _ in rows if k.endswith(f" - {m}")]
    grouped = {b for b in suffixed if suffixed.count(b) > 1 and b not in seen}
    out: dict[str, dict[str, Any]] = {}
    for key, measure, metric in rows:
        base = key.removesuffix(f" - {measure}")
        if base in grouped and base != key:
            out.setdefault(base, {})[measure] = metric
        else:
            out[key] = {measure: metric}
    return out


def _measure(unit: str, direction: str, source: str, where: str) -> str:
    """The BMF measure a unit is written under: a built-in one, else the unit itself."""
    for measure, known in BUILT_IN.items():
        if known == (unit, direction):
            return measure
    if direction_of_unit(unit) != direction:
        raise BadInput(
            source,
            f"{where}.unit",
            f"a unit BMF readers take as {direction} is better ('<thing>/s' bigger, others "
            "smaller): BMF carries no direction",
            unit,
        )
    if len(unit) > MAX_MEASURE or unit in BUILT_IN:
        raise BadInput(
            source,
            f"{where}.unit",
            f"a measure name of at most {MAX_MEASURE} characters, not a built-in measure's",
            unit,
        )
    return unit


def _number(metric: Any, key: str, path: Path, where: str, *, required: bool = False) -> float:
    if not isinstance(metric, dict):
        raise BadInput(path, where, "a metric object {value, lower_value?, upper_value?}", metric)
    value = metric.get(key)
    if value is None and not required:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e300:
        expected = "a positive finite number (benchtrack keeps positive figures)"
        raise BadInput(
            path, f"{where}.{key}", expected + (" (missing)" if value is None else ""), value
        )
    return float(value)


def _key(text: str) -> str:
    """A JSON key as a field path component, quoted when it holds the path's own characters."""
    return text if text.isidentifier() else f"[{text!r}]"
