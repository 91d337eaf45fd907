"""Episodes on an A/A recording: rounds in a row where one benchmark's one side ran apart.

    uv run --frozen python tracker/bench/side_episodes.py RECORDING.json [...] [--min-rounds K]
    uv run --frozen python tracker/bench/side_episodes.py RECORDING.json [...] --whole \
        [--min-shift F]

Under A/A a round's log-ratio (head over base, the values the gate judges) scatters around 0.
An episode is K or more rounds in a row (3 by default, at most half the rounds) whose
log-ratios all lie on one side of the other rounds' median, each more than 4 robust sd of those
(1.4826 x their median absolute deviation) from it, and whose mean differs from theirs by at
least --min-shift (5% by default, the gate's threshold): a side slower in every process of
those rounds, which neither more pairs nor more processes average away, and which a pseudo-PR
drawn inside it reads as a change. Per series, the run that stands out most (Welch's t of its
mean against the other rounds'): its rounds
(1-based), its mean shift against the other rounds and the side that was slower then. A state
held for about half the recording reads the same either way round: the run named is then the
one of the two that stands out more.

`--whole`: the state a side kept for the whole recording instead: each series whose rounds'
mean log-ratio is at least --min-shift from 0 (its change head/base, the rounds' sd and the
mean's t), the offset a pseudo-PR's two sides carry whichever way round it is drawn.

`--t-summary`: whether such offsets are more than chance. Every series' whole-recording t
(above, whatever its shift) set against Student's t with rounds - 1 degrees of freedom, which is
its distribution when the rounds are independent and no side keeps an offset: the t's sd and
how many lie beyond 2, 2.7 and 3 against the count expected, per recording and over all given.
A side's offset kept for a whole recording (variance tau^2 beyond the rounds') widens the t's sd
to about sqrt(df / (df - 2) + rounds * tau^2 / sd^2); rounds that drift together widen it too,
and show as a positive lag-1 autocorrelation of a series' rounds (its mean over the series is
printed beside -1 / rounds, what independent rounds give).
When they agree, `benchtrack evaluate --coin round` replays each pseudo-PR as an independent
draw of the null.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

from benchtrack.errors import BadInput
from benchtrack.lab import aa

Z = 4.0


def _log_ratios(data: aa.AAData, i: int) -> np.ndarray:
    """Series i's per-round log(head/base), the values the gate judges."""
    return np.log(data.values["head"][i]) - np.log(data.values["base"][i])


def episodes(
    data: aa.AAData, min_rounds: int, min_shift: float
) -> list[tuple[str, int, int, float, str]]:
    """Per series, its most distinct run if one qualifies: (series, first round, last round
    (0-based), mean shift of the run against the other rounds in log-ratio, the slower side)."""
    found = []
    for i, name in enumerate(data.names):
        lr = _log_ratios(data, i)
        n = len(lr)
        if n < 2 * min_rounds or not np.all(np.isfinite(lr)):
            continue
        best = None
        for first in range(n):
            for last in range(first + min_rounds - 1, min(n, first + n // 2)):
                inside = lr[first : last + 1]
                rest = np.r_[lr[:first], lr[last + 1 :]]
                centre = float(np.median(rest))
                sd = 1.4826 * float(np.median(np.abs(rest - centre))) + 1e-4
                away = (inside - centre) / sd
                if not (np.all(away > Z) or np.all(away < -Z)):
                    continue
                shift = float(np.mean(inside) - np.mean(rest))
                spread = np.var(inside, ddof=1) / len(inside) + np.var(rest, ddof=1) / len(rest)
                score = abs(shift) / math.sqrt(spread)  # Welch's t: a homogeneous run wins
                if abs(shift) >= math.log1p(min_shift) and (best is None or score > best[0]):
                    best = (score, first, last, shift)
        if best is not None:
            _, first, last, shift = best
            slower = "base" if (shift > 0) == bool(data.bigger[i]) else "head"
            found.append((name, first, last, shift, slower))
    return found


def whole(data: aa.AAData, min_shift: float) -> list[tuple[str, float, float, float]]:
    """Per series whose mean log-ratio over every round is at least `min_shift` from 0: (series,
    mean, the rounds' sd, the mean's t), in log-ratio."""
    found = []
    for i, name in enumerate(data.names):
        lr = _log_ratios(data, i)
        lr = lr[np.isfinite(lr)]
        if len(lr) < 3 or abs(float(np.mean(lr))) < math.log1p(min_shift):
            continue
        mean, sd = float(np.mean(lr)), float(np.std(lr, ddof=1))
        found.append((name, mean, sd, mean / (sd / math.sqrt(len(lr)))))
    return found


CUTS = (2.0, 2.7, 3.0)


def t_summary(ts: np.ndarray, df: np.ndarray) -> str:
    """One line: the t's sd against Student's, and the counts beyond each cut against expected."""
    expected_sd = float(np.sqrt(np.mean(df / (df - 2))))
    beyond = [(c, int(np.sum(np.abs(ts) > c)), float(np.sum(2 * stats.t.sf(c, df)))) for c in CUTS]
    cells = [f"|t| > {c}: {k} (expected {e:.1f})" for c, k, e in beyond]
    return f"{len(ts)} series, sd of t {np.std(ts):.2f} (expected {expected_sd:.2f}); " + ", ".join(
        cells
    )


def _lag1(lr: np.ndarray) -> float:
    """The lag-1 autocorrelation of a series' rounds (NaN rounds left out)."""
    z = lr[np.isfinite(lr)] - np.mean(lr[np.isfinite(lr)])
    return float(np.sum(z[1:] * z[:-1]) / np.sum(z * z))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("recordings", nargs="+", type=Path)
    p.add_argument("--min-rounds", type=int, default=3)
    p.add_argument(
        "--min-shift", type=float, default=0.05, help="the smallest shift shown (default 0.05)"
    )
    p.add_argument("--whole", action="store_true", help="each series' offset over every round")
    p.add_argument(
        "--t-summary",
        action="store_true",
        help="every series' whole-recording t against Student's t (offsets beyond chance?)",
    )
    args = p.parse_args(argv)
    every_t: list[np.ndarray] = []
    every_df: list[np.ndarray] = []
    for path in args.recordings:
        try:
            data = aa.load_parts(path)[0]
        except BadInput as e:
            print(f"side_episodes: error: {e}", file=sys.stderr)
            return 2
        if args.t_summary:
            rows = whole(data, 0.0)
            ts = np.array([t for *_, t in rows])
            df = np.full(len(ts), data.rounds - 1.0)
            every_t.append(ts)
            every_df.append(df)
            lag1 = float(np.mean([_lag1(_log_ratios(data, i)) for i in range(len(data.names))]))
            print(
                f"{path.name}: {data.rounds} rounds, {t_summary(ts, df)}; lag-1 autocorrelation "
                f"{lag1:+.3f} (independent: {-1 / data.rounds:+.3f})"
            )
            continue
        if args.whole:
            offsets = whole(data, args.min_shift)
            print(f"{path.name}: {data.rounds} rounds, {len(offsets)} series offset")
            for name, mean, sd, t in offsets:
                print(
                    f"  {name}: head/base {np.expm1(mean) * 100:+.1f}% over every round, "
                    f"rounds' sd {sd * 100:.1f}%, t {t:.1f}"
                )
            continue
        rows = episodes(data, args.min_rounds, args.min_shift)
        print(f"{path.name}: {data.rounds} rounds, {len(data.names)} series, {len(rows)} episodes")
        for name, first, last, shift, slower in rows:
            print(
                f"  {name}: rounds {first + 1}-{last + 1}, {slower} slower, "
                f"shift {np.expm1(abs(shift)) * 100:.1f}%"
            )
    if len(every_t) > 1:
        print(f"all {len(every_t)}: {t_summary(np.concatenate(every_t), np.concatenate(every_df))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
