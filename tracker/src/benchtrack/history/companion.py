"""Companion series: a second value stored per benchmark beside its wall-time throughput.

A benchmark's instruction count (`benchtrack callgrind`, unit `instructions/<thing>`, smaller is
better) is kept in the history as its own series named `<name> (instructions)`, in a result
document of suite `<suite>-instructions`. Same data.js, same format, same append path as every
other series; the suffix is what the dashboard uses to show it with its benchmark, and the same
key the gate gives it (`Suite.key` in gate/config.py). Wall time spreads tens of % on a shared
runner for CPU-bound work while the count repeats within ~1%, so the count is what lets change
points be found in main's history (tracker/DETECT.md, "History noise").
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from benchtrack.result import COMPANION_RE, BenchError, ResultDocument

INSTRUCTIONS = "instructions"


def name_of(name: str, series: str = INSTRUCTIONS) -> str:
    """`rust/walk/rayon` -> `rust/walk/rayon (instructions)`."""
    return f"{name} ({series})"


def split(name: str) -> tuple[str, str | None]:
    """`<name> (<series>)` -> (name, series); a benchmark's own series -> (name, None)."""
    match = COMPANION_RE.match(name)
    return (match.group(1), match.group(2)) if match else (name, None)


def as_companion(
    doc: ResultDocument, source: str | Path, series: str = INSTRUCTIONS
) -> ResultDocument:
    """A counts document as ingested (suite `rust`, plain names) -> the companion document
    (suite `rust-instructions`, names `<name> (instructions)`), so that it sits beside the suite's
    own document in one run without a name or a suite twice."""
    benchmarks = tuple(dataclasses.replace(b, name=name_of(b.name, series)) for b in doc.benchmarks)
    errors = tuple(BenchError(name_of(e.name, series), e.message) for e in doc.errors)
    out = ResultDocument(
        f"{doc.suite}-{series}", doc.created, doc.commit, doc.runner, benchmarks, errors
    )
    return out.validated(source)
