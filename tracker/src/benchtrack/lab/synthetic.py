"""A deterministic synthetic history and runs, for the tracker's own benchmark and tests.

`history(root, commits=2000, benches=150, runners=(1, 2, 4))` writes `bench/<key>/data.js` files
as `benchtrack append` would have after that many runs: realistic names (`rust/…`, `python/…`,
`perl/…`, a few `direction: smaller` RSS metrics), log-normal noise, a few step changes, ci and
sample counts in `extra`. `run(...)` gives the result documents of one more run.

    uv run --frozen python -m benchtrack.lab.synthetic OUT_DIR [--commits N] [--benches N]
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchtrack.fsutil import atomic_write
from benchtrack.history import format as fmt
from benchtrack.history.append import commit_object, entry_name
from benchtrack.history.extra import format_extra, format_range
from benchtrack.result import Benchmark, Commit, ResultDocument, Runner

LABEL = "ubuntu-latest"
T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
_GROUPS = {
    "rust": (["walk", "streams", "fanout", "tasks", "tree"], ["items/s", "directories/s"]),
    "python": (["sleep", "fileio", "cpu", "http", "db", "mixed"], ["ops/s", "requests/s"]),
    "perl": (["coro", "pool", "semaphore", "chan"], ["tasks/s", "messages/s"]),
}
_VARIANTS = ["async", "threads", "joinset", "spawn", "buffered", "unordered", "pool", "chan"]


@dataclass(frozen=True)
class Spec:
    name: str
    unit: str
    direction: str
    base: float  # value on a 1-vCPU runner
    noise: float  # relative sd
    steps: tuple[tuple[int, float], ...]  # (from commit index, factor)

    @property
    def suite(self) -> str:
        return self.name.split("/", 1)[0]


def specs(benches: int = 150, seed: int = 7) -> list[Spec]:
    rng = np.random.default_rng(seed)
    out: list[Spec] = []
    suites = list(_GROUPS)
    smaller_every = 25  # every 25th benchmark is a peak-RSS metric (KB, smaller is better)
    i = 0
    while len(out) < benches:
        suite = suites[i % 3]
        groups, units = _GROUPS[suite]
        group = groups[(i // 3) % len(groups)]
        variant = _VARIANTS[(i // (3 * len(groups))) % len(_VARIANTS)]
        param = i // (3 * len(groups) * len(_VARIANTS))
        if i % smaller_every == smaller_every - 1:
            name, unit, direction = f"{suite}/rss/{group}_{variant}/{param}", "KB", "smaller"
            base = float(rng.uniform(8_000, 200_000))
        else:
            name, unit, direction = f"{suite}/{group}/{variant}/{param}", units[i % 2], "bigger"
            base = float(10 ** rng.uniform(2, 9))
        steps = ()
        if rng.random() < 0.06:  # a few real changes for change-point detection to find
            steps = ((int(rng.integers(100, 1900)), float(rng.choice([0.7, 0.8, 1.25, 1.4]))),)
        out.append(Spec(name, unit, direction, base, float(rng.uniform(0.005, 0.05)), steps))
        i += 1
    return out


def commit(index: int, every_ms: int = 3_600_000) -> Commit:
    cid = hashlib.sha1(f"synthetic-{index}".encode()).hexdigest()
    ts = (T0_MS + index * every_ms) // 1000
    stamp = np.datetime_as_string(np.datetime64(ts, "s")) + "Z"
    return Commit(
        cid,
        f"Synthetic change #{index}",
        stamp,
        "Synthetic Author",
        "author@example.com",
        f"https://github.com/example/benchtrack/commit/{cid}",
    )


def measure(spec: Spec, cpus: int, index: int, rng: np.random.Generator) -> Benchmark:
    level = spec.base * (cpus**0.8 if spec.direction == "bigger" else 1.0)
    for start, factor in spec.steps:
        if index >= start:
            level *= factor
    samples = level * rng.lognormal(0.0, spec.noise, size=10)
    value = float(np.median(samples))
    lo, hi = (float(x) for x in np.percentile(samples, [2.5, 97.5]))
    return Benchmark(
        spec.name,
        spec.unit,
        value,
        (min(lo, value), max(hi, value)),
        tuple(float(s) for s in samples),
        spec.direction,
    )


def runner(cpus: int) -> Runner:
    return Runner(LABEL, cpus, "Synthetic CPU", "Linux", "x86_64")


def history(
    root: str | Path,
    commits: int = 2000,
    benches: int = 150,
    runners: tuple[int, ...] = (1, 2, 4),
    seed: int = 7,
    every_ms: int = 3_600_000,
) -> list[Path]:
    """Write the synthetic history under `root`, one run every `every_ms` (an hour) from
    T0_MS; returns the data.js paths."""
    all_specs = specs(benches, seed)
    paths = []
    for cpus in runners:
        rng = np.random.default_rng(seed * 1000 + cpus)
        r = runner(cpus)
        entries: dict[str, list] = {
            entry_name(r.key, "bigger"): [],
            entry_name(r.key, "smaller"): [],
        }
        for index in range(commits):
            c = commit_object(commit(index, every_ms))
            date = T0_MS + index * every_ms + 1_800_000
            for direction, tool in (("bigger", fmt.BIGGER_TOOL), ("smaller", fmt.SMALLER_TOOL)):
                benches_ = []
                for spec in all_specs:
                    if spec.direction != direction:
                        continue
                    b = measure(spec, cpus, index, rng)
                    benches_.append(
                        {
                            "name": b.name,
                            "value": fmt.js_value(b.value),
                            "unit": b.unit,
                            "range": format_range(b.ci),
                            "extra": format_extra(r.label, cpus, len(b.samples), b.ci, b.suite),
                        }
                    )
                if benches_:
                    entries[entry_name(r.key, direction)].append(
                        {"commit": c, "date": date, "tool": tool, "benches": benches_}
                    )
        data = {
            "lastUpdate": T0_MS + commits * every_ms,
            "repoUrl": "https://github.com/example/benchtrack",
            "entries": {k: v for k, v in entries.items() if v},
        }
        path = Path(root) / "bench" / r.key / "data.js"
        atomic_write(path, fmt.dumps(data))
        paths.append(path)
    return paths


def run(index: int, cpus: int, benches: int = 150, seed: int = 7) -> list[ResultDocument]:
    """The result documents (one per suite) of run `index` on a `cpus`-vCPU runner."""
    rng = np.random.default_rng([seed, index, cpus])
    by_suite: dict[str, list[Benchmark]] = {}
    for spec in specs(benches, seed):
        by_suite.setdefault(spec.suite, []).append(measure(spec, cpus, index, rng))
    created = commit(index).timestamp
    return [
        ResultDocument(suite, created, commit(index), runner(cpus), tuple(bs))
        for suite, bs in by_suite.items()
    ]


def dump_run(directory: Path, index: int, cpus: int, benches: int = 150) -> list[str]:
    """`run`'s documents written to `directory` as `run<index>-<cpus>-<suite>.json`; the paths."""
    paths = []
    for doc in run(index, cpus, benches):
        path = Path(directory) / f"run{index}-{cpus}-{doc.suite}.json"
        doc.dump(path)
        paths.append(str(path))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a synthetic benchtrack history.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--benches", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for path in history(args.out, args.commits, args.benches, seed=args.seed):
        print(path)


if __name__ == "__main__":
    main()
