"""The tracker's own performance benchmark (`cargo make bench-tracker`): not a timed test.

On a synthetic history of 2,000 commits x 150 benchmarks x 3 runner sizes (benchtrack.lab.synthetic,
fixed seed) it measures, each phase in a fresh process so that its peak memory is its own, and
each phase --repeat times (median reported, with the range: this machine is shared and noisy):

- run:  one new run -> load its 3 result documents (what ingest writes), append them to the
        history (decode + check + splice + read-back check of one runner's data.js), compare
        with the previous run (benchtrack.compare) — target <= 1 s;
- read: `open_store(dir).read()` of the whole history, every field of every point — <= 2 s;
  cold (every data.js decoded, as on a fresh checkout; this also fills the column cache) and
  warm (the same files again: each is hashed and its columns come from benchtrack.history.cache);
- peak memory — <= 500 MB: the phase's process (ru_maxrss) plus, for a cold read, its worker
  processes (history.reader; their number times the largest one's peak: an upper bound).

The column cache lives in `WORK/cache` (BENCHTRACK_CACHE), emptied before every cold read.

    uv run --frozen python tracker/bench/bench_tracker.py [--work DIR] [--commits N] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"run_s": 1.0, "read_s": 2.0, "peak_mb": 500.0}
CPUS = 2  # the runner size that gets the new run


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def phase_read(work: Path) -> dict:
    from benchtrack.history import open_store, reader

    t0, c0 = time.perf_counter(), time.process_time()
    history = open_store(work / "history").read()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    points = sum(len(s) for r in history.runners.values() for s in r.series.values())
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = reader._Workers().count if children.ru_maxrss else 0
    return {
        "read_s": seconds,
        "read_cpu_s": cpu,
        "workers_cpu_s": children.ru_utime + children.ru_stime,
        "points": points,
        "read_peak_mb": peak_mb() + workers * children.ru_maxrss / 1024,
        "workers": workers,
        "worker_peak_mb": children.ru_maxrss / 1024,
    }


def phase_run(work: Path, commits: int) -> dict:
    # Imported before the clock starts, as the history is: module loading is not the work.
    from benchtrack.compare import compare_documents
    from benchtrack.history import new_entries, open_store
    from benchtrack.result import ResultDocument

    out: dict = {}
    t0, c0 = time.perf_counter(), time.process_time()
    docs = [(str(p), ResultDocument.load(p)) for p in sorted((work / "head").glob("*.json"))]
    base = {d.suite: d for d in (ResultDocument.load(p) for p in (work / "base").glob("*.json"))}
    out["load_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    outcomes = open_store(work / "history").append(new_entries(docs))
    out["append_s"] = time.perf_counter() - t1
    out["append_cpu_s"] = time.process_time() - c0
    out["appended"] = sum(o.benches for o in outcomes if o.status == "appended")
    t2 = time.perf_counter()
    for _, doc in docs:
        compare_documents(base.get(doc.suite), doc)
    out["compare_s"] = time.perf_counter() - t2
    out["run_s"] = time.perf_counter() - t0
    out["run_cpu_s"] = time.process_time() - c0
    return out


def child(phase: str, work: Path, commits: int) -> dict:
    env = dict(os.environ, BENCHTRACK_CACHE=str(work / "cache"))
    # Bytecode cached, as on any machine that does not forbid it (this sandbox sets
    # PYTHONDONTWRITEBYTECODE=1, and numpy's quantile then compiles numpy.ma, 90 ms, on first use).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--phase",
            phase,
            "--work",
            str(work),
            "--commits",
            str(commits),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        sys.exit(f"phase {phase} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def prepare(work: Path, commits: int) -> float:
    """Synthetic history (cached in `work`) and the run to append; seconds generating."""
    from benchtrack.lab import synthetic

    pristine = work / f"pristine-{commits}"
    seconds = 0.0
    if not (pristine / "bench").is_dir():
        t0 = time.perf_counter()
        synthetic.history(pristine, commits=commits)
        seconds = time.perf_counter() - t0
    for side, index in (("base", commits - 1), ("head", commits)):
        shutil.rmtree(work / side, ignore_errors=True)
        (work / side).mkdir()
        for doc in synthetic.run(index, CPUS):
            doc.dump(work / side / f"{doc.suite}.json")
    return seconds


def fresh(work: Path, commits: int, *, cache: bool = False) -> None:
    """A fresh copy of the pristine history (and, unless `cache`, an empty column cache)."""
    shutil.rmtree(work / "history", ignore_errors=True)
    shutil.copytree(work / f"pristine-{commits}", work / "history")
    if not cache:
        shutil.rmtree(work / "cache", ignore_errors=True)
    # On disk before the phase starts: else the append's fsync (ext4 commits its journal) also
    # waits for the 272 MB this copy just dirtied, which no real append would find waiting.
    os.sync()


def summary(results: list[dict]) -> dict:
    """Per field: the median of the repeats, with min and max of the timings."""
    out = {}
    for key, value in results[0].items():
        if isinstance(value, (int, float)) and value is not None:
            values = sorted(r[key] for r in results)
            out[key] = statistics.median(values)
            if key.endswith("_s"):
                out[f"{key}_range"] = [values[0], values[-1]]
        else:
            out[key] = value
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, help="work directory (default: a temporary one)")
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each phase (median)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--phase", choices=["read", "run"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        result = (
            phase_read(args.work) if args.phase == "read" else phase_run(args.work, args.commits)
        )
        result["peak_mb"] = peak_mb()
        result["cpu_s"] = time.process_time()  # this process's CPU: the box may be shared
        print(json.dumps(result))
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-tracker-"))
    work.mkdir(parents=True, exist_ok=True)
    generated = prepare(work, args.commits)
    size = sum(p.stat().st_size for p in (work / f"pristine-{args.commits}").rglob("data.js"))
    runs, reads = [], []
    for _ in range(args.repeat):
        fresh(work, args.commits)
        runs.append(child("run", work, args.commits))
        fresh(work, args.commits)
        reads.append(child("read", work, args.commits))
    warms = [child("read", work, args.commits) for _ in range(args.repeat)]  # cache: filled
    run, read, warm = summary(runs), summary(reads), summary(warms)
    report = {
        "commits": args.commits,
        "history_mb": size / 1e6,
        "generate_s": generated,
        "repeat": args.repeat,
        "run": run,
        "read": read,
        "read_warm": warm,
        "targets": TARGETS,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        compare = f"{run['compare_s']:.3f} s"
        print(
            f"history: {args.commits} commits x 150 benchmarks x 3 runner sizes, "
            f"{size / 1e6:.0f} MB of data.js"
            + (f" (generated in {generated:.0f} s)" if generated else "")
            + f"; medians of {args.repeat} runs, range in brackets"
        )
        print(
            f"new run: load 3 documents {run['load_s']:.3f} s + append {run['append_s']:.3f} s"
            f" + compare {compare} = {run['run_s']:.3f} s wall {_range(run['run_s_range'])}, "
            f"{run['run_cpu_s']:.3f} s CPU (target <= 1 s), peak {run['peak_mb']:.0f} MB"
        )
        print(
            f"read whole history, cold: {read['read_s']:.3f} s wall {_range(read['read_s_range'])}"
            f", {read['read_cpu_s']:.3f} s CPU here + {read['workers_cpu_s']:.3f} s in "
            f"{read['workers']} workers, for {read['points']} points (target <= 2 s); peak "
            f"{read['read_peak_mb']:.0f} MB with the workers ({read['worker_peak_mb']:.0f} MB "
            "each at most; target <= 500 MB)"
        )
        print(
            f"read whole history, warm cache: {warm['read_s']:.3f} s wall "
            f"{_range(warm['read_s_range'])}, {warm['read_cpu_s']:.3f} s CPU, "
            f"peak {warm['read_peak_mb']:.0f} MB"
        )
        load = os.getloadavg()[0]
        print(f"load average {load:.1f} on {os.cpu_count()} CPUs: wall times include waiting")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    ok = (
        run["run_s"] <= TARGETS["run_s"]
        and read["read_s"] <= TARGETS["read_s"]
        and max(run["peak_mb"], read["read_peak_mb"], warm["read_peak_mb"]) <= TARGETS["peak_mb"]
    )
    return 0 if ok else 1


def _range(span: list[float]) -> str:
    return f"[{span[0]:.3f}-{span[1]:.3f}]"


if __name__ == "__main__":
    sys.exit(main())
