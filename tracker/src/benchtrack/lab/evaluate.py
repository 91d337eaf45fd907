"""Error rates of the gate, and of the usual rules, on recorded A/A rounds.

Pseudo-PRs: a window of n consecutive recorded rounds (n = the gate's round limit) at a random
start, its two recorded sides labelled base/head by a coin:

- `coin="pr"` (the default): one coin for the whole PR. Each side keeps its build and checkout
  through the recording, as a gate's do, so a difference that stayed with one side would stay
  in the pseudo-PR too. But then every pseudo-PR of a recording whose windows cover (nearly) all
  its rounds replays the same rounds' sum, up to its sign: a recording is about two independent
  PRs, and its false-fail is close to 0% or to the share of coins that make its largest chance
  mean a loss;
- `coin="round"`: one coin per recorded round (the same round flipped alike in every part and
  shard of the PR). Under A/A the two sides of a round are exchangeable if no side keeps an
  offset for the whole recording, which `tracker/bench/side_episodes.py --t-summary` checks (the
  whole-recording t of every series against Student's t); then each pseudo-PR is an
  independent draw of the null (a sign-flip randomization, as paired permutation tests make),
  every recorded round's size kept.

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

import numpy as np

from benchtrack.errors import BadInput
from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm
from benchtrack.gate.outcome import exact_series
from benchtrack.lab import ghrule
from benchtrack.lab.aa import AAData
from benchtrack.lab.figures import CHUNK, LOSSES, Benchmarks, Evaluation, Method
from benchtrack.lab.replay import Costs, budget_rounds
from benchtrack.lab.stages import Stages, recording_costs

ACTION_THRESHOLDS = (1.1, 1.5, 2.0)
COINS = ("pr", "round")
PYTEST_FRACTION = 0.05


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
    coin: str = "pr",
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
    uneven = None  # (P,) the PRs whose screening read the vCPUs uneven
    # Which recorded side is a PR's base: one coin a PR, every round and part alike (each side
    # keeps its own build and checkout for the whole recording, as a gate's do), or one per
    # recorded round (the module's docstring says when that is the null).
    if coin not in COINS:
        raise BadInput("--coin", None, " or ".join(COINS), coin)
    flips = rng.random((prs, 1 if coin == "pr" else max(d.rounds for d in parts))) < 0.5
    for d in parts:
        k = min(n, d.rounds)
        if k < v.MIN_ROUNDS:
            raise BadInput(d.source, "rounds", f"at least {v.MIN_ROUNDS} recorded rounds", d.rounds)
        if confirm is not None and times is None:
            n2 = min(confirm.most_rounds, d.rounds - k)
            if n2 < v.MIN_ROUNDS:
                expected = (
                    f"at least {k + v.MIN_ROUNDS} recorded rounds (screening and confirmation)"
                )
                raise BadInput(d.source, "rounds", expected, d.rounds)
            order = rng.permuted(np.tile(np.arange(d.rounds), (prs, 1)), axis=1)
            idx = np.sort(order[:, :k], axis=1)
            # an even state's rounds first (a random subset of them), the uneven state's more after
            even = min(confirm.rounds, n2)
            idx2 = np.concatenate(
                [np.sort(order[:, k : k + even], axis=1), np.sort(order[:, k + even : k + n2], 1)],
                axis=1,
            )
            # the gate's reading of its screening's rounds sets its confirmation's (gate/stages.py)
            uneven = d.vcpus_uneven(idx) if confirm.uneven_rounds else None
            confirm_g.append(_goodness(d, idx2, _coins(flips, idx2)))
        else:
            idx = windows(d.rounds, k, prs, rng)
            if confirm is not None:  # not confirmed (the counts): nothing to confirm with
                confirm_g.append(np.full((prs, len(d.names), n2), np.nan))
        if times is None:  # the first part (the most rounds) paces the gate
            times = np.pad(d.drawn_round_times(idx), ((0, 0), (0, n - k)), mode="edge")
        flip = _coins(flips, idx)
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
            uneven,
        )
        gate_ff, gate_detect, decided = stages.gate(
            g, thresholds, a_job, looks, losses, exact, benches
        )
        stop = decided.screen_rounds
        seconds = decided.confirm_seconds
        by_series = np.mean(decided.regressed, axis=0)
        # the share of PRs whose screening read the vCPUs uneven (Evaluation.uneven)
        read_as = (
            None if uneven is None else (float(np.mean(uneven)), confirm.uneven_rounds or 0, n2)
        )
        stages_note = (
            f"screen, then confirm (≤{confirm.rounds} rounds, looks "
            f"{'/'.join(map(str, confirm.look_schedule()))}, ≤{confirm.most} candidates, "
            f"{n2} recorded rounds to draw from): under A/A a PR sends "
            f"{float(np.mean(decided.candidates)):.1f} candidates on average (most "
            f"{int(np.max(decided.candidates))}) to "
            f"{_mean_where(decided.confirm_rounds, decided.candidates > 0):.1f} confirmation "
            f"rounds{'' if read_as is None else '; ' + uneven_words(read_as)}"
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
        coin=coin,
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
    if confirm is not None:
        ev.uneven = read_as
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


def uneven_words(uneven: tuple[float, int, int]) -> str:
    """ "N% of PRs read the vCPUs uneven …": Evaluation.uneven in words."""
    share, rounds, held = uneven
    short = f" (the recording holds {held}, not {rounds})" if held < rounds else ""
    return (
        f"{share * 100:.0f}% of PRs read the vCPUs uneven in their screening and confirm in "
        f"up to {min(rounds, held)} rounds{short}"
    )


def _mean_where(x: np.ndarray, where: np.ndarray) -> float:
    return float(np.mean(x[where])) if np.any(where) else 0.0


def _coins(flips: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """(P, k): the coin of each drawn round, from one a PR ((P, 1)) or one a recorded round."""
    if flips.shape[1] == 1:
        return np.broadcast_to(flips, idx.shape)
    return np.take_along_axis(flips, idx, axis=1)


def _goodness(d: AAData, idx: np.ndarray, flip: np.ndarray) -> np.ndarray:
    """(P, m, k): the log-ratios of rounds `idx` (P, k) of `d`, each signed so that > 0 is
    better, their labels swapped where `flip`."""
    lr = np.log(d.values["head"][:, idx]) - np.log(d.values["base"][:, idx])  # (m, P, k)
    lr = np.where(flip[None], -lr, lr).transpose(1, 0, 2)
    return np.where(d.bigger[None, :, None], lr, -lr)


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
