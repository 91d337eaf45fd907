"""Error rates of the gate, and of the usual rules, on recorded A/A rounds.

Pseudo-PRs: a window of n consecutive recorded rounds (n = the gate's round limit) at a random
start, its two recorded sides labelled base/head by one coin flip for the whole PR (the two
sides are exchangeable, but each keeps its build and checkout through the recording, as a gate's
do: a difference that stays with one side stays in the pseudo-PR, where flipping each round
would have averaged it away).

- false-fail: the share of pseudo-PRs where any series of any benchmark is `regressed`; per PR,
  the sum over the runner-size jobs CI runs for it (`jobs`, each job gated at alpha / jobs);
- power at loss d: one benchmark's **wall-time** throughput lost d (its head values scaled by
  1 - d, or 1 / (1 - d) for smaller-is-better metrics such as RSS), its other series (the
  instructions, the CPU time) untouched: the loss a user sees, of a kind those quieter series
  miss (a blocking call, a wait, lost parallelism). Detected when any series of that benchmark
  is flagged. Each benchmark is slowed in turn on every pseudo-PR;
- the time budget is replayed on each window's own recorded round seconds (and the recording's
  build seconds): a PR stops at the look where the gate would, the budget's or the verdicts'.
  What more rounds would have found is not counted;
- the same windows feed github-action-benchmark's rule (first round's base value vs head value)
  and pytest-benchmark's mean:5% (first round's samples on each side).

Several recordings are independent draws of the same machine and condition: each is evaluated on
its own, and `Combined` states the figures across them with a 95% interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from benchtrack.errors import BadInput
from benchtrack.gate import ghrule
from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm, split_key
from benchtrack.gate.outcome import exact_series
from benchtrack.lab.aa import AAData
from benchtrack.lab.replay import Costs, Decided, budget_rounds, two_stages

LOSSES = (0.02, 0.05, 0.10, 0.20)
ACTION_THRESHOLDS = (1.1, 1.5, 2.0)
PYTEST_FRACTION = 0.05
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
    methods: list[Method] = field(default_factory=list)
    rounds_per_part: list[int] = field(default_factory=list)
    matched: list[Method] = field(default_factory=list)  # the gate at the action rule's rates
    notes: list[str] = field(default_factory=list)  # per benchmark: `[gate.notes]`, or ""
    stages: str = ""  # the confirmation under A/A, in words ("" for a one-stage gate)
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


def windows(rounds: int, n: int, prs: int, rng: np.random.Generator) -> np.ndarray:
    starts = rng.integers(0, rounds - n + 1, size=prs)
    return starts[:, None] + np.arange(n)[None, :]


def evaluate(
    data: AAData | list[AAData],
    *,
    thresholds: np.ndarray,
    alpha: float,
    looks: list[int],
    prs: int = 400,
    seed: int = 7,
    losses: tuple[float, ...] = LOSSES,
    jobs: int = 1,
    budget: float | None = None,
    build_seconds: float | None = None,
    confirm: Confirm | None = None,
    time_scale: float = 1.0,
    costs: Costs | None = None,
) -> Evaluation:
    """One recording (its parts drawn as one PR). `thresholds` per series of the parts.

    With `confirm` (screen, then confirm: gate/confirm.py), each pseudo-PR's screening rounds
    and its confirmation rounds are disjoint random subsets of the first part's rounds (under
    A/A they are exchangeable; the PR's coin says which side is its base): the confirmation's
    rounds are new ones, as in the gate. The recording needs the screening's rounds plus at
    least 3. `time_scale`: the share of each recorded round a gate of only these benchmarks
    takes (a shard's, gate/shards.py); `costs`: a second-stage round's (default: from `data`;
    a shard's are its series' of the whole recording's)."""
    parts = data if isinstance(data, list) else [data]
    n = min(looks[-1], max(d.rounds for d in parts))
    looks = [k for k in looks if k < n] + [n]
    rng = np.random.default_rng(seed)
    # Parts recorded separately (e.g. one per suite) are independent draws of the same machine:
    # each gives its own window per pseudo-PR, NaN-padded when it has fewer rounds than n.
    bases, heads, costs_b, costs_h = [], [], [], []
    times = None
    confirm_g: list[np.ndarray] = []  # each part's confirmation rounds (the first part's only)
    n2 = 0
    # One coin a PR for which recorded side is its base, every round and part alike: each side
    # keeps its own build and checkout for the whole recording, as a gate's do, so a difference
    # that stays with one side (a build's layout) stays with it in the pseudo-PR too.
    coin = rng.random((prs, 1)) < 0.5
    for d in parts:
        k = min(n, d.rounds)
        if k < v.MIN_ROUNDS:
            raise BadInput(d.source, "rounds", f"at least {v.MIN_ROUNDS} recorded rounds", d.rounds)
        if confirm is not None and times is None:
            n2 = min(confirm.rounds, d.rounds - k)
            if n2 < v.MIN_ROUNDS:
                expected = (
                    f"at least {k + v.MIN_ROUNDS} recorded rounds (screening and confirmation)"
                )
                raise BadInput(d.source, "rounds", expected, d.rounds)
            order = rng.permuted(np.tile(np.arange(d.rounds), (prs, 1)), axis=1)
            idx, idx2 = np.sort(order[:, :k], axis=1), np.sort(order[:, k : k + n2], axis=1)
            confirm_g.append(_goodness(d, idx2, np.broadcast_to(coin, (prs, n2))))
        else:
            idx = windows(d.rounds, k, prs, rng)
            if confirm is not None:  # not confirmed (the counts): nothing to confirm with
                confirm_g.append(np.full((prs, len(d.names), n2), np.nan))
        if times is None:  # the first part (the most rounds) paces the gate
            times = np.pad(d.drawn_round_times(idx), ((0, 0), (0, n - k)), mode="edge")
        flip = np.broadcast_to(coin, (prs, k))
        fl, pad = flip[:, None, :], ((0, 0), (0, 0), (0, n - k))
        b_all = d.values["base"][:, idx].transpose(1, 0, 2)  # (P, m_d, k)
        h_all = d.values["head"][:, idx].transpose(1, 0, 2)
        bases.append(np.pad(np.where(fl, h_all, b_all), pad, constant_values=np.nan))
        heads.append(np.pad(np.where(fl, b_all, h_all), pad, constant_values=np.nan))
        # pytest-benchmark's view: the first round's mean cost on each side, (P, m_d)
        cost = {
            side: np.array(
                [
                    [ghrule.mean_cost(s, bool(d.bigger[i])) for s in d.samples[side][i]]
                    for i in range(len(d.names))
                ]
            )[:, idx[:, 0]].T
            for side in ("base", "head")
        }
        f0 = flip[:, :1]
        costs_b.append(np.where(f0, cost["head"], cost["base"]))
        costs_h.append(np.where(f0, cost["base"], cost["head"]))
    times = times * time_scale
    merged = _merged(parts)
    bigger = merged.bigger
    benches = Benchmarks.of(merged.names)
    base, head = np.concatenate(bases, axis=1), np.concatenate(heads, axis=1)  # (P, m, n)
    lr = np.log(head) - np.log(base)
    g = np.where(bigger[None, :, None], lr, -lr)

    build = parts[0].build_seconds() if build_seconds is None else build_seconds
    cap = budget_rounds(times, looks, budget, build)
    exact = exact_series(merged.names)
    a_job = alpha / jobs
    seconds = None
    if confirm is None:
        gate_ff, gate_detect, stop, by_series = _gate(
            g, thresholds, a_job, looks, losses, exact, benches, cap
        )
    else:
        wall = np.zeros(len(merged.names), dtype=bool)
        wall[benches.primary] = True
        stages = Stages(
            np.concatenate(confirm_g, axis=1),
            confirm,
            times,
            build,
            budget,
            recording_costs(parts) if costs is None else costs,
            wall,
        )
        gate_ff, gate_detect, decided = stages.gate(
            g, thresholds, a_job, looks, losses, exact, benches
        )
        stop = decided.screen_rounds
        seconds = decided.confirm_seconds
        by_series = np.mean(decided.regressed, axis=0)
        stages_note = (
            f"screen, then confirm (≤{confirm.rounds} rounds, looks "
            f"{'/'.join(map(str, confirm.look_schedule()))}, ≤{confirm.most} candidates, "
            f"{n2} recorded rounds to draw from): under A/A a PR sends "
            f"{float(np.mean(decided.candidates)):.1f} candidates on average (most "
            f"{int(np.max(decided.candidates))}) to "
            f"{_mean_where(decided.confirm_rounds, decided.candidates > 0):.1f} confirmation "
            "rounds"
        )
    spent = np.take_along_axis(np.cumsum(times, axis=1), stop[:, None] - 1, 1)[:, 0]
    seconds = build + spent + (0.0 if seconds is None else seconds)
    primary = benches.primary
    spread = np.concatenate(
        [np.std(np.log(p.values["head"]) - np.log(p.values["base"]), axis=1, ddof=1) for p in parts]
    )[primary]
    ev = Evaluation(
        merged,
        prs,
        n,
        looks,
        thresholds,
        alpha,
        jobs,
        benches,
        spread,
        float(np.mean(stop)),
        seconds,
        budget,
        build,
        float(np.mean((cap < looks[-1]) & (stop == cap))),
        builds_given=build_seconds is not None,
    )
    ev.rounds_per_part = [min(n, p.rounds) for p in parts]
    if confirm is not None:  # how many benchmarks a no-change PR decides, and how
        said = decided.decided()[:, benches.primary]  # (P, b)
        ev.decided = float(np.mean(said))
        ev.decided_unchanged = float(np.mean(decided.unchanged[:, benches.primary]))
        ev.decided_by_bench = np.mean(said, axis=0)
        ev.unchanged_at = dict(stages.unchanged_at)
    ev.false_by_series = by_series * jobs
    ev.stages = "" if confirm is None else stages_note
    budget_note = f", {budget / 60:g}-min budget" if budget else ""
    label = (
        f"benchtrack gate (δ {_pct_list(thresholds)}, α {alpha * 100:g}% over {jobs} job"
        f"{'s' * (jobs != 1)}, ≤{n} rounds, looks {'/'.join(map(str, looks))}{budget_note})"
    )
    ev.methods.append(
        Method(label, gate_ff * jobs, gate_detect, f"mean {ev.mean_rounds:.1f} rounds")
    )

    # One round per side, as github-action-benchmark and pytest-benchmark see it; each job
    # alerts on its own, so a PR's false-fail is the jobs' union (bounded by their sum).
    first_b, first_h = base[:, :, 0], head[:, :, 0]
    for thr in ACTION_THRESHOLDS:
        ff = float(np.mean(np.any(ghrule.action_alerts(first_b, first_h, bigger, thr), axis=-1)))
        det = {
            d: np.mean(
                ghrule.action_alerts(first_b, _lose(first_h, bigger, d), bigger, thr), axis=0
            )[primary]
            for d in losses
        }
        ev.methods.append(
            Method(f"github-action-benchmark alert {thr * 100:.0f}%", min(1.0, ff * jobs), det)
        )
        # The gate calibrated to this rule's false-fail rate: detection at equal false-fail
        # (of the one-stage gate: the calibration searches alpha on the screening alone)
        if 0.01 < ff < 1 and confirm is None:
            a_eq = _calibrate(g, thresholds, ff, looks, exact, cap)
            g_ff, g_det, g_stop, _ = _gate(g, thresholds, a_eq, looks, losses, exact, benches, cap)
            note = f"mean {float(np.mean(g_stop)):.1f} rounds"
            label = f"benchtrack gate calibrated to alert {thr * 100:.0f}%'s false-fail"
            ev.matched.append(Method(label, g_ff, g_det, f"{note}, α' {a_eq:.3g} per job"))
    cb, ch = np.concatenate(costs_b, axis=1), np.concatenate(costs_h, axis=1)
    ff = float(np.mean(np.any(ghrule.pytest_mean_fails(cb, ch, PYTEST_FRACTION), axis=-1)))
    det = {
        d: np.mean(ghrule.pytest_mean_fails(cb, ch / (1 - d), PYTEST_FRACTION), axis=0)[primary]
        for d in losses
    }
    ev.methods.append(
        Method(f"pytest-benchmark mean:{PYTEST_FRACTION * 100:g}%", min(1.0, ff * jobs), det)
    )
    return ev


def _gate(
    g: np.ndarray,
    thresholds: np.ndarray,
    alpha: float,
    looks: list[int],
    losses: tuple[float, ...],
    exact: np.ndarray,
    benches: Benchmarks,
    cap: np.ndarray,
) -> tuple[float, dict[float, np.ndarray], np.ndarray]:
    """(false-fail rate of one job, detection per loss per benchmark, rounds used, each series'
    share of the PRs it fails) on `g`."""
    codes, stop, _ = v.sequential(g, thresholds, alpha, looks, exact, cap)
    ff = float(np.mean(np.any(codes == v.REGRESSED_C, axis=-1)))
    by_series = np.mean(codes == v.REGRESSED_C, axis=0)
    prs, m = g.shape[0], g.shape[1]
    nb = len(benches.names)
    slowed = np.zeros((nb, m))  # scenario j: benchmark j's wall time lost d
    slowed[np.arange(nb), benches.primary] = 1.0
    detect = {}
    for d in losses:
        hits = np.zeros(nb)
        for lo in range(0, prs, CHUNK):
            gg = g[lo : lo + CHUNK, None, :, :] + math.log1p(-d) * slowed[None, :, :, None]
            lim = np.broadcast_to(cap[lo : lo + CHUNK, None], gg.shape[:2])
            c, _, _ = v.sequential(gg, thresholds, alpha, looks, exact, lim)
            flagged = (c == v.REGRESSED_C) & benches.member[None, :, :]
            hits += np.sum(np.any(flagged, axis=-1), axis=0)
        detect[d] = hits / prs
    return ff, detect, stop, by_series


def _mean_where(x: np.ndarray, where: np.ndarray) -> float:
    return float(np.mean(x[where])) if np.any(where) else 0.0


def _goodness(d: AAData, idx: np.ndarray, flip: np.ndarray) -> np.ndarray:
    """(P, m, k): the log-ratios of rounds `idx` (P, k) of `d`, each signed so that > 0 is
    better, their labels swapped where `flip`."""
    lr = np.log(d.values["head"][:, idx]) - np.log(d.values["base"][:, idx])  # (m, P, k)
    lr = np.where(flip[None], -lr, lr).transpose(1, 0, 2)
    return np.where(d.bigger[None, :, None], lr, -lr)


def recording_costs(parts: list[AAData]) -> Costs:
    """A confirmation round's costs for every series of `parts` (only the first part's can be
    candidates: the others are counts)."""
    first = parts[0].confirm_costs()
    rest = sum(len(p.names) for p in parts[1:])
    return Costs(
        np.concatenate([first.series, np.zeros(rest)]),
        np.concatenate([first.suite, np.zeros(rest, dtype=int)]),
        first.overhead,
    )


@dataclass(frozen=True)
class Stages:
    """The two-stage gate (screen, then confirm) on every pseudo-PR: `g2` (P, m, n2) holds
    the confirmation's rounds, `times` (P, n1) the screening's round seconds."""

    g2: np.ndarray
    plan: Confirm
    times: np.ndarray
    build: float
    budget: float | None
    costs: Costs
    primary: np.ndarray | None = None  # (m,) the benchmarks' wall-time series
    unchanged_at: dict[float, np.ndarray] = field(default_factory=dict)

    def decide(
        self, g1, g2, thresholds, alpha, looks, exact, times: np.ndarray | None = None
    ) -> Decided:
        t = self.times if times is None else times
        return two_stages(
            g1, g2, thresholds, alpha, looks, self.plan, exact, t, self.build, self.budget,
            self.costs, self.primary,
        )  # fmt: skip

    def gate(self, g, thresholds, alpha, looks, losses, exact, benches: Benchmarks):
        """(false-fail rate of one job, detection per loss per benchmark, the A/A decisions);
        `self.unchanged_at`: per loss, how often the slowed benchmark was called unchanged."""
        aa = self.decide(g, self.g2, thresholds, alpha, looks, exact)
        ff = float(np.mean(np.any(aa.regressed, axis=-1)))
        prs, m = g.shape[0], g.shape[1]
        nb = len(benches.names)
        slowed = np.zeros((nb, m))
        slowed[np.arange(nb), benches.primary] = 1.0
        detect = {}
        for d in losses:
            hits, same = np.zeros(nb), np.zeros(nb)
            for lo in range(0, prs, CHUNK):
                cut = slice(lo, lo + CHUNK)
                shift = math.log1p(-d) * slowed[None, :, :, None]
                g1 = g[cut, None, :, :] + shift
                g2 = self.g2[cut, None, :, :] + shift
                t = np.broadcast_to(self.times[cut, None, :], (*g1.shape[:2], self.times.shape[1]))
                out = self.decide(g1, g2, thresholds, alpha, looks, exact, t)
                flagged = out.regressed & benches.member[None, :, :]
                hits += np.sum(np.any(flagged, axis=-1), axis=0)
                # scenario j's benchmark j: its wall time called unchanged
                same += np.sum(out.unchanged[:, np.arange(nb), benches.primary], axis=0)
            detect[d] = hits / prs
            self.unchanged_at[d] = same / prs
        return ff, detect, aa


def _calibrate(
    g: np.ndarray,
    thresholds: np.ndarray,
    target: float,
    looks: list[int],
    exact: np.ndarray,
    cap: np.ndarray,
) -> float:
    """The α' at which the gate's false-fail rate on `g` reaches `target` (bisection in log α').

    Bonferroni makes α an upper bound, so the gate at α = the rule's rate fails fewer PRs than
    the rule does; this finds the operating point with the same false-fail rate.
    """
    m, k = g.shape[1], len(looks)
    lo, hi = math.log(1e-6), math.log(0.5 * m * k)  # each one-sided level at most 0.5

    def ff(log_a: float) -> float:
        codes, _, _ = v.sequential(g, thresholds, math.exp(log_a), looks, exact, cap)
        return float(np.mean(np.any(codes == v.REGRESSED_C, axis=-1)))

    if ff(hi) <= target:
        return math.exp(hi)
    for _ in range(25):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ff(mid) <= target else (lo, mid)
    return math.exp(lo)


def _merged(parts: list[AAData]) -> AAData:
    """One AAData naming every benchmark of `parts` (for labels; values are the first part's)."""
    if len(parts) == 1:
        return parts[0]
    doc = dict(parts[0].doc)

    def joined(values) -> str:  # a recording split in parts (its counts' rounds) names itself once
        return " + ".join(dict.fromkeys(map(str, values)))

    doc["suites"] = list(dict.fromkeys(s for p in parts for s in p.doc.get("suites", [])))
    doc["run_seconds"] = {k: x for p in parts for k, x in p.doc.get("run_seconds", {}).items()}
    doc["commit"] = joined(str(p.doc.get("commit", ""))[:10] for p in parts)
    doc["recorded"] = joined(p.doc.get("recorded", "?") for p in parts)
    return AAData(
        joined(p.source for p in parts),
        [x for p in parts for x in p.names],
        [x for p in parts for x in p.suites],
        [x for p in parts for x in p.units],
        np.concatenate([p.bigger for p in parts]),
        parts[0].values,
        parts[0].samples,
        [x for p in parts for x in p.dropped],
        doc,
    )


def _lose(head: np.ndarray, bigger: np.ndarray, d: float) -> np.ndarray:
    """Head values after a loss d: throughput × (1 - d), smaller-is-better ÷ (1 - d)."""
    return np.where(bigger, head * (1 - d), head / (1 - d))


def _pct_list(thresholds: np.ndarray) -> str:
    values = sorted({round(float(t) * 100, 2) for t in thresholds})
    return "/".join(f"{x:g}" for x in values) + "%"


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


def markdown(ev: Evaluation, losses: tuple[float, ...] = LOSSES) -> str:
    d = ev.data
    doc = d.doc
    head = (
        "| method | false-fail per PR | "
        + " | ".join(f"detect −{x * 100:g}%" for x in losses)
        + " |"
    )
    lines = [
        "## Gate evaluation on recorded A/A data",
        "",
        f"Data: `{d.source}`: {'/'.join(str(p) for p in ev.rounds_per_part)} rounds of commit "
        f"`{doc.get('commit', '')}` "
        f"recorded {doc.get('recorded', '?')} on {doc.get('machine', '?')}; suites "
        f"{', '.join(doc.get('suites', []))}; {len(ev.benches.names)} benchmarks, "
        f"{len(d.names)} series"
        + (f" ({len(d.dropped)} dropped: a round missing)" if d.dropped else "")
        + f". {ev.prs} pseudo-PRs per cell (windows of {ev.rounds} rounds, one coin a PR for "
        "which side is base). A loss is one benchmark's wall-time throughput; false-fail per PR "
        f"sums the {ev.jobs} runner-size job{'s' * (ev.jobs != 1)} CI runs.",
        "",
        head,
        "|---|--:|" + "--:|" * len(losses),
    ]
    for mth in ev.methods:
        cells = " | ".join(f"{mth.mean_detect(x) * 100:.1f}%" for x in losses)
        note = f" ({mth.note})" if mth.note else ""
        lines.append(f"| {mth.label}{note} | {mth.false_fail * 100:.2f}% | {cells} |")
    for mth in ev.matched:
        cells = " | ".join(f"{mth.mean_detect(x) * 100:.1f}%" for x in losses)
        lines.append(f"| {mth.label} ({mth.note}) | {mth.false_fail * 100:.2f}% | {cells} |")
    ok = ev.gate.detect.get(GOAL_LOSS)
    allowed = ev.max_spread()
    budget = (
        f"the {ev.budget / 60:g}-minute budget stopped {ev.stopped_by_budget * 100:.0f}% of "
        "them before the last look"
        if ev.budget
        else "no time budget applied"
    )
    lines += [
        "",
        "Detection: the share of (pseudo-PR, benchmark) pairs where the one benchmark whose "
        "wall-time throughput lost d is flagged (any of its series), averaged over benchmarks. "
        "False-fail: the share of pseudo-PRs (all series of all benchmarks, one job) that would "
        "fail, times the jobs.",
        "",
        f"Gate time of a no-change PR, replayed on the recorded round seconds: mean "
        f"{float(np.mean(ev.seconds)) / 60:.1f} min, longest {float(np.max(ev.seconds)) / 60:.1f}"
        f" min, builds ({ev.build_seconds:.0f} s, "
        f"{'from --build-seconds' if ev.builds_given else 'as recorded'}) included; {budget}.",
        *([f"Two stages: {ev.stages}.", ""] if ev.stages else []),
        *([decided_line(ev), ""] if not math.isnan(ev.decided) else []),
        f"Benchmarks at ≥ 95% detection of −10%: **{ev.meeting(0.10, 0.95)} of "
        f"{len(ev.benches.names)}**; at ≥ 99% of −20%: **{ev.meeting(0.20, 0.99)}**"
        + (f"; at ≥ 90% of −5%: **{ev.meeting(0.05, 0.90)}**." if 0.05 in ev.gate.detect else "."),
        "",
        "### Per benchmark",
        "",
        "| benchmark | round spread (sd of log-ratio) | spread allowing 95% at −10% | gate −10% | "
        "gate −20% | action 110% −10% |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    action110 = ev.methods[1]
    for i, name in enumerate(ev.benches.names):
        mark = "" if ok is None or ok[i] >= GOAL_DETECT else " ⚠️"
        lines.append(
            f"| `{name}`{mark} | {ev.spread[i] * 100:.2f}% | {allowed[i] * 100:.2f}% | "
            f"{ev.gate.detect[0.10][i] * 100:.0f}% | {ev.gate.detect[0.20][i] * 100:.0f}% | "
            f"{action110.detect[0.10][i] * 100:.0f}% |"
        )
    failing = [(float(x), k) for x, k in zip(ev.false_by_series, d.names, strict=True) if x > 0]
    if failing:
        lines += [
            "",
            "### Where the A/A false fails come from",
            "",
            "| series | share of A/A PRs it fails (× jobs) |",
            "|---|--:|",
            *(f"| `{k}` | {x * 100:.2f}% |" for x, k in sorted(failing, reverse=True)[:15]),
        ]
    if ok is not None and (ok < GOAL_DETECT).any():
        lines += ["", "### Below 95% at −10%: why, and what they measure", ""]
        for i, name in enumerate(ev.benches.names):
            if ok[i] < GOAL_DETECT:
                why = ev.notes[i] if ev.notes and ev.notes[i] else "no note in [gate.notes]"
                lines.append(f"- `{name}` ({ok[i] * 100:.0f}%): {why}")
    return "\n".join(lines) + "\n"


def decided_line(ev: Evaluation) -> str:
    """How many benchmarks a no-change PR decides, and how often the equivalence test called
    a loss of each size unchanged."""
    at = ", ".join(
        f"−{d * 100:g}% {float(np.mean(x)) * 100:.1f}% (most {float(np.max(x)) * 100:.1f}%)"
        for d, x in sorted(ev.unchanged_at.items())
    )
    worst = int(np.argmin(ev.decided_by_bench))
    return (
        f"Decided in a no-change PR: **{ev.decided * 100:.1f}%** of benchmarks "
        f"({ev.decided_unchanged * 100:.1f}% unchanged; fewest "
        f"{float(ev.decided_by_bench[worst]) * 100:.0f}% for `{ev.benches.names[worst]}`). "
        "A slowed benchmark "
        f"called unchanged, mean over benchmarks: {at}."
    )


def combined_markdown(c: Combined) -> str:
    """The figures across independent recordings, each with its 95% interval."""
    figs = c.figures()
    n = len(c.evaluations)
    total = len(c.names)
    pooled = c.detect(0.10)
    pooled_10 = int(np.sum(pooled >= GOAL_DETECT))
    pooled_20 = int(np.sum(c.detect(0.20) >= 0.99))
    rows = [
        ("false-fail per PR", "false_fail", lambda x: f"{x * 100:.2f}%"),
        ("mean detection of −10%", "detect_10", lambda x: f"{x * 100:.1f}%"),
        ("a −5% loss failed (mean over benchmarks)", "detect_5", lambda x: f"{x * 100:.1f}%"),
        ("a −2% loss failed (mean over benchmarks)", "detect_2", lambda x: f"{x * 100:.1f}%"),
        (f"benchmarks ≥ 95% at −10% (of {total})", "meeting_95_at_10", lambda x: f"{x:.1f}"),
        (f"benchmarks ≥ 99% at −20% (of {total})", "meeting_99_at_20", lambda x: f"{x:.1f}"),
        (f"benchmarks ≥ 90% at −5% (of {total})", "meeting_90_at_5", lambda x: f"{x:.1f}"),
        ("no-change PR, minutes (mean)", "nochange_minutes", lambda x: f"{x:.1f}"),
        ("no-change PR, minutes (longest)", "nochange_longest", lambda x: f"{x:.1f}"),
        ("no-change PR: benchmarks decided", "decided", lambda x: f"{x * 100:.1f}%"),
    ]
    rows = [r for r in rows if not any(math.isnan(x) for x in figs[r[1]])]
    lines = [
        f"## Across {n} independent recording{'s' * (n != 1)}",
        "",
        "| figure | " + " | ".join(f"`{e.data.source}`" for e in c.evaluations) + " | mean "
        "[95% interval] |",
        "|---|" + "--:|" * (n + 1),
    ]
    pooled_5 = int(np.sum(c.detect(0.05) >= 0.90)) if 0.05 in c.evaluations[0].gate.detect else 0
    for label, key, fmt in rows:
        mean, lo, hi = interval95(figs[key])
        lo = max(lo, 0.0)  # every figure here is a rate or a count: none is below 0
        cells = " | ".join(fmt(x) for x in figs[key])
        span = f"{fmt(mean)} [{fmt(lo)}, {fmt(hi)}]" if n > 1 else fmt(mean)
        lines.append(f"| {label} | {cells} | {span} |")
    lines += [
        "",
        f"Pooled (each benchmark's detection averaged over the {n} recordings): "
        f"**{pooled_10} of {total}** at ≥ 95% of −10%, **{pooled_20} of {total}** at ≥ 99% of "
        f"−20%, {pooled_5} of {total} at ≥ 90% of −5%.",
    ]
    short = sorted((float(x), i) for i, x in enumerate(pooled) if x < GOAL_DETECT)
    if n > 1 and short:
        each = c.by_recording(0.10)
        lines += ["", "Pooled below 95% at −10% (each recording's in parentheses):", ""]
        lines += [
            f"- `{c.names[i]}` {x * 100:.1f}% ("
            + ", ".join(f"{r * 100:.0f}%" for r in each[:, i])
            + ")"
            for x, i in short
        ]
    return "\n".join(lines) + "\n"


def to_dict(ev: Evaluation, losses: tuple[float, ...] = LOSSES) -> dict:
    allowed = ev.max_spread()
    return {
        "schema": "benchtrack.evaluation/2",
        "data": ev.data.source,
        "rounds": ev.rounds,
        "looks": ev.looks,
        "alpha": ev.alpha,
        "jobs": ev.jobs,
        "prs": ev.prs,
        "mean_rounds": ev.mean_rounds,
        "budget_seconds": ev.budget,
        "build_seconds": ev.build_seconds,
        "nochange_seconds": {"mean": float(np.mean(ev.seconds)), "max": float(np.max(ev.seconds))},
        "stopped_by_budget": ev.stopped_by_budget,
        "false_fail_by_series": {
            k: float(x) for k, x in zip(ev.data.names, ev.false_by_series, strict=True) if x > 0
        },
        "methods": [
            {
                "label": mth.label,
                "false_fail": mth.false_fail,
                "detect": {f"{x:g}": mth.mean_detect(x) for x in losses},
            }
            for mth in ev.methods
        ],
        "benchmarks": [
            {
                "name": name,
                "series": [
                    k for k, m in zip(ev.data.names, ev.benches.member[i], strict=True) if m
                ],
                "spread": float(ev.spread[i]),
                "max_spread_for_10pct": float(allowed[i]),
                "threshold": float(ev.thresholds[ev.benches.primary[i]]),
                "gate_detect": {f"{x:g}": float(ev.gate.detect[x][i]) for x in losses},
                **({"note": ev.notes[i]} if ev.notes and ev.notes[i] else {}),
            }
            for i, name in enumerate(ev.benches.names)
        ],
    }
