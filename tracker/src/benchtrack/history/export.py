"""Result documents -> github-action-benchmark's custom-tool input (`benchtrack export`).

One record per benchmark, `{name, value, range, unit, extra}` in the key order the action stores
them, so the action's data.js and ours (history.append) hold the same bytes for the same run.
Bigger-is-better metrics go to `customBiggerIsBetter`; `direction: smaller` ones (peak memory) to
`customSmallerIsBetter` under their own entry name (docs/architecture.md).
"""

from __future__ import annotations

from benchtrack.errors import BadInput
from benchtrack.history.records import bench_record, merged_benchmarks
from benchtrack.result import ResultDocument

__all__ = ["DIRECTIONS", "bench_record", "check_one_run", "merged_benchmarks"]

DIRECTIONS = ("bigger", "smaller")


def check_one_run(docs: list[tuple[str, ResultDocument]]) -> None:
    """Export is for one action invocation: one runner size, one commit."""
    first_source, first = docs[0]
    for source, doc in docs[1:]:
        if doc.runner.key != first.runner.key:
            raise BadInput(
                source,
                "runner",
                f"the runner size of {first_source} ({first.runner.key})",
                doc.runner.key,
            )
        if doc.commit.id != first.commit.id:
            raise BadInput(
                source,
                "commit.id",
                f"the commit of {first_source} ({first.commit.id})",
                doc.commit.id,
            )
