"""From measured rounds to the gate's outcome: one row per benchmark, the exit code, the JSON."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, EXIT_REGRESSION
from benchtrack.gate import verdict as v
from benchtrack.gate.config import GateConfig, split_key
from benchtrack.gate.model import Rounds, SuiteFailure
from benchtrack.gate.skip import REASON
from benchtrack.stats import IMPROVED, INCONCLUSIVE, REGRESSED, UNCHANGED
from benchtrack.suites import COUNTED

SCHEMA = "benchtrack.gate/1"
ORDER = {REGRESSED: 0, IMPROVED: 1, INCONCLUSIVE: 2, UNCHANGED: 3}


@dataclass(frozen=True)
class Row:
    name: str
    suite: str
    unit: str
    direction: str
    base: float  # median of the per-round values
    head: float
    change: float  # head/base - 1 in the metric's own terms (geometric mean of paired ratios)
    lo: float  # simultaneous interval of `change`
    hi: float
    verdict: str
    threshold: float
    rounds: int
    gates: bool = True  # every series can fail the PR (kept in gate.json for its readers)
    # 2: its verdict is the confirmation's (gate/confirm.py), from rounds of its own.
    stage: int = 1
    # The benchmark's wall-time series (or its only one): the one whose improvement counts.
    primary: bool = True
    # Two series of one benchmark confidently disagree: one worse than 0, the other better.
    disagrees: bool = False
    # Unchanged by the equivalence test (gate/decide.py): `lo`/`hi` are its interval, at the
    # equivalence level, over the screening's and the second stage's rounds together.
    equivalence: bool = False
    # Open after the second stage, which measured it (gate/decide.py): `change`, `lo`/`hi` and
    # `rounds` are over both stages' rounds, the interval at the equivalence test's level (as
    # an `equivalence` row's), which it did not pass; not the screening's first rounds.
    pooled: bool = False

    @property
    def smaller_loss(self) -> bool:
        """A loss below the threshold that the measurement still resolves: not failed, reported.

        The whole interval is on the losing side of 0 (for a gating series it holds at the PR's
        family-wise level; an `equivalence` or `pooled` row's, at the equivalence test's), short
        of the threshold (else a screened or confirmed series is regressed: verdict.decide), and
        the estimate lost at least half the threshold, so a resolved loss of 3-5% is named and a
        resolved but trivial change is not."""
        if not self.gates or self.verdict in (REGRESSED, IMPROVED):
            return False
        bigger = self.direction != "smaller"
        beyond_zero = self.hi < 0 if bigger else self.lo > 0
        lost = -self.change if bigger else self.change
        return beyond_zero and lost >= self.threshold / 2


@dataclass
class Outcome:
    rows: list[Row]
    only_base: list[str]
    only_head: list[str]
    failed: dict[str, dict[str, str]]  # side -> benchmark name -> message
    suite_failures: list[SuiteFailure]
    alpha: float
    looks: list[int]
    meta: dict[str, Any] = field(default_factory=dict)
    can_stop: bool = False  # more rounds could not fail the PR (verdict.can_stop)
    skipped: int = 0  # not measured: this many changed files, all in [gate].skip_paths

    @classmethod
    def skip(cls, files: int, alpha: float, meta: dict[str, Any]) -> Outcome:
        """A PR left unmeasured (gate/skip.py): no rows, so it passes."""
        return cls([], [], [], {"base": {}, "head": {}}, [], alpha, [], meta, skipped=files)

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == REGRESSED and r.gates]

    @property
    def improvements(self) -> list[Row]:
        """Benchmarks whose wall time improved and none of whose series regressed or
        disagrees: a quieter series' improvement alone never counts."""
        regressed = {split_key(r.name)[0] for r in self.regressions}
        return [
            r
            for r in self.rows
            if r.primary
            and r.verdict == IMPROVED
            and not r.disagrees
            and split_key(r.name)[0] not in regressed
        ]

    @property
    def smaller_losses(self) -> list[Row]:
        return [r for r in self.rows if r.smaller_loss]

    @property
    def exit_code(self) -> int:
        if self.suite_failures or any(self.failed.values()):
            return EXIT_BENCHMARK_FAILED
        return EXIT_REGRESSION if self.regressions else EXIT_OK

    def to_dict(self, data: Rounds | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema": SCHEMA,
            **self.meta,
            "alpha": self.alpha,
            "looks": self.looks,
            "exit_code": self.exit_code,
            **({"skipped": {"reason": REASON, "files": self.skipped}} if self.skipped else {}),
            "benchmarks": [
                {**_finite(asdict(r)), "smaller_loss": r.smaller_loss} for r in self.rows
            ],
            "only_base": self.only_base,
            "only_head": self.only_head,
            "failed": self.failed,
            "suite_failures": [
                {
                    "side": f.side,
                    "suite": f.suite,
                    "what": f.what,
                    "tail": f.tail,
                    "log": str(f.log),
                }
                for f in self.suite_failures
            ],
        }
        if data is not None:  # every round, so the verdicts can be re-derived offline
            out["rounds"] = {
                "orders": data.orders,
                "seconds": round(data.seconds, 1),
                "build_seconds": round(data.build_seconds, 1),
                "round_seconds": [round(x, 2) for x in data.round_seconds],
                # each lockstep benchmark's seconds a round: what `shard-plan` deals by
                "bench_seconds": data.bench_seconds,
                "placements": data.placements,
                "values": {
                    side: {
                        n: [None if math.isnan(x) else x for x in data.padded(side, n)]
                        for n in names
                    }
                    for side, names in data.values.items()
                },
            }
        return out


def exact_series(keys: list[str]) -> np.ndarray:
    """Which series repeat run to run (instruction counts), judged by their rounds' range."""
    return np.array([split_key(k)[1] == COUNTED for k in keys], dtype=bool)


def _primaries(keys: list[str]) -> set[str]:
    """Each benchmark's wall-time series, or its only series (RSS, a counts-only suite)."""
    by: dict[str, list[str]] = {}
    for k in keys:
        by.setdefault(split_key(k)[0], []).append(k)
    return {name if name in ks else ks[0] for name, ks in by.items()}


def _disagreements(keys: list[str], iv: v.Interval) -> set[str]:
    """Series of benchmarks where one series is confidently worse than 0 and another
    confidently better (both intervals clear of 0, at the PR's family-wise level): a change
    such a benchmark's quieter series call an improvement is not one (tracker/GATE.md)."""
    worse: dict[str, list[str]] = {}
    better: dict[str, list[str]] = {}
    for i, k in enumerate(keys):
        if iv.hi[i] < 0:
            worse.setdefault(split_key(k)[0], []).append(k)
        elif iv.lo[i] > 0:
            better.setdefault(split_key(k)[0], []).append(k)
    return {k for name in worse.keys() & better.keys() for k in worse[name] + better[name]}


def _finite(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(x, float) and not math.isfinite(x) else x) for k, x in d.items()}


def analyse(
    data: Rounds,
    cfg: GateConfig,
    looks: list[int],
    *,
    alpha: float | None = None,
    keys: set[str] | None = None,
    shares: dict[str, float] | None = None,
    shown: set[str] | None = None,
) -> Outcome:
    """Verdicts for every benchmark measured on both sides, at the rounds measured so far
    (`looks`: the adaptive stop's looks, the last one the round limit). `alpha`: this stage's
    share of the PR's (all of it by default; the screening's and the confirmation's shares:
    gate/confirm.py); `keys`: judge these series only; `shares`: each one's share of `alpha`
    (the confirmation's weights, gate/confirm.py), instead of an equal one, in a weighted Holm
    procedure (verdict.step_down) where `shown` are the series an earlier look regressed."""
    base, head = data.values["base"], data.values["head"]
    failed = {side: dict(errs) for side, errs in data.errors.items()}
    broken = set(failed["base"]) | set(failed["head"])
    names = sorted(n for n in set(base) & set(head) if n not in broken)
    if keys is not None:  # the confirmation judges its candidates only
        names = [n for n in names if n in keys]
    only_base = sorted(set(base) - set(head) - broken)
    only_head = sorted(set(head) - set(base) - broken)
    rows: list[Row] = []
    can_stop = False
    if names:
        b = np.array([data.padded("base", n) for n in names])
        h = np.array([data.padded("head", n) for n in names])
        bigger = np.array([data.meta[n].direction != "smaller" for n in names])
        thresholds = np.array([cfg.threshold_for(split_key(n)[0]) for n in names])
        g = v.goodness(b, h, bigger)
        # Family-wise control over every series (each can fail the PR), the looks, and the
        # runner-size jobs CI runs for this PR (each job gated at alpha / jobs).
        exact = exact_series(names)
        share = cfg.alpha if alpha is None else alpha
        if shares is None:
            level = v.per_look_alpha(share / cfg.jobs, v.tested(len(names), exact), len(looks))
            iv = v.interval(g, level, exact)
        else:  # the confirmation's candidates (no counts): weighted Holm over its shares
            weights = np.array([shares[n] for n in names])
            before = np.array([n in (shown or ()) for n in names], dtype=bool)
            iv, level = v.step_down(g, weights, share / cfg.jobs / max(len(looks), 1), before)
        worse, better = v.band(thresholds)
        codes = v.decide(iv, worse, better, exact)
        can_stop = bool(v.can_stop(iv, worse, better, level, looks[-1], exact))
        primary = _primaries(names)
        disagrees = _disagreements(names, iv)
        for i, n in enumerate(names):
            big = bool(bigger[i])
            ends = sorted((v.to_change(float(iv.lo[i]), big), v.to_change(float(iv.hi[i]), big)))
            rows.append(
                Row(
                    name=n,
                    suite=data.meta[n].suite,
                    unit=data.meta[n].unit,
                    direction=data.meta[n].direction,
                    base=float(np.nanmedian(b[i])),
                    head=float(np.nanmedian(h[i])),
                    change=v.to_change(float(iv.mean[i]), big),
                    lo=ends[0],
                    hi=ends[1],
                    verdict=v.VERDICTS[codes[i]],
                    threshold=float(thresholds[i]),
                    rounds=int(iv.n[i]),
                    primary=n in primary,
                    disagrees=n in disagrees,
                )
            )
    rows = sort_rows(rows)
    return Outcome(rows, only_base, only_head, failed, [], cfg.alpha, [], can_stop=can_stop)


def sort_rows(rows: list[Row]) -> list[Row]:
    """Wall time first, then regressions, improvements, the inconclusive, the unchanged; the
    largest losses first within each."""
    return sorted(
        rows,
        key=lambda r: (
            not r.primary,
            ORDER[r.verdict],
            r.change if r.direction != "smaller" else -r.change,
        ),
    )
