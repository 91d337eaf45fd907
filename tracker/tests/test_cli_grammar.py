"""One grammar for the whole command line (benchtrack.commands.flags), checked on every command:
`--threshold` is a percentage, `--cpus` a count or a taskset list, `--markdown` a PATH the report
is written to, `--json` prints valid JSON. Each command runs for real on a small real input: the
harness fixtures under fixtures/, a result document ingested from them, a history appended from
it, a tiny gated suite in a scratch git repository, a bare `origin` for the publish commands.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from benchtrack import cli, commands
from benchtrack.commands import flags, gate_selftest
from benchtrack.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from benchtrack.machine.cpuset import CpuSet
from benchtrack.result import ResultDocument

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
RECORDING = ROOT / "tracker" / "bench" / "recordings" / "aa-walk-lockstep-q1.json.gz"
NAMES = [module.NAME for module in commands.load()]
# Their output is JSON whatever the flags (a list for the action, a matrix for Actions).
JSON_BY_NATURE = {"export", "matrix"}
# Just enough for the parser to accept a command line (nothing runs).
MINIMAL = {
    "compare": ["a.json", "b.json"],
    "detect": ["history"],
    "gate": ["--base", "HEAD"],
}


def option(name: str, flag: str) -> argparse.Action | None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next((a for a in sub.choices[name]._actions if flag in a.option_strings), None)


def parse(name: str, *args: str) -> argparse.Namespace:
    return cli.build_parser().parse_args([name, *MINIMAL.get(name, []), *args])


def refused(name: str, capsys, *args: str) -> str:
    """The usage error `args` give: exit 2, one line naming the flag."""
    with pytest.raises(SystemExit) as done:
        parse(name, *args)
    assert done.value.code == EXIT_BAD_INPUT
    return capsys.readouterr().err


def with_flag(flag: str) -> list[str]:
    return [n for n in NAMES if option(n, flag) is not None]


# --- the parsers each flag shares


@pytest.mark.parametrize("name", NAMES)
def test_each_shared_flag_has_its_one_meaning(name: str) -> None:
    threshold, cpus = option(name, "--threshold"), option(name, "--cpus")
    markdown, as_json = option(name, "--markdown"), option(name, "--json")
    assert threshold is None or (threshold.type is flags.percent and threshold.metavar == "PCT")
    assert cpus is None or cpus.type is flags.cpus
    assert markdown is None or (markdown.metavar == "PATH" and markdown.nargs is None)
    if name in JSON_BY_NATURE:
        assert as_json is None
    else:  # every command that reports can say it as JSON
        assert isinstance(as_json, argparse._StoreTrueAction), f"{name} has no --json"


def test_the_flags_are_where_the_commands_need_them() -> None:
    assert with_flag("--threshold") == ["compare", "bench-local", "gate", "evaluate"]
    assert with_flag("--cpus") == [
        "bench-local", "confirm", "gate", "gate-selftest", "record-aa", "vcpus"
    ]  # fmt: skip
    assert with_flag("--markdown") == ["compare", "bench-local", "detect", "evaluate"]


@pytest.mark.parametrize("name", [*with_flag("--threshold"), "detect"])
def test_a_threshold_is_a_percentage(name: str, capsys) -> None:
    flag = "--min-effect" if name == "detect" else "--threshold"
    dest = flag.removeprefix("--").replace("-", "_")
    for text, fraction in (("5", 0.05), ("5%", 0.05), ("2.5", 0.025), (" 12.5% ", 0.125)):
        assert getattr(parse(name, flag, text), dest) == pytest.approx(fraction)
    for text in ("0", "0%", "-5", "100", "150", "nan", "inf", "five", "5%%", ""):
        err = refused(name, capsys, flag, text)
        assert f"argument {flag}: expected a percentage above 0 and below 100" in err, text


@pytest.mark.parametrize("name", with_flag("--cpus"))
def test_cpus_is_a_count_or_a_taskset_list(name: str, capsys) -> None:
    allowed = CpuSet.allowed().ids
    last = allowed[-1]

    def cpus(text: str) -> CpuSet:
        value = parse(name, "--cpus", text).cpus
        return value[-1] if isinstance(value, list) else value

    # a plain number is a count: CPUs 0..N-1
    assert cpus("1").ids == (0,) and cpus("1").taskset == "0"
    n = len(allowed)
    if allowed == list(range(n)):
        assert cpus(str(n)).ids == tuple(range(n))
    # anything else is a taskset list, CPU numbers as taskset reads them
    assert cpus(f"{last}-{last}").ids == (last,) and cpus(f"{last}-{last}").count == 1
    assert cpus(",".join(map(str, allowed))).taskset == CpuSet(tuple(allowed)).taskset
    # passed on to another benchtrack command, the value means the same there
    assert str(cpus(f"{last}-{last}")) == f"{last}-{last}"
    for text, message in (
        ("0", f"a CPU count from 1 up to {n} (this machine)"),
        (str(n + 1), f"a CPU count from 1 up to {n} (this machine)"),
        ("3-1", "a CPU count (2 = CPUs 0-1) or a taskset list"),
        ("0,,1", "a CPU count (2 = CPUs 0-1) or a taskset list"),
        ("two", "a CPU count (2 = CPUs 0-1) or a taskset list"),
        ("100000-100001", "CPUs this process may use"),
    ):
        assert f"argument --cpus: expected {message}" in refused(name, capsys, "--cpus", text)


def test_bench_local_takes_one_cpus_per_runner_size() -> None:
    sizes = parse("bench-local", "--cpus", "1", "--cpus", "0-0").cpus
    assert [(c.spec, c.ids) for c in sizes] == [("1", (0,)), ("0-0", (0,))]
    assert parse("bench-local").cpus is None  # unpinned: this machine as it is


def test_gate_selftest_passes_cpus_on_as_given() -> None:
    args = parse("gate-selftest", "--cpus", "1", "--rounds", "4")
    assert gate_selftest.gate_args(args) == ["--rounds", "4", "--cpus", "1"]


def test_percent_and_cpu_set_by_themselves() -> None:
    assert flags.percent("50%") == 0.5
    assert CpuSet((0, 1, 2, 5, 7, 8), "x").taskset == "0-2,5,7-8"


# --- each command for real: --json and --markdown on small real inputs


@dataclass
class Run:
    cwd: Path
    argv: list[str]
    check: Callable[[Any], None]  # asserts on the JSON document
    codes: tuple[int, ...] = (0,)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def scratch_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fixture")
    return path


def result_doc(cwd: Path, out: Path, label: str = "local") -> Path:
    """A result document ingested from the Perl harness's captured output, for cwd's HEAD."""
    raw = str(FIXTURES / "perl" / "perl.json")
    meta = ["--runner-label", label, "--runner-cpus", "2", "--commit", "HEAD"]
    with contextlib.chdir(cwd):
        assert cli.main(["ingest", "perl", raw, "--out", str(out), *meta]) in (0, 3)
    return out


def history(tmp: Path) -> Path:
    root = tmp / "history"
    assert cli.main(["append", str(root), str(result_doc(ROOT, tmp / "for-history.json"))]) == 0
    return root


# A suite for the gate and record-aa: the Perl runner's JSON, a little different each run.
GATE_CONFIG = """\
[gate]
rounds = 3

[bench.suites.fixture]
adapter = "perl"
raw = "out/perl.json"
command = "bash bench.sh"

[bench.suites.fixture.gate]
timeout = 60
"""
GATE_BENCH = """\
set -euo pipefail
mkdir -p out
n=$((RANDOM % 5))
printf '%s' '{"schema": "benchtrack.perl/1", "created": "2026-01-01T00:00:00Z", "env": {},
 "benchmarks": [{"name": "perl/fixture/work", "unit": "calls/s",
   "samples": [100, 101, 99, 100.5, 10'"$n"']}], "errors": []}' > out/perl.json
"""


def gated_repo(tmp: Path) -> Path:
    files = {
        "benchtrack.toml": GATE_CONFIG,
        "bench.sh": GATE_BENCH,
        ".gitignore": "target/\nout/\n",
    }
    return scratch_repo(tmp / "gated", files)


def gate_argv(out: Path) -> list[str]:
    return ["gate", "--base", "HEAD", "--no-adaptive", "--cpus", "1", "--out", str(out)]


def publish_repo(tmp: Path) -> tuple[Path, Path]:
    """A checkout whose origin is a bare repository, with the bench job's artifacts for it."""
    origin, work = tmp / "origin.git", tmp / "work"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(origin))
    git(tmp, "clone", "-q", str(origin), str(work))
    git(work, "config", "user.name", "dev")
    git(work, "config", "user.email", "dev@example.com")
    git(work, "commit", "-q", "--allow-empty", "-m", "first")
    git(work, "push", "-q", "origin", "main")
    key_dir = work / "target/bench/artifacts/results-ubuntu-latest-2cpu"
    key_dir.mkdir(parents=True)
    result_doc(work, key_dir / "perl.json", label="ubuntu-latest")
    return work, origin


# A harness in count mode (benchtrack.gate.callgrind): one marker per counted run.
COUNT_HARNESS = """\
import os
labels = open(os.environ["BENCH_COUNT_LABELS"], "a", buffering=1)
labels.write("meta\\ttoy/loop\\titems/s\\n")
labels.write("start\\ttoy/loop/sum\\n")
os.getppid()
for _ in range(int(os.environ["BENCH_COUNT"])):
    sum(i * i for i in range(5000))
    os.getppid()
    labels.write("sample\\ttoy/loop/sum\\t5000\\n")
"""

# bench-local's raw command: the Perl harness's captured output where the suite writes it.
SUITE_SCRIPT = """\
import shutil, sys
from pathlib import Path
raw = Path("target/bench/raw/perl")
raw.mkdir(parents=True, exist_ok=True)
shutil.copy(sys.argv[1], raw / "perl.json")
"""


def case(name: str, tmp: Path) -> Run:
    """The command `name` on a small real input, and what its JSON must say."""
    make = CASES.get(name)
    assert make is not None, f"no real input for `benchtrack {name}`: add one to CASES"
    return make(tmp)


def _ingest(tmp: Path) -> Run:
    out = tmp / "ingested.json"
    argv = ["ingest", "perl", str(FIXTURES / "perl/perl.json"), "--out", str(out)]

    def check(d):
        written = ResultDocument.load(out)
        assert d["out"] == str(out) and d["benchmarks"] == len(written.benchmarks) > 0
        assert d["suite"] == "perl" and len(d["errors"]) == len(written.errors)

    return Run(ROOT, [*argv, "--commit", "HEAD"], check, codes=(0, 3))


def _callgrind(tmp: Path) -> Run:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind not installed")
    harness, out = tmp / "harness.py", tmp / "counts.json"
    harness.write_text(COUNT_HARNESS)
    argv = ["callgrind", "--out", str(out), "--iters", "1", "--", sys.executable, str(harness)]

    def check(d):
        assert d["benchmarks"] == ["toy/loop/sum"] and d["out"] == str(out) and out.is_file()

    return Run(ROOT, argv, check)


def _export(tmp: Path) -> Run:
    def check(d):
        assert d and all(r["name"].startswith("perl/") and "value" in r for r in d)

    return Run(ROOT, ["export", str(result_doc(ROOT, tmp / "doc.json"))], check)


def _append(tmp: Path) -> Run:
    argv = ["append", str(tmp / "new-history"), str(result_doc(ROOT, tmp / "doc.json"))]

    def check(d):
        assert {r["status"] for r in d} == {"appended"}  # bigger and smaller-is-better entries

    return Run(ROOT, argv, check)


def _validate_history(tmp: Path) -> Run:
    def check(d):
        assert (d["valid"], d["empty"], d["problems"]) == (True, False, [])

    return Run(ROOT, ["validate-history", str(history(tmp))], check)


def _prune_history(tmp: Path) -> Run:
    config = tmp / "retention.toml"
    config.write_text('[history.retention]\nkeep_all_days = 90\nkeep_one_per = "week"\n')

    def check(d):  # one run, recorded now: nothing is due
        assert d["retention"] == {"keep_all_days": 90, "keep_one_per": "week"}
        assert (d["dry_run"], d["runners"]) == (False, [])

    return Run(ROOT, ["prune-history", str(history(tmp)), "--config", str(config)], check)


def _compare(tmp: Path) -> Run:
    doc = str(result_doc(ROOT, tmp / "doc.json"))

    def check(d):
        assert d["suites"][0]["suite"] == "perl"
        assert "regressed" not in {b["verdict"] for b in d["suites"][0]["benchmarks"]}

    return Run(ROOT, ["compare", doc, doc], check)


def _bench_local(tmp: Path) -> Run:
    config = (ROOT / "benchtrack.toml").read_text()  # this repository's [bench.suites]
    repo = scratch_repo(tmp / "local", {"suite.py": SUITE_SCRIPT, "benchtrack.toml": config})
    command = f"{sys.executable} suite.py {FIXTURES / 'perl/perl.json'}"
    argv = ["bench-local", "--suite", "perl", "--no-history", "--raw-command", command]

    def check(d):
        assert d["suites"][0]["suite"] == "perl" and d["suites"][0]["benchmarks"]

    return Run(repo, argv, check)


def _site(tmp: Path) -> Run:
    def check(d):
        assert d["benchmarks"] > 0 and (tmp / "site/index.html").is_file()

    return Run(ROOT, ["site", str(history(tmp)), "--out", str(tmp / "site")], check)


def _matrix(tmp: Path) -> Run:
    def check(d):
        assert d["include"] and all("cpus" in size for size in d["include"])

    return Run(ROOT, ["matrix"], check)


def _vcpus(tmp: Path) -> Run:
    def check(d):
        (r,) = d["readings"]
        assert r["cpus"] == list(CpuSet.allowed().ids) and len(r["wall"]) == len(r["cpu"])
        assert (d["summary"] is None) == (len(r["cpus"]) == 1)

    return Run(ROOT, ["vcpus", "--readings", "1"], check)


def _detect(tmp: Path) -> Run:
    def check(d):
        assert d["schema"] == "benchtrack.changes/1" and d["new"] == []

    return Run(ROOT, ["detect", str(history(tmp))], check)


def _confirm(tmp: Path) -> Run:
    # a history whose detect found nothing: nothing to check, the (empty) checks as JSON
    root = history(tmp)
    assert cli.main(["detect", str(root), "--write"]) == 0

    def check(d):
        assert d == {"runner": "local-1cpu", "checks": [], "not_measured": 0}

    return Run(ROOT, ["confirm", str(root), "--runner", "local-1cpu"], check)


def _gate(tmp: Path) -> Run:
    # from the builds --build-only made (a sharded gate's build job, gate/prebuilt.py)
    repo, builds = gated_repo(tmp), tmp / "builds.tar"
    with contextlib.chdir(repo):
        assert cli.main(["gate", "--base", "HEAD", "--build-only", str(builds)]) == 0

    def check(d):
        assert (d["cpus"], d["exit_code"]) == ("0", 0)  # --cpus 1: CPU 0
        assert len(d["rounds"]["orders"]) == 3
        assert [b["name"] for b in d["benchmarks"]] == ["perl/fixture/work"]
        assert d["prebuilt"]["file"] == "builds.tar"

    return Run(repo, [*gate_argv(tmp / "gate-out"), "--prebuilt", str(builds)], check)


def _gate_selftest(tmp: Path) -> Run:
    work = tmp / "work"  # a clone as the user's checkout, so target/ is the test's own
    git(tmp, "clone", "--quiet", "--no-local", str(ROOT), str(work))
    head = git(work, "rev-parse", "HEAD")

    def check(d):
        assert d["base"] == head and d["head"] != head and d["slows"]

    return Run(work, ["gate-selftest", "--dry-run"], check)


def _evaluate(tmp: Path) -> Run:
    def check(d):
        assert d["schema"] == "benchtrack.evaluation/2" and d["prs"] == 10

    return Run(ROOT, ["evaluate", str(RECORDING), "--prs", "10"], check)


def _record_aa(tmp: Path) -> Run:
    out = tmp / "aa.json"
    argv = ["record-aa", "--rounds", "3", "--cpus", "1", "--out", str(out)]

    def check(d):
        assert d["rounds"] == 3 and d["benchmarks"] == ["perl/fixture/work"]
        assert d["out"] == str(out) and out.is_file() and d["failures"] == []

    return Run(gated_repo(tmp), argv, check)


def _gate_comment(tmp: Path) -> Run:
    artifacts = tmp / "artifacts"  # as pr-comment.yml downloads them: gate-<size>/gate.json
    with contextlib.chdir(gated_repo(tmp)):
        assert cli.main(gate_argv(artifacts / "gate-1cpu")) == 0
    argv = ["gate-comment", "--artifacts", str(artifacts), "--out", str(tmp / "comment.md")]

    def check(d):
        assert d["sizes"] == 1 and "perl/fixture/work" in (tmp / "comment.md").read_text()

    return Run(ROOT, argv, check)


def _shard_plan(tmp: Path) -> Run:
    out = tmp / "plan.json"
    quiet = ROOT / "tracker" / "bench" / "recordings" / "aa-all-quiet-q18.json.gz"

    def check(d):
        assert d["shards"] == 2 and set(d["benchmarks"].values()) == {1, 2}
        assert json.loads(out.read_text()) == d

    return Run(ROOT, ["shard-plan", str(quiet), "--shards", "2", "--out", str(out)], check)


def _gate_merge(tmp: Path) -> Run:
    # shard 1 of a plan that deals the repository's one benchmark to it; shard 2 planned none
    # and gave no verdict: what it was dealt by name is not measured, the PR not passed (exit 3)
    plan = tmp / "plan.json"
    plan.write_text(json.dumps({"schema": "benchtrack.shards/1", "shards": 2,
                                "benchmarks": {"perl/fixture/work": 1}}))  # fmt: skip
    with contextlib.chdir(gated_repo(tmp)):
        argv = [*gate_argv(tmp / "shard1"), "--shard", "1/2", "--shard-plan", str(plan)]
        assert cli.main(argv) == 0

    def check(d):
        assert [b["name"] for b in d["benchmarks"]] == ["perl/fixture/work"]
        assert d["exit_code"] == 3 and d["shards"] == {"of": 2, "merged": [1]}
        assert list(d["failed"]["head"]) == ["shard 2/2's unplanned benchmarks"]

    merged = ["gate-merge", "--plan", str(plan), "--out", str(tmp / "merged")]
    return Run(ROOT, [*merged, str(tmp / "shard1" / "gate.json")], check, codes=(3,))


def _init(tmp: Path) -> Run:
    # a repository with one Go benchmark, as `init` finds it
    go_test = (FIXTURES / "gotest" / "fib_test.go.txt").read_text()
    repo = scratch_repo(tmp / "adopter", {"fib_test.go": go_test})
    written = [".github/workflows/benchtrack.yml", ".gitignore", "benchtrack.toml"]

    def check(d):
        assert [s["adapter"] for s in d["suites"]] == ["gotest"]
        assert sorted(d["written"]) == sorted(d["files"]) == written
        assert (repo / "benchtrack.toml").read_text() == d["files"]["benchtrack.toml"]

    return Run(repo, ["init", "--action", "octo/benchtrack@v1"], check)


def _step_worker(tmp: Path) -> Run:
    # the gate's build of a Go suite: `go test -c`, the benchmarks listed (sub-benchmarks too)
    go_test = (FIXTURES / "gotest" / "fib_test.go.txt").read_text()
    go_mod = "module example.com/fib\n\ngo 1.21\n"
    repo = scratch_repo(tmp / "adopter", {"fib_test.go": go_test, "go.mod": go_mod})
    out = tmp / "cache"

    def check(d):
        (pkg,) = d["packages"]
        assert pkg["pkg"] == "example.com/fib" and Path(pkg["binary"]).is_file()
        assert pkg["names"] and all(n.startswith("Benchmark") for n in pkg["names"])
        assert json.loads((out / "manifest.json").read_text()) == d

    argv = ["step-worker", "gotest", "--suite", "go", "--dir", str(out), "--build"]
    return Run(repo, argv, check)


def _publish_plan(tmp: Path) -> Run:
    keys = '["ubuntu-latest-2cpu", "ubuntu-latest-4cpu"]'  # the 4-CPU bench job left nothing

    def check(d):
        assert (d["sizes"], d["missing"]) == (["ubuntu-latest-2cpu"], ["ubuntu-latest-4cpu"])

    return Run(publish_repo(tmp)[0], ["publish-plan", "--expected-keys", keys], check)


def _publish_site(tmp: Path) -> Run:
    work, origin = publish_repo(tmp)
    docs = sorted(map(str, (work / "target/bench/artifacts").glob("*/*.json")))
    assert cli.main(["append", f"git:{origin}#gh-pages", *docs]) == 0  # the action's stand-in

    def check(d):
        assert d["status"].startswith("dashboard published") and d["new"] == 0

    return Run(work, ["publish-site", "--summary", str(tmp / "summary.md")], check)


CASES: dict[str, Callable[[Path], Run]] = {
    "ingest": _ingest,
    "callgrind": _callgrind,
    "export": _export,
    "append": _append,
    "validate-history": _validate_history,
    "prune-history": _prune_history,
    "compare": _compare,
    "bench-local": _bench_local,
    "site": _site,
    "matrix": _matrix,
    "detect": _detect,
    "confirm": _confirm,
    "gate": _gate,
    "shard-plan": _shard_plan,
    "gate-merge": _gate_merge,
    "gate-selftest": _gate_selftest,
    "evaluate": _evaluate,
    "record-aa": _record_aa,
    "vcpus": _vcpus,
    "gate-comment": _gate_comment,
    "init": _init,
    "step-worker": _step_worker,
    "publish-plan": _publish_plan,
    "publish-site": _publish_site,
}


def run(r: Run, capsys, *more: str) -> tuple[int, str, str]:
    """`benchtrack` as a user runs it, in r.cwd: (exit code, stdout, stderr)."""
    cut = r.argv.index("--") if "--" in r.argv else len(r.argv)  # what follows `--` is a command
    with contextlib.chdir(r.cwd):
        code = cli.main([*r.argv[:cut], *more, *r.argv[cut:]])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch):
    """What a user's shell has: none of the CI variables the commands read."""
    for key in ("GITHUB_SHA", "GITHUB_STEP_SUMMARY", "BENCH_FILTER", "BENCH_PROFILE", "RUN_URL"):
        monkeypatch.delenv(key, raising=False)
    for key in ("BENCHTRACK_RUNNER_LABEL", "BENCHTRACK_RUNNER_CPUS", "EXPECTED_KEYS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.mark.parametrize("name", NAMES)
def test_json_is_one_valid_document_on_stdout(name: str, tmp_path: Path, capsys) -> None:
    r = case(name, tmp_path)
    capsys.readouterr()
    code, out, err = run(r, capsys, *([] if name in JSON_BY_NATURE else ["--json"]))
    assert code in r.codes, err
    r.check(json.loads(out))


@pytest.mark.parametrize("name", with_flag("--markdown"))
def test_markdown_takes_a_path_and_writes_the_report_there(name: str, tmp_path, capsys) -> None:
    r = case(name, tmp_path)
    capsys.readouterr()
    md = tmp_path / "reports" / "report.md"
    code, out, _ = run(r, capsys, "--markdown", str(md), "--json")
    assert code in r.codes
    r.check(json.loads(out))  # the JSON as before: the Markdown goes to the file as well
    text = md.read_text()
    assert text.startswith("#")  # a Markdown report, heading first
    code, out, _ = run(r, capsys, "--markdown", "-")  # `-`: the Markdown on stdout, not the table
    assert code in r.codes and out.strip() == text.strip()
    code, out, err = run(r, capsys, "--markdown", "-", "--json")
    assert code == EXIT_BAD_INPUT and out == "" and "--markdown: expected a file with --json" in err
    code, _, err = run(
        r, capsys, "--markdown", str(tmp_path)
    )  # a directory: refused before any work
    assert code == EXIT_BAD_INPUT and "--markdown: expected a file path" in err


def test_validate_history_json_lists_the_problems_and_exits_2(tmp_path: Path, capsys) -> None:
    root = history(tmp_path)
    next(root.glob("bench/*/data.js")).write_text("window.BENCHMARK_DATA = {")
    capsys.readouterr()
    code, out, _ = run(Run(ROOT, ["validate-history", str(root), "--json"], print), capsys)
    doc = json.loads(out)
    assert code == EXIT_BAD_INPUT and doc["valid"] is False and doc["problems"]


def test_ctrl_c_is_exit_130_and_stops_the_suite(tmp_path: Path) -> None:
    # Ctrl-C signals the terminal's foreground process group: benchtrack and the suite it runs.
    config = (ROOT / "benchtrack.toml").read_text()
    repo = scratch_repo(tmp_path / "local", {"benchtrack.toml": config})
    argv = ["bench-local", "--suite", "perl", "--no-history", "--raw-command", "echo up; sleep 60"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchtrack", *argv],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # As a terminal's foreground job has it: a test runner started in the background (as CI
        # starts one) ignores SIGINT, its children inherit that, and Python keeps it ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        # The suite has started: its shell wrote to the log (so the process exists and benchtrack
        # is waiting on it, not inside Popen, on a machine as loaded as CI's).
        while not any("up" in p.read_text() for p in repo.glob("target/bench/logs/*/perl.log")):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            status = Path(f"/proc/{proc.pid}/status").read_text()
            signals = [x for x in status.splitlines() if x.startswith(("State", "Sig"))]
            pytest.fail(f"no exit 30 s after SIGINT: {signals}")
        assert code == EXIT_INTERRUPTED
        assert "benchtrack: interrupted" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stderr.close()
