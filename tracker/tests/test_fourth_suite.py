"""A suite added by configuration alone is measured, stored, charted and gated.

A scratch repository declares one suite the tracker has never seen, in benchtrack.toml only: a
shell script whose benchmark writes github-action-benchmark's customBiggerIsBetter JSON. The real
CLI then measures it (bench-local), keeps it in the local history, charts it (site) and gates a
commit that triples its work (gate), with nothing about the suite anywhere but that file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_gate_e2e import commit, gate, git

from benchtrack.cli import main

CONFIG = f"""\
[gate]
rounds = 6
looks = [4]

[bench.suites.shell]
adapter = "customBiggerIsBetter"
command = "bash bench.sh target/bench/raw/shell/out.json"
raw = "target/bench/raw/shell/out.json"
profile = "tiny"
[bench.suites.shell.env]
PY = "{sys.executable}"
"""

# The benchmark: squares summed in a loop, WORK a call, reported in calls per second of a known
# cost (not timed: a verdict that hung on this machine's noise would fail CI for good work),
# with a ±1% spread that moves run by run (a counter in the checkout) and differs by side.
BENCH = """\
#!/usr/bin/env bash
set -euo pipefail
mkdir -p "$(dirname "$1")"
echo "profile $BENCH_PROFILE"
"$PY" - "$1" <<'EOF'
import json, math, os, pathlib, sys
def work():
    return sum(i * i for i in range(WORK))
assert work() > 0
runs = pathlib.Path("target/runs")
run = int(runs.read_text()) if runs.exists() else 0
runs.write_text(str(run + 1))
side = 1 if os.environ.get("GATE_SIDE") == "head" else 0
rate = 1e9 / WORK * (1 + 0.01 * math.sin(1.7 * run + 2.3 * side))
entry = {"name": "loop/squares", "unit": "calls/s", "value": rate}
json.dump([entry], open(sys.argv[1], "w"))
EOF
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "fourth"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    bench = BENCH.replace("WORK", "2000")
    ignore = "/target/\n/.bench/\n/site/\n"
    files = {"benchtrack.toml": CONFIG, "bench.sh": bench, ".gitignore": ignore}
    commit(repo, "a tiny shell suite", files)
    git(repo, "tag", "base")
    commit(repo, "triple the work", {"bench.sh": BENCH.replace("WORK", "6000")})
    git(repo, "tag", "slower")
    git(repo, "checkout", "-q", "base")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NO_COLOR", "1")
    return repo


def test_a_suite_declared_only_in_the_config_is_measured_stored_charted_and_gated(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "shell/loop/squares"

    # measured and stored: bench-local runs it (all declared suites by default)
    assert main(["bench-local"]) == 0
    doc = json.loads((repo / "target/bench/results/shell.json").read_text())
    assert doc["suite"] == "shell" and [b["name"] for b in doc["benchmarks"]] == [name]
    logs = list((repo / "target/bench/logs").glob("*/shell.log"))
    assert len(logs) == 1 and "profile tiny" in logs[0].read_text()  # its env and profile
    (data_js,) = (repo / ".bench/history/bench").glob("*/data.js")
    assert name in data_js.read_text()
    capsys.readouterr()
    assert main(["bench-local", "--suite", "rust"]) == 2  # not declared here
    assert "--suite" in capsys.readouterr().err

    # charted: the dashboard lists the suite and writes its group's file
    assert main(["site", ".bench/history", "--out", "site"]) == 0
    text = (repo / "site/dashboard/data/index.js").read_text()
    index = json.loads(text.removeprefix("window.BENCHTRACK_INDEX=").rstrip().rstrip(";"))
    assert [s["name"] for s in index["suites"]] == ["shell"]
    (group,) = index["suites"][0]["groups"]
    assert group["key"] == "shell/loop" and [b["name"] for b in group["benches"]] == [name]
    assert name in (repo / "site/dashboard/data/g" / group["file"]).read_text()

    # gated: three times the work is a regression (exit 1) naming the benchmark
    code, gated, text = gate(repo, "--base", "base", "--head", "slower")
    assert code == 1 and gated, text
    assert {b["name"]: b["verdict"] for b in gated["benchmarks"]} == {name: "regressed"}, text
