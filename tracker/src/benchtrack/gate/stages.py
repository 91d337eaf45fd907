"""The gate's two stages on one PR: the screening's rounds, then the second stage's segments.

Screen, then confirm (gate/confirm.py, gate/decide.py): the screening spends `confirm.SCREEN` of
alpha, the confirmation the rest, weighted over its candidates (one stage: all of it). The
screening measures every benchmark in rounds up to its looks; the second stage measures its
candidates and the benchmarks it left open, in segments between its own looks, each series
until it is decided or out of reach, within what is left of the time budget. `benchtrack gate`
calls this between making the worktrees and writing gate.json.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchtrack.gate import confirm, decide
from benchtrack.gate.config import GateConfig
from benchtrack.gate.model import Rounds, SuiteFailure
from benchtrack.gate.outcome import Outcome, Row, analyse
from benchtrack.gate.rounds import RoundPlan, interleave
from benchtrack.gate.verdict import segment_rounds
from benchtrack.machine import vcpus
from benchtrack.stats import INCONCLUSIVE, REGRESSED


def screen_then_confirm(
    cfg: GateConfig,
    plan: RoundPlan,
    logs: Path,
    say: Callable[[str], None],
    failures: list[SuiteFailure],
) -> tuple[Outcome, Rounds, dict]:
    """(the outcome, the screening's rounds, what the second stage did: {} when it did not run)."""
    looks = plan.looks
    share = cfg.alpha * confirm.SCREEN if cfg.confirm else None
    data = interleave(
        plan,
        logs,
        stop_when=lambda d: analyse(d, cfg, looks, alpha=share).can_stop,
        progress=say,
        failures=failures,
    )
    outcome = analyse(data, cfg, looks, alpha=share)
    if not cfg.confirm:
        return outcome, data, {}
    staged, uneven = for_screening(cfg, data.vcpus)
    if staged.confirm.rounds != cfg.confirm.rounds:
        say(
            f"the screening read the {vcpus.describe(vcpus.summary(data.vcpus))}: the "
            f"confirmation takes up to {staged.confirm.rounds} rounds, not {cfg.confirm.rounds}"
        )
    at_screen, at = decide.levels(staged, looks)
    # told unchanged by the equivalence test on the screening's rounds
    outcome.rows = decide.settle(outcome.rows, data, at_screen)[0]
    picked = confirm.candidates(outcome, staged.confirm)
    opened = decide.open_rows(outcome, picked)
    if not (picked or opened):
        return outcome, data, {}
    left = None if plan.budget is None else max(plan.budget - data.seconds, 0.0)
    second = confirm_stage(staged, picked, opened, data, at, plan, logs, say, failures, left)
    second["vcpus_uneven"] = uneven
    second["screened_seconds"] = data.seconds
    second["screen_level"] = at_screen
    outcome = confirm.merge(outcome, second.pop("outcome"), picked)
    told = second.pop("rows")
    outcome.rows = [told.get(r.name, r) for r in outcome.rows]
    return outcome, data, second


def for_screening(cfg: GateConfig, readings: list[dict]) -> tuple[GateConfig, bool]:
    """The config the second stage runs under after a screening whose rounds read the vCPUs
    `readings` (machine/vcpus.py), and whether they read uneven: vCPUs apart in speed spread
    every step, so the confirmation gets `[gate.confirm] uneven_rounds` (its looks, so the
    levels' split, are that state's too)."""
    uneven = vcpus.uneven(readings)
    return replace(cfg, confirm=cfg.confirm.for_state(uneven)), uneven


def confirm_stage(
    cfg: GateConfig,
    picked: list[Row],
    opened: list[Row],
    screened: Rounds,
    at: float | None,
    first: RoundPlan,
    logs: Path,
    say: Callable[[str], None],
    failures: list[SuiteFailure],
    budget: float | None,
) -> dict:
    """The second stage (gate/decide.py): the screening's candidates (gate/confirm.py) and the
    benchmarks it left open, measured in segments between the stage's looks, each series until
    it is decided or out of reach, within what is left of the time budget; its outcome, the rows
    the equivalence test settled and those it measured and left open (over both stages'
    rounds: decide.over_all_rounds), and what it did, for gate.json."""
    looks = cfg.confirm.look_schedule()
    keys = {r.name for r in picked}
    share = cfg.alpha * confirm.CONFIRM
    weights = confirm.shares(picked, screened)  # fixed before its rounds: gate/confirm.py
    rows = {r.name: r for r in [*picked, *opened]}
    active = dict(rows)
    say(
        f"confirming {len(picked)} candidate(s), deciding {len(opened)} open benchmark(s): "
        f"{', '.join(sorted(active))}"
    )
    data = Rounds()
    outcome = analyse(data, cfg, looks, alpha=share, keys=keys, shares=weights)
    settled: dict[str, Row] = {}
    confirmed: dict[str, Row] = {}  # regressed at a look: the row it was shown on stands
    prev, stopped, spent, pace = 0, False, 0.0, 0.0
    for k, last in enumerate(looks):
        if not active or stopped:
            break
        chosen = list(active.values())
        rounds = last - prev
        if budget is not None and k > 0:  # at the last segment's pace (its series, or more)
            fit = int(segment_rounds(budget - spent, pace, rounds))
            if fit < rounds:
                stopped = True
                say(f"second stage: the budget holds {fit} more round(s), not {rounds}")
                if fit == 0:
                    break
                rounds = fit
        if k == 0 and budget is not None and budget <= 0:
            stopped = True
            say("second stage: the screening spent the budget")
            break
        # The first segment's pace is its first round's: after it, the segment ends at the
        # rounds the budget holds (gate/rounds.py), where it ran them all before.
        first_cut = k == 0 and budget is not None and rounds > 1
        segment_plan = RoundPlan(
            confirm.suites_for(chosen, first.suites),
            first.sides,
            [1, rounds] if first_cut else [rounds],
            first.pins,
            confirm.name_filters(chosen),
            cpus=first.cpus,
            budget=budget if first_cut else None,
            builds=False,
        )
        segment = interleave(
            segment_plan,
            logs / "confirm" / f"look{k + 1}",
            stop_when=lambda d: False,
            progress=say,
            failures=failures,
        )
        spent += segment.seconds
        stopped |= segment.stopped_by_budget
        pace = segment.seconds / max(segment.count, 1)
        data = data.then(segment)
        prev = last
        outcome = analyse(
            data, cfg, looks, alpha=share, keys=keys, shares=weights, shown=set(confirmed)
        )
        outcome.rows = [confirmed.get(r.name, r) for r in outcome.rows]
        confirmed.update({r.name: r for r in outcome.rows if r.verdict == REGRESSED})
        pooled = screened.then(data)
        candidates_done = outcome.can_stop
        open_now = [rows[n] for n in active if n not in settled]
        fresh = decide.settle([replace(r, verdict=INCONCLUSIVE) for r in open_now], pooled, at, 2)
        settled.update({r.name: r for r in fresh[0] if r.name in fresh[1]})
        reach = decide.within_reach(
            [rows[n] for n in active if n not in settled], pooled, at, screened.count + looks[-1]
        )
        active = {
            n: r
            for n, r in active.items()
            if n not in settled
            and n not in confirmed
            and (n in reach or (n in keys and not candidates_done))
        }
    # the open ones it measured and left open: their interval over both stages' rounds
    still = [r for r in opened if r.name not in settled]
    left_open = decide.over_all_rounds(still, screened.then(data), at)
    return {
        "outcome": outcome,
        "rows": {**{r.name: r for r in left_open}, **settled},
        "candidates": sorted(keys),
        # each candidate's share of the stage's alpha (its level before any passes to it)
        "shares": dict(sorted(weights.items())),
        "open": sorted(r.name for r in opened),
        "decided_unchanged": sorted(settled),
        "equivalence_level": at,  # the pooled tests' (the screening's: screen_level)
        "rounds": data.count,
        "most_rounds": cfg.confirm.rounds,  # [gate.confirm]'s, or its uneven_rounds
        # Each series' round values (as the screening's under "rounds"): what a reader needs to
        # see which rounds made an interval wide.
        "values": {
            side: {k: v for k, v in by.items() if k in rows} for side, by in data.values.items()
        },
        "seconds": data.seconds,
        "vcpus": data.vcpus,
        "stopped_by_budget": stopped,
        "n_looks": len(looks),
    }
