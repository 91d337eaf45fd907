"""A realistic history with known steps, its noise drawn from the shipped A/A recordings.

What the dashboard's verdicts are tested and measured on (gh-pages/tests/test_verdicts.py,
tracker/DETECT.md): `merges` merges to main over ~4½ months on 1, 2 and 4 vCPU runners, the
benchmarks, units and directions of the shipped recordings, and each series' run-to-run noise the
recorded one. A run at merge m draws one recorded run of its benchmark at random (with
replacement) and scales it, samples included, to the series' level there:

- wall time: `aa-time-q1.json` (whole-suite runs, each run the median of its samples, as ingest
  stores it; 24 runs a benchmark on a quiet 2-vCPU machine);
- instruction counts: `aa-history-counts-q1.json` (the bench job's count pass, `--iters 3`; a
  run's value the median of its 3 counts, as ingest stores it; 6 runs a benchmark).

Levels: the recorded median (on 2 vCPU); a throughput on N vCPU is scaled by (N/2)^e, e in
[0, 0.9] per benchmark (a deterministic draw; some benchmarks scale, some do not); memory and
instruction counts keep their level on every size. The 4-vCPU runner changes machine at
`CPU_CHANGE_AT` (another CPU model, 7% less wall-time throughput: the classic false step of hosted
runners); every point records its machine in `extra` as `benchtrack append` does.

Steps (`Step`): a throughput loss or gain of a benchmark from one merge on, on every runner size.
Scenario "counted": in CPU-bound code, so wall time changes by the factor and the instruction
count by its inverse (a 15% loss is +17.6% instructions); on benchmarks whose instruction count
is quiet (`TAIL`). Scenario "wall": what only wall time shows (a longer sleep, slower I/O): the
count does not move; on benchmarks whose wall time is quiet (`TAIL`). Half the
steps are at the latest merge, the rest earlier (each with enough merges after it for
change-point detection).

    uv run --frozen python -m benchtrack.lab.simulate OUT [--scenario counted|wall] [--merges 160]
        [--seed 1] [--recordings DIR] [--only-size N]

writes OUT/bench/<runner-key>/data.js and OUT/truth.json (the steps, the merges, the machine
change).
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.history import format as fmt
from benchtrack.history.append import commit_object, entry_name
from benchtrack.history.companion import split
from benchtrack.history.records import bench_record
from benchtrack.lab import aa
from benchtrack.result import Benchmark, Commit, Runner

RECORDINGS = Path(__file__).resolve().parents[3] / "bench" / "recordings"
TIME_RECORDING = "aa-time-q1.json"
COUNT_RECORDING = "aa-history-counts-q1.json"
LABEL = "ubuntu-latest"
SIZES = (1, 2, 4)
START = np.datetime64("2026-06-01T09:00:00", "s")
EVERY_HOURS = 20.0  # a merge every ~20 h: 160 merges span ~4.5 months
MACHINE = ("AMD EPYC 7763 64-Core Processor", "Ubuntu 24.04.1 LTS, Linux 6.8.0-1017-azure")
NEW_MACHINE = ("Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", MACHINE[1])
CPU_CHANGE_SIZE = 4
CPU_CHANGE_AT = 0.45  # of the merges: where the 4-vCPU runner's machine changes
CPU_CHANGE_FACTOR = 0.93  # its wall-time throughput from there on (memory and counts unmoved)
# Steps go to series where one run can tell a 10% step from the noise: every recorded run within
# TAIL of the median (log). A series whose runs sometimes land 8-11% off (python/db/gather's wall
# time) cannot show a 10% step in one run, whatever the rule; the gate's rounds are for those.
TAIL = 0.04
STEPS = 12
SCENARIOS = ("counted", "wall")
# Losses (factor < 1) and gains of throughput at the latest merge, then earlier: every one >= 10%.
LATEST_FACTORS = (0.85, 0.8, 0.9, 0.75, 0.88, 1.2)
EARLIER_FACTORS = (0.8, 1.25, 0.85, 0.7, 1.15, 0.9)
SUBJECTS = (
    "tune the {g} pool size",
    "refactor {g}: one code path",
    "faster {g} hand-off",
    "log less in {g}",
    "bump dependencies",
    "docs: explain {g}",
    "fix a race in {g}",
    "{g}: avoid a copy",
)


@dataclass(frozen=True)
class Step:
    benchmark: str  # the wall-time series' name; its instruction series moves too when `counted`
    merge: int  # the first merge at the new level
    factor: float  # throughput from there on, relative (0.85: a 15% loss)
    counted: bool  # the instruction count moves (by 1 / factor)
    size: int = 0  # the one runner size (vCPUs) it shows on; 0: every size

    @property
    def loss(self) -> bool:
        return self.factor < 1


@dataclass(frozen=True)
class Recorded:
    """One benchmark's recorded runs: each run's samples, scaled to a median run of 1."""

    name: str
    unit: str
    direction: str
    level: float  # the recorded runs' median (on 2 vCPU)
    runs: list[np.ndarray]  # each run's samples over `level`
    tail: float  # the farthest recorded run from the median, |log|


def _recorded(path: Path) -> dict[str, Recorded]:
    out = {}
    for part in aa.load_parts(path):
        for i, name in enumerate(part.names):
            runs = [
                np.asarray(r, float) for side in ("base", "head") for r in part.samples[side][i]
            ]
            values = np.array([float(np.median(r)) for r in runs])
            level = float(np.median(values))
            tail = float(np.abs(np.log(values / level)).max())
            direction = "bigger" if part.bigger[i] else "smaller"
            runs = [r / level for r in runs]
            out[name] = Recorded(name, part.units[i], direction, level, runs, tail)
    return out


def _draw(seed: str) -> float:
    """A deterministic number in [0, 1) from a string (the same benchmark, the same draw)."""
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big") / 2**64


def choose_steps(
    time: dict[str, Recorded], counts: dict[str, Recorded], scenario: str, merges: int, seed: int
) -> list[Step]:
    """STEPS steps on distinct benchmarks eligible for the scenario, half at the latest merge."""
    if scenario == "counted":
        quiet = {n: counts.get(f"{n} (instructions)") for n in time}
        eligible = [n for n, r in quiet.items() if r is not None and r.tail <= TAIL]
    else:  # wall time, not memory
        eligible = [n for n, r in time.items() if r.tail <= TAIL and r.direction == "bigger"]
    if len(eligible) < STEPS:
        raise BadInput(TIME_RECORDING, "benchmarks", f"{STEPS} benchmarks for {scenario} steps")
    chosen = sorted(eligible, key=lambda n: _draw(f"{seed}|{scenario}|{n}"))[:STEPS]
    latest = merges - 1
    # earlier steps: spread over the history, each with >= 12 merges after it
    earlier = [round(merges * f) for f in (0.12, 0.25, 0.38, 0.55, 0.68, 0.8)]
    steps = [
        Step(n, latest, f, scenario == "counted")
        for n, f in zip(chosen[: len(LATEST_FACTORS)], LATEST_FACTORS, strict=True)
    ]
    steps += [
        Step(n, m, f, scenario == "counted")
        for n, m, f in zip(chosen[len(LATEST_FACTORS) :], earlier, EARLIER_FACTORS, strict=True)
    ]
    return steps


def commit(scenario: str, seed: int, m: int, merges: int) -> Commit:
    cid = hashlib.sha1(f"simulate-{scenario}-{seed}-{m}".encode()).hexdigest()
    hours = m * EVERY_HOURS + 6 * _draw(f"{seed}|t|{m}")
    when = START + np.timedelta64(round(hours * 3600), "s")
    group = ("walk", "streams", "sleep", "http", "coro", "fanout", "fileio", "tasks")[m % 8]
    subject = SUBJECTS[int(_draw(f"{seed}|s|{m}") * len(SUBJECTS))].format(g=group)
    return Commit(
        cid,
        f"Merge pull request #{100 + m} from dev/{group}-{m}\n\n{subject}",
        np.datetime_as_string(when) + "Z",
        ("Ada Dev", "Lin Dev", "Sam Dev")[m % 3],
        "dev@example.com",
        f"https://github.com/example/benchtrack/commit/{cid}",
    )


def _scale(name: str, cpus: int, direction: str) -> float:
    """A throughput on `cpus` vCPU relative to 2: (cpus/2)^e, e a per-benchmark draw."""
    if direction != "bigger" or split(name)[1]:
        return 1.0
    return (cpus / 2) ** (0.9 * _draw(f"scale|{name}"))


def _benchmark(rec: Recorded, level: float, rng: np.random.Generator) -> Benchmark:
    run = rec.runs[int(rng.integers(len(rec.runs)))] * level
    value = float(np.median(run))
    if len(run) >= 5:
        lo, hi = (float(x) for x in np.percentile(run, [2.5, 97.5]))
    else:  # instruction counts: 3 a run
        lo, hi = float(run.min()), float(run.max())
    samples = tuple(float(x) for x in run)
    return Benchmark(
        rec.name, rec.unit, value, (min(lo, value), max(hi, value)), samples, rec.direction
    )


def _factor(name: str, steps: list[Step], m: int, cpus: int = 0) -> float:
    """The level of series `name` at merge m on `cpus` vCPU relative to its start (steps so
    far; a step on one size only moves that size)."""
    base, kind = split(name)
    out = 1.0
    for s in steps:
        if s.benchmark != base or m < s.merge or (s.size and cpus and s.size != cpus):
            continue
        if kind == "instructions":
            out *= 1 / s.factor if s.counted else 1.0
        else:
            out *= s.factor
    return out


def history(
    root: str | Path,
    scenario: str = "counted",
    merges: int = 160,
    seed: int = 1,
    recordings: Path = RECORDINGS,
    only_size: int = 0,
) -> dict:
    """Write the history under `root`; the truth (steps, merges, the machine change) as a dict,
    also written to `root/truth.json`. `only_size` (vCPUs): every step on that size only (a
    change in code that one size's parallelism alone exercises)."""
    if scenario not in SCENARIOS:
        raise BadInput("--scenario", None, f"one of {', '.join(SCENARIOS)}", scenario)
    if merges < 40:
        raise BadInput("--merges", None, "at least 40 merges", merges)
    time = _recorded(recordings / TIME_RECORDING)
    counts = {
        n: r for n, r in _recorded(recordings / COUNT_RECORDING).items() if split(n)[0] in time
    }
    steps = choose_steps(time, counts, scenario, merges, seed)
    if only_size:
        if only_size not in SIZES:
            raise BadInput("--only-size", None, f"one of {SIZES}", only_size)
        steps = [replace(s, size=only_size) for s in steps]
    series = [*sorted(time), *sorted(counts)]
    change_at = round(merges * CPU_CHANGE_AT)
    commits = [commit(scenario, seed, m, merges) for m in range(merges)]
    root = Path(root)
    for cpus in SIZES:
        rng = np.random.default_rng([seed, cpus, SCENARIOS.index(scenario)])
        entries: dict[str, list] = {
            entry_name(f"{LABEL}-{cpus}cpu", d): [] for d in ("bigger", "smaller")
        }
        for m, c in enumerate(commits):
            moved = cpus == CPU_CHANGE_SIZE and m >= change_at
            runner = Runner(LABEL, cpus, *(NEW_MACHINE if moved else MACHINE), "x86_64")
            records: dict[str, list] = {"bigger": [], "smaller": []}
            for name in series:
                rec = time.get(name) or counts[name]
                level = (
                    rec.level * _scale(name, cpus, rec.direction) * _factor(name, steps, m, cpus)
                )
                if moved and not split(name)[1] and rec.direction == "bigger":
                    level *= CPU_CHANGE_FACTOR
                records[rec.direction].append(bench_record(_benchmark(rec, level, rng), runner))
            date = int(np.datetime64(c.timestamp.rstrip("Z"), "ms").astype(np.int64)) + 600_000
            for direction, tool in (("bigger", fmt.BIGGER_TOOL), ("smaller", fmt.SMALLER_TOOL)):
                entries[entry_name(runner.key, direction)].append(
                    {
                        "commit": commit_object(c),
                        "date": date,
                        "tool": tool,
                        "benches": records[direction],
                    }
                )
        data = {
            "lastUpdate": entries[entry_name(f"{LABEL}-{cpus}cpu", "bigger")][-1]["date"],
            "repoUrl": "https://github.com/example/benchtrack",
            "entries": entries,
        }
        atomic_write(root / "bench" / f"{LABEL}-{cpus}cpu" / "data.js", fmt.dumps(data))
    truth = {
        "scenario": scenario,
        "seed": seed,
        "merges": merges,
        "commits": [c.id for c in commits],
        "steps": [{**asdict(s), "commit": commits[s.merge].id} for s in steps],
        "cpu_change": {
            "runner": f"{LABEL}-{CPU_CHANGE_SIZE}cpu",
            "merge": change_at,
            "commit": commits[change_at].id,
            "factor": CPU_CHANGE_FACTOR,
            "from": MACHINE[0],
            "to": NEW_MACHINE[0],
        },
        "benchmarks": sorted(time),
        "series": series,
    }
    atomic_write(root / "truth.json", orjson.dumps(truth, option=orjson.OPT_INDENT_2) + b"\n")
    return truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--scenario", choices=SCENARIOS, default="counted")
    parser.add_argument("--merges", type=int, default=160)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--recordings", type=Path, default=RECORDINGS)
    parser.add_argument("--only-size", type=int, default=0, help="every step on this size only")
    args = parser.parse_args(argv)
    truth = history(
        args.out, args.scenario, args.merges, args.seed, args.recordings, args.only_size
    )
    steps = ", ".join(f"{s['benchmark']} x{s['factor']:g} at {s['merge']}" for s in truth["steps"])
    print(f"{args.out}: {truth['merges']} merges x {len(SIZES)} runner sizes; steps: {steps}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
