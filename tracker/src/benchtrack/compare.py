"""Compare two result documents of one suite and one runner size, benchmark by benchmark.

Pairs benchmarks by name; each pair gets a `stats.Change` (bootstrap ratio of medians, see
benchtrack.stats). Benchmarks only in head are `new`, only in base `removed`, and those head lists
in `errors` are `failed`. Results are never compared across runner sizes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchtrack import stats
from benchtrack.errors import BadInput
from benchtrack.result import COUNT_UNIT_RE, BenchError, Benchmark, Commit, ResultDocument

NEW, REMOVED, FAILED = "new", "removed", "failed"
# Display and summary order: what needs attention first.
VERDICTS = (
    stats.REGRESSED,
    FAILED,
    stats.INCONCLUSIVE,
    stats.IMPROVED,
    stats.UNCHANGED,
    NEW,
    REMOVED,
)


@dataclass(frozen=True)
class Row:
    name: str
    base: Benchmark | None
    head: Benchmark | None
    change: stats.Change | None = None
    error: str | None = None  # head could not run it
    note: str | None = None  # why a pair could not be compared

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return FAILED
        if self.change is not None:
            return self.change.verdict
        if self.base is not None and self.head is not None:
            return stats.INCONCLUSIVE  # unit or direction changed: nothing to compare
        return NEW if self.base is None else REMOVED

    @property
    def current(self) -> Benchmark | None:
        return self.head or self.base


@dataclass(frozen=True)
class SuiteComparison:
    suite: str
    runner_key: str
    threshold: float
    base_commit: Commit | None
    head_commit: Commit | None
    rows: tuple[Row, ...]

    def counts(self) -> Counter[str]:
        return Counter(r.verdict for r in self.rows)

    @property
    def regressed(self) -> bool:
        return any(r.verdict == stats.REGRESSED for r in self.rows)

    @property
    def failed(self) -> bool:
        return any(r.verdict == FAILED for r in self.rows)


def compare_documents(
    base: ResultDocument | None,
    head: ResultDocument | None,
    threshold: float = stats.DEFAULT_THRESHOLD,
    *,
    base_source: str | Path = "BASE",
    head_source: str | Path = "HEAD",
) -> SuiteComparison:
    """`base` None: every head benchmark is new (a first run); `head` None: all removed."""
    if base is None and head is None:
        raise ValueError("nothing to compare")
    if base is not None and head is not None:
        if base.runner.key != head.runner.key:
            raise BadInput(
                head_source,
                "runner",
                f"the runner size of {base_source} ({base.runner.key}); results are never "
                "compared across runner sizes",
                head.runner.key,
            )
        if base.suite != head.suite:
            raise BadInput(
                head_source, "suite", f"the suite of {base_source} ({base.suite})", head.suite
            )
    ref = head or base
    assert ref is not None
    base_by = base.by_name() if base else {}
    head_by = head.by_name() if head else {}
    errors: dict[str, BenchError] = {e.name: e for e in head.errors} if head else {}
    rows: list[Row] = []
    compared: list[tuple[str, Benchmark, Benchmark]] = []  # bootstrapped together, below
    for name in sorted(base_by.keys() | head_by.keys() | errors.keys()):
        b, h = base_by.get(name), head_by.get(name)
        if name in errors and h is None:
            rows.append(Row(name, b, None, error=errors[name].message))
        elif b is None or h is None:
            rows.append(Row(name, b, h))
        elif (b.unit, b.direction) != (h.unit, h.direction):
            note = f"was {b.unit} ({b.direction} is better), now {h.unit} ({h.direction})"
            rows.append(Row(name, b, h, note=note))
        elif _single_figure(b) or _single_figure(h):
            note = "one figure per run (the harness kept no samples): no noise to judge a change by"
            rows.append(Row(name, b, h, note=note))
        else:
            compared.append((name, b, h))
    changes = stats.compare_many(
        [(b.samples, h.samples, h.bigger_is_better) for _, b, h in compared], threshold=threshold
    )
    rows += [Row(n, b, h, c) for (n, b, h), c in zip(compared, changes, strict=True)]
    rows.sort(key=lambda row: row.name)
    return SuiteComparison(
        suite=ref.suite,
        runner_key=ref.runner.key,
        threshold=threshold,
        base_commit=base.commit if base else None,
        head_commit=head.commit if head else None,
        rows=tuple(rows),
    )


def _single_figure(bench: Benchmark) -> bool:
    """A harness's one summary figure (libtest, BMF, ...): a bootstrap of it would call any
    difference beyond noise. Instruction counts repeat run to run, so one count is enough."""
    return len(bench.samples) == 1 and not COUNT_UNIT_RE.match(bench.unit)
