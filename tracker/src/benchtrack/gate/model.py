"""The gate's data: what each round measured, for both sides, every sample kept.

The runner (gate/rounds.py) fills it; the verdicts (gate/outcome.py), the recordings
(lab/aa.py) and the JSON read it. One value per benchmark per round: the median of that round's
samples, or for lockstep the base's median step and the head's as that times the round's median
pair ratio (with several worker processes a round, the mean of each process pair's own; see
gate/lockstep.py).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack.gate import lockstep


@dataclass(frozen=True)
class Meta:
    unit: str
    direction: str  # "bigger" | "smaller"
    suite: str
    paired: bool = False  # lockstep: base and head samples aligned pair by pair
    # lockstep with several processes a round: a sample is one process's own value (its
    # pairs' median), the pairs aligned process by process (`lockstep.paired_values`)
    processes: bool = False


@dataclass
class Rounds:
    """Everything measured, every round kept (it goes into the JSON output as-is)."""

    values: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {"base": {}, "head": {}}
    )
    meta: dict[str, Meta] = field(default_factory=dict)
    orders: list[str] = field(default_factory=list)  # "base,head" or "head,base" per round
    errors: dict[str, dict[str, str]] = field(default_factory=lambda: {"base": {}, "head": {}})
    seconds: float = 0.0
    # Every sample of every round (side -> name -> per round), for recorded A/A data.
    samples: dict[str, dict[str, list[list[float] | None]]] = field(
        default_factory=lambda: {"base": {}, "head": {}}
    )
    run_seconds: dict[str, list[float]] = field(default_factory=dict)  # suite -> per run
    # Lockstep: each benchmark's seconds a round (warm-up and pairs; None: not measured then),
    # so a round of some of them alone can be costed (`evaluate`'s confirmation rounds).
    bench_seconds: dict[str, list[float | None]] = field(default_factory=dict)
    stopped_by_budget: bool = False  # the time budget, not the verdicts, ended the rounds
    # The first count round run inside the rounds rather than beside them (None: all beside,
    # or nothing counted); the neighbours' CPUs read before each count round beside them.
    counts_inside_from: int | None = None
    neighbour: list[float] = field(default_factory=list)
    # Seconds from the start to the first round (the builds), and each round's own seconds
    # (waits for the counts at a look included): `evaluate` replays the time budget on them.
    build_seconds: float = 0.0
    round_seconds: list[float] = field(default_factory=list)
    # `cpus = "auto"`: per suite, where each benchmark's turns were taken ("one" or "all").
    placements: dict[str, dict[str, str]] = field(default_factory=dict)
    # Each round's vCPU speeds, read at its start (machine/vcpus.py Reading.to_dict).
    vcpus: list[dict] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.orders)

    def add(self, side: str, rnd: int, name: str, samples: list[float], meta: Meta) -> None:
        series = self.values[side].setdefault(name, [])
        series.extend([math.nan] * (rnd - len(series)))  # rounds where it had no value
        series.append(statistics.median(samples))
        kept = self.samples[side].setdefault(name, [])
        kept.extend([None] * (rnd - len(kept)))
        kept.append(list(samples))
        self.meta.setdefault(name, meta)

    def pair(self, rnd: int, name: str) -> None:
        """Round `rnd`'s values of a lockstep benchmark from its aligned pairs (both sides)."""
        base, head = (self.samples[side][name][rnd] for side in ("base", "head"))
        b, h = lockstep.paired_values(base, head, self.meta[name].processes)
        self.values["base"][name][rnd], self.values["head"][name][rnd] = b, h

    def then(self, later: Rounds) -> Rounds:
        """These rounds followed by `later`'s (a series absent from a round: NaN there), for
        verdicts over both stages' rounds (gate/decide.py). Neither is changed."""
        out = Rounds()
        n = self.count
        for side in ("base", "head"):
            for name in set(self.values[side]) | set(later.values[side]):
                out.values[side][name] = self.padded(side, name) + later.padded(side, name)
            out.errors[side] = {**self.errors[side], **later.errors[side]}
        out.meta = {**later.meta, **self.meta}
        out.orders = self.orders + later.orders
        out.seconds = self.seconds + later.seconds
        out.round_seconds = self.round_seconds + later.round_seconds
        out.vcpus = self.vcpus + later.vcpus
        assert out.count == n + later.count
        return out

    def padded(self, side: str, name: str) -> list[float]:
        # The counts beside the rounds may be a round ahead of them: a look sees its rounds only.
        series = self.values[side].get(name, [])[: self.count]
        return series + [math.nan] * (self.count - len(series))


@dataclass
class SuiteFailure:
    side: str
    suite: str
    what: str  # "build" or "run"
    tail: str
    log: Path


class SuiteFailed(Exception):
    def __init__(self, failure: SuiteFailure) -> None:
        super().__init__(f"{failure.suite} ({failure.side}) failed to {failure.what}")
        self.failure = failure
