"""The detector on series with known steps, on flat noisy series, and on degenerate ones."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchtrack.detect.config import Config
from benchtrack.detect.method import find_steps, welch_pvalue
from benchtrack.detect.tip import tip_step


def noisy(levels: list[tuple[int, float]], sigma: float, seed: int) -> np.ndarray:
    """Piecewise-constant throughput (n points at each level), multiplicative normal noise."""
    base = np.concatenate([np.full(n, level) for n, level in levels])
    return base * np.exp(np.random.default_rng(seed).normal(0, sigma, len(base)))


@pytest.mark.parametrize("seed", range(5))
def test_known_steps_are_found_at_their_exact_commits(seed):
    # a 8% loss at point 25 and a 6% gain at point 55, with 1% noise
    values = noisy([(25, 1000.0), (30, 920.0), (25, 975.2)], 0.01, seed)
    steps = find_steps(values)
    assert [s.index for s in steps] == [25, 55]
    assert steps[0].change == pytest.approx(-0.08, abs=0.01)
    assert steps[1].change == pytest.approx(0.06, abs=0.01)
    assert all(s.pvalue < 1e-6 for s in steps)
    assert steps[0].before == pytest.approx(1000, rel=0.01)
    assert steps[0].after == pytest.approx(920, rel=0.01)


@pytest.mark.parametrize("seed", range(10))
def test_flat_noisy_series_has_no_change_points(seed):
    values = noisy([(120, 5e8)], 0.02, seed)
    # a few outliers of the kind a busy runner produces
    values[[17, 60, 61, 99]] *= [0.85, 1.12, 0.9, 0.8]
    assert find_steps(values) == []


def test_same_series_gives_same_change_points_every_time():
    values = noisy([(40, 100.0), (40, 94.0)], 0.015, 3)
    first = find_steps(values)
    assert first and all(find_steps(values.copy()) == first for _ in range(3))


def test_a_step_below_the_minimum_effect_is_not_reported():
    values = noisy([(40, 100.0), (40, 98.0)], 0.002, 1)  # 2%: significant, but small
    assert find_steps(values, Config(min_effect=0.03)) == []
    assert [s.index for s in find_steps(values, Config(min_effect=0.01))] == [40]


def test_too_short_a_series_gives_nothing():
    assert find_steps([100.0, 50.0, 100.0, 50.0, 100.0], Config(min_segment=4)) == []


def test_constant_series_with_a_clean_step():
    values = [10.0] * 12 + [12.0] * 12
    steps = find_steps(values)
    assert [(s.index, round(s.change, 6), s.pvalue) for s in steps] == [(12, 0.2, 0.0)]
    assert find_steps([10.0] * 30) == []


def test_a_step_needs_min_segment_points_after_it():
    values = noisy([(40, 100.0), (3, 80.0)], 0.01, 0)
    assert find_steps(values, Config(min_segment=4)) == []
    values = noisy([(40, 100.0), (4, 80.0)], 0.01, 0)
    assert [s.index for s in find_steps(values, Config(min_segment=4))] == [40]


@pytest.mark.parametrize("seed", range(3))
def test_ten_small_losses_in_a_row_are_caught(seed):
    # A slow leak: ten PRs, each costing 2% (below what a PR gate or min_effect sees), one
    # every 3 commits. The history loses 18%; the detector reports it as a few regressions.
    level = np.r_[
        np.zeros(30), np.repeat(np.arange(1, 11), 3) * np.log(0.98), np.full(30, 10 * np.log(0.98))
    ]
    values = 1000 * np.exp(level + np.random.default_rng(seed).normal(0, 0.01, len(level)))
    steps = find_steps(values)
    assert len(steps) >= 2 and all(s.change < 0 for s in steps)
    assert all(28 <= s.index <= 62 for s in steps)
    assert np.prod([1 + s.change for s in steps]) - 1 == pytest.approx(0.98**10 - 1, abs=0.02)


# --- candidates at the tip (detect/tip.py): a step in the newest points, before PELT can judge it


@pytest.mark.parametrize("after", [1, 2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_a_step_in_the_newest_points_is_a_tip_candidate_at_its_commit(after, seed):
    values = noisy([(40, 1000.0), (after, 900.0)], 0.01, seed)  # a 10% loss, `after` runs of it
    steps = find_steps(values)
    assert steps == []  # too few points after it for PELT and Welch's test
    tip = tip_step(values, steps)
    assert tip is not None and tip.index == 40
    assert tip.change == pytest.approx(-0.10, abs=0.02) and tip.pvalue < 1e-6
    assert tip.before == pytest.approx(1000, rel=0.01)


def test_with_min_segment_points_after_it_the_step_is_find_steps_not_the_tips():
    values = noisy([(40, 1000.0), (4, 900.0)], 0.01, 0)
    steps = find_steps(values)
    assert [s.index for s in steps] == [40] and tip_step(values, steps) is None


@pytest.mark.parametrize("seed", range(10))
def test_a_flat_series_and_a_tip_inside_the_noise_give_no_tip_candidate(seed):
    values = noisy([(60, 5e8)], 0.02, seed)
    values[[17, 30, 31]] *= [0.85, 1.12, 0.9]  # outliers, not at the tip
    assert tip_step(values, find_steps(values)) is None
    values[-1] *= 1.03  # 1.5 sigma: not beyond Z = 4 of them
    assert tip_step(values, find_steps(values)) is None


def test_a_tip_below_min_effect_or_back_at_the_level_is_no_candidate():
    values = noisy([(40, 100.0), (1, 98.0)], 0.001, 1)  # 20 sigma, but 2%
    assert tip_step(values, [], Config(min_effect=0.03)) is None
    assert tip_step(values, [], Config(min_effect=0.01)).index == 40
    blip = noisy([(40, 100.0), (1, 80.0), (1, 100.0)], 0.005, 1)  # one run off, then back
    assert tip_step(blip, find_steps(blip)) is None


def test_the_level_before_starts_at_the_last_step_find_steps_kept():
    # a 20% loss at 30 with 6 runs after it, then one run back at the old level: against the
    # new level that is a +25% step at the tip (the last 20 runs' median would say "no change")
    values = noisy([(30, 100.0), (6, 80.0), (1, 100.0)], 0.005, 2)
    steps = find_steps(values)
    assert [s.index for s in steps] == [30]
    tip = tip_step(values, steps)
    assert tip is not None and tip.index == 36 and tip.change == pytest.approx(0.25, abs=0.02)
    assert tip.before == pytest.approx(80, rel=0.01)


def test_welchs_p_value_is_scipys():
    rng = np.random.default_rng(4)
    for n1, n2, shift in ((4, 4, 0.0), (5, 30, 0.3), (40, 6, -1.0), (12, 12, 2.0)):
        a, b = rng.standard_t(3, n1), rng.standard_t(3, n2) * 0.5 + shift
        want = stats.ttest_ind(a, b, equal_var=False).pvalue
        assert welch_pvalue(a, b) == pytest.approx(want, rel=1e-9)


def test_a_series_own_past_blips_are_the_yardstick_at_the_tip():
    # quiet (1%) but with one run 30% low long ago: a newest run 25% low is within what this
    # series has done before; 50% low is beyond 1.5 times it
    values = noisy([(50, 1000.0), (1, 750.0)], 0.01, 5)
    values[12] *= 0.7
    assert find_steps(values) == [] and tip_step(values, []) is None
    values[-1] = 500.0
    tip = tip_step(values, [])
    assert tip is not None and tip.index == 50 and tip.change == pytest.approx(-0.5, abs=0.02)
