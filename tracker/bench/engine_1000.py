"""A synthetic suite of 1,000 benchmarks gated through the real workflow engine with 2 shards
(issue 44: "one real run of it through the engine with 2 shards"). A measurement, not a test.

The world is the engine tests' (tracker/tests/engine_world.py: a local bare origin holding this
commit's tree, a developer's clone, act in host mode with its artifact server and a stand-in for
GitHub's REST API). On it, as an adopter would:
1. main gets a `synth` suite (tracker/bench/engine_1000_harness.py: known per-call times, noise
   drawn from the recorded rounds of RECORDING, `synth-noise.json`), [gate].suites = ["synth"],
   one runner size, the shipped [gate.confirm];
2. `benchtrack record-aa --rounds 3` (its least) on main and `benchtrack shard-plan --shards 2`
   from it write .github/gate-shards.json, committed to main;
3. a pull request runs pr-gate.yml (a gate job a shard, act runs a matrix's jobs at once, and the
   size's merge job), then pr-comment.yml: a no-change PR (a comment in the harness) and, with
   --slow K, one slowing K benchmarks by 10-20% (`synth-slow.json`).

Printed and written as JSON (--out): each job's wall seconds (act's log, first to last line of
the job), the PR's wall minutes (act's start to end), the merged verdict's counts, the gate's own
seconds (gate.json), the comment's length, and the load average sampled every 10 s.

    uv run --frozen python tracker/bench/engine_1000.py \
        --out tracker/bench/recordings/engine-1000-N.json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tracker/tests"))

from engine_world import (  # noqa: E402
    KEYS,
    RUNNERS,
    make_world,
    pull_request,
    run_pr_comment,
    workdir,
)
from test_workflows_local import git  # noqa: E402

RECORDING = "tracker/bench/recordings/aa-all-quiet-q18.json.gz"
HARNESS = "tracker/bench/engine_1000_harness.py"


def noise_table(recording: Path) -> dict:
    """For each lockstep wall-time benchmark of the recording, every round's log-ratio
    head/base: the offsets a head worker draws from (a base worker has none)."""
    import numpy as np

    from benchtrack.lab.aa import load

    d = load(recording)
    rows, names = [], []
    for i, name in enumerate(d.names):
        if not d.doc["benchmarks"][name].get("paired") or name.endswith(")"):
            continue
        logs = np.log(d.values["head"][i] / d.values["base"][i])
        rows.append([round(float(x), 6) for x in logs])
        names.append(name)
    return {"source": str(recording.relative_to(REPO)), "benchmarks": names, "offsets": rows}


def synth_config(text: str, n: int) -> str:
    """The repository's benchtrack.toml with the synthetic suite added and gated alone, on one
    runner size, with the shipped [gate.confirm] (the engine world shortens it)."""
    shipped = re.search(
        r"(?ms)^\[gate\.confirm\]\n.*?(?=^\[)", (REPO / "benchtrack.toml").read_text()
    )
    text, k = re.subn(r"(?ms)^\[gate\.confirm\]\n.*?(?=^\[)", lambda _: shipped.group(0), text)
    assert k == 1, "benchtrack.toml: [gate.confirm]"
    text, k = re.subn(r"(?ms)^suites = \[\n.*?\]\n", 'suites = ["synth"]\n', text)
    assert k == 1, "benchtrack.toml: [gate].suites"
    text, k = re.subn(r"(?m)^jobs = \d+$", "jobs = 1", text)
    assert k == 1, "benchtrack.toml: [gate].jobs"
    suite = f"""
[bench.suites.synth]
# {n} synthetic benchmarks (tracker/bench/engine_1000.py); gated only, in lockstep.
adapter = "pytest"
command = "true"
raw = "target/bench/raw/synth.json"

[bench.suites.synth.gate]
adapter = "lockstep"
cpus = "one"
command = "python3 {HARNESS}"
pairs = 100
pair_seconds = 0.05
min_pairs = 3
[bench.suites.synth.gate.env]
BENCH_SYNTH_N = "{n}"
"""
    return text.replace("\n[gate]\n", suite + "\n[gate]\n", 1)


class Load:
    """os.getloadavg() every `every` seconds, on a thread, until stopped."""

    def __init__(self, every: float = 10.0) -> None:
        self.samples: list[tuple[float, float, float, float]] = []
        self.every, self.stopped = every, threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            one, five, fifteen = os.getloadavg()
            self.samples.append((round(time.monotonic() - self.t0, 1), one, five, fifteen))
            if self.stopped.wait(self.every):
                return

    def stop(self) -> dict:
        self.stopped.set()
        self.thread.join()
        ones = [s[1] for s in self.samples]
        return {"every_seconds": self.every, "samples": len(ones), "min": min(ones),
                "mean": round(sum(ones) / len(ones), 2), "max": max(ones),
                "series_1min": [round(x, 2) for x in ones]}  # fmt: skip


def job_seconds(log_path: Path) -> dict[str, float]:
    """Each job's wall seconds in act's --json log: its first line's time to its last's."""
    spans: dict[str, list[float]] = {}
    for line in log_path.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or "time" not in rec or not rec.get("job"):
            continue
        t = dt.datetime.fromisoformat(rec["time"].replace("Z", "+00:00")).timestamp()
        name = rec["job"].strip().rsplit("/", 1)[-1]
        if rec.get("matrix"):
            name = re.sub(r"-\d+$", "", name)
        span = spans.setdefault(name, [t, t])
        span[0], span[1] = min(span[0], t), max(span[1], t)
    return {k: round(b - a, 1) for k, (a, b) in spans.items()}


def counts(gate: dict) -> dict[str, int]:
    """The merged verdict's benchmarks by their wall-time verdict, and those not measured."""
    out: dict[str, int] = {}
    for row in gate.get("benchmarks", []):
        if row.get("primary", True):
            out[row["verdict"]] = out.get(row["verdict"], 0) + 1
    out["not measured"] = len(gate.get("failed", {}).get("head", {}))
    return out


def run_pr(world: dict, label: str, change, number: int, run_id: int) -> dict:
    engine = world["engine"]
    made = pull_request(world, label, change, number=number)
    pr = made["pr"]
    where = workdir(world, f"pr-gate-{number}", made["merge"])
    event = {"action": "synchronize", "number": number, "pull_request": pr,
             "repository": world["event_repository"]}  # fmt: skip
    t0 = time.monotonic()
    done = engine.run(where, ".github/workflows/pr-gate.yml", "pull_request", event,
                      run_id=run_id, timeout=3600)  # fmt: skip
    wall = time.monotonic() - t0
    key = KEYS[0]
    merged = engine.artifacts / str(run_id) / f"gate-{key}" / f"gate-{key}.zip"
    report: dict = {"pr": label, "act_exit": done.returncode, "jobs": done.jobs,
                    "pr_wall_minutes": round(wall / 60, 2),
                    "job_wall_seconds": job_seconds(done.log_path)}  # fmt: skip
    print(f"{label}: act's log {done.log_path}", file=sys.stderr)
    shards, gate = {}, {}
    for k in (1, 2):
        z = engine.artifacts / str(run_id) / f"shard-{key}-{k}" / f"shard-{key}-{k}.zip"
        if z.exists():
            with zipfile.ZipFile(z) as f:
                g = json.loads(f.read("gate.json"))
            shards[k] = {m: g.get(m) for m in ("gate_seconds", "build_seconds", "seconds")}
            shards[k]["rounds"] = len(g["rounds"]["round_seconds"])
            shards[k]["second_stage"] = {m: (g.get("confirm") or {}).get(m) for m in (
                "rounds", "seconds", "stopped_by_budget")}  # fmt: skip
            shards[k]["second_stage"]["open"] = len((g.get("confirm") or {}).get("open", []))
            shards[k]["benchmarks"] = sum(r.get("primary", True) for r in g["benchmarks"])
            shards[k]["counts"] = counts(g)
    report["shards"] = shards
    if merged.exists():
        with zipfile.ZipFile(merged) as f:
            gate = json.loads(f.read("gate.json"))
            md = f.read("gate.md").decode() if "gate.md" in f.namelist() else ""
        report["verdicts"] = counts(gate)
        report["merged_gate_seconds"] = gate.get("gate_seconds")
        report["exit_code"] = gate.get("exit_code")
        report["gate_md_chars"] = len(md)
        report["summary_took"] = re.findall(r"its slowest shard took [^·\n]*", md)
        report["headline"] = md.splitlines()[1] if len(md.splitlines()) > 1 else md[:200]
    t0 = time.monotonic()
    commented = run_pr_comment(world, made, done, run_id)
    comments = engine.api.comments.get(number, [])
    report["comment"] = {"act_exit": commented.returncode, "jobs": commented.jobs,
                         "wall_seconds": round(time.monotonic() - t0, 1),
                         "chars": [len(c.body) for c in comments],
                         "github_limit_chars": 65536}  # fmt: skip
    report["comment"]["took"] = [re.findall(r"took [^·\n]*", c.body) for c in comments]
    report["regressed"] = [
        r["name"] for r in gate.get("benchmarks", []) if r["verdict"] == "regressed"
    ]
    return report


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True, help="the JSON report to write")
    p.add_argument("--benchmarks", type=int, default=1000)
    p.add_argument("--slow", type=int, default=0, help="also a PR slowing this many by 10-20%%")
    p.add_argument("--keep", action="store_true", help="keep the world's directory")
    a = p.parse_args()
    from workflow_engine import event_repository

    load = Load()
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="engine-1000-"))

    class Factory:  # what make_world asks of pytest's tmp_path_factory
        def mktemp(self, name: str) -> Path:
            path = base / name
            path.mkdir()
            return path

    worlds = make_world(Factory(), sleeps="gather")
    world = next(worlds)
    world["event_repository"] = event_repository()
    dev, uv = world["dev"], ["uv", "run", "--frozen", "--project", str(REPO)]
    config = dev / "benchtrack.toml"
    config.write_text(synth_config(config.read_text(), a.benchmarks))
    (dev / ".github/bench-runners.toml").write_text(RUNNERS.split("\n\n[[runner]]")[0])
    (dev / "synth-noise.json").write_text(json.dumps(noise_table(REPO / RECORDING)))
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", f"adopt: a synthetic suite of {a.benchmarks} benchmarks")
    t0 = time.monotonic()
    aa = base / "aa.json"
    subprocess.run([*uv, "benchtrack", "record-aa", "--suite", "synth", "--rounds", "3",
                    "--out", str(aa)], cwd=dev, check=True)  # fmt: skip
    planned = subprocess.run([*uv, "benchtrack", "shard-plan", "--shards", "2", "--out",
                              ".github/gate-shards.json", str(aa)], cwd=dev, check=True,
                             capture_output=True, text=True)  # fmt: skip
    plan_seconds = time.monotonic() - t0
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", "the gate's shard plan: benchtrack shard-plan --shards 2")
    git(dev, "push", "-q", "origin", "main")
    plan = json.loads((dev / ".github/gate-shards.json").read_text())
    per_shard = [sum(1 for k in plan["benchmarks"].values() if k == j) for j in (1, 2)]

    def no_change(checkout: Path) -> None:
        with open(checkout / HARNESS, "a") as f:
            f.write("# a comment: the PR changes nothing the benchmarks run\n")

    rng = random.Random(44)
    slowed = {f"synth/g{i // 100}/b{i:04d}": round(rng.uniform(1.10, 1.20), 3)
              for i in sorted(rng.sample(range(a.benchmarks), a.slow))}  # fmt: skip

    def slower(checkout: Path) -> None:
        (checkout / "synth-slow.json").write_text(json.dumps(slowed, indent=1))

    prs = [run_pr(world, "no-change", no_change, 61, 6101)]
    if a.slow:
        prs.append(run_pr(world, f"slows-{a.slow}", slower, 62, 6201))
        prs[-1]["slowed"] = slowed
    report = {
        "what": f"{a.benchmarks} synthetic benchmarks through act with 2 shards",
        "command": " ".join(["uv run --frozen python tracker/bench/engine_1000.py", *sys.argv[1:]]),
        "commit": git(REPO, "rev-parse", "HEAD"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "cpu": next(
                (
                    ln.split(":", 1)[1].strip()
                    for ln in Path("/proc/cpuinfo").read_text().splitlines()
                    if ln.startswith("model name")
                ),
                "",
            ),
        },
        "noise": RECORDING,
        "plan": {
            "seconds": round(plan_seconds, 1),
            "benchmarks_per_shard": per_shard,
            "stdout": planned.stdout.strip()[-400:],
        },
        "prs": prs,
        "total_minutes": round((time.monotonic() - started) / 60, 2),
        "load": load.stop(),
    }
    a.out.write_text(json.dumps(report, indent=1) + "\n")
    print(
        json.dumps(
            {k: v for k, v in report.items() if k != "load"}
            | {"load": {k: v for k, v in report["load"].items() if k != "series_1min"}},
            indent=1,
        )
    )
    with contextlib.suppress(StopIteration):
        next(worlds)
    if not a.keep:
        subprocess.run(["rm", "-rf", str(base)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
