"""The gate's statistics, config and the replayed rules, on synthetic rounds with known truth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchtrack.errors import BadInput
from benchtrack.gate import config, trimmed
from benchtrack.gate import verdict as v
from benchtrack.lab import ghrule


def rounds(rng: np.random.Generator, m: int, n: int, sd: float) -> np.ndarray:
    return rng.normal(0.0, sd, size=(m, n))


def test_clear_loss_is_regressed_and_named_in_the_right_direction() -> None:
    rng = np.random.default_rng(1)
    g = rounds(rng, 3, 12, 0.01)
    g[1] += math.log(0.8)  # benchmark 1 lost 20%
    codes, stop, iv = v.sequential(g, 0.05, 0.01, [12])
    assert [v.VERDICTS[c] for c in codes] == ["unchanged", "regressed", "unchanged"]
    assert iv.hi[1] < math.log(0.95)
    assert stop == 12


def test_smaller_is_better_metric_growing_is_a_loss() -> None:
    base = np.full((2, 8), 1000.0)
    head = np.array([[1200.0] * 8, [1200.0] * 8])  # both grew 20%
    bigger = np.array([True, False])  # a throughput and an RSS
    g = v.goodness(base, head, bigger)
    codes, _, _ = v.sequential(g, 0.05, 0.01, [8])
    assert [v.VERDICTS[c] for c in codes] == ["improved", "regressed"]
    assert v.to_change(float(g[1].mean()), False) == pytest.approx(0.2)


def test_loss_inside_the_threshold_is_not_a_regression() -> None:
    g = np.full((1, 10), math.log(0.97)) + np.linspace(-1e-3, 1e-3, 10)  # a tight 3% loss
    codes, _, _ = v.sequential(g, 0.05, 0.01, [10])
    assert v.VERDICTS[codes[0]] == "unchanged"
    codes, _, _ = v.sequential(g, 0.02, 0.01, [10])
    assert v.VERDICTS[codes[0]] == "regressed"


def test_a_resolved_loss_fails_unless_its_interval_shows_it_smaller_than_the_threshold() -> None:
    # A 10% loss with 8% spread: the interval is clear of 0 but reaches inside -5%: regressed.
    # A 4.5% loss with 2% spread: its estimate is under the threshold, but its interval, clear of
    # 0, reaches beyond -5%: a loss of 5% is not ruled out, so it fails too (the estimate rule
    # of `compare` and asv would not fail it, and so would pass a 5% loss half the time). A 3%
    # loss with 1% spread: its interval lies inside -5%: a resolved loss shown smaller than the
    # threshold, unchanged (outcome.Row.smaller_loss reports it), not failed.
    pattern = np.resize([1.0, -1.0], 16)
    g = np.stack(
        [
            np.log(0.9) + 0.08 * pattern,
            np.log(0.955) + 0.02 * pattern,
            np.log(0.97) + 0.01 * pattern,
        ]
    )
    iv = v.interval(g, v.per_look_alpha(0.01, 3, 1))
    assert iv.hi[0] < 0 and iv.hi[0] > math.log(0.95)
    assert iv.hi[1] < 0 and iv.lo[1] < math.log(0.95) < iv.mean[1]
    assert iv.hi[2] < 0 and iv.lo[2] > math.log(0.95)
    codes, _, _ = v.sequential(g, 0.05, 0.01, [16])
    assert [v.VERDICTS[c] for c in codes] == ["regressed", "regressed", "unchanged"]
    # An instruction count's "interval" is its rounds' range, which no level bounds: it fails
    # only when the whole range is beyond the threshold.
    counts = np.array([[math.log(0.93), math.log(0.92), math.log(0.97)]])
    codes, _, _ = v.sequential(counts, 0.05, 0.01, [3], exact=np.array([True]))
    assert v.VERDICTS[codes[0]] == "inconclusive"
    codes, _, _ = v.sequential(counts - 0.03, 0.05, 0.01, [3], exact=np.array([True]))
    assert v.VERDICTS[codes[0]] == "regressed"


def test_one_wild_round_does_not_hide_a_loss() -> None:
    """A steady 6% loss over 16 rounds, one of which ran 30% the other way (a co-tenant's burst
    on one side): the mean's t interval reaches past 0, the change interval does not."""
    rng = np.random.default_rng(3)
    g = math.log(0.94) + rng.normal(0.0, 0.01, size=(1, 16))
    g[0, 7] = math.log(1.30)
    level = 0.001
    assert v.mean_interval(g, level).hi[0] > 0
    iv = v.interval(g, level)
    assert iv.hi[0] < 0 and iv.lo[0] < math.log(0.95)
    assert v.VERDICTS[v.decide(iv, *v.band(np.array([0.05])))[0]] == "regressed"


def test_trimmed_mean_and_its_error_are_yuens() -> None:
    """Yuen's (WRS2 `yuen`'s one-sample term) on 10 rounds at 20%: the 2 lowest and 2 highest
    cut for the mean, set to their nearest kept value for the winsorized variance s_w²;
    se² = (n - 1) s_w² / (h (h - 1)), h = 6 rounds kept."""
    x = np.array([0.9, -0.4, 0.1, 0.0, 0.3, -2.0, 0.2, 0.15, -0.1, 0.05])
    mean, se = trimmed.mean_se(x[None, :], np.array([10]))
    s = np.sort(x)
    assert mean[0] == pytest.approx(np.mean(s[2:8]))
    w = np.clip(s, s[2], s[7])
    assert se[0] == pytest.approx(math.sqrt(9 * np.var(w, ddof=1) / (6 * 5)))
    assert int(trimmed.dof(10)) == 5 and int(trimmed.cut(4)) == 0


@pytest.mark.parametrize("n", [5, 16, 21])
def test_the_change_interval_keeps_its_level_on_clean_and_wild_rounds(n: int) -> None:
    """Both halves of the change interval at half the level: under no change, its lower end
    passes 0 no more often than the level, on normal rounds and on rounds 6% of which are 8
    times as spread (one-sided 2.5%, 40,000 series, a fixed seed: 3 sd of slack)."""
    rng = np.random.default_rng(7)
    size, level = (40_000, n), 0.025
    slack = 3 * math.sqrt(level * (1 - level) / size[0])
    wild = rng.random(size) < 0.06
    for g in (rng.standard_normal(size), np.where(wild, 8.0, 1.0) * rng.standard_normal(size)):
        assert np.mean(v.interval(g, level).lo > 0) <= level + slack


def test_noise_is_inconclusive_not_a_verdict() -> None:
    rng = np.random.default_rng(2)
    g = rounds(rng, 1, 5, 0.2)
    codes, _, _ = v.sequential(g, 0.05, 0.01, [5])
    assert v.VERDICTS[codes[0]] == "inconclusive"


def test_family_wise_false_fail_rate_is_controlled_for_many_benchmarks() -> None:
    # 2000 A/A PRs of 40 benchmarks with heavy-tailed noise and 3 looks: false fails <= alpha.
    rng = np.random.default_rng(3)
    g = rng.standard_t(3, size=(2000, 40, 16)) * 0.03
    codes, _, _ = v.sequential(g, 0.0001, 0.05, [8, 12, 16])  # a tiny threshold: hardest case
    rate = np.mean(np.any(codes == v.REGRESSED_C, axis=-1))
    assert rate <= 0.05
    # the same data with an uncorrected per-benchmark 5% test fails far more often
    iv = v.interval(g, 0.05)
    assert np.mean(np.any(iv.hi < 0, axis=-1)) > 0.5


def test_adaptive_stopping_stops_once_more_rounds_could_not_fail_the_pr() -> None:
    rng = np.random.default_rng(4)
    g = rounds(rng, 2, 16, 0.002)
    g[0] += math.log(0.7)
    codes, stop, _ = v.sequential(g, 0.05, 0.01, [6, 11, 16])
    assert stop == 6 and v.VERDICTS[codes[0]] == "regressed"
    # Pure noise far wider than the threshold: inconclusive now and, by its spread, still at 16
    # rounds: no more rounds could fail the PR, so it stops at the first look.
    noisy = rounds(rng, 2, 16, 0.5)
    codes, stop, _ = v.sequential(noisy, 0.05, 0.01, [6, 11, 16])
    assert stop == 6 and {v.VERDICTS[c] for c in codes} == {"inconclusive"}
    # A 10% loss with 10% spread: inconclusive at 6 and 11 rounds, but its interval would clear
    # 0 by the last look, so the gate goes on, and there it is regressed.
    slow = np.log(0.9) + 0.10 * np.resize([1.0, -1.0], (2, 16))
    codes, stop, _ = v.sequential(slow, 0.05, 0.01, [6, 11, 16])
    assert stop == 16 and [v.VERDICTS[c] for c in codes] == ["regressed", "regressed"]
    for n in (6, 11):
        iv = v.interval(slow[:, :n], v.per_look_alpha(0.01, 2, 3))
        assert list(v.decide(iv, *v.band(0.05))) == [v.INCONCLUSIVE_C] * 2
    # No change, 3.5% spread: inconclusive at 6 rounds, heading for "unchanged", which cannot
    # fail the PR: not waited for.
    steady = 0.035 * np.resize([1.0, -1.0], (2, 16))
    codes, stop, _ = v.sequential(steady, 0.05, 0.01, [6, 11, 16])
    assert stop == 6 and [v.VERDICTS[c] for c in codes] == ["inconclusive"] * 2
    assert [v.VERDICTS[c] for c in v.sequential(steady, 0.05, 0.01, [16])[0]] == ["unchanged"] * 2
    # A PR already failing on one benchmark goes on while another may still regress: both named.
    mixed = np.stack([np.full(16, math.log(0.7)) + 0.002 * np.resize([1.0, -1.0], 16), slow[0]])
    codes, stop, _ = v.sequential(mixed, 0.05, 0.01, [6, 11, 16])
    assert stop == 16 and [v.VERDICTS[c] for c in codes] == ["regressed", "regressed"]


def test_too_few_rounds_is_inconclusive() -> None:
    codes, _, _ = v.sequential(np.full((1, 2), -1.0), 0.05, 0.01, [2])
    assert v.VERDICTS[codes[0]] == "inconclusive"


def test_action_rule_matches_its_definition() -> None:
    bigger = np.array([True, True, False])
    base = np.array([200.0, 200.0, 100.0])
    head = np.array([99.0, 101.0, 201.0])  # ratios 2.02, 1.98, 2.01 (smaller is better)
    assert ghrule.action_alerts(base, head, bigger, 2.0).tolist() == [True, False, True]


def test_pytest_rule_compares_mean_time() -> None:
    base = ghrule.mean_cost([100.0, 100.0], True)  # 10 ms per call
    head = ghrule.mean_cost([90.0, 100.0], True)  # mean time 10.56 ms: +5.6%
    assert ghrule.pytest_mean_fails(np.array(base), np.array(head), 0.05)
    assert not ghrule.pytest_mean_fails(np.array(base), np.array(head), 0.06)


_S = {"command": "x", "adapter": "perl", "raw": "r"}
MINIMAL = {"bench": {"suites": {"s": {"command": "true", "adapter": "perl", "raw": "x.json"}}}}


def test_config_thresholds_longest_pattern_wins_and_schedule() -> None:
    cfg = config.parse(
        {
            **MINIMAL,
            "gate": {
                "threshold": 0.05,
                "rounds": 16,
                "looks": [8, 12],
                "thresholds": {"perl/*": 0.1, "perl/rss/*": 0.02},
            },
        },
        "benchtrack.toml",
    )
    assert cfg.threshold_for("perl/rss/async") == 0.02
    assert cfg.threshold_for("perl/coro/async/trivial") == 0.1
    assert cfg.threshold_for("rust/walk/joinset") == 0.05
    assert cfg.look_schedule() == [8, 12, 16]
    assert cfg.look_schedule(10) == [8, 10]
    assert cfg.look_schedule(adaptive=False) == [16]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({**MINIMAL, "gate": {"threshold": 5}}, "gate.threshold"),
        ({**MINIMAL, "gate": {"suites": ["nope"]}}, "suites"),
        (
            {"bench": {"suites": {"s": {**_S, "gate": {"adapter": "junit"}}}}},
            "bench.suites.s.gate.adapter",
        ),
        ({"bench": {"suites": {"s": {"adapter": "perl", "raw": "r"}}}}, "bench.suites.s.command"),
        ({**MINIMAL, "gate": {"roundz": 3}}, "gate.roundz"),
        ({**MINIMAL, "gate": {"minutes": 0}}, "gate.minutes"),
        ({}, "bench.suites"),
    ],
)
def test_config_mistakes_name_the_field(data: dict, field: str) -> None:
    with pytest.raises(BadInput) as e:
        config.parse(data, "benchtrack.toml")
    assert e.value.field == field and e.value.source == "benchtrack.toml"


def test_repository_config_is_valid() -> None:
    from pathlib import Path

    cfg = config.load(Path(__file__).resolve().parents[2] / "benchtrack.toml")
    assert set(cfg.default_suites) <= set(cfg.suites)
