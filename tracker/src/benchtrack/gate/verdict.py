"""Paired-round statistics: change head/base, a simultaneous interval, and a verdict.

Each round measures base and head back to back (order alternating), so a round's log-ratio
log(head/base) cancels whatever the machine was doing during that round. Over n rounds:

- the change is exp(mean log-ratio) - 1, with a Student-t interval of the mean log-ratio;
- `g` is the log-ratio signed so that > 0 is better (negated for smaller-is-better metrics);
- the verdict asks two things: is there a change at all (the whole interval on one side of 0,
  at the family-wise level below), and could it be as large as the threshold δ (the interval
  reaching log(1-δ) or log(1+δ) in g space)? Regressed if both say worse, improved if both say
  better, unchanged if the interval lies inside the band (-δ, +δ), else inconclusive. So a
  resolved loss fails unless its interval shows it smaller than δ (then it is "unchanged" and
  outcome.Row.smaller_loss reports it). Asking instead that the estimate be beyond δ (the rule of
  `asv compare` and benchtrack's own `compare`) fails a loss of exactly δ half the time by
  construction: on the six shipped A/A recordings a −5% loss at δ = 5% failed in 51-59% of
  replayed PRs, against 86-96% with this rule (tracker/LAB.md, "The verdict: a loss not shown
  smaller"; a side's offset kept for a whole recording, which it seemed to cost, was chance:
  LAB.md, "One coin a round");
- an instruction count's interval is the range of its rounds (`interval`): it is judged on the
  whole range beyond the threshold, since no level bounds its false fails;
- family-wise control: each one-sided bound is taken at α / (m·K) for m benchmarks and K looks
  (Bonferroni over benchmarks and over the looks of adaptive stopping), so a PR that changed
  nothing fails with probability ≤ α whatever the number of benchmarks, however often we looked.

Everything is vectorised over leading axes so `evaluate` runs the very same code on thousands of
pseudo-PRs: `g` has shape (..., m, n), NaN for a round where a benchmark has no value.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special  # scipy.stats alone takes seconds to import on a busy box

from benchtrack.gate import trimmed
from benchtrack.stats import IMPROVED, INCONCLUSIVE, REGRESSED, UNCHANGED

# Integer codes used by the vectorised path; VERDICTS maps them to the shared names.
UNCHANGED_C, IMPROVED_C, REGRESSED_C, INCONCLUSIVE_C = 0, 1, 2, 3
VERDICTS = (UNCHANGED, IMPROVED, REGRESSED, INCONCLUSIVE)
MIN_ROUNDS = 3  # a t interval needs n - 1 >= 2 degrees of freedom to mean anything


@dataclass(frozen=True)
class Interval:
    """Mean log-ratio (g space: > 0 is better) and its simultaneous interval, per benchmark."""

    mean: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n: np.ndarray
    # `interval`'s: the mean's own t interval at the same level, computed on the way, which
    # the stopping rule projects (`can_stop`: its width follows the rounds' spread)
    t: Interval | None = None


def mean_interval(g: np.ndarray, level_alpha: float) -> Interval:
    """Student-t interval of the mean of `g` along the last axis, each side at one-sided
    `level_alpha`: the equivalence test's (`equivalent`)."""
    n = np.sum(~np.isnan(g), axis=-1)
    mean, se = mean_se(g, n)
    half = _half(n, se, level_alpha)
    return Interval(mean, mean - half, mean + half, n)


def mean_se(g: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean of each series' rounds and its standard error (NaN rounds left out)."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # series without rounds: NaN, n = 0
        mean = np.nanmean(g, axis=-1) if g.shape[-1] else np.full(g.shape[:-1], np.nan)
        return mean, np.nanstd(g, axis=-1, ddof=1) / np.sqrt(np.maximum(n, 1))


def _half(n: np.ndarray, se: np.ndarray, level_alpha) -> np.ndarray:
    """The mean's t half-width at one-sided `level_alpha`; infinite below MIN_ROUNDS."""
    with np.errstate(invalid="ignore"):
        t = special.stdtrit(np.maximum(n - 1, 1), 1 - level_alpha)  # upper quantile of t(df)
        half = np.where(n >= MIN_ROUNDS, t * se, np.inf)
    # Identical rounds (a quantised metric such as RSS) give sd = 0: the interval is the point.
    return np.where(np.isnan(half), np.inf, half)


def interval(g: np.ndarray, level_alpha: float, exact: np.ndarray | None = None) -> Interval:
    """The interval the verdicts of change (regressed, improved) are taken on, along the last
    axis of `g`, each side at one-sided `level_alpha`: from `trimmed.FROM` rounds, the part the
    mean's t interval and the trimmed mean's (gate/trimmed.py) share, each taken at half the
    level (Bonferroni: both cover the change at once but with probability at most `level_alpha`
    a side), its estimate the middle of it; below, the mean's at the full level. Each holds
    the change where the other misses it: a wild round widens the mean's, rounds spread evenly
    widen the trimmed mean's (fewer degrees of freedom). On the six shipped recordings a −5% loss
    is failed in 95-97% (quiet) and 89-91% (co-tenant) of replayed PRs, against 93-95% and 86-90%
    with the mean's alone (tracker/LAB.md, "A wild round").

    `exact` (per benchmark, the axis before the rounds) marks series that repeat run to run
    (instruction counts): their interval is the range of the rounds' log-ratios. A t interval
    from the 3 rounds they need would be ~100 sd wide at the family-wise level; the range holds
    what each round saw, and `benchtrack evaluate` measures the false-fail rate it gives on A/A
    recordings instead of bounding it.
    """
    n = np.sum(~np.isnan(g), axis=-1)
    m0, se0 = mean_se(g, n)
    half = _half(n, se0, level_alpha)
    mean, lo, hi = m0, m0 - half, m0 + half
    t = Interval(m0, lo, hi, n)
    if g.shape[-1] and np.any(n >= trimmed.FROM):
        half_level = np.asarray(level_alpha) / 2
        h0 = _half(n, se0, half_level)
        with np.errstate(invalid="ignore", divide="ignore"):
            m1, se = trimmed.mean_se(g, n)
            h1 = special.stdtrit(trimmed.dof(n), 1 - half_level) * se
        h1 = np.where(np.isnan(h1), np.inf, h1)
        both_lo, both_hi = np.maximum(m0 - h0, m1 - h1), np.minimum(m0 + h0, m1 + h1)
        # Disjoint: one of the two missed; the trimmed mean's alone still holds at half the level.
        apart = both_lo > both_hi
        both_lo, both_hi = np.where(apart, m1 - h1, both_lo), np.where(apart, m1 + h1, both_hi)
        cuts = n >= trimmed.FROM
        lo, hi = np.where(cuts, both_lo, lo), np.where(cuts, both_hi, hi)
        with np.errstate(invalid="ignore"):
            mean = np.where(cuts, (lo + hi) / 2, mean)
    if exact is not None and np.any(exact) and g.shape[-1]:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: no rounds yet
            rmin, rmax = np.nanmin(g, axis=-1), np.nanmax(g, axis=-1)
        ok = np.asarray(exact) & (n >= MIN_ROUNDS)
        lo = np.where(ok, rmin, np.where(exact, -np.inf, lo))
        hi = np.where(ok, rmax, np.where(exact, np.inf, hi))
    return Interval(mean, lo, hi, n, t)


def step_down(
    g: np.ndarray, weights: np.ndarray, level_alpha: float, shown: np.ndarray | None = None
) -> tuple[Interval, np.ndarray]:
    """`interval` of a weighted Holm procedure (Holm 1979, "A simple sequentially rejective
    multiple test procedure", Scand. J. Statist. 6, 65-70; weighted by ordered weighted p-values,
    the "WHP" of Li & Guo 2026, arXiv:2604.20016): each series with weight > 0 at `level_alpha`
    x its weight over the sum of the weights of those whose loss is not yet shown (the
    interval's upper end below 0), again until no more is; a series keeps the level at which
    its loss was shown. (the intervals, each series' level (..., m)); `weights` (..., m):
    relative, 0 for a series not tested (level 0, no interval); `shown` (..., m): those whose loss
    an earlier look showed (a rejection stands: Holm's test of each series' smallest p-value
    over the looks, each look at its share of the level).

    Where Bonferroni leaves each series its first level, the step-down passes a shown loss's
    share to the others: a PR that slows many benchmarks confirms its weaker losses at the
    level the stronger ones no longer need. Strong control stays: whatever the true changes,
    the chance of showing a loss where there is none is at most `level_alpha`, since the first
    such series is tested at most at its share of the series not yet shown (Holm's argument).
    `interval` is not monotone in its level (two intervals at half the level each, the trimmed
    mean's alone when they are apart), but showing a loss at any level up to λ implies one of
    its two t tests does at λ/2, so Holm's bound holds with λ the series' share."""
    lead, (m, n) = g.shape[:-2], g.shape[-2:]
    g = g.reshape(-1, m, n)  # PRs x series x rounds
    weights = np.broadcast_to(np.asarray(weights, dtype=float), (*lead, m)).reshape(-1, m)
    shown = np.zeros(weights.shape, bool) if shown is None else np.asarray(shown, bool)
    shown = np.broadcast_to(shown, (*lead, m)).reshape(-1, m).copy()
    tested = weights > 0

    def share(level: np.ndarray | None) -> np.ndarray:
        left = np.sum(np.where(shown, 0.0, weights), axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            now = np.minimum(np.where(left > 0, level_alpha * weights / left, 0.0), level_alpha)
        return now if level is None else np.where(shown, level, now)

    # A series not tested has no interval (mean NaN, ends infinite); each pass computes the
    # tested series of the PRs the last one changed only (t quantiles are most of the cost).
    count = np.sum(~np.isnan(g), axis=-1)
    fields = [np.full(weights.shape, x) for x in (np.nan, -np.inf, np.inf) * 2]
    level, redo = share(None), tested
    while True:
        at = np.nonzero(redo)
        part = interval(g[at], level[at])
        for f, new in zip(fields, (*_f(part)[:3], *_f(part.t)[:3]), strict=True):
            f[at] = new
        fresh = (fields[2] < 0) & tested & ~shown
        again = np.any(fresh, axis=-1)
        if not np.any(again):
            break
        shown |= fresh
        level = share(level)
        redo = tested & again[:, None]
    mean, lo, hi, *t = (f.reshape(*lead, m) for f in fields)
    count = count.reshape(*lead, m)
    return Interval(mean, lo, hi, count, Interval(*t, count)), level.reshape(*lead, m)


def decide(
    iv: Interval, worse: np.ndarray, better: np.ndarray, exact: np.ndarray | None = None
) -> np.ndarray:
    """Verdict codes from intervals and the band (worse < 0 < better) in g space: a change
    (the interval clear of 0) that the interval does not show smaller than the band (it reaches
    beyond it); an `exact` series (a count, its interval the rounds' range) only when its whole
    range is beyond the band."""
    code = np.full(iv.mean.shape, INCONCLUSIVE_C, dtype=np.int8)
    code[(iv.lo > worse) & (iv.hi < better)] = UNCHANGED_C
    ranged = np.broadcast_to(False if exact is None else exact, iv.mean.shape)
    regressed = np.where(ranged, iv.hi < worse, (iv.hi < 0) & (iv.lo <= worse))
    improved = np.where(ranged, iv.lo > better, (iv.lo > 0) & (iv.hi >= better))
    code[regressed] = REGRESSED_C
    code[improved] = IMPROVED_C
    code[iv.n < MIN_ROUNDS] = INCONCLUSIVE_C
    return code


# The chance a series whose true change is at or beyond ±δ is called unchanged (per series):
# the two one-sided tests of equivalence (TOST) at level β, split over every look at which the
# series can be called so (Bonferroni, as alpha over the looks). tracker/GATE.md, "Deciding".
BETA = 0.05
# ...inside ±MARGIN·δ rather than ±δ: a state one side keeps through a PR's rounds (its build's
# layout, tracker/GATE.md "What a side keeps") shifts every round alike, by up to ~3% in the
# shipped A/A recordings; against the full band such a shift let a loss of exactly δ read as
# unchanged in up to 32% of replayed PRs for one benchmark, against ±0.8δ in at most 1%
# (`benchtrack evaluate`, "Decided").
MARGIN = 0.8


def equivalent(iv: Interval, worse: np.ndarray, better: np.ndarray) -> np.ndarray:
    """Unchanged by the two one-sided tests (Schuirmann 1987): the interval, taken at the
    equivalence level (`beta_levels`), lies inside the band. A true change of ±δ or more passes
    with probability at most that level, whatever the number of rounds."""
    return (iv.n >= MIN_ROUNDS) & (iv.lo > worse) & (iv.hi < better)


# The share of β the screening's own tests spend when a second stage follows; the pooled tests
# (both stages' rounds) get the rest. A weighted Bonferroni split: the levels still sum to β over
# every test a series can meet. The screening's tests pass only the tight series, whose interval
# is far inside the band; the pooled ones decide the spread ones, where the quantile counts (the
# co-tenant's decided share 94.5% at an even split, 95.7% at 0.2: tracker/LAB.md, "β split").
BETA_SCREEN = 0.2


def beta_levels(screen_looks: int, second_looks: int, beta: float = BETA) -> tuple[float, float]:
    """The one-sided level of each equivalence test one series can meet: (the screening's, at
    each look it can stop at; the pooled one, at each of those with each second-stage look).
    The union bound over all of them holds whichever the data pick. Without a second stage the
    screening's tests spend all of β."""
    s = max(screen_looks, 1)
    if second_looks <= 0:
        return beta / s, 0.0
    return beta * BETA_SCREEN / s, beta * (1 - BETA_SCREEN) / (s * second_looks)


def could_become_unchanged(iv: Interval, worse, better, level, last: int) -> np.ndarray:
    """Whether the equivalence test could pass by `last` rounds if the mean and round spread
    held (the half-width narrowed as in `could_become_regressed`)."""
    n = np.maximum(iv.n, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = (
            special.stdtrit(max(last - 1, 1), 1 - np.asarray(level))
            / special.stdtrit(np.maximum(n - 1, 1), 1 - np.asarray(level))
            * np.sqrt(n / max(last, 1))
        )
        half = (iv.hi - iv.lo) / 2 * scale
    return (iv.mean - half > worse) & (iv.mean + half < better)


def could_become_regressed(
    iv: Interval, worse: np.ndarray, level_alpha: np.ndarray | float, last: int
) -> np.ndarray:
    """Whether `decide` could call a series regressed by the `last` look if its mean and round
    spread held: its interval, narrowed as t(last-1)/t(n-1) * sqrt(n/last), clear of 0, and
    its interval now reaching beyond the threshold (it narrows toward the mean, so a series
    whose interval does not reach it now would be shown smaller than it)."""
    n = np.maximum(iv.n, 1)
    # A per-series level of 0.5 or more (evaluate's gate calibrated to a noisy rule's
    # false-fail rate) has a t quantile of 0 or below: no projection, and no warning for it.
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = (
            special.stdtrit(max(last - 1, 1), 1 - np.asarray(level_alpha))
            / special.stdtrit(np.maximum(n - 1, 1), 1 - np.asarray(level_alpha))
            * np.sqrt(n / last)
        )
        projected_hi = iv.mean + (iv.hi - iv.lo) / 2 * scale
    return (projected_hi < 0) & (iv.lo <= worse)


def can_stop(
    iv: Interval,
    worse: np.ndarray,
    better: np.ndarray,
    level_alpha: float,
    last: int,
    exact: np.ndarray | None = None,
) -> np.ndarray:
    """Per PR (the last axis holds its benchmarks): whether more rounds are pointless.

    They are once no inconclusive benchmark could still become regressed by the `last` look if
    its mean and round spread held (the interval's half-width scaled by t(last-1)/t(n-1) *
    sqrt(n/last)), projected from `iv.t` when `interval` made it: the mean's t interval at the
    same level, whose width follows the rounds' spread as the t quantiles say (`interval`'s, at
    half the level each, would stop a spread loss too soon). A benchmark heading for
    "unchanged" is not waited for: that verdict cannot fail the PR. (A PR with a regression
    already goes on while another benchmark is open, so that every loss it has is named.)

    Any stopping rule is sound here: each look spends its own α/(m·K), so when to stop cannot
    raise the false-fail rate; stopping only gives up rounds that, by the data so far, would
    not fail the PR. What it costs in detection is measured by `benchtrack evaluate`.
    """
    code = decide(iv, worse, better, exact)
    projected = could_become_regressed(iv.t or iv, worse, level_alpha, last)
    # An exact series is measured in its first rounds only: more rounds cannot change it.
    if exact is not None:
        projected = projected & ~np.asarray(exact)
    open_ = (code == INCONCLUSIVE_C) & (projected | (iv.n < MIN_ROUNDS))
    return ~np.any(open_, axis=-1)


def band(threshold: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """The band (log(1-δ), log(1+δ)) in g space; symmetric in the metric's own ratio."""
    d = np.asarray(threshold, dtype=float)
    return np.log1p(-d), np.log1p(d)


def per_look_alpha(alpha: float, m: int, looks: int) -> float:
    return alpha / max(m, 1) / max(looks, 1)


def tested(m: int, exact: np.ndarray | None) -> int:
    """How many of `m` series share alpha: all but the exact ones (instruction counts), which
    are judged by their rounds' range, not by a t interval at a level (`interval`)."""
    return m - (int(np.sum(exact)) if exact is not None else 0)


def sequential(
    g: np.ndarray,
    threshold: np.ndarray | float,
    alpha: float,
    looks: list[int],
    exact: np.ndarray | None = None,
    cap: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, Interval]:
    """Run the adaptive gate on complete round data `g` (..., m, n).

    At each look (a number of rounds) compute every verdict; stop at the first look where
    `can_stop`, else at the last. `cap` (shape (...), rounds, at least the first look) is the
    most rounds each PR may reach: the time budget's stop (`budget_look`), which depends on the
    rounds' seconds, not on their values; a cap between two looks is where the later one is
    taken. Returns (codes (..., m), rounds used (...), the intervals at the stopping look).
    """
    a = per_look_alpha(alpha, tested(g.shape[-2], exact), len(looks))
    worse, better = band(threshold)
    codes = ivs = stop = None
    for k, rounds in enumerate(looks):
        taken = rounds if cap is None else np.minimum(cap, rounds)
        first = first_rounds(g, taken, rounds)
        iv = interval(first, a, exact)
        c = decide(iv, worse, better, exact)
        if codes is None:
            codes, ivs = c, iv
            stop = np.broadcast_to(taken, c.shape[:-1]).copy()
            done = np.zeros(c.shape[:-1], dtype=bool)
        else:
            take = ~done
            codes = np.where(take[..., None], c, codes)
            ivs = Interval(
                *(
                    np.where(take[..., None], new, old)
                    for new, old in zip(_f(iv), _f(ivs), strict=True)
                )
            )
            stop = np.where(take, taken, stop)
        stops = can_stop(iv, worse, better, a, looks[-1], exact)
        done = done | stops | (k == len(looks) - 1)
        if cap is not None:
            done = done | (np.asarray(cap) <= rounds)
        if np.all(done):
            break
    return codes, stop, ivs


def first_rounds(g: np.ndarray, taken: np.ndarray | int, rounds: int) -> np.ndarray:
    """`g`'s first `rounds` rounds, those from `taken` on (per PR, shape (...)) set to NaN."""
    if np.isscalar(taken):
        return g[..., :taken]
    keep = np.arange(rounds) < np.asarray(taken)[..., None, None]
    return np.where(keep, g[..., :rounds], np.nan)


def budget_look(at, following, left, pace):
    """Where the last look goes when the next one, at `following` rounds, would end after the
    time budget (gate/rounds.py): at `at` (the look just taken) plus as many rounds as the
    `left` seconds hold at `pace` seconds a round, short of `following`. Moving it keeps the
    number of looks alpha was split over, and where it lands depends on the rounds' seconds,
    not on their values, so each look still spends only its share. Scalars or arrays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fit = np.floor(np.where(np.asarray(pace) > 0, np.asarray(left) / pace, 0.0))
    return at + np.clip(np.nan_to_num(fit), 0, np.asarray(following) - at - 1).astype(int)


def segment_rounds(left, pace, rounds, least=0):
    """How many of a second-stage segment's `rounds` the `left` seconds hold at `pace` seconds
    a round (all of them while the pace is unknown), no fewer than `least`: the one rule the
    gate (gate/stages.py) and its replay (lab/replay.py) both apply. Scalars or arrays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fit = np.floor(np.where(np.asarray(pace) > 0, np.asarray(left) / pace, rounds))
    return np.clip(np.nan_to_num(fit), least, rounds).astype(int)


def _f(iv: Interval) -> tuple[np.ndarray, ...]:
    return iv.mean, iv.lo, iv.hi, iv.n


def goodness(base: np.ndarray, head: np.ndarray, bigger_is_better: np.ndarray) -> np.ndarray:
    """Per-round log(head/base), signed so that > 0 is better. Shapes (m, n) and (m,)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        lr = np.log(head) - np.log(base)
    return np.where(np.asarray(bigger_is_better)[:, None], lr, -lr)


def to_change(g_value: float, bigger_is_better: bool) -> float:
    """A g-space value back to the metric's own relative change head/base - 1."""
    if not math.isfinite(g_value):
        return math.copysign(math.inf, g_value if bigger_is_better else -g_value)
    return math.expm1(g_value if bigger_is_better else -g_value)
