"""Evaluation of `benchtrack detect` on synthetic histories built from real run-to-run noise.

    uv run --frozen python tracker/bench/bench_detect.py record --runs 40   # record real noise
    uv run --frozen python tracker/bench/bench_detect.py evaluate           # the figures

Noise: the gate's recorded A/A rounds (tracker/tests/fixtures/aa/*.json) when they exist, else
`tracker/bench/noise/*.json`, recorded by `record`: the Python suite's own asyncio patterns run
in a fresh process per run (as a CI job would), each run's value the median of 5 timed samples,
as pytest-benchmark reports it. Every run is one history point, so the spread between runs is
exactly the noise a history carries.

A synthetic series takes one recorded benchmark's log-residuals (value / its median), resampled
independently (keeping their real shape: skew, heavy tails), optionally rescaled to a per-point
spread typical of CI runners, on a constant level with one injected event of known position: a
throughput loss of 2%, 5% or 10% at one commit, a drift of 1% per commit over 10 commits, or
nothing. The detector and github-action-benchmark's alert rule (current worse than previous by
the threshold: 110%, 150%) run on the same series; a detection is true if it lies within ±2
commits of a step (within the drift's commits ±2), and every other detection is false.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchtrack.detect.config import Config
from benchtrack.detect.method import find_steps
from benchtrack.lab import aa
from benchtrack.machine.cpuset import CpuSet

HERE = Path(__file__).resolve().parent
NOISE_DIR = HERE / "noise"
AA_DIR = HERE.parent / "tests" / "fixtures" / "aa"
TOLERANCE = 2  # commits either side of the true one
WIDE = 10  # how far an offset is looked for

# --- recording real noise ---------------------------------------------------------------------


def _patterns() -> dict[str, Callable[[], object]]:
    """Real patterns of the Python suite, at sizes that take ~10-50 ms a call."""
    import tempfile

    from asyncio_patterns import cpu, db, fileio
    from asyncio_patterns.runner import new_runner

    runner = new_runner()
    tmp = Path(tempfile.mkdtemp(prefix="bench-detect-"))
    paths = [tmp / f"f{i}" for i in range(4)]
    data = os.urandom(256 * 1024)
    return {
        "python/cpu/sigma": lambda: cpu.sigma(200_000),
        "python/cpu/async_sigma_sleep0": lambda: runner.run(cpu.async_sigma_sleep0(100_000, 1000)),
        "python/cpu/async_multi_sigma_to_thread": lambda: runner.run(
            cpu.async_multi_sigma_to_thread([50_000] * 3)
        ),
        "python/db/async_multi_sleep_db_queries": lambda: runner.run(
            db.async_multi_sleep_db_queries([0.005] * 3)
        ),
        "python/fileio/write_files": lambda: fileio.write_files(paths, data),
    }


def record_one() -> dict[str, float]:
    """One run: calls/s of each pattern, the median of 5 samples (after one warm-up call)."""
    out = {}
    for name, fn in _patterns().items():
        fn()
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            fn()
            samples.append(1 / (time.perf_counter() - start))
        out[name] = statistics.median(samples)
    return out


def record(runs: int, out: Path) -> None:
    values: dict[str, list[float]] = {}
    for i in range(runs):
        proc = subprocess.run(
            [sys.executable, __file__, "record-one"], capture_output=True, text=True, check=True
        )
        for name, value in json.loads(proc.stdout).items():
            values.setdefault(name, []).append(value)
        print(f"run {i + 1}/{runs}", file=sys.stderr)
    doc = {
        "source": "tracker/bench/bench_detect.py record: asyncio_patterns, one process per run",
        "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": CpuSet.allowed().count,
        "runs": runs,
        "benchmarks": values,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")


# --- noise --------------------------------------------------------------------------------------


def _residuals(values: np.ndarray) -> np.ndarray | None:
    v = np.asarray(values, dtype=float)
    if len(v) < 10 or not np.all(np.isfinite(v) & (v > 0)):
        return None
    return np.log(v / np.median(v))


def load_noise() -> tuple[str, dict[str, np.ndarray]]:
    """(where from, benchmark -> log residuals of its per-run values)."""
    found: dict[str, np.ndarray] = {}
    # The gate's A/A recordings: each round runs every suite afresh on each side, and its value
    # is the round's median, like a history point; both sides measure the same commit.
    for path in sorted(AA_DIR.glob("*.json")):
        data = aa.load(path)
        for i, name in enumerate(data.names):
            r = _residuals(np.concatenate([data.values["base"][i], data.values["head"][i]]))
            if r is not None:
                found[f"{path.stem}:{name}"] = r
    if found:
        return str(AA_DIR.relative_to(HERE.parent.parent)), found
    for path in sorted(NOISE_DIR.glob("*.json")):
        for name, values in json.loads(path.read_text())["benchmarks"].items():
            r = _residuals(values)
            if r is not None:
                found[f"{path.stem}:{name}"] = r
    if found:
        return str(NOISE_DIR.relative_to(HERE.parent.parent)), found
    raise SystemExit(f"no noise recorded: run `{Path(__file__).name} record` first")


def resample(residuals: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    # Independent draws: consecutive points of a CI history come from different runs on
    # different VMs. (A block bootstrap of one machine's recording would splice its load epochs
    # into fake steps every block.)
    return rng.choice(residuals, size=n, replace=True)


# --- scenarios ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    name: str
    kind: str  # "step", "drift", "flat"
    size: float  # relative loss per step (or per commit of a drift)


SCENARIOS = [
    Scenario("step 2%", "step", 0.02),
    Scenario("step 5%", "step", 0.05),
    Scenario("step 10%", "step", 0.10),
    Scenario("drift 1%/commit x10", "drift", 0.01),
    Scenario("flat", "flat", 0.0),
]
DRIFT_LEN = 10


def synthesize(sc: Scenario, noise: np.ndarray, n: int, rng: np.random.Generator):
    """(throughput values, event start, event end) — end exclusive; no event: (-1, -1)."""
    level = np.zeros(n)
    start = int(rng.integers(n // 4, 3 * n // 4))
    if sc.kind == "step":
        level[start:] = np.log1p(-sc.size)
        end = start + 1
    elif sc.kind == "drift":
        ramp = np.arange(1, DRIFT_LEN + 1) * np.log1p(-sc.size)
        level[start : start + DRIFT_LEN] = ramp
        level[start + DRIFT_LEN :] = ramp[-1]
        end = start + DRIFT_LEN
    else:
        start = end = -1
    return 1000.0 * np.exp(level + resample(noise, n, rng)), start, end


def detect_ours(values: np.ndarray, config: Config) -> list[int]:
    return [s.index for s in find_steps(values, config)]


def detect_gab(values: np.ndarray, threshold: float) -> list[int]:
    """github-action-benchmark's alert (customBiggerIsBetter): previous / current > threshold."""
    return [i for i in range(1, len(values)) if values[i - 1] / values[i] > threshold]


@dataclass
class Tally:
    series: int = 0
    events: int = 0
    found: int = 0
    detections: int = 0
    true: int = 0
    offsets: list[int] = field(default_factory=list)

    def add(self, hits: list[int], start: int, end: int) -> None:
        self.series += 1
        if start >= 0:
            self.events += 1
        self.detections += len(hits)
        near = [h for h in hits if start >= 0 and start - TOLERANCE <= h <= end - 1 + TOLERANCE]
        self.true += len(near)
        if near:
            self.found += 1
        # Where the detector puts the event: its nearest detection within ±WIDE of the event,
        # so that the share within ±2 below is a measurement, not the matching rule restated.
        wide = [h for h in hits if start >= 0 and start - WIDE <= h <= end - 1 + WIDE]
        if wide:
            self.offsets.append(min(wide, key=lambda h: abs(h - start)) - start)

    def row(self) -> dict[str, object]:
        offs = self.offsets
        return {
            "recall": self.found / self.events if self.events else None,
            "precision": self.true / self.detections if self.detections else None,
            "false_per_series": (self.detections - self.true) / self.series,
            "offset_median": float(np.median(offs)) if offs else None,
            "offset_within_2": (sum(abs(o) <= 2 for o in offs) / len(offs)) if offs else None,
        }


def robust_sigma(residuals: np.ndarray) -> float:
    """Per-point spread of the recorded values: their MAD, as a normal sigma."""
    return float(np.median(np.abs(residuals - np.median(residuals))) * 1.4826)


def evaluate(
    trials: int, n: int, seed: int, config: Config, scale: float | None = None
) -> dict[str, object]:
    """`scale`: rescale every benchmark's residuals to this robust sigma (shape kept)."""
    source, noise = load_noise()
    if scale is not None:
        noise = {k: r * (scale / robust_sigma(r)) for k, r in noise.items()}
    names = sorted(noise)
    rng = np.random.default_rng(seed)
    methods: dict[str, Callable[[np.ndarray], list[int]]] = {
        "detect": lambda v: detect_ours(v, config),
        "gab 110%": lambda v: detect_gab(v, 1.10),
        "gab 150%": lambda v: detect_gab(v, 1.50),
    }
    tallies = {(sc.name, m): Tally() for sc in SCENARIOS for m in methods}
    sigmas = {k: robust_sigma(r) for k, r in noise.items()}
    start_time = time.perf_counter()
    for sc in SCENARIOS:
        for t in range(trials):
            residuals = noise[names[t % len(names)]]
            values, start, end = synthesize(sc, residuals, n, rng)
            for m, fn in methods.items():
                tallies[(sc.name, m)].add(fn(values), start, end)
    elapsed = time.perf_counter() - start_time
    rows = {f"{sc} | {m}": t.row() for (sc, m), t in tallies.items()}
    return {
        "noise": source,
        "scale": scale,
        "noise_series": {k: round(s, 4) for k, s in sigmas.items()},
        "trials": trials,
        "points": n,
        "seed": seed,
        "config": config.__dict__,
        "seconds": round(elapsed, 1),
        "results": rows,
    }


def print_table(report: dict) -> None:
    scale = report["scale"]
    how = "as recorded" if scale is None else f"rescaled to {scale * 100:g}% per point"
    print(f"\n## noise: {report['noise']}, {how}")
    for k, s in report["noise_series"].items():
        print(f"  {k}: robust sigma {s * 100:.2f}% per point")
    print(
        f"{report['trials']} series of {report['points']} points per scenario, seed "
        f"{report['seed']}, config {report['config']}, {report['seconds']} s"
    )
    head = ("scenario | method", "recall", "precision", "false/s", "offset", "±2")
    print("{:34} {:>7} {:>9} {:>7} {:>6} {:>5}".format(*head))

    def f(x, pct=True):
        return "—" if x is None else (f"{x * 100:.0f}%" if pct else f"{x:+.0f}")

    for key, r in report["results"].items():
        false = f"{r['false_per_series']:.2f}"
        print(
            f"{key:34} {f(r['recall']):>7} {f(r['precision']):>9} {false:>7} "
            f"{f(r['offset_median'], False):>6} {f(r['offset_within_2']):>5}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="record real run-to-run noise")
    r.add_argument("--runs", type=int, default=40)
    r.add_argument("--out", type=Path, default=NOISE_DIR / "asyncio-patterns.json")
    sub.add_parser("record-one", help="(internal) one run, JSON on stdout")
    e = sub.add_parser("evaluate", help="precision/recall on synthetic histories")
    e.add_argument("--trials", type=int, default=200)
    e.add_argument("--points", type=int, default=60)
    e.add_argument("--seed", type=int, default=10)
    e.add_argument("--json", action="store_true")
    e.add_argument(
        "--scales",
        default="0.01,0.02,0.03,0.05,recorded",
        help="noise levels: robust sigma per point, or `recorded` for the noise as recorded",
    )
    d = Config()
    e.add_argument("--min-effect", type=float, default=d.min_effect)
    e.add_argument("--alpha", type=float, default=d.alpha)
    e.add_argument("--min-segment", type=int, default=d.min_segment)
    e.add_argument("--penalty", type=float, default=d.penalty)
    args = parser.parse_args()
    if args.cmd == "record":
        record(args.runs, args.out)
    elif args.cmd == "record-one":
        print(json.dumps(record_one()))
    else:
        config = Config(args.min_effect, args.alpha, args.min_segment, args.penalty)
        scales = [None if x == "recorded" else float(x) for x in args.scales.split(",")]
        reports = [evaluate(args.trials, args.points, args.seed, config, sc) for sc in scales]
        if args.json:
            print(json.dumps(reports, indent=1))
        else:
            for report in reports:
                print_table(report)


if __name__ == "__main__":
    main()
