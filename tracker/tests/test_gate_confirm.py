"""Screen, then confirm (gate/confirm.py) and its replay (lab/replay.py): who becomes a
candidate, the filter that measures exactly them, the merge, and on simulated rounds that the two
stages keep the false-fail rate within alpha while a loss the screening cannot resolve is caught."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

from benchtrack.gate import confirm
from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm, GateConfig, Suite
from benchtrack.gate.model import Meta, Rounds
from benchtrack.gate.outcome import Outcome, Row, analyse
from benchtrack.lab import replay
from benchtrack.stats import REGRESSED


def row(name: str, change: float, verdict: str = "inconclusive", **kw) -> Row:
    fields: dict = {"suite": "rust", "unit": "items/s", "direction": "bigger", "base": 100.0}
    fields.update(head=100 * (1 + change), lo=change - 0.1, hi=change + 0.1, threshold=0.05)
    fields.update({"rounds": 5, **kw})
    return Row(name=name, change=change, verdict=verdict, **fields)


def outcome(rows: list[Row]) -> Outcome:
    return Outcome(rows, [], [], {"base": {}, "head": {}}, [], 0.01, [5])


def test_candidates_are_losses_of_half_the_threshold_largest_first_at_most_most() -> None:
    rows = [
        row("rust/a", -0.03),  # 3% >= 2.5%: a candidate
        row("rust/b", -0.02),  # too small
        row("rust/c", -0.20),
        row("rust/d", -0.30, "regressed"),  # regressed already: no confirmation needed
        row("rust/e (instructions)", -0.10),  # counts: judged by their range, never confirmed
        row("perl/rss/x", 0.04, direction="smaller", unit="KB"),  # 4% more memory is a loss
        row("rust/f", 0.10, "improved"),
        row("rust/g", -0.03, lo=-0.04, hi=-0.02),  # resolved: it cannot reach a 5% loss
    ]
    picked = confirm.candidates(outcome(rows), Confirm(most=10))
    assert [r.name for r in picked] == ["rust/c", "perl/rss/x", "rust/a"]
    assert [r.name for r in confirm.candidates(outcome(rows), Confirm(most=2))] == [
        "rust/c",
        "perl/rss/x",
    ]


def test_the_filter_selects_exactly_the_candidates_whichever_way_a_harness_matches() -> None:
    rows = [row("rust/streams/iterator", -0.1), row("python/fileio/seq/tmp (cpu)", -0.1)]
    pattern = re.compile(confirm.name_filter(rows))
    # criterion matches ids without `rust/`; the other harnesses full names
    for name in ("rust/streams/iterator", "streams/iterator", "python/fileio/seq/tmp"):
        assert pattern.search(name), name
    for name in ("rust/streams/iterator2", "streams/iter", "python/fileio/seq/shm", "iterator"):
        assert not pattern.search(name), name


def test_each_suite_gets_the_filter_of_its_own_candidates_only() -> None:
    # rust-threads-pooled measures the walk at full size, rust the streams on one CPU: one
    # filter for both would measure the walk on one CPU too.
    rows = [
        row("rust/walk/rayon", -0.3, suite="rust-threads-pooled"),
        row("rust/streams/iterator", -0.1),
        row("rust/streams/unfold", -0.1),
    ]
    filters = confirm.name_filters(rows)
    assert sorted(filters) == ["rust", "rust-threads-pooled"]
    pooled, one = (re.compile(filters[k]) for k in ("rust-threads-pooled", "rust"))
    assert pooled.search("walk/rayon") and not pooled.search("streams/iterator")
    assert one.search("streams/unfold") and one.search("streams/iterator")
    assert not one.search("walk/rayon")


def test_the_merge_takes_each_candidates_confirmation_and_keeps_the_rest() -> None:
    screened = outcome([row("rust/a", -0.1), row("rust/b", -0.01, "unchanged")])
    confirmed = outcome([row("rust/a", -0.12, "regressed", rounds=16)])
    merged = confirm.merge(screened, confirmed, [screened.rows[0]])
    by = {r.name: r for r in merged.rows}
    assert by["rust/a"].verdict == "regressed" and by["rust/a"].stage == 2
    assert by["rust/a"].rounds == 16 and by["rust/b"].stage == 1
    assert merged.exit_code == 1


def test_suites_for_keeps_the_configured_order() -> None:
    suites = [Suite(n, "true", "lockstep", "") for n in ("rust", "python", "perl")]
    picked = [row("perl/x", -0.1, suite="perl"), row("rust/y", -0.1, suite="rust")]
    assert [s.name for s in confirm.suites_for(picked, suites)] == ["rust", "perl"]


def _simulate(prs: int, m: int, sd: np.ndarray, n1: int, n2: int, seed: int):
    rng = np.random.default_rng(seed)
    g1 = rng.normal(0, sd[None, :, None], (prs, m, n1))
    g2 = rng.normal(0, sd[None, :, None], (prs, m, n2))
    return g1, g2


def _decide(g1, g2, plan, budget=None, per_round=1.0, primary=None):
    """The two stages; by default with no benchmark to decide beyond the candidates (`primary`
    all False: the confirmation alone)."""
    m = g1.shape[-2]
    primary = np.zeros(m, bool) if primary is None else primary
    costs = replay.Costs(np.full(m, per_round), np.zeros(m, dtype=int), np.array([2.0]))
    times = np.full((*g1.shape[:-2], g1.shape[-1]), 60.0)
    return replay.two_stages(
        g1, g2, np.full(m, 0.05), 0.01, [g1.shape[-1]], plan, np.zeros(m, bool), times, 120.0,
        budget, costs, primary,
    )  # fmt: skip


def test_two_stages_keep_false_fails_within_alpha_on_normal_rounds() -> None:
    # Noisy series (5% a round) give the screening many candidates: the confirmation's rounds
    # are new, so at CONFIRM of alpha over the candidates, however the screening weighs them,
    # it fails at most alpha of the PRs.
    m, prs = 40, 4000
    sd = np.concatenate([np.full(20, 0.05), np.full(20, 0.01)])
    g1, g2 = _simulate(prs, m, sd, 5, 16, seed=1)
    out = _decide(g1, g2, Confirm(rounds=16, looks=(8,), most=10))
    assert np.mean(out.candidates) > 1  # the screening does pick noise
    assert np.mean(np.any(out.regressed, axis=-1)) <= 0.01 + 3 * np.sqrt(0.01 / prs)


def test_a_loss_the_screening_cannot_resolve_is_confirmed() -> None:
    m, prs = 40, 400
    sd = np.full(m, 0.03)
    g1, g2 = _simulate(prs, m, sd, 5, 16, seed=2)
    loss = np.zeros((m, 1))
    loss[7] = np.log(0.9)
    one = _decide(g1 + loss, g2 + loss, Confirm(rounds=16, looks=(8,), most=10))
    # The screening alone (its share of alpha over 40 series, 5 rounds) misses it most of the
    # time ...
    codes, _, _ = v.sequential(g1 + loss, np.full(m, 0.05), 0.01 * confirm.SCREEN, [5])
    assert np.mean(codes[:, 7] == v.REGRESSED_C) < 0.3
    # ... the confirmation catches it.
    assert np.mean(one.regressed[:, 7]) >= 0.95
    assert np.all(one.confirm_rounds[one.candidates > 0] >= 8)


def test_a_candidate_s_share_of_alpha_follows_its_screening_t() -> None:
    # rounds' goodness (< 0 worse): a 10% loss in 1% noise, a 3% loss in 3% noise, one not picked
    rng = np.random.default_rng(3)
    g = np.stack(
        [np.log(0.9) + rng.normal(0, 0.01, 5), -0.03 + rng.normal(0, 0.03, 5), np.full(5, -0.5)]
    )
    picked = np.array([True, True, False])
    w = confirm.weights(g, picked)
    t = -g[:2].mean(axis=1) / (g[:2].std(axis=1, ddof=1) / np.sqrt(5))
    assert w[2] == 0 and math.isclose(w[0] + w[1], 1.0)
    assert math.isclose(w[0] / w[1], t[0] / t[1])  # proportional to the screening t
    # identical rounds (sd 0: an infinite t) take the largest share, not all of it; a candidate
    # whose screening shows no loss at all still keeps a positive level
    w = confirm.weights(np.stack([np.full(5, -0.1), g[1], np.zeros(5)]), np.ones(3, bool))
    assert w[0] > w[1] > w[2] > 0 and math.isclose(w.sum(), 1.0)
    # no candidate: nothing to share
    assert np.all(confirm.weights(g, np.zeros(3, bool)) == 0)


def test_weighted_confirmation_keeps_false_fails_within_its_alpha() -> None:
    # At a large alpha (so that its rate can be measured) and many noise candidates of unequal
    # spread, the weighted confirmation fails no more A/A PRs than CONFIRM of alpha (plus the
    # screening's SCREEN): weights from the screening's rounds only; taken from the
    # confirmation's own rounds they would favour its luckiest candidates and overshoot.
    m, prs, alpha = 30, 4000, 0.2
    sd = np.linspace(0.005, 0.06, m)
    g1, g2 = _simulate(prs, m, sd, 5, 16, seed=4)
    costs = replay.Costs(np.ones(m), np.zeros(m, dtype=int), np.array([2.0]))
    out = replay.two_stages(
        g1, g2, np.full(m, 0.05), alpha, [5], Confirm(rounds=16, looks=(), most=m),
        np.zeros(m, bool), np.full((prs, 5), 60.0), 120.0, None, costs, np.zeros(m, bool),
    )  # fmt: skip
    assert np.mean(out.candidates) > 1.5
    assert np.mean(np.any(out.regressed, axis=-1)) <= alpha + 3 * np.sqrt(alpha / prs)


def test_the_confirmation_judges_each_candidate_at_its_share(tmp_path) -> None:
    # outcome.analyse with `shares`: the larger share, the narrower interval on the same rounds
    # (rounds that show no loss, so that no share passes to the other: below)
    cfg = GateConfig("test", suites={}, confirm=Confirm(rounds=3, looks=(), most=4))
    data = Rounds()
    for k, ratio in enumerate((1.02, 0.97, 1.01, 0.99, 1.0)):
        data.orders.append("base,head")
        for name in ("t/a", "t/b"):
            for side, value in (("base", 100.0), ("head", 100.0 * ratio)):
                data.add(side, k, name, [value], Meta("calls/s", "bigger", "ls", paired=True))
    keys = {"t/a", "t/b"}
    even = analyse(data, cfg, [5], alpha=0.01, keys=keys)
    rows = {r.name: r for r in analyse(data, cfg, [5], alpha=0.01, keys=keys,
                                       shares={"t/a": 0.9, "t/b": 0.1}).rows}  # fmt: skip
    width = {r.name: r.hi - r.lo for r in even.rows}
    assert width["t/a"] == width["t/b"]
    assert rows["t/a"].hi - rows["t/a"].lo < width["t/a"] < rows["t/b"].hi - rows["t/b"].lo


def _rounds_of(ratios: dict[str, tuple[float, ...]]) -> Rounds:
    data = Rounds()
    for k in range(len(next(iter(ratios.values())))):
        data.orders.append("base,head")
        for name, by in ratios.items():
            for side, value in (("base", 100.0), ("head", 100.0 * by[k])):
                data.add(side, k, name, [value], Meta("calls/s", "bigger", "ls", paired=True))
    return data


def test_a_shown_loss_passes_its_share_to_the_candidates_left() -> None:
    # Weighted Holm (verdict.step_down): `t/big`'s 10% loss is shown at its share; `t/weak`'s
    # 3.8% loss in 1% noise is not at a tenth of the level, but is at all of it, which it gets
    # once `t/big` is shown. Beside `t/flat` (no loss), at the same tenth, it stays open.
    cfg = GateConfig("test", suites={}, confirm=Confirm(rounds=5, looks=(), most=4))
    data = _rounds_of({"t/big": (0.9, 0.91, 0.89, 0.9, 0.905),
                       "t/weak": (0.96, 0.975, 0.95, 0.97, 0.955),
                       "t/flat": (1.01, 0.99, 1.0, 1.02, 0.98)})  # fmt: skip
    g = v.goodness(np.array([data.padded("base", "t/weak")]),
                   np.array([data.padded("head", "t/weak")]), np.array([True]))  # fmt: skip
    alpha = 0.001 / cfg.jobs
    assert v.interval(g, alpha * 0.1).hi[0] >= 0 > v.interval(g, alpha).hi[0]

    def verdicts(shares, shown=None):
        rows = analyse(data, cfg, [5], alpha=0.001, keys=set(shares), shares=shares, shown=shown)
        return {r.name: r.verdict for r in rows.rows}

    after_big = verdicts({"t/big": 0.9, "t/weak": 0.1})
    assert after_big["t/big"] == after_big["t/weak"] == REGRESSED
    assert verdicts({"t/flat": 0.9, "t/weak": 0.1})["t/weak"] != REGRESSED
    # a rejection an earlier look made stands (its series no longer measured): its share passes
    assert verdicts({"t/flat": 0.9, "t/weak": 0.1}, shown={"t/flat"})["t/weak"] == REGRESSED


def test_the_step_down_keeps_false_fails_within_alpha_beside_real_losses() -> None:
    # Strong control: 10 series lose 10% (shown almost always), 30 lose nothing; whatever the
    # weights (here from an independent first sample, as the screening's), the share of PRs in
    # which some unchanged series is shown to lose stays within alpha, though the shown losses
    # pass their shares on. At alpha = 0.2, so that the rate can be measured.
    prs, alpha, real, null = 20000, 0.2, 10, 30
    rng = np.random.default_rng(5)
    m = real + null
    sd = np.concatenate([np.full(real, 0.01), np.linspace(0.005, 0.05, null)])
    shift = np.concatenate([np.full(real, np.log(0.9)), np.zeros(null)])
    first = rng.normal(shift[:, None], sd[:, None], (prs, m, 5))
    w = confirm.weights(first, np.ones((prs, m), bool))
    g = rng.normal(shift[:, None], sd[:, None], (prs, m, 8))
    iv, level = v.step_down(g, w, alpha)
    assert np.mean(np.all(iv.hi[:, :real] < 0, axis=-1)) > 0.99  # the real losses are shown
    assert np.all(level[:, real:] >= alpha * w[:, real:] - 1e-15)  # the nulls' levels grew
    false = np.mean(np.any(iv.hi[:, real:] < 0, axis=-1))
    assert false <= alpha + 3 * np.sqrt(alpha / prs)
    # ... and more than Bonferroni would have (the step-down did pass the shares on)
    assert false > np.mean(np.any(v.interval(g, alpha * w).hi[:, real:] < 0, axis=-1))


def test_the_step_down_is_holm_s_fixed_point_on_every_pr() -> None:
    # step_down recomputes only the PRs a pass changed: the same intervals and levels as
    # the procedure written plainly, PR by PR (every series again at each pass).
    rng = np.random.default_rng(8)
    prs, m = 300, 6
    shift = rng.choice([0.0, np.log(0.93), np.log(0.85)], size=(prs, m))
    # 12 rounds (the interval beside the trimmed mean's: its ends are not the t interval's),
    # some not measured
    g = rng.normal(shift[..., None], 0.03, (prs, m, 12))
    g[rng.uniform(size=g.shape) < 0.1] = np.nan
    w = rng.uniform(0.0, 1.0, (prs, m)) * (rng.uniform(size=(prs, m)) < 0.8)
    iv, level = v.step_down(g, w, 0.05)
    for p in range(prs):
        shown, lv = np.zeros(m, bool), np.zeros(m)
        while True:
            left = w[p][~shown].sum()
            lv = np.where(shown, lv, np.minimum(0.05 * w[p] / left if left else 0.0, 0.05))
            one = v.interval(g[p], lv)
            fresh = (one.hi < 0) & (w[p] > 0) & ~shown
            if not fresh.any():
                break
            shown |= fresh
        assert np.allclose(level[p], lv)
        k = w[p] > 0  # the series tested: the others have no interval
        for mine, plain in ((iv, one), (iv.t, one.t)):
            for field in ("mean", "lo", "hi"):
                assert np.allclose(getattr(mine, field)[p][k], getattr(plain, field)[k])
        assert np.all(np.isinf(iv.hi[p][~k]))
    assert np.mean(np.sum(level > 0.05 * w / np.maximum(w.sum(-1, keepdims=True), 1e-300), -1)) > 0


def test_the_budget_moves_the_confirmation_s_last_look() -> None:
    m, prs = 10, 200
    g1, g2 = _simulate(prs, m, np.full(m, 0.05), 5, 16, seed=3)
    loss = np.zeros((m, 1))
    loss[0] = np.log(0.92)  # a loss 8 rounds often leave open
    plan = Confirm(rounds=16, looks=(8,), most=10)
    # builds 120 s + 5 screening rounds of 60 s = 420 s; a confirmation round of the picked costs
    # 2 s + 1 s a candidate: for 1 candidate 16 rounds (48 s) would overrun the 35 s left, and
    # the last look moves to the 11 rounds they hold (8 + 3 more)
    cut = _decide(g1 + loss, g2 + loss, plan, budget=430.0 + 8 * 3.0 + 1)
    solo = cut.candidates == 1
    assert np.any(solo) and set(cut.confirm_rounds[solo]) <= {8, 11}
    assert np.any(cut.confirm_rounds[solo] == 11)  # those still open at 8 go on to 11
    assert not np.any(cut.confirm_rounds > 11)


def test_the_budget_holds_the_first_segment_too() -> None:
    # One look at 16: the stage's first segment is its only one. Builds 120 s + 5 screening
    # rounds of 60 s = 420 s; a round of one candidate costs 3 s, so 20 s left hold 6 rounds,
    # where the segment used to run all 16 whatever the budget; none left: no round at all.
    m, prs = 10, 200
    g1, g2 = _simulate(prs, m, np.full(m, 0.05), 5, 16, seed=3)
    loss = np.zeros((m, 1))
    loss[0] = np.log(0.92)
    plan = Confirm(rounds=16, looks=(), most=10)
    cut = _decide(g1 + loss, g2 + loss, plan, budget=440.0)
    solo = cut.candidates == 1
    assert np.any(solo) and set(cut.confirm_rounds[solo]) == {6}
    assert np.all(cut.confirm_seconds <= 20.0)
    spent = _decide(g1 + loss, g2 + loss, plan, budget=420.0)
    assert np.all(spent.confirm_rounds == 0)
    free = _decide(g1 + loss, g2 + loss, plan, budget=None)
    assert set(free.confirm_rounds[free.candidates == 1]) == {16}


@pytest.mark.parametrize("budget", [None, 1000.0])
def test_budget_rounds_moves_the_last_look_to_what_the_budget_holds(budget) -> None:
    times = np.full((3, 12), 60.0)
    cap = replay.budget_rounds(times, [5, 9, 12], budget, 120.0)
    # 120 + 5 x 60 = 420, then 9 rounds would end at 660, 12 at 840: all within 1000
    assert list(cap) == [12, 12, 12]
    # 600: 9 rounds would end at 660; the 180 s left after look 5 hold 3 rounds
    assert list(replay.budget_rounds(times, [5, 9, 12], 600.0, 120.0)) == [8, 8, 8]
    # 700: look 9 ends at 660, 12 would end at 840; 40 s hold no round: stop at 9
    assert list(replay.budget_rounds(times, [5, 9, 12], 700.0, 120.0)) == [9, 9, 9]
    assert list(replay.budget_rounds(times, [5, 9, 12], 450.0, 120.0)) == [5, 5, 5]


def test_a_moved_look_judges_the_rounds_it_reached() -> None:
    # A loss the 5 rounds of the first look cannot resolve, 8 can: the budget's moved look
    # (8 of 12) must judge 8 rounds, not stop at 5 nor read rounds it never ran.
    rng = np.random.default_rng(4)
    g = np.log(0.8) + rng.normal(0, 0.15, size=(400, 1, 12))
    g[..., 8:] = np.nan  # rounds the budget never ran: a look reading them would fail
    cap = np.full(400, 8)
    codes, stop, iv = v.sequential(g, 0.05, 0.01, [5, 12], cap=cap)
    assert set(np.unique(stop)) == {5, 8}  # those not settled at 5 go on to 8, no further
    assert np.all(np.isfinite(iv.mean))
    at5, _, _ = v.sequential(g[..., :5], 0.05, 0.01, [5])
    assert np.mean(codes[:, 0] == v.REGRESSED_C) > np.mean(at5[:, 0] == v.REGRESSED_C) + 0.2


def test_budget_look_is_the_rounds_the_budget_holds_short_of_the_next_look() -> None:
    assert v.budget_look(8, 16, 100.0, 28.0) == 11  # 100 s hold 3 rounds of 28 s
    assert v.budget_look(8, 16, 1000.0, 28.0) == 15  # the next look would have been taken
    assert v.budget_look(8, 16, 10.0, 28.0) == 8  # no room: stop at the look just taken
    assert v.budget_look(8, 16, -5.0, 28.0) == 8
    assert list(v.budget_look(8, 16, np.array([100.0, 10.0]), np.array([28.0, 0.0]))) == [11, 8]


def test_segment_rounds_is_what_the_budget_holds_of_a_segment_at_its_pace() -> None:
    # one rule for the gate's second stage (scalars) and its replay (arrays)
    assert v.segment_rounds(100.0, 28.0, 8) == 3
    assert v.segment_rounds(1000.0, 28.0, 8) == 8  # never more than the segment's rounds
    assert v.segment_rounds(-5.0, 28.0, 8) == 0
    assert v.segment_rounds(100.0, 0.0, 8) == 8  # no pace yet: the whole segment
    assert v.segment_rounds(10.0, 28.0, 8, least=1) == 1  # the first round measures the pace
    got = v.segment_rounds(np.array([100.0, 10.0, 5.0]), np.array([28.0, 28.0, 0.0]), 8, [0, 1, 0])
    assert list(got) == [3, 1, 8]


# --- Deciding every benchmark (gate/decide.py) ---------------------------------------------------


def test_a_no_change_pr_decides_its_open_benchmarks_unchanged_in_the_second_stage() -> None:
    # 3% a round: after 5 rounds the equivalence test rarely passes; with the second stage's
    # rounds pooled, nearly every benchmark is told unchanged, and none regressed beyond alpha.
    m, prs = 20, 400
    g1, g2 = _simulate(prs, m, np.full(m, 0.03), 5, 16, seed=4)
    plan = Confirm(rounds=16, looks=(8,), most=10)
    screened_only = _decide(g1, g2, plan)
    out = _decide(g1, g2, plan, primary=np.ones(m, bool))
    assert np.mean(screened_only.unchanged) < 0.5
    assert np.mean(out.decided()) >= 0.95
    assert np.mean(np.any(out.regressed, axis=-1)) <= 0.01 + 3 * np.sqrt(0.01 / prs)
    assert np.all(out.confirm_rounds <= 16)


def test_a_loss_of_the_threshold_is_called_unchanged_at_most_beta_of_the_time() -> None:
    # The equivalence test's error: a true loss of δ (5%) on every series, noisy enough to reach
    # the second stage; it may be missed (inconclusive) but is called unchanged ≤ β.
    m, prs = 20, 1000
    g1, g2 = _simulate(prs, m, np.full(m, 0.03), 5, 16, seed=5)
    loss = np.log(0.95)
    out = _decide(g1 + loss, g2 + loss, Confirm(rounds=16, looks=(8,), most=10), None, 1.0,
                  np.ones(m, bool))  # fmt: skip
    rate = float(np.mean(out.unchanged))
    assert rate <= v.BETA + 3 * np.sqrt(v.BETA / (prs * m)), rate


def test_equivalence_takes_beta_split_over_every_test_a_series_can_meet() -> None:
    # the screening's one look, with each of the 2 later looks: 1 + 2 tests; two looks: 2 + 4;
    # weighted: the screening's tests a fifth of β, the pooled ones the rest; all of it alone
    screen, pooled = v.beta_levels(1, 2)
    assert screen + 2 * pooled == pytest.approx(v.BETA)
    screen, pooled = v.beta_levels(2, 2)
    assert 2 * screen + 2 * 2 * pooled == pytest.approx(v.BETA)
    assert screen == pytest.approx(v.BETA * v.BETA_SCREEN / 2)
    assert v.beta_levels(3, 0) == pytest.approx((v.BETA / 3, 0.0))
    iv = v.Interval(*(np.array(x) for x in ([0.0, 0.0, 0.0], [-0.01, -0.2, -0.01],
                                              [0.01, 0.01, 0.01], [5, 5, 2])))  # fmt: skip
    # inside the band; one end outside; too few rounds
    assert list(v.equivalent(iv, *v.band(0.04))) == [True, False, False]


def test_an_open_benchmark_the_second_stage_measured_shows_its_interval_over_every_round(
    tmp_path,
) -> None:
    """The second stage for real (gate/stages.py) on the step worker of test_lockstep.py, whose
    calls report a known time: head 4.5% faster in each of its rounds, so they are arithmetic,
    not noise. The screening's 3 rounds (given) spread ±30%: its benchmark is left open, a gain
    (no candidate); the pooled 6 still spread too much to be told unchanged. Its row is over all
    6 rounds at the equivalence level and says so (the screening's row of 3 once stayed)."""
    from test_lockstep import NS, _sides, _worker_suite, bench

    from benchtrack.gate import comment, decide, render, stages
    from benchtrack.gate.rounds import RoundPlan

    head_ns = 95_700  # 100,000 / 95,700: 4.49% more calls a second
    suite = _worker_suite(
        tmp_path, [bench("t/open", ns_per_call=NS)], [bench("t/open", ns_per_call=head_ns)]
    )
    cfg = GateConfig("test", suites={"ls": suite}, confirm=Confirm(rounds=3, looks=(), most=4))
    screened = Rounds()
    for k, ratio in enumerate((1.3, 0.75, 1.25)):
        screened.orders.append("base,head")
        for side, value in (("base", 100.0), ("head", 100.0 * ratio)):
            screened.add(side, k, "t/open", [value], Meta("calls/s", "bigger", "ls", paired=True))
    screen = analyse(screened, cfg, [3], alpha=cfg.alpha * confirm.SCREEN)
    at = decide.levels(cfg, [3])[1]
    opened = decide.open_rows(screen, [])
    assert [(r.name, r.verdict, r.rounds) for r in opened] == [("t/open", "inconclusive", 3)]
    plan = RoundPlan([suite], _sides(tmp_path), [3], builds=False)
    failures: list = []
    second = stages.confirm_stage(
        cfg, [], opened, screened, at, plan, tmp_path, print, failures, None
    )
    assert failures == [] and second["rounds"] == 3 and second["decided_unchanged"] == []
    r = second["rows"]["t/open"]
    g = np.log([1.3, 0.75, 1.25] + [NS / head_ns] * 3)
    iv = v.mean_interval(g[None, :], at)
    assert r.verdict == "inconclusive" and r.pooled and not r.equivalence and r.rounds == 6
    assert r.change == pytest.approx(np.expm1(iv.mean[0]))
    assert (r.lo, r.hi) == pytest.approx((np.expm1(iv.lo[0]), np.expm1(iv.hi[0])))
    assert not (r.lo > -0.04 and r.hi < 0.04)  # still open: not inside the equivalence band
    assert render.mark(r).endswith("(both stages, 6 rounds, interval at the equivalence level)")
    # gate.json keeps it so, and the comment reads it back
    path = tmp_path / "gate-x" / "gate.json"
    path.parent.mkdir()
    path.write_text(json.dumps(replace(screen, rows=[r]).to_dict()))
    assert comment.load(path).rows == [r]
