"""Recorded A/A data (`benchtrack.aa/1`): one commit measured as both sides of the gate's rounds.

`benchtrack record-aa` runs the gate's own interleaved runner with base = head, so the recording
has exactly the structure a real gate run has (same suites, same per-round env, same order
alternation); every sample of every round is kept so other rules can be replayed on it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import read_maybe_gzip
from benchtrack.gate.lockstep import paired_values
from benchtrack.gate.model import Rounds
from benchtrack.lab.replay import Costs
from benchtrack.machine import vcpus
from benchtrack.result import parse_json

SCHEMA = "benchtrack.aa/1"


def to_dict(data: Rounds, meta: dict[str, Any]) -> dict[str, Any]:
    benches = {}
    for name in sorted(set(data.samples["base"]) & set(data.samples["head"])):
        m = data.meta[name]
        benches[name] = {
            "suite": m.suite,
            "unit": m.unit,
            "direction": m.direction,
            **({"paired": True} if m.paired else {}),
            **({"processes": True} if m.processes else {}),
            **{side: _pad(data.samples[side][name], data.count) for side in ("base", "head")},
        }
    return {
        "schema": SCHEMA,
        **meta,
        "rounds": data.count,
        "orders": data.orders,
        "seconds": round(data.seconds, 1),
        "build_seconds": round(data.build_seconds, 1),
        "round_seconds": [round(x, 2) for x in data.round_seconds],
        "run_seconds": {k: [round(x, 2) for x in v] for k, v in data.run_seconds.items()},
        "bench_seconds": data.bench_seconds,
        "placements": data.placements,
        # Where the counts ran: beside the rounds (null) or inside them from this count round.
        "counts_inside_from": data.counts_inside_from,
        "neighbour_cpus": data.neighbour,
        # each round's vCPU speeds at its start, and their summary (machine/vcpus.py)
        "vcpus": data.vcpus,
        "vcpus_summary": vcpus.summary(data.vcpus),
        "errors": data.errors,
        "benchmarks": benches,
    }


def failures(found: list) -> list[dict[str, str]]:
    """The suites that failed while recording (model.SuiteFailure), as the recording keeps them."""
    return [{"suite": f.suite, "side": f.side, "what": f.what} for f in found]


def _pad(series: list, n: int) -> list:
    return series + [None] * (n - len(series))


@dataclass(frozen=True)
class AAData:
    source: str
    names: list[str]
    suites: list[str]
    units: list[str]
    bigger: np.ndarray  # (m,) bool
    values: dict[str, np.ndarray]  # side -> (m, R) per-round medians, as the gate uses
    samples: dict[str, list[list[list[float]]]]  # side -> [bench][round] -> samples
    dropped: list[str]  # benchmarks missing a round (a failure while recording)
    doc: dict[str, Any]

    @property
    def rounds(self) -> int:
        return self.values["base"].shape[1]

    def round_seconds(self) -> tuple[float, float]:
        """Median wall time of one gate round in this recording: of the suites measured every
        round (both sides; a lockstep suite's at once, one run's time, the others one after the
        other), and of the counted suites' round, which runs beside them (tracker/GATE.md), the
        two sides one after the other on the CPU lockstep leaves."""
        benches = self.doc.get("benchmarks", {})
        paired = {b.get("suite") for b in benches.values() if b.get("paired")}
        counted = {b.get("suite") for n, b in benches.items() if n.endswith(" (instructions)")}
        per = {s: float(np.median(v)) for s, v in self.doc.get("run_seconds", {}).items() if v}
        main = sum((1 if s in paired else 2) * t for s, t in per.items() if s not in counted)
        return main, sum(2 * t for s, t in per.items() if s in counted)

    def round_times(self) -> np.ndarray:
        """Each recorded round's seconds (waits for the counts at a look included), for the
        time budget's replay; a recording made before they were kept gets its median round."""
        recorded = self.doc.get("round_seconds")
        if isinstance(recorded, list) and len(recorded) >= self.rounds:
            return np.array(recorded[: self.rounds], dtype=float)
        return np.full(self.rounds, self.gate_seconds(1))

    def drawn_round_times(self, idx: np.ndarray) -> np.ndarray:
        """(P, k) the seconds of a gate whose rounds are the recorded rounds `idx` (P, k), each
        taken as the gate's k first rounds. The counted suites run in a gate's first rounds
        (beside the rest, a look waiting for them, or inside the rounds with a neighbour), so
        the time they add goes with the round's position, not with the recorded round drawn:
        what the recording's first `count_span` rounds took beyond the median of the later
        ones is taken off whichever recorded round is drawn and added at those positions."""
        t = self.round_times()
        c = min(self.count_span(), max(len(t) - 1, 0))
        excess = t[:c] - (np.median(t[c:]) if c else 0.0)
        lock = t.copy()
        lock[:c] -= excess
        out = lock[idx]
        first = min(c, out.shape[1])
        out[:, :first] += excess[:first]
        return out

    def vcpus_uneven(self, idx: np.ndarray) -> np.ndarray:
        """(P,) whether the recorded rounds `idx` (P, k), a gate's screening, read the vCPUs
        uneven (machine/vcpus.py), as the gate decides its confirmation's rounds; a recording
        made before the rounds were read: even."""
        readings = self.doc.get("vcpus")
        if not isinstance(readings, list) or len(readings) < self.rounds:
            return np.zeros(idx.shape[0], dtype=bool)
        return np.array([vcpus.uneven([readings[i] for i in row]) for row in idx], dtype=bool)

    def confirm_costs(self) -> Costs:
        """What a confirmation round of some of this recording's series takes (replay.Costs):
        each series' benchmark's median seconds a round (its warm-up and pairs, recorded as
        `bench_seconds`; the `(cpu)` series shares its benchmark's steps), and each suite's
        median seconds beyond its benchmarks' (its workers' start; a whole-suite run's two
        sides). A recording without `bench_seconds` spreads each suite's round evenly."""
        spent = self.doc.get("bench_seconds") or {}
        runs = self.doc.get("run_seconds", {})
        suites = sorted(set(self.suites))
        series = np.zeros(len(self.names))
        for i, name in enumerate(self.names):
            own = spent.get(name) or spent.get(name.removesuffix(" (cpu)")) or []
            known = [x for x in own if x is not None]
            series[i] = float(np.median(known)) if known else 0.0
        overhead = np.zeros(len(suites))
        for j, suite in enumerate(suites):
            mine = [i for i, s in enumerate(self.suites) if s == suite]
            paired = bool(self.doc.get("benchmarks", {}).get(self.names[mine[0]], {}).get("paired"))
            run = runs.get(suite, [])
            sides = zip(run[::2], run[1::2], strict=False)  # base, head: one after the other
            per_round = run[::2] if paired else [a + b for a, b in sides]
            whole = float(np.median(per_round)) if per_round else 0.0
            own_sum = float(np.sum(series[mine]))
            if own_sum == 0.0:  # nothing per benchmark: spread the round over them
                series[mine] = whole / len(mine)
                own_sum = whole
            overhead[j] = max(whole - own_sum, 0.0)
        return Costs(series, np.array([suites.index(s) for s in self.suites]), overhead)

    def build_seconds(self) -> float:
        """Seconds from the recording's start to its first round (0 when not recorded)."""
        return float(self.doc.get("build_seconds") or 0.0)

    def count_rounds(self) -> int:
        """How many rounds the counted suites ran (`rounds = 3`: their later rounds are null)."""
        return max(
            (
                sum(r is not None for r in b.get("base", []))
                for n, b in self.doc.get("benchmarks", {}).items()
                if n.endswith(" (instructions)")
            ),
            default=0,
        )

    def count_span(self) -> int:
        """The leading rounds the counts lengthened: their own rounds, and where they ran beside
        the rounds, every round up to the first the recording waited for them at
        (`counts_wait_from`, the gate's first look; recordings made before it waited at every
        round, so their counts' rounds are the span)."""
        span = self.count_rounds()
        wait = self.doc.get("counts_wait_from")
        if span and isinstance(wait, int) and self.counts_beside():
            span = max(span, wait)
        return span

    def counts_beside(self) -> int:
        """How many of the count rounds ran beside the rounds: all of them unless a neighbour
        sent the rest inside (`counts_inside_from`; recordings made before it have none)."""
        inside_from = self.doc.get("counts_inside_from")
        whole = self.count_rounds()
        return whole if inside_from is None else min(inside_from, whole)

    def gate_seconds(self, rounds: float) -> float:
        """A gate of `rounds` rounds of these suites, builds not included, on this recording's
        schedule: the rounds or the counts beside them, whichever ends last (a look waits for
        the counts), plus the count rounds run inside the rounds, both sides at once."""
        main, counts = self.round_seconds()
        counted = min(rounds, self.count_rounds())
        beside = min(counted, self.counts_beside())
        return max(main * rounds, counts * beside) + counts / 2 * (counted - beside)


def load(path: Path, name_filter: str | None = None) -> AAData:
    """A recording; `name_filter` (a regular expression) keeps the benchmarks it finds."""
    doc = _read(path)
    return _assemble(path, doc, doc["benchmarks"], name_filter)


def from_doc(source: Path, doc: dict[str, Any]) -> AAData:
    """A recording document made in memory (e.g. lab/shard_replay.inflate), as `load` reads."""
    return _assemble(source, doc, doc["benchmarks"], None)


def load_parts(path: Path, name_filter: str | None = None) -> list[AAData]:
    """A recording as one part per number of rounds its benchmarks have: a suite measured in
    its first rounds only (`rounds = 3`, the counts) is recorded with the later rounds null.
    A benchmark with a round missing in between is dropped, as `load` drops it."""
    doc = _read(path)
    by_rounds: dict[int, dict[str, Any]] = {}
    for name, b in doc["benchmarks"].items():
        rounds = [b.get(side) for side in ("base", "head")]
        k = len(rounds[0]) if all(isinstance(r, list) for r in rounds) else 0
        while k > 0 and all(r[k - 1] is None for r in rounds):
            k -= 1
        trimmed = {**b, "base": rounds[0][:k], "head": rounds[1][:k]} if k else b
        by_rounds.setdefault(k, {})[name] = trimmed
    parts = []
    for k in sorted(by_rounds, reverse=True):
        if name_filter and not any(re.search(name_filter, n) for n in by_rounds[k]):
            continue
        parts.append(_assemble(path, doc, by_rounds[k], name_filter))
    if not parts:
        raise BadInput(path, "benchmarks", f"a benchmark matching {name_filter!r}")
    return parts


def _read(path: Path) -> dict[str, Any]:
    try:
        doc = parse_json(read_maybe_gzip(path), path)
    except FileNotFoundError:
        raise BadInput(
            path, None, "recorded A/A data (benchtrack record-aa), file not found"
        ) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput(
            path, "schema", f'"{SCHEMA}"', doc.get("schema") if isinstance(doc, dict) else doc
        )
    benches = doc.get("benchmarks")
    if not isinstance(benches, dict) or not benches:
        raise BadInput(path, "benchmarks", "a non-empty object of recorded benchmarks")
    wait = doc.get("counts_wait_from")
    if wait is not None and (not isinstance(wait, int) or isinstance(wait, bool) or wait < 1):
        raise BadInput(
            path, "counts_wait_from", "the round the counts were first waited at (>= 1)", wait
        )
    _check_vcpus(path, doc.get("vcpus", []))
    # A suite that failed is missing from the recording, its series and its seconds in every
    # round: figures drawn from it would describe another gate (shorter rounds, fewer series).
    failed = doc.get("failures", [])
    if failed:
        said = "; ".join(
            f"{f.get('suite')} failed to {f.get('what')} ({f.get('side')})"
            if isinstance(f, dict)
            else repr(f)
            for f in (failed if isinstance(failed, list) else [failed])
        )
        raise BadInput(path, "failures", "none: every suite recorded (record it again)", said)
    return doc


def _check_vcpus(path: Path, readings: object) -> None:
    """Each round's vCPU reading (machine/vcpus.py), which the replay reads as the gate does."""
    if not isinstance(readings, list):
        raise BadInput(path, "vcpus", "a list of each round's readings", readings)
    for i, r in enumerate(readings):
        if not vcpus.is_reading(r):
            raise BadInput(path, f"vcpus[{i}]", "a reading: cpus, and wall and cpu seconds", r)


def _assemble(
    path: Path, doc: dict[str, Any], benches: dict[str, Any], name_filter: str | None
) -> AAData:
    names, suites, units, bigger, dropped = [], [], [], [], []
    vals: dict[str, list] = {"base": [], "head": []}
    samp: dict[str, list] = {"base": [], "head": []}
    for name, b in sorted(benches.items()):
        if name_filter and not re.search(name_filter, name):
            continue
        rounds = {side: b.get(side) for side in ("base", "head")}
        if any(not isinstance(r, list) for r in rounds.values()):
            raise BadInput(path, f"benchmarks.{name}", "base and head lists of rounds")
        if any(not _ok(s) for r in rounds.values() for s in r):
            dropped.append(name)
            continue
        names.append(name)
        suites.append(str(b.get("suite", name.split("/")[0])))
        units.append(str(b.get("unit", "")))
        bigger.append(b.get("direction", "bigger") != "smaller")
        for side in ("base", "head"):
            samp[side].append([[float(x) for x in s] for s in rounds[side]])
        if b.get("paired"):  # lockstep: the gate's values come from the aligned pairs
            sides = list(zip(rounds["base"], rounds["head"], strict=True))
            if any(len(x) != len(y) for x, y in sides):
                raise BadInput(path, f"benchmarks.{name}", "paired rounds of equal length")
            pairs = [paired_values(x, y, bool(b.get("processes"))) for x, y in sides]
            vals["base"].append([p[0] for p in pairs])
            vals["head"].append([p[1] for p in pairs])
        else:
            for side in ("base", "head"):
                vals[side].append([float(np.median(s)) for s in rounds[side]])
    if not names:
        raise BadInput(path, "benchmarks", "at least one benchmark with every round recorded")
    if len({len(v) for side in vals for v in vals[side]}) != 1:
        raise BadInput(path, "benchmarks", "the same number of rounds for every benchmark")
    return AAData(
        str(path),
        names,
        suites,
        units,
        np.array(bigger),
        {side: np.array(v) for side, v in vals.items()},
        samp,
        dropped,
        doc,
    )


def subset(data: AAData, keep: list[bool]) -> AAData:
    """The recording with only the benchmarks (series) where `keep` is true."""
    idx = [i for i, k in enumerate(keep) if k]
    return AAData(
        data.source,
        [data.names[i] for i in idx],
        [data.suites[i] for i in idx],
        [data.units[i] for i in idx],
        data.bigger[idx],
        {side: v[idx] for side, v in data.values.items()},
        {side: [s[i] for i in idx] for side, s in data.samples.items()},
        data.dropped,
        data.doc,
    )


def _ok(samples: Any) -> bool:
    return (
        isinstance(samples, list)
        and len(samples) > 0
        and all(isinstance(x, int | float) and math.isfinite(x) and x > 0 for x in samples)
    )


def dump(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc) + b"\n"
