"""What `benchtrack evaluate` finds, as data: each method's rates on one recording
(`Evaluation`), and the same condition over several recordings (`Combined`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from benchtrack.gate import verdict as v
from benchtrack.gate.config import split_key
from benchtrack.gate.outcome import exact_series
from benchtrack.lab.aa import AAData

LOSSES = (0.02, 0.05, 0.10, 0.20)
CHUNK = 32  # pseudo-PRs per vectorised batch (the power arrays are P x benchmarks x series x n)
GOAL_DETECT, GOAL_LOSS = 0.95, 0.10


@dataclass
class Method:
    label: str
    false_fail: float  # per PR: summed over the runner-size jobs
    detect: dict[float, np.ndarray]  # loss -> (benchmarks,) detection rate
    note: str = ""

    def mean_detect(self, d: float) -> float:
        return float(np.mean(self.detect[d]))


@dataclass(frozen=True)
class Benchmarks:
    """Series keys grouped by benchmark: `<name>`, `<name> (instructions)`, `<name> (cpu)`."""

    names: list[str]
    primary: np.ndarray  # (b,) index of each benchmark's wall-time series (else its only one)
    member: np.ndarray  # (b, m) which series belong to each benchmark

    @classmethod
    def of(cls, keys: list[str]) -> Benchmarks:
        names = sorted({split_key(k)[0] for k in keys})
        member = np.array([[split_key(k)[0] == n for k in keys] for n in names], dtype=bool)
        primary = np.array(
            [keys.index(n) if n in keys else int(np.argmax(member[j])) for j, n in enumerate(names)]
        )
        return cls(names, primary, member)


@dataclass
class Evaluation:
    data: AAData
    prs: int
    rounds: int
    looks: list[int]
    thresholds: np.ndarray  # (m,) per series
    alpha: float
    jobs: int
    benches: Benchmarks
    spread: np.ndarray  # (b,) sd of a round's log-ratio of each benchmark's primary series
    mean_rounds: float
    seconds: np.ndarray  # (P,) each A/A pseudo-PR's gate seconds, builds included
    budget: float | None  # seconds; None: not applied
    build_seconds: float
    stopped_by_budget: float  # share of A/A pseudo-PRs the budget stopped before the last look
    builds_given: bool = False  # build_seconds from --build-seconds, not the recording
    coin: str = "pr"  # which side is base: one coin a PR or one a round (lab/evaluate.py)
    methods: list[Method] = field(default_factory=list)
    rounds_per_part: list[int] = field(default_factory=list)
    matched: list[Method] = field(default_factory=list)  # the gate at the action rule's rates
    notes: list[str] = field(default_factory=list)  # per benchmark: `[gate.notes]`, or ""
    stages: str = ""  # the confirmation under A/A, in words ("" for a one-stage gate)
    # the vCPUs, as the gate reads them (gate/stages.py): the share of pseudo-PRs whose
    # screening read them uneven, uneven_rounds, and the rounds the recording holds for a
    # confirmation (None: no uneven_rounds)
    uneven: tuple[float, int, int] | None = None
    # The share of benchmarks an A/A pseudo-PR decides (regressed, improved or unchanged),
    # unchanged alone, and per benchmark; per loss, how often the slowed benchmark was called
    # unchanged (the equivalence test's error at a loss of δ or more: at most β). Two stages only.
    decided: float = math.nan
    decided_unchanged: float = math.nan
    decided_by_bench: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unchanged_at: dict[float, np.ndarray] = field(default_factory=dict)
    # (m,) per series: the share of A/A pseudo-PRs it fails, times the jobs (where false fails
    # come from)
    false_by_series: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def gate(self) -> Method:
        return self.methods[0]

    def meeting(self, d: float = GOAL_LOSS, rate: float = GOAL_DETECT) -> int:
        return int(np.sum(self.gate.detect[d] >= rate))

    def max_spread(self, d: float = GOAL_LOSS, power: float = GOAL_DETECT) -> np.ndarray:
        """The largest round-to-round spread at which a loss d is still detected with `power`
        by the last look (normal approximation of the mean; per-benchmark thresholds): the
        interval clear of 0 and the estimate beyond the threshold (verdict.decide), each with
        that power."""
        m = v.tested(len(self.data.names), exact_series(self.data.names))
        level = v.per_look_alpha(self.alpha / self.jobs, m, len(self.looks))
        n = self.rounds
        t, z = special.stdtrit(n - 1, 1 - level), special.ndtri(power)
        gap = np.log1p(-self.thresholds[self.benches.primary]) - math.log1p(-d)
        clear = -math.log1p(-d) * math.sqrt(n) / (t + z)
        return np.minimum(clear, np.maximum(gap, 0) * math.sqrt(n) / z)


# --- several independent recordings -------------------------------------------------------


@dataclass
class Combined:
    """The same condition recorded several times: per-recording figures and their 95% interval
    (Student t over the recordings, the independent unit; pseudo-PRs within one recording share
    its rounds and are not independent)."""

    evaluations: list[Evaluation]

    @property
    def names(self) -> list[str]:
        return sorted(set.intersection(*(set(e.benches.names) for e in self.evaluations)))

    def by_recording(self, d: float) -> np.ndarray:
        """(recordings, benchmarks): each recording's detection rate of each of `names`."""
        return np.array(
            [
                [e.gate.detect[d][e.benches.names.index(n)] for n in self.names]
                for e in self.evaluations
            ]
        )

    def detect(self, d: float) -> np.ndarray:
        """Per benchmark (`names`), the mean over recordings of its detection rate."""
        return np.mean(self.by_recording(d), axis=0)

    def figures(self) -> dict[str, list[float]]:
        """Per recording: the headline figures (false-fail per PR, mean detection at −10%, −5%
        and −2%,
        benchmarks ≥ 95% at −10% and ≥ 99% at −20%, the no-change PR's mean minutes)."""
        return {
            "false_fail": [e.gate.false_fail for e in self.evaluations],
            "detect_10": [e.gate.mean_detect(0.10) for e in self.evaluations],
            # What the verdict rule costs below the 10% it must catch (verdict.decide): how
            # often a loss of the threshold, and of less, fails the PR.
            "detect_5": [e.gate.mean_detect(0.05) for e in self.evaluations],
            "detect_2": [e.gate.mean_detect(0.02) for e in self.evaluations],
            "meeting_95_at_10": [e.meeting(0.10, 0.95) for e in self.evaluations],
            "meeting_99_at_20": [e.meeting(0.20, 0.99) for e in self.evaluations],
            "nochange_minutes": [float(np.mean(e.seconds)) / 60 for e in self.evaluations],
            "nochange_longest": [float(np.max(e.seconds)) / 60 for e in self.evaluations],
            "meeting_90_at_5": [e.meeting(0.05, 0.90) for e in self.evaluations],
            # the two-stage gate only (NaN otherwise): what a no-change PR decides
            "decided": [e.decided for e in self.evaluations],
        }


def interval95(values: list[float]) -> tuple[float, float, float]:
    """(mean, lo, hi): the t interval of the mean over independent recordings (lo = hi =
    mean for one recording: no interval can be given)."""
    x = np.asarray(values, dtype=float)
    mean = float(np.mean(x))
    if len(x) < 2:
        return mean, mean, mean
    half = float(special.stdtrit(len(x) - 1, 0.975) * np.std(x, ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half
