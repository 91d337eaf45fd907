"""github-action-benchmark's custom JSON (`tool: customBiggerIsBetter` / `customSmallerIsBetter`)
-> suite `custom` (or `--suite`). The harness word is the action's tool name: it says the
direction of every entry.

Format: the action's README ("customBiggerIsBetter and customSmallerIsBetter": "Every entry in
the JSON file you provide only needs to provide name, unit, and value. You can also provide
optional range (results' variance) and extra") and its schema (`BenchmarkResult` in
src/extract.ts of benchmark-action/github-action-benchmark at c38cce98: a zod array of
`{name: string, value: number, range?: string, unit: string, extra?: string}`, each coerced).

- `name` as written -> `<suite>/<name>`; `unit` as written; `value` one figure (result documents
  hold positive figures: a 0 or negative value is refused).
- `range` (free text: `"3"`, `"± 3"`, as the action writes it) read as a half-width: `ci` is
  `value ± range`; text that is not a number leaves `ci` at the value.
- `extra` (free text for the tooltip) kept in `params.extra`.
- A unit whose direction is known must agree with the tool: `ms` under customBiggerIsBetter is
  refused, naming the entry (result.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.history.extra import parse_range
from benchtrack.ingest import Parsed, figures_benchmark, need, read_json, spread_around

DEFAULT_SUITE = "custom"
DIRECTION = {"customBiggerIsBetter": "bigger", "customSmallerIsBetter": "smaller"}


def parse(path: Path, suite: str, harness: str) -> Parsed:
    direction = DIRECTION[harness]
    doc = read_json(path)
    if not isinstance(doc, list):
        raise BadInput(path, None, f"a JSON array of {{name, unit, value}} ({harness})", doc)
    parsed = Parsed(suite)
    for i, entry in enumerate(doc):
        where = f"[{i}]"
        name = _text(
            need(entry, "name", path, where, "the benchmark's name"), path, f"{where}.name"
        )
        unit = _text(need(entry, "unit", path, where, "a unit"), path, f"{where}.unit")
        value = _value(need(entry, "value", path, where, "a number"), path, f"{where}.value")
        spread = None
        if entry.get("range") is not None:
            half = parse_range(str(entry["range"]))
            if math.isfinite(half) and half >= 0:
                spread = spread_around(value, half)
        params: dict[str, Any] = {}
        if entry.get("extra") is not None:
            params["extra"] = str(entry["extra"])
        parsed.benchmarks.append(
            figures_benchmark(
                f"{suite}/{name}",
                unit,
                direction,
                [value],
                path,
                where,
                suite,
                spread=spread,
                params=params,
            )
        )
    if not parsed.benchmarks:
        raise BadInput(path, None, "at least one {name, unit, value} entry (the array is empty)")
    return parsed


def _text(value: Any, path: Path, where: str) -> str:
    # The action coerces with zod's z.coerce.string(): a number is taken as its text.
    if isinstance(value, bool) or not isinstance(value, str | int | float) or str(value) == "":
        raise BadInput(path, where, "a non-empty string", value)
    return str(value)


def _value(value: Any, path: Path, where: str) -> float:
    # z.coerce.number(): numeric text counts as the number it spells.
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or number <= 0:
        raise BadInput(
            path, where, "a positive finite number (benchtrack keeps positive figures)", value
        )
    return number
