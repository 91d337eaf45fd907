"""Ingest adapters: one module per harness, each turning its native output into benchmarks.

An adapter knows one harness's files and nothing else. It returns `Parsed` (suite, benchmarks,
errors); `ingest()` adds the commit and runner and validates the whole document, so every
result document leaving here has passed `ResultDocument.from_dict`'s checks.

This repository's harnesses (criterion, pytest, perl, callgrind) name their own suite. The
adapters for what other projects run (libtest, gotest, googlebenchmark, the custom JSON of
github-action-benchmark, Bencher's BMF) have a `DEFAULT_SUITE` and take `--suite`; each of their
benchmarks is `<suite>/<the name as the harness wrote it>`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.result import (
    MIN_SAMPLES,
    SUITE_RE,
    BenchError,
    Benchmark,
    Commit,
    ResultDocument,
    Runner,
    check_benchmark,
    parse_json,
)

# harness name (the CLI word) -> module under benchtrack.ingest
HARNESSES = {
    "criterion": "criterion",
    "pytest": "pytest",
    "perl": "perl",
    "callgrind": "callgrind",
    "libtest": "libtest",
    "gotest": "gotest",
    "googlebenchmark": "googlebenchmark",
    # github-action-benchmark's tool names: the direction is in the name
    "customBiggerIsBetter": "custom",
    "customSmallerIsBetter": "custom",
    "bmf": "bmf",
}


@dataclass
class Parsed:
    suite: str
    benchmarks: list[Benchmark] = field(default_factory=list)
    errors: list[BenchError] = field(default_factory=list)


def names_own_suite(harness: str) -> bool:
    """Whether `harness`'s output names its suite (this repository's harnesses), rather than
    taking one (`--suite`, a configured suite's name)."""
    module = _module(harness)
    return getattr(module, "DEFAULT_SUITE", None) is None


def parse(harness: str, path: str | Path, suite: str | None = None) -> Parsed:
    """`harness`'s output at `path`, its benchmarks under `suite` (or the harness's default)."""
    module = _module(harness)
    default = getattr(module, "DEFAULT_SUITE", None)
    if default is None:
        if suite is not None:
            raise BadInput("--suite", None, f"no --suite for {harness}: it names its own suite")
        return module.parse(Path(path))
    suite = default if suite is None else suite
    if not SUITE_RE.match(suite):
        raise BadInput("--suite", None, "a lowercase suite name like 'gotest'", suite)
    return module.parse(Path(path), suite, harness)


def _module(harness: str) -> Any:
    if harness not in HARNESSES:
        raise BadInput("harness", None, f"one of {', '.join(HARNESSES)}", harness)
    return importlib.import_module(f"benchtrack.ingest.{HARNESSES[harness]}")


def ingest(
    harness: str,
    path: str | Path,
    commit: Commit,
    runner: Runner,
    created: str,
    suite: str | None = None,
) -> ResultDocument:
    parsed = parse(harness, path, suite)
    doc = ResultDocument(
        suite=parsed.suite,
        created=created,
        commit=commit,
        runner=runner,
        benchmarks=tuple(parsed.benchmarks),
        errors=tuple(parsed.errors),
    )
    return doc.validated(path)


def _read_bytes(path: Path, kind: str) -> bytes:
    """A harness's output file; missing, a directory or unreadable is BadInput naming it."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise BadInput(path, None, "a harness output file (not found)") from None
    except IsADirectoryError:
        raise BadInput(path, None, f"a {kind} file, not a directory") from None
    except OSError as e:
        raise BadInput(path, None, f"a readable file ({e.strerror})") from None


def read_json(path: Path) -> Any:
    """A harness's JSON file; missing, empty, truncated or non-JSON is BadInput naming it."""
    return parse_json(_read_bytes(path, "JSON"), path)


def need(data: Any, key: str, source: Path, where: str, expected: str) -> Any:
    """`data[key]`, or BadInput naming `where.key` and what it should have been."""
    full = f"{where}.{key}" if where else key
    if not isinstance(data, dict):
        raise BadInput(source, where or "document", "a JSON object", type(data).__name__)
    if key not in data or data[key] is None:
        raise BadInput(source, full, f"{expected} (missing)")
    return data[key]


def positive_numbers(values: Any, source: Path, where: str) -> list[float]:
    """A list of positive finite numbers (times or counts straight from a harness)."""
    if not isinstance(values, list) or not values:
        raise BadInput(source, where, "a non-empty list of numbers", values)
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v < float("inf"):
            raise BadInput(source, f"{where}[{i}]", "a positive finite number", v)
        out.append(float(v))
    return out


def errors_of(doc: Any, source: Path) -> list[BenchError]:
    """A harness's top-level `errors` list ({name, message} per benchmark that failed to run)."""
    raw = doc.get("errors") or []
    if not isinstance(raw, list):
        raise BadInput(source, "errors", "a list of {name, message}", type(raw).__name__)
    out = []
    for i, error in enumerate(raw):
        name = need(error, "name", source, f"errors[{i}]", "the name of the benchmark that failed")
        message = need(error, "message", source, f"errors[{i}]", "why it failed")
        out.append(BenchError(str(name), str(message)))
    return out


def read_text(path: Path) -> str:
    """A harness's text output (libtest, go test); missing, a directory or not UTF-8 is BadInput."""
    try:
        return _read_bytes(path, "text").decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(path, None, f"UTF-8 text (byte {e.start} is not)") from None


def figures_benchmark(
    name: str,
    unit: str,
    direction: str,
    runs: list[float],
    source: Path,
    where: str,
    suite: str,
    *,
    spread: tuple[float, float] | None = None,
    params: dict[str, Any] | None = None,
    more_runs: str = "",
) -> Benchmark:
    """One benchmark from a harness's figures: several runs are samples (median, bootstrap CI,
    as for this repository's suites); one run is the harness's summary figure, its `ci` the
    harness's own spread (`spread`) or none. 2-4 runs are refused: too few to bootstrap."""
    if len(runs) == 1:
        value = runs[0]
        lo, hi = spread or (value, value)
        ci = (min(lo, value), max(hi, value))
    elif len(runs) >= MIN_SAMPLES:
        # here, not at the top: a step worker imports ingest's parsers at every start, and
        # stats' numpy is most of a worker's start-up (0.9 s of 1.0 beside load)
        from benchtrack.stats import median_ci

        value, ci = median_ci(runs)
    else:
        raise BadInput(
            source,
            where,
            f"1 run or at least {MIN_SAMPLES} runs of {name!r} (too few to bootstrap){more_runs}",
            len(runs),
        )
    data: dict[str, Any] = {
        "name": name,
        "unit": unit,
        "value": value,
        "ci": list(ci),
        "samples": runs,
    }
    if direction != "bigger":
        data["direction"] = direction
    if params:
        data["params"] = params
    return check_benchmark(data, suite, source, where)


def spread_around(value: float, half: float) -> tuple[float, float]:
    """`value ± half` as bounds that stay positive (a spread wider than the value itself)."""
    return (value - half if value - half > 0 else value * 1e-9, value + half)
