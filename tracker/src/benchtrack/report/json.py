"""JSON report (`--json`): the comparison as data, one object per suite."""

from __future__ import annotations

from typing import Any

import orjson

from benchtrack.compare import SuiteComparison
from benchtrack.report import overall


def to_dict(comparisons: list[SuiteComparison]) -> dict[str, Any]:
    return {
        "schema": "benchtrack.compare/1",
        "summary": overall(comparisons),
        "regressed": any(c.regressed for c in comparisons),
        "failed": any(c.failed for c in comparisons),
        "suites": [_suite(c) for c in comparisons],
    }


def _suite(c: SuiteComparison) -> dict[str, Any]:
    return {
        "suite": c.suite,
        "runner": c.runner_key,
        "threshold": c.threshold,
        "base_commit": c.base_commit.id if c.base_commit else None,
        "head_commit": c.head_commit.id if c.head_commit else None,
        "counts": dict(c.counts()),
        "benchmarks": [
            {
                "name": r.name,
                "verdict": r.verdict,
                "unit": r.current.unit if r.current else None,
                "direction": r.current.direction if r.current else None,
                "base": r.base.value if r.base else None,
                "head": r.head.value if r.head else None,
                "head_ci": list(r.head.ci) if r.head else None,
                "ratio": r.change.ratio if r.change else None,
                "ratio_ci": list(r.change.ratio_ci) if r.change else None,
                "significant": r.change.significant if r.change else None,
                "error": r.error,
                "note": r.note,
            }
            for r in c.rows
        ],
    }


def render(comparisons: list[SuiteComparison]) -> str:
    return orjson.dumps(to_dict(comparisons), option=orjson.OPT_INDENT_2).decode() + "\n"
