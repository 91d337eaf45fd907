"""Ingest adapters: one module per harness, each turning its native output into benchmarks.

An adapter knows one harness's files and nothing else. It returns `Parsed` (suite, benchmarks,
errors); `ingest()` adds the commit and runner and validates the whole document, so every
result document leaving here has passed `ResultDocument.from_dict`'s checks.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.result import BenchError, Benchmark, Commit, ResultDocument, Runner, parse_json

# harness name (the CLI word) -> module under benchtrack.ingest
HARNESSES = {
    "criterion": "criterion",
    "pytest": "pytest",
    "perl": "perl",
    "callgrind": "callgrind",
}


@dataclass
class Parsed:
    suite: str
    benchmarks: list[Benchmark] = field(default_factory=list)
    errors: list[BenchError] = field(default_factory=list)


def ingest(
    harness: str, path: str | Path, commit: Commit, runner: Runner, created: str
) -> ResultDocument:
    if harness not in HARNESSES:
        raise BadInput("harness", None, f"one of {', '.join(HARNESSES)}", harness)
    module = importlib.import_module(f"benchtrack.ingest.{HARNESSES[harness]}")
    parsed: Parsed = module.parse(Path(path))
    doc = ResultDocument(
        suite=parsed.suite,
        created=created,
        commit=commit,
        runner=runner,
        benchmarks=tuple(parsed.benchmarks),
        errors=tuple(parsed.errors),
    )
    return doc.validated(path)


def read_json(path: Path) -> Any:
    """A harness's JSON file; missing, empty, truncated or non-JSON is BadInput naming it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BadInput(path, None, "a harness output file (not found)") from None
    except IsADirectoryError:
        raise BadInput(path, None, "a JSON file, not a directory") from None
    except OSError as e:
        raise BadInput(path, None, f"a readable file ({e.strerror})") from None
    return parse_json(raw, path)


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
