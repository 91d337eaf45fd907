"""bench-local end to end in a scratch repository. The suites are stood in for by a small script
that writes the captured real harness output (fixtures/) where each suite writes it; everything
after that (progress, ingest, comparison, .bench/last, history, pinning) is the real thing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.machine.cpuset import CpuSet
from benchtrack.result import ResultDocument

FIXTURES = Path(__file__).parent / "fixtures"
CONFIG = Path(__file__).resolve().parents[2] / "benchtrack.toml"  # this repository's suites

SUITE_SCRIPT = """
import os, shutil, sys
from pathlib import Path
suite, fixtures = sys.argv[1], Path(sys.argv[2])
Path("affinity-" + suite).write_text(str(len(os.sched_getaffinity(0))))
if os.environ.get("FAIL_SUITE") == suite:
    print("boom: the suite crashed", file=sys.stderr)
    sys.exit(1)
raw = Path("target/bench/raw")
if suite.endswith("-instructions"):  # a count script: benchtrack callgrind's output
    lang = suite.removesuffix("-instructions")
    (raw / suite).mkdir(parents=True, exist_ok=True)
    shutil.copy(fixtures / "callgrind" / f"{lang}.json", raw / suite / f"{lang}.json")
elif suite == "rust":
    shutil.copytree(fixtures / "criterion", raw / "rust")
else:
    name = {"python": "pytest", "perl": "perl"}[suite]
    (raw / suite).mkdir(parents=True, exist_ok=True)
    shutil.copy(fixtures / name / f"{name}.json", raw / suite / f"{name}.json")
if suite == "perl" and os.environ.get("HALVE_PERL"):  # a run that really got slower
    import json
    path = raw / "perl" / "perl.json"
    doc = json.loads(path.read_text())
    for b in doc["benchmarks"]:
        if b.get("direction", "bigger") == "bigger":
            b["samples"] = [x / 2 for x in b["samples"]]
    path.write_text(json.dumps(doc))
print("measured", suite, "profile", os.environ.get("BENCH_PROFILE"))
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("BENCHTRACK_RUNNER_LABEL", "BENCHTRACK_RUNNER_CPUS", "GITHUB_SHA", "NO_COLOR"):
        monkeypatch.delenv(key, raising=False)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "first"], check=True, env=env)
    (tmp_path / "suite.py").write_text(textwrap.dedent(SUITE_SCRIPT))
    shutil.copy(CONFIG, tmp_path / "benchtrack.toml")
    return tmp_path


def bench_local(*args: str) -> int:
    command = f"{sys.executable} suite.py {{suite}} {FIXTURES}"
    return main(["bench-local", "--raw-command", command, *args])


SUITES = ("rust", "python", "perl", "rust-instructions", "python-instructions", "perl-instructions")


def test_first_run_then_compare_with_it(repo, capsys):
    key = f"local-{CpuSet.allowed().count}cpu"
    assert bench_local() == 0
    out = capsys.readouterr().out
    assert out.count("no previous local run") == len(SUITES)
    for suite in SUITES:
        doc = ResultDocument.load(repo / "target/bench/results" / f"{suite}.json")
        assert doc.runner.key == key and doc.benchmarks and not doc.errors
        assert (repo / ".bench/last" / key / f"{suite}.json").is_file()
        profile = "count" if suite == "python-instructions" else "quick"
        assert (
            f"profile {profile}" in (repo / "target/bench/logs" / key / f"{suite}.log").read_text()
        )
    data_js = repo / ".bench/history/bench" / key / "data.js"
    assert data_js.read_text().startswith("window.BENCHMARK_DATA")
    assert "dashboard:" in out or "not built" in out

    assert bench_local("--suite", "perl,rust,perl-instructions", "--profile", "full") == 0
    out = capsys.readouterr().out
    assert "no previous local run" not in out
    assert "unchanged" in out and "regressed" not in out
    assert "profile full" in (repo / "target/bench/logs" / key / "perl.log").read_text()
    # counts keep their own sizes: a full-size run under callgrind would take ~50x as long
    assert (
        "profile quick" in (repo / "target/bench/logs" / key / "perl-instructions.log").read_text()
    )


def test_a_failing_suite_is_reported_and_the_others_run(repo, capsys, monkeypatch):
    monkeypatch.setenv("FAIL_SUITE", "python")
    assert bench_local() == 3
    out = capsys.readouterr().out
    python = ResultDocument.load(repo / "target/bench/results/python.json")
    assert not python.benchmarks and python.errors[0].name == "python/run"
    assert "exited 1" in python.errors[0].message
    assert "python on" in out and "failed" in out
    assert ResultDocument.load(repo / "target/bench/results/rust.json").benchmarks
    assert ResultDocument.load(repo / "target/bench/results/perl.json").benchmarks


def test_pinned_runs_are_their_own_runner_size(repo, capsys):
    assert bench_local("--cpus", "1", "--suite", "perl") == 0
    assert (repo / "affinity-perl").read_text() == "1"
    doc = ResultDocument.load(repo / "target/bench/results/perl.json")
    assert doc.runner.key == "local-1cpu" and doc.runner.cpus == 1
    assert (repo / ".bench/history/bench/local-1cpu/data.js").is_file()


def test_filter_reaches_the_harness_and_skips_history(repo, capsys):
    script = repo / "suite.py"
    script.write_text(script.read_text() + "\nprint('filter', os.environ.get('BENCH_FILTER'))\n")
    assert bench_local("--suite", "perl", "--filter", "rss") == 0
    key = f"local-{CpuSet.allowed().count}cpu"
    assert "filter rss" in (repo / "target/bench/logs" / key / "perl.log").read_text()
    assert "history: not appended" in capsys.readouterr().out
    assert not (repo / ".bench/history/bench").exists()


@pytest.mark.skipif(CpuSet.allowed().count < 2, reason="two runner sizes need two CPUs")
def test_each_cpus_flag_is_a_runner_size_of_its_own(repo, capsys):
    assert bench_local("--cpus", "1", "--cpus", "0-1", "--suite", "perl", "--no-history") == 0
    for key, cpus in (("local-1cpu", 1), ("local-2cpu", 2)):
        doc = ResultDocument.load(repo / "target/bench/results" / key / "perl.json")
        assert doc.runner.key == key and doc.runner.cpus == cpus


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--suite", "go"], "--suite"),
        (["--cpus", "0"], "argument --cpus: expected a CPU count"),
        (["--cpus", "999"], "up to"),
        (["--cpus", "1,"], "a taskset list"),
        (["--cpus", "1", "--cpus", "0-0"], "--cpus: expected one --cpus per CPU count"),
    ],
)
def test_bad_options_exit_2_before_running(repo, capsys, args, expected):
    try:
        code = bench_local(*args)
    except SystemExit as usage:  # argparse's: the value itself is malformed
        code = usage.code
    assert code == 2
    assert expected in capsys.readouterr().err
    assert not (repo / "target").exists()


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (None, "benchtrack.toml: expected the suites' [bench.suites.<name>] tables (not found)"),
        ("[gate]\n", "benchtrack.toml: bench.suites: expected at least one"),
        (
            '[bench.suites.x]\nadapter = "junit"\ncommand = "true"\nraw = "r"\n',
            "bench.suites.x.adapter",
        ),
        ('[bench.suites.x]\nadapter = "bmf"\nraw = "r"\n', "bench.suites.x.command"),
        (
            '[bench.suites.x]\nadapter = "bmf"\ncommand = "true"\nraw = "r"\ntimeout = 3\n',
            "bench.suites.x.timeout",
        ),
    ],
)
def test_missing_or_bad_suite_config_exits_2_naming_it(repo, capsys, config, expected):
    if config is None:
        (repo / "benchtrack.toml").unlink()
    else:
        (repo / "benchtrack.toml").write_text(config)
    assert bench_local() == 2
    assert expected in capsys.readouterr().err
    assert not (repo / "target").exists()


def test_json_report(repo, capsys):
    assert bench_local("--suite", "perl", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["suites"][0]["suite"] == "perl"
    assert {b["verdict"] for b in report["suites"][0]["benchmarks"]} == {"new"}


def test_ci_runner_label_and_cpus_come_from_the_environment(repo, monkeypatch):
    # bench-ci passes the runner size this way; results labelled `local` would not publish.
    monkeypatch.setenv("BENCHTRACK_RUNNER_LABEL", "ubuntu-latest")
    monkeypatch.setenv("BENCHTRACK_RUNNER_CPUS", "4")
    assert bench_local("--suite", "perl", "--no-history") == 0
    doc = ResultDocument.load(repo / "target/bench/results/perl.json")
    assert doc.runner.key == "ubuntu-latest-4cpu"
    assert not (repo / ".bench/history").exists()


def test_results_only_mode_neither_compares_nor_keeps_a_baseline(repo, capsys, monkeypatch):
    script = repo / "suite.py"
    script.write_text(script.read_text() + "\nprint('filter', os.environ.get('BENCH_FILTER'))\n")
    assert bench_local("--suite", "perl") == 0  # a baseline exists now
    monkeypatch.setenv("BENCH_FILTER", "coro")  # as CI passes it
    last = repo / ".bench/last" / f"local-{CpuSet.allowed().count}cpu" / "perl.json"
    before = last.read_bytes()
    capsys.readouterr()
    assert bench_local("--suite", "perl", "--no-history") == 0
    out = capsys.readouterr().out
    assert "no previous local run" not in out and "unchanged" not in out
    assert last.read_bytes() == before
    log = repo / "target/bench/logs" / f"local-{CpuSet.allowed().count}cpu" / "perl.log"
    assert "filter coro" in log.read_text()


def test_a_slower_rerun_is_shown_but_judging_is_left_to_the_gate(repo, capsys, monkeypatch):
    assert bench_local("--suite", "perl") == 0
    capsys.readouterr()
    monkeypatch.setenv("HALVE_PERL", "1")
    assert bench_local("--suite", "perl") == 0
    out = capsys.readouterr().out
    assert "regressed" in out and "cargo make gate -- --base" in out


def test_counts_are_stored_beside_each_benchmark_as_its_instructions_series(repo, capsys):
    """The count suites' documents carry `<name> (instructions)` in suite `<lang>-instructions`,
    counted with their own profile, and land in the same data.js as the wall time, in the
    smaller-is-better entry."""
    from benchtrack.history import open_store

    key = f"local-{CpuSet.allowed().count}cpu"
    assert bench_local("--suite", "perl,perl-instructions,python-instructions") == 0
    perl = ResultDocument.load(repo / "target/bench/results/perl.json")
    counts = ResultDocument.load(repo / "target/bench/results/perl-instructions.json")
    assert counts.suite == "perl-instructions"
    names = {b.name for b in counts.benchmarks}
    assert names and all(n.endswith(" (instructions)") for n in names)
    assert {n.removesuffix(" (instructions)") for n in names} <= {b.name for b in perl.benchmarks}
    assert all(
        b.direction == "smaller" and b.unit.startswith("instructions/") for b in counts.benchmarks
    )
    logs = repo / "target/bench/logs" / key
    assert "profile count" in (logs / "python-instructions.log").read_text()
    assert "profile quick" in (logs / "perl-instructions.log").read_text()
    history = open_store(repo / ".bench/history").read().runners[key]
    series = history.series
    for name in names:
        assert series[name].direction == "smaller"
        assert series[name.removesuffix(" (instructions)")].direction == "bigger"
    assert "perl/coro/async/trivial" in series  # the wall-time name is unchanged
    assert open_store(repo / ".bench/history").validate() == []


def test_the_local_history_is_pruned_after_the_append(repo, capsys, monkeypatch):
    """With [history.retention] in ./benchtrack.toml (the repository's: 90 days, then one a
    week), bench-local appends, then moves what the retention no longer keeps to archive.js."""
    from benchtrack.history import format as fmt
    from benchtrack.lab import synthetic

    monkeypatch.setenv("BENCHTRACK_RUNNER_LABEL", "ubuntu-latest")
    monkeypatch.setenv("BENCHTRACK_RUNNER_CPUS", "2")
    key = "ubuntu-latest-2cpu"
    history = repo / ".bench/history"
    # 120 daily runs from 2026-01-01: all of them 90 days older than this run, recorded now
    synthetic.history(history, commits=120, benches=10, runners=(2,), every_ms=86_400_000)
    assert "keep_all_days = 90" in (repo / "benchtrack.toml").read_text()
    assert bench_local("--suite", "perl") == 0
    out = capsys.readouterr().out
    assert "history: appended" in out
    assert f"bench/{key}: moved " in out and "to archive.js" in out
    data = fmt.parse((history / f"bench/{key}/data.js").read_bytes(), "d").data["entries"][key]
    archive = fmt.parse((history / f"bench/{key}/archive.js").read_bytes(), "a").data["entries"]
    assert len(data) + len(archive[key]) == 121  # 120 synthetic runs and this one
    assert len(data) < 25  # this one and the last of each ISO week
    assert (history / "dashboard/data/index.js").is_file()


def test_a_bad_retention_exits_2_before_running(repo, capsys):
    config = repo / "benchtrack.toml"
    config.write_text(config.read_text().replace("keep_all_days = 90", "keep_all_days = -1"))
    assert bench_local("--suite", "perl") == 2
    err = capsys.readouterr().err
    assert "benchtrack.toml: history.retention.keep_all_days: expected a whole number" in err
    assert not (repo / "target").exists() and not (repo / ".bench").exists()


def test_an_unreadable_history_exits_2_before_running(repo, capsys):
    """A data.js a run could not append to is found before measuring: nothing run, the last run
    (the next comparison's baseline) and the history left as they were."""
    assert bench_local("--suite", "perl") == 0
    key = f"local-{CpuSet.allowed().count}cpu"
    data_js = repo / ".bench/history/bench" / key / "data.js"
    last = repo / ".bench/last" / key / "perl.json"
    data_js.write_text(data_js.read_text()[:-40])  # cut off mid-write
    before = {p: p.read_bytes() for p in (data_js, last)}
    (repo / "target/bench/logs").rename(repo / "logs-before")
    capsys.readouterr()
    assert bench_local("--suite", "perl") == 2
    err = capsys.readouterr().err
    assert f"{key}/data.js" in err and "expected a valid history to append to" in err
    assert {p: p.read_bytes() for p in before} == before
    assert not (repo / "target/bench/logs").exists()  # the suite never ran
