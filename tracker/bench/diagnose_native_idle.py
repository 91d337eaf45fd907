"""The native (eu-stack) profile of the fixture's diag/nap, N times: how its napper thread's CPU
time reads, sampled from the stacks' thread states and measured from schedstat.

    uv run --frozen python tracker/bench/diagnose_native_idle.py [--runs N] [--out FILE]

Builds tracker/tests/fixtures/diagnose/worker.rs with rustc (std only) into a temporary
directory and, N times, diagnoses diag/nap's two sides with the profile on (measure.measure,
run.profile: what test_diagnose_profile_rust_perl.py does once). Head's napper runs `nap` in
every call (a 1 ms busy loop, then an 8 ms sleep); the base's never does. profile_diff ranks no
frame of a thread group on a CPU under 1% of its wall time on both sides (`IDLE`): each run's
row records the napper's wall time, its CPU time as the stacks' states sampled it and as
schedstat measured it, a call, each side; whether the sampled reading alone would have made the
group idle (the miss of `worker::nap` that the test once retried), whether the profile ranked
`worker::nap`; and the stacks each side read. The report: the rows, the counts, the load
average before and after. A measurement, not a test: no verdict on speed. Exit 0 when it ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchtrack.fsutil import atomic_write
from benchtrack.gate.diagnose import measure, profile_diff, run

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tracker" / "tests" / "fixtures" / "diagnose" / "worker.rs"
NAME = "diag/nap"


def one(work: Path, exe: Path) -> dict:
    env = {**os.environ, "BENCH_FILTER": f"^{NAME}$", "DIAG_DIR": str(work)}
    launches = {
        side: measure.Launch(f"exec {exe}", work, {**env, "DIAG_SIDE": side}, work / f"{side}.log")
        for side in ("base", "head")
    }
    found = measure.measure(launches, NAME, timeout=300, profile_dir=work / "s")
    entry = run.profile(NAME, found, work / "out")
    if entry["status"] != "ok":
        return {"status": entry["status"], "reason": entry.get("reason", "")}
    doc = json.loads((work / "out" / entry["data"]).read_text())
    napper = next(t for t in doc["threads"] if t["thread"] == "napper")
    ranked = {(r["thread"], r["frame"]) for r in doc["total"]}
    sides = {s: {k: napper[s].get(k, 0.0) for k in ("wall", "cpu", "measured_cpu")}
             for s in ("base", "head")}  # fmt: skip
    return {
        "status": "ok",
        "napper": sides,
        "sampled_idle": all(v["cpu"] <= profile_diff.IDLE * v["wall"] for v in sides.values()),
        "idle": napper["idle"],
        "nap_ranked": ("napper", "worker::nap") in ranked,
        "stacks": {s: doc["sampled"][s]["stacks"] for s in ("base", "head")},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--out", type=Path, default=Path("native-idle.json"))
    args = p.parse_args(argv)
    if args.runs < 1:
        print(f"--runs: expected a positive count, got {args.runs}", file=sys.stderr)
        return 2
    before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory(prefix="native-idle-") as tmp:
        exe = Path(tmp) / "worker"
        subprocess.run(["rustc", "-O", "--edition", "2021", "-o", str(exe), str(WORKER)],
                       check=True, capture_output=True, timeout=300)  # fmt: skip
        for i in range(args.runs):
            work = Path(tmp) / f"run{i}"
            work.mkdir()
            rows.append(one(work, exe))
            print(i, json.dumps(rows[-1]), flush=True)
    ok = [r for r in rows if r["status"] == "ok"]
    report = {
        "benchmark": NAME,
        "runs": len(rows),
        "ok": len(ok),
        "sampled_idle": sum(r["sampled_idle"] for r in ok),
        "idle": sum(r["idle"] for r in ok),
        "nap_ranked": sum(r["nap_ranked"] for r in ok),
        "load": {"before": before, "after": os.getloadavg()},
        "cpus": os.cpu_count(),
        "rows": rows,
    }
    atomic_write(args.out, json.dumps(report, indent=1).encode() + b"\n")
    print({k: v for k, v in report.items() if k != "rows"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
