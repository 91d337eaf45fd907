"""Precision and recall of the Regressions list after confirmation, on simulated histories.

    uv run --frozen python tracker/bench/confirm_precision.py [--seeds 1 2 3] [--merges 160]
        [--nights 20]

For each seed, two histories of `benchtrack.lab.simulate` (scenario "counted": 12 known steps of
10-30%, half at the latest merge; 1/2/4 vCPU; noise drawn from the shipped recordings): the steps
on every runner size, and the same steps on the 1-vCPU size only. On each: `detect` (its real
code) finds the change points and the candidates at the tip (detect/tip.py: a step in the
newest runs, before four runs follow it) and groups them into events (detect/events.py); every
event is
checked on every size it was seen on, as `benchtrack confirm` does (benchtrack.confirm.status),
the A/B's outcome drawn from the gate's own A/A recording of its current design
(`--recording`, default `aa-all-quiet-q16.json.gz`): the benchmark's recorded lockstep rounds
of its wall time (21) and of its count where the gate counts it (3), in a random order, none
twice (as `evaluate` draws a pseudo-PR), each round's log-ratio shifted by the true change
between the A/B's two commits on that size (the simulation's truth), judged by the gate's own
verdict code (gate/verdict.sequential) as the gate runs with benchtrack.toml's [gate] and
[gate.confirm]: one benchmark measured (the --filter), screening then confirmation (`ab`). A
confirmed range of several merges is bisected with benchtrack.confirm.bisect.search, each probe
drawn the same way.

Figures: the events listed as confirmed, how many are real (a true step of that benchmark at the
commit the event names: the bisect's, else the A/B's head when base..head is one merge), the
precision (real / confirmed), the recall (true steps with a real confirmed event, of the steps
detect's change points alone can place: those with `min_segment` merges after them, and of all
12), and for comparison the rows before confirmation (every event) and before grouping (every
change point and tip candidate).

The tip rule's cost (`replay`, `--nights`): the latest merges replayed one by one, the history as
each night's confirmation sees it; the checks of events holding a tip candidate, each counted
once, those the final history's change points alone would not ask for (extra) drawn and priced.

The confirmation's run time: a gate with --filter one benchmark measures it alone, each round
its own seconds (`lab.aa.AAData.confirm_costs`: the recorded suite run split over its
benchmarks, with the suite's start), plus the builds.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from benchtrack import detect
from benchtrack.confirm import bisect, status, store
from benchtrack.detect import events as event_mod
from benchtrack.detect import pipeline, tip
from benchtrack.detect.series import load_series
from benchtrack.gate import config as gate_config
from benchtrack.gate import verdict as v
from benchtrack.gate.confirm import SHARE
from benchtrack.lab import aa, simulate

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "tracker" / "bench" / "recordings"


LOCKSTEP = "aa-all-quiet-q16.json.gz"  # the gate's current design, A/A, quiet (LAB.md)
NIGHTS = 20  # the latest merges replayed for the tip rule's extra checks (`replay`)


class Noise:
    """Each benchmark's recorded paired rounds as log-ratios in g space (> 0: better): the wall
    time's and the instruction count's, from one A/A recording of the gate (`recording`)."""

    def __init__(self, recording: Path) -> None:
        self.time: dict[str, np.ndarray] = {}
        self.counts: dict[str, np.ndarray] = {}
        self.parts = aa.load_parts(recording)
        for data in self.parts:
            for i, name in enumerate(data.names):
                g = np.log(data.values["head"][i] / data.values["base"][i])
                g = g[np.isfinite(g)] * (1 if data.bigger[i] else -1)
                if name.endswith(" (instructions)"):
                    self.counts[name] = g
                elif not name.endswith(")"):  # the (cpu) series: not what a row is judged by
                    self.time[name] = g


def _rounds(recorded: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` of the recorded rounds in a random order, none twice while the recording has enough
    (as `evaluate` draws a pseudo-PR's rounds); with replacement beyond that."""
    if len(recorded) >= n:
        return rng.permutation(recorded)[:n]
    return rng.choice(recorded, n)


def ab(
    noise: Noise,
    cfg: gate_config.GateConfig,
    benchmark: str,
    true_change: float,
    rng: np.random.Generator,
    second_stage: list[bool] | None = None,
) -> str:
    """regression / improvement / noise: one simulated gate run of `benchmark` alone whose
    throughput truly changed by `true_change` (0.85: a 15% loss) between its two commits.

    As the gate with `[gate]` and `[gate.confirm]` of benchtrack.toml: each job at alpha / jobs,
    half of it to each stage. Screening: `rounds` paired rounds of the wall time, the count's 3;
    a loss of at least half the threshold not yet regressed is measured again in `[gate.confirm]`
    rounds of its own with its looks, judged on those alone. The outcome as measure.outcome
    reads the rows: the wall time first, then the count. `second_stage` (a list) is told whether
    the second stage ran."""
    shift = math.log(true_change)  # g space: the time series' and (1/factor) the count's alike
    threshold = cfg.threshold_for(benchmark)
    alpha = cfg.alpha / cfg.jobs * SHARE
    looks = cfg.look_schedule()
    verdicts = []
    wall = noise.time.get(benchmark)
    wall_iv = None
    more = cfg.confirm.look_schedule()[-1] if cfg.confirm else 0
    if wall is not None and len(wall):
        drawn = _rounds(wall, looks[-1] + more, rng) + shift  # the screening's, then the second's
        g = drawn[None, : looks[-1]]
        codes, _, wall_iv = v.sequential(g, threshold, alpha, looks)
        verdicts.append(int(codes[0]))
    counted = noise.counts.get(f"{benchmark} (instructions)")
    if counted is not None and len(counted):
        g = _rounds(counted, 3, rng)[None, :] + shift
        codes, _, _ = v.sequential(g, threshold, alpha, [3], np.array([True]))
        verdicts.append(int(codes[0]))
    second = cfg.confirm
    if (
        wall_iv is not None
        and second is not None
        and verdicts[0] != v.REGRESSED_C
        and wall_iv.mean[0] <= math.log1p(-threshold / 2)  # an estimated loss >= half of δ
    ):
        codes, _, _ = v.sequential(
            drawn[None, looks[-1] :], threshold, alpha, second.look_schedule()
        )
        verdicts[0] = int(codes[0])
        if second_stage is not None:
            second_stage.append(True)
    for c in verdicts:
        if c == v.REGRESSED_C:
            return "regression"
        if c == v.IMPROVED_C:
            return "improvement"
    return "noise"


def truth_factor(truth: dict, benchmark: str, cpus: int, lo: int, hi: int) -> float:
    """The true throughput ratio of `benchmark` on `cpus` between merges lo and hi (lo < hi)."""
    out = 1.0
    for s in truth["steps"]:
        on = not s.get("size") or s["size"] == cpus
        if s["benchmark"] == benchmark and on and lo < s["merge"] <= hi:
            out *= s["factor"]
    return out


def measure_one(noise, cfg, root: Path, truth: dict, seed: int, min_segment: int) -> dict:
    report = detect.analyse(root)
    evs = report.document["events"]
    at = {c: m for m, c in enumerate(truth["commits"])}
    cpus_of = {f"{simulate.LABEL}-{n}cpu": n for n in simulate.SIZES}
    rng = np.random.default_rng(seed)
    checks = []
    for e in evs:
        for runner in e["runners"]:
            span = event_mod.span(e, runner)
            if span is None:
                continue
            base, head = span
            b, cpus = e["benchmark"], cpus_of[runner]
            found = ab(noise, cfg, b, truth_factor(truth, b, cpus, at[base], at[head]), rng)
            expected = status.expected(e)
            check = {
                "event": e["id"],
                "benchmark": b,
                "runner": runner,
                "base": base,
                "head": head,
                "expected": expected,
                "outcome": found,
                "confirmed": found == expected,
                "rows": [],
                "checked": "simulated",
                "culprit": None,
            }
            merges = truth["commits"][at[base] + 1 : at[head] + 1]
            if check["confirmed"] and len(merges) == 1:
                check["culprit"] = {"commit": merges[0]}
            elif check["confirmed"]:

                def probe(c: str, b=b, cpus=cpus, base=base, found=found) -> bool:
                    ratio = truth_factor(truth, b, cpus, at[base], at[c])
                    return ab(noise, cfg, b, ratio, rng) == found

                result = bisect.search(merges, probe)
                check["probes"] = len(result.probes)
                check["culprit"] = {"commit": result.culprit} if result.culprit else None
            checks.append(check)
    latest = store.latest(checks)
    steps = {(s["benchmark"], s["commit"]) for s in truth["steps"]}
    placeable = {
        (s["benchmark"], s["commit"])
        for s in truth["steps"]
        if s["merge"] + min_segment <= truth["merges"]
    }
    confirmed, real_events, real, wrong = 0, 0, set(), []
    for e in evs:
        told = status.of(e, latest)
        if told["status"] != status.CONFIRMED:
            continue
        confirmed += 1
        named = (told["culprit"] or {}).get("commit")
        if named and (e["benchmark"], named) in steps:
            real_events += 1
            real.add((e["benchmark"], named))
        else:  # what was confirmed that is not a step at its commit
            where = at.get(named) if named else None
            wrong.append(f"{e['benchmark']} {e['runners']} at merge {where} ({e['id'][-12:]})")
    bisected = [c["probes"] for c in checks if "probes" in c]
    return {
        "changes": len(report.changes),
        "tip": len(report.tip),
        "events": len(evs),
        "confirmed": confirmed,
        "real": real_events,
        "found": len(real),
        "placeable": len(placeable),
        "found_placeable": len(real & placeable),
        "steps": len(steps),
        "checks": len(checks),
        "probes": bisected,
        "wrong": wrong,
    }


def replay(noise, cfg, root: Path, truth: dict, seed: int, nights: int, gate_s) -> dict:
    """The candidates the tip rule (detect/tip.py) adds night by night: the history as it stood
    after each of the last `nights` merges (each series cut there), its change points and tip
    candidates grouped as `detect` groups them; every check (event, runner size, base, head)
    of an event holding a tip candidate, counted once (a check is keyed by what it measured, so
    a candidate still at the tip the next night is not checked again). Real: a true step lies
    between its two commits. Extra: not real, and not a check the final history's change points
    alone ask for. Each extra is drawn as `ab` (no change between its commits) for its outcome
    and priced by `gate_s` (its benchmark's one-benchmark gate, seconds; the second stage's
    rounds when the draw went there)."""
    config = detect.Config()
    series = load_series(root)
    at = {c: m for m, c in enumerate(truth["commits"])}
    final = detect.analyse(root).document["events"]
    asked = {
        (e["benchmark"], r, *span)
        for e in final
        if not e.get("tip")
        for r in e["runners"]
        if (span := event_mod.span(e, r)) is not None
    }
    cpus_of = {f"{simulate.LABEL}-{n}cpu": n for n in simulate.SIZES}
    rng = np.random.default_rng([seed, 47])
    checks: dict[tuple[str, str, str, str], int] = {}  # key -> the night first asked
    first = truth["merges"] - nights
    for m in range(first, truth["merges"]):
        changes, tips = [], []
        for s in series:
            cut = replace(s, points=[p for p in s.points if at[p.commit] <= m])
            found, at_tip = pipeline.changes_of(cut, config)
            changes += found
            tips += [at_tip] if at_tip else []
        tip_keys = {c.key for c in tips}
        for e in event_mod.group((asdict(c) for c in [*changes, *tips]), at):
            if not any((p["series"], p["runner"], p["commit"]) in tip_keys for p in e["parts"]):
                continue
            for r in e["runners"]:
                span = event_mod.span(e, r)
                if span is not None:
                    checks.setdefault((e["benchmark"], r, *span), m)
    out = {"checks": len(checks), "real": 0, "extra": 0, "confirmed": 0, "seconds": 0.0}
    for b, runner, base, head in checks:
        factor = truth_factor(truth, b, cpus_of[runner], at[base], at[head])
        if factor != 1.0:  # a true step's check: what the tip rule is for
            out["real"] += 1
            continue
        if (b, runner, base, head) in asked:  # detect's change points ask for it anyway
            continue
        out["extra"] += 1
        second: list[bool] = []
        out["confirmed"] += ab(noise, cfg, b, factor, rng, second) != "noise"
        out["seconds"] += gate_s(b, bool(second))
    out["nights"] = nights * simulate.EVERY_HOURS / 24
    return out


def _round_seconds(data: aa.AAData) -> dict[str, float]:
    """Each series' seconds in a round that measures its benchmark alone (both sides, its
    suite's start included): `confirm_costs`, what the gate's second stage pays."""
    costs = data.confirm_costs()
    out = {}
    for i, name in enumerate(data.names):
        picked = np.zeros(len(data.names), dtype=bool)
        picked[i] = True
        out[name] = float(costs.round_seconds(picked))
    return out


def gate_seconds(noise: Noise, cfg: gate_config.GateConfig):
    """seconds(benchmark, second_stage): a one-benchmark gate's time from the recording: its
    builds, `rounds` screening rounds of the wall time, the count's 3, and `[gate.confirm]`
    rounds more when the second stage ran."""
    seconds: dict[str, float] = {}
    for data in noise.parts:
        seconds.update(_round_seconds(data))
    build = noise.parts[0].build_seconds()
    rounds = cfg.look_schedule()[-1]
    more = cfg.confirm.look_schedule()[-1] if cfg.confirm else 0

    def of(b: str, second: bool) -> float:
        wall, count = seconds.get(b, 0.0), seconds.get(f"{b} (instructions)", 0.0)
        return build + (rounds + (more if second else 0)) * wall + 3 * count

    return of


def run_time(noise: Noise, cfg: gate_config.GateConfig, candidates: int) -> str:
    """A confirmation run of `candidates` one-benchmark gates, from the recorded round times:
    per gate the recording's builds, `rounds` screening rounds of the wall time, the count's 3,
    and at worst `[gate.confirm]` rounds more (a loss the screening left open)."""
    of = gate_seconds(noise, cfg)
    build = noise.parts[0].build_seconds()
    rounds = cfg.look_schedule()[-1]
    more = cfg.confirm.look_schedule()[-1] if cfg.confirm else 0
    gates = [of(b, False) for b in noise.time]
    worst = [of(b, True) for b in noise.time]
    med, slow = float(np.median(gates)), float(np.max(worst))
    return (
        f"a one-benchmark gate: builds {build:.0f} s (as recorded), {rounds} rounds of its wall "
        f"time and 3 of its count: median {med:.0f} s over {len(gates)} benchmarks; the slowest "
        f"with {more} confirmation rounds more: {slow:.0f} s. {candidates} candidates: "
        f"{candidates * med / 60:.1f} min (median) to {candidates * slow / 60:.1f} min "
        f"(each the slowest, each confirmed); each bisect probe one gate more"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--merges", type=int, default=160)
    parser.add_argument("--recording", type=Path, default=RECORDINGS / LOCKSTEP)
    parser.add_argument(
        "--nights",
        type=int,
        default=NIGHTS,
        help=f"the latest merges replayed one by one for the tip rule's extra checks ({NIGHTS})",
    )
    parser.add_argument(
        "--tip-margin",
        type=float,
        default=tip.MARGIN,
        help=f"detect/tip.py's MARGIN (default {tip.MARGIN}; 0: the robust sigmas alone)",
    )
    args = parser.parse_args(argv)
    tip.MARGIN = args.tip_margin  # read by tip_step at each call
    cfg = gate_config.load(ROOT / "benchtrack.toml")
    noise = Noise(args.recording)
    gate_s = gate_seconds(noise, cfg)
    min_segment = detect.Config().min_segment
    print("| steps on | seed | change points | tip candidates | events | confirmed | real | "
          "precision | recall (placeable) | recall (all 12) | bisect probes |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    nightly = []
    for only, label in ((0, "every size"), (1, "1 vCPU only")):
        total = {"confirmed": 0, "real": 0, "found_placeable": 0, "placeable": 0, "found": 0}
        total["steps"] = 0
        for seed in args.seeds:
            with tempfile.TemporaryDirectory(prefix="confirm-precision-") as tmp:
                truth = simulate.history(tmp, "counted", args.merges, seed, only_size=only)
                r = measure_one(noise, cfg, Path(tmp), truth, seed, min_segment)
                if args.nights:
                    n = replay(noise, cfg, Path(tmp), truth, seed, args.nights, gate_s)
                    nightly.append((label, seed, n))
                    print(f"replayed {label} seed {seed}: {n}", file=sys.stderr, flush=True)
            for k in total:
                total[k] += r[k]
            precision = r["real"] / r["confirmed"] if r["confirmed"] else float("nan")
            print(
                f"| {label} | {seed} | {r['changes']} | {r['tip']} | {r['events']} | "
                f"{r['confirmed']} | {r['real']} | {precision:.0%} | "
                f"{r['found_placeable']}/{r['placeable']} | {r['found']}/{r['steps']} | "
                f"{r['probes'] or '-'} |"
            )
            for w in r["wrong"]:
                print(f"|  | | confirmed, not a step at its commit: {w} | | | | | | | | |")
            sys.stdout.flush()
        p = total["real"] / total["confirmed"] if total["confirmed"] else float("nan")
        print(
            f"| {label} | all | | | | {total['confirmed']} | {total['real']} | {p:.0%} | "
            f"{total['found_placeable']}/{total['placeable']} | "
            f"{total['found']}/{total['steps']} | |"
        )
    print()
    print(run_time(noise, cfg, 5))
    if nightly:
        print()
        print(f"The tip rule night by night: the latest {args.nights} merges replayed "
              f"(a merge every {simulate.EVERY_HOURS:g} h; all sizes together)")  # fmt: skip
        print()
        print("| steps on | seed | checks of tip events | of a true step | extra (false) | "
              "extra a night | extra minutes a night | extra confirmed |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|")
        for label, seed, n in nightly:
            print(
                f"| {label} | {seed} | {n['checks']} | {n['real']} | {n['extra']} | "
                f"{n['extra'] / n['nights']:.2f} | {n['seconds'] / 60 / n['nights']:.1f} | "
                f"{n['confirmed']} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
