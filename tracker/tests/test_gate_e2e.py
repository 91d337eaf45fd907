"""End to end: a real fixture git repo with a tiny pytest-benchmark suite, gated for real.

Commit 1 is the base; commit 2 doubles the work of one benchmark (and adds one more); commit 3
changes only a comment. The gate must fail on 2 naming that benchmark and pass on 3.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cancel import cancel_at

from benchtrack.errors import EXIT_TERMINATED
from benchtrack.gate import worktree

CONFIG = """\
[gate]
threshold = 0.05
alpha = 0.01
rounds = 10
looks = [6]

[bench.suites.fixture]
adapter = "perl"
raw = "target/bench/raw/perl/perl.json"
build = "perl -c bench.pl"
command = "perl bench.pl target/bench/raw/perl/perl.json"

[bench.suites.fixture.gate]
timeout = 60
"""

# A tiny Perl suite writing the Perl runner's JSON (docs/conventions.md), read by the real
# `perl` ingest adapter: two loops (calls/s) and a smaller-is-better size (KB). What it reports is
# not timed: a call costs a known time, SQUARE_N or 3000 units, as a step harness of known cost
# would read it, with a spread of ±1% that moves from run to run (a counter in the side's
# checkout) and differs between the sides. The gate, its processes and git are real; its verdict
# does not depend on how busy this machine is (issue "A codebase the next engineer can carry").
BENCH = """\
# A tiny benchmark: two loops of known cost.
use strict; use warnings;
use JSON::PP;
my %work = (square => SQUARE_N, cube => 3000);
my $size = SIZE_KB;
mkdir "target";
my $run = 0;
if (open my $f, '<', "target/runs") { $run = <$f> }
open my $c, '>', "target/runs" or die "target/runs: $!"; print $c $run + 1; close $c;
my $side = ($ENV{GATE_SIDE} // "") eq "head" ? 1 : 0;
my @out;
for my $name (sort keys %work) {
    my $phase = 1.7 * $run + 2.3 * $side;
    my @samples = map { 1e9 / $work{$name} * (1 + 0.01 * sin($phase + 0.9 * $_)) } 1 .. 7;
    push @out, {name => "perl/fixture/$name", unit => "calls/s", samples => \\@samples};
}
push @out, {name => "perl/fixture/size", unit => "KB", direction => "smaller",
            samples => [($size) x 5]};
EXTRA
open my $fh, '>', $ARGV[0] or die "$ARGV[0]: $!";
print $fh JSON::PP->new->encode({schema => "benchtrack.perl/1", created => "2026-01-01T00:00:00Z",
    env => {}, benchmarks => \\@out, errors => []});
"""


def bench(square: int, size: int, extra: bool = False) -> str:
    more = (
        'push @out, {name => "perl/fixture/extra", unit => "calls/s", samples => [1, 2, 3, 4, 5]};'
        if extra
        else ""
    )
    return (
        BENCH.replace("SQUARE_N", str(square)).replace("SIZE_KB", str(size)).replace("EXTRA", more)
    )


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def commit(repo: Path, message: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", *files)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    # Each test its own repository (and so its own worktrees): a gate one test cancels or leaves
    # behind cannot reach another's.
    repo = tmp_path / "fixture-repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "base",
        {
            "benchtrack.toml": CONFIG,
            ".gitignore": "/target/\n__pycache__/\n",
            "bench.pl": bench(3000, 1000),
        },
    )
    git(repo, "tag", "c1")
    slower = bench(6000, 800, extra=True)  # square: twice the work; size: smaller (better)
    commit(repo, "square does twice the work; add extra", {"bench.pl": slower})
    git(repo, "tag", "c2")
    commit(repo, "comment only", {"bench.pl": slower.replace("two loops", "some loops")})
    git(repo, "tag", "c3")
    git(repo, "checkout", "-q", "-b", "broken", "c1")
    commit(repo, "syntax error", {"bench.pl": "sub broken {\n"})
    git(repo, "checkout", "-q", "-b", "dies", "c1")
    commit(repo, "measures, then exits 1", {"bench.pl": bench(3000, 1000) + "exit 1;\n"})
    git(repo, "checkout", "-q", "main")
    return repo


def gate(repo: Path, *args: str) -> tuple[int, dict | None, str]:
    out = repo / "target" / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", "gate", "--out", str(out), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )
    doc = json.loads((out / "gate.json").read_text()) if (out / "gate.json").exists() else None
    if doc is not None:
        (out / "gate.json").unlink()
    return proc.returncode, doc, proc.stdout + proc.stderr


def test_slower_commit_fails_naming_the_benchmark(repo: Path) -> None:
    code, doc, text = gate(repo, "--base", "c1", "--head", "c2")
    assert code == 1 and doc, text
    verdicts = {b["name"]: b["verdict"] for b in doc["benchmarks"]}
    assert verdicts["perl/fixture/square"] == "regressed", text
    assert verdicts["perl/fixture/cube"] != "regressed", text
    assert verdicts["perl/fixture/size"] == "improved", text  # smaller is better: 1000 -> 800 KB
    square = next(b for b in doc["benchmarks"] if b["name"] == "perl/fixture/square")
    # about half the throughput, resolved: the interval clear of 0 (step 5's rule; it need not
    # lie wholly beyond the threshold, and .ci/run once read its upper end at -4.7%)
    assert -0.7 < square["change"] < -0.3 and square["hi"] < 0
    assert doc["only_head"] == ["perl/fixture/extra"]  # reported, not failing
    assert doc["rounds"]["orders"][:2] == ["base,head", "head,base"]
    md = (repo / "target" / "out" / "gate.md").read_text()
    assert md.index("#### Regressions") < md.index("<details>")
    assert "`perl/fixture/square`" in md.split("#### Regressions")[1].split("<details>")[0]
    assert "regressed" in text and "perl/fixture/square" in text
    # which idle states the rounds ran with, in the JSON and under the table (idle.py)
    assert doc["idle"].startswith("idle CPUs") and doc["idle"] in " ".join(md.split())
    # each round's vCPU speeds, read at its start (machine/vcpus.py), both stages' rounds
    # summarised beside the idle states
    rounds = len(doc["rounds"]["orders"]) + ((doc.get("confirm") or {}).get("rounds") or 0)
    if len(os.sched_getaffinity(0)) > 1:
        assert doc["vcpus"]["rounds"] == rounds and doc["vcpus"]["wall_apart"] >= 1, doc["vcpus"]
        assert "vCPUs " in md and f"(median of {rounds} rounds)" in " ".join(md.split())
    assert not (repo / "target" / "gate" / "worktrees" / "base").exists()  # removed after


def test_comment_only_commit_passes(repo: Path) -> None:
    (repo / "bench.pl").write_text("# uncommitted edit\n")  # dirty, and not measured
    try:
        code, doc, text = gate(repo, "--base", "c2", "--head", "c3")
    finally:
        git(repo, "checkout", "--", "bench.pl")
    assert code == 0, text
    assert "uncommitted change" in text
    assert {b["name"] for b in doc["benchmarks"]} == {
        "perl/fixture/square",
        "perl/fixture/cube",
        "perl/fixture/extra",
        "perl/fixture/size",
    }
    assert all(b["verdict"] != "regressed" for b in doc["benchmarks"])


def test_base_that_does_not_build_exits_3_with_the_error_tail(repo: Path) -> None:
    code, doc, text = gate(repo, "--base", "broken", "--head", "c1")
    assert code == 3, text
    assert "Missing right curly" in text  # perl -c's complaint, from the build log's tail
    assert doc["suite_failures"][0]["side"] == "base"
    assert doc["suite_failures"][0]["what"] == "build"


def test_unknown_ref_is_bad_input(repo: Path) -> None:
    code, doc, text = gate(repo, "--base", "no-such-ref")
    assert code == 2 and doc is None
    assert "no-such-ref" in text and "Traceback" not in text


def test_harness_exit_status_is_a_failure_even_with_output(repo: Path) -> None:
    code, doc, text = gate(repo, "--base", "c1", "--head", "dies", "--rounds", "3")
    assert code == 3, text
    assert "fixture" in doc["failed"]["head"] and not doc["failed"]["base"]


def registered_worktrees(repo: Path) -> list[str]:
    """Every linked worktree git still records, with its state (locked, prunable)."""
    out = git(repo, "worktree", "list", "--porcelain")
    return [block for block in out.split("\n\n") if "target/gate" in block]


@pytest.mark.parametrize(
    "when",
    [
        "worktrees/head",  # as git adds the second worktree (a kill there used to leave it locked)
        "logs",  # once rounds run
    ],
)
def test_a_cancelled_gate_removes_its_worktrees(repo: Path, when: str) -> None:
    # CI cancels with SIGTERM; the worktrees (and their `git worktree` records) must not linger.
    argv = [sys.executable, "-m", "benchtrack.cli", "gate", "--base", "c1", "--head", "c3"]
    mark = repo / "target" / "gate" / when
    code = cancel_at(argv, repo, {**os.environ, "NO_COLOR": "1"}, mark)
    assert code == EXIT_TERMINATED == 128 + signal.SIGTERM
    worktrees = repo / "target" / "gate" / "worktrees"
    assert not (worktrees / "base").exists() and not (worktrees / "head").exists()
    assert registered_worktrees(repo) == []
    code, doc, text = gate(repo, "--base", "c2", "--head", "c3", "--rounds", "3")
    # ... and the next gate in this repository runs to a verdict: a comment-only change, which
    # the known-cost fixture reads as no change at all
    assert code == 0 and doc and doc["benchmarks"], text
    assert all(b["verdict"] != "regressed" for b in doc["benchmarks"]), text


def test_a_worktree_left_locked_by_a_killed_gate_is_replaced(repo: Path) -> None:
    # SIGKILL (or a power cut) while git adds a worktree leaves it locked "initializing" and
    # maybe missing: `git worktree prune` keeps such a record and `add --force` refuses the path.
    stale = repo / "target" / "gate" / "worktrees" / "base"
    git(repo, "worktree", "add", "-q", "--detach", str(stale), "c1")
    git(repo, "worktree", "lock", "--reason", "initializing", str(stale))
    shutil.rmtree(stale)
    assert "locked initializing" in registered_worktrees(repo)[0].splitlines()
    sha = git(repo, "rev-parse", "c2")
    co = worktree.checkout(repo, "base", "c2", sha, "c2")
    assert git(co.path, "rev-parse", "HEAD") == sha
    assert not [a for a in registered_worktrees(repo)[0].splitlines() if a.startswith("locked")]
    worktree.remove(repo, co)
    assert registered_worktrees(repo) == [] and not stale.exists()


# A suite whose head runs alternate between 75% and 85% of the base's throughput, run by run
# (a counter in each side's checkout): a real loss, inconclusive after 3 rounds but on course to
# be "regressed", which it is after 6. Only a time budget can end the rounds at 3.
WOBBLE = r"""
use strict; use warnings; use JSON::PP; use File::Path qw(make_path);
make_path("target");
my $n = 0;
if (open my $f, '<', "target/wobble-count") { $n = <$f>; }
open my $c, '>', "target/wobble-count" or die; print $c $n + 1; close $c;
my $v = $ENV{GATE_SIDE} eq "head" ? ($n % 2 ? 85 : 75) : 100;
open my $fh, '>', "target/wobble.json" or die;
print $fh encode_json({schema => "benchtrack.perl/1", created => "2026-01-01T00:00:00Z",
    env => {}, errors => [],
    benchmarks => [{name => "perl/fixture/wobble", unit => "calls/s", samples => [($v) x 5]}]});
"""


def test_the_time_budget_ends_the_rounds_at_a_look(repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "wobble.pl"
    script.write_text(WOBBLE)
    config = tmp_path / "wobble.toml"
    config.write_text(
        '[gate]\nrounds = 12\nlooks = [3, 6]\n[bench.suites.wobble]\nadapter = "perl"\n'
        f'raw = "target/wobble.json"\ncommand = "perl {script}"\n'
    )
    code, doc, text = gate(repo, "--config", str(config), "--base", "c1", "--head", "c1")
    assert code == 1 and len(doc["rounds"]["orders"]) == 6, text  # decided at the 2nd look
    assert [b["verdict"] for b in doc["benchmarks"]] == ["regressed"]
    assert doc["stopped_by_budget"] is False
    code, doc, text = gate(
        repo, "--config", str(config), "--base", "c1", "--head", "c1", "--minutes", "0.001"
    )
    assert code == 0 and len(doc["rounds"]["orders"]) == 3, text  # 6 would overrun: stop at 3
    assert [b["verdict"] for b in doc["benchmarks"]] == ["inconclusive"]
    assert doc["stopped_by_budget"] is True and "budget" in text


def test_a_screened_candidate_is_confirmed_in_rounds_of_its_own(repo: Path) -> None:
    # Screen, then confirm (gate/confirm.py): three screening rounds at alpha/2 leave a 33% loss
    # inconclusive, as they would a much smaller one at the usual alpha: at alpha 1e-6 their t
    # interval (2 degrees of freedom) is about a thousand round spreads wide, so no chance run of
    # three alike rounds decides it. It is a candidate, measured alone in 24 rounds of its own
    # (an interval under two spreads wide at that alpha), judged on those at its share of the
    # confirmation's alpha (gate.json's `shares`), and confirmed (the fixture's rounds spread
    # ~1%, whatever the machine does).
    config = CONFIG.replace("alpha = 0.01\n", "alpha = 0.000001\n")
    config = config.replace("rounds = 10\nlooks = [6]\n", "rounds = 3\nlooks = []\n")
    config = config.replace(
        "[bench.suites.fixture]",
        "[gate.confirm]\nrounds = 24\nlooks = []\nmost = 3\n\n[bench.suites.fixture]",
    )
    git(repo, "checkout", "-q", "-b", "confirm", "c1")
    commit(repo, "two-stage config", {"benchtrack.toml": config})
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, "square: half again the work", {"bench.pl": bench(4500, 1000)})
    code, doc, text = gate(repo, "--base", base, "--head", "HEAD")
    assert code == 1 and doc, text
    assert "perl/fixture/square" in doc["confirm"]["candidates"], text
    assert doc["confirm"]["rounds"] == 24
    shares = doc["confirm"]["shares"]
    assert set(shares) == set(doc["confirm"]["candidates"]) and math.isclose(
        sum(shares.values()), 1
    )
    # the candidates' own rounds, both sides, and nothing of the benchmarks not confirmed
    confirmed = doc["confirm"]["values"]
    assert len(confirmed["base"]["perl/fixture/square"]) == 24
    assert len(confirmed["head"]["perl/fixture/square"]) == 24
    assert set(confirmed["base"]) <= set(doc["confirm"]["candidates"])
    rows = {b["name"]: b for b in doc["benchmarks"]}
    square = rows["perl/fixture/square"]
    assert square["verdict"] == "regressed" and square["stage"] == 2 and square["rounds"] == 24
    assert -0.5 < square["change"] < -0.15
    assert rows["perl/fixture/cube"]["verdict"] != "regressed"
    assert rows["perl/fixture/size"]["stage"] == 1  # not a candidate: the screening's verdict
    assert "confirming 1 candidate" in text or "confirming" in text


def test_a_no_change_pr_decides_every_benchmark_and_stops_measuring_the_decided(repo) -> None:
    # Decide every benchmark (gate/decide.py): the fixture's spread at ±3% a run leaves its
    # loops open after three screening rounds at alpha 1e-6 (no verdict either way); they are
    # measured on in the second stage with no candidate to confirm, and the equivalence test
    # over all their rounds tells them unchanged at its first look (12 rounds): the second look
    # (24) is never taken, the PR is ✅. The spread is the fixture's own, not the machine's.
    base = _open_loops(repo)
    code, doc, text = gate(repo, "--base", base, "--head", "HEAD")
    assert code == 0 and doc, text
    assert "✅ no regression" in text, text
    second = doc["confirm"]
    assert second["candidates"] == [] and second["open"], second
    assert second["decided_unchanged"] == second["open"]
    assert second["rounds"] == 12  # all decided at the first look: no more rounds
    rows = {b["name"]: b for b in doc["benchmarks"]}
    for name in second["open"]:
        row = rows[name]
        assert row["verdict"] == "unchanged" and row["equivalence"] and row["stage"] == 2, row
        assert row["rounds"] == 3 + 12
        assert -0.04 < row["lo"] <= row["hi"] < 0.04
    assert "equivalence, 15 rounds" in text


def _open_loops(repo: Path) -> str:
    """A branch whose loops three screening rounds at alpha 1e-6 leave open, then a comment
    commit (its head); the second stage 24 rounds, a look at 12. The base's sha."""
    config = CONFIG.replace("alpha = 0.01\n", "alpha = 0.000001\n")
    config = config.replace("rounds = 10\nlooks = [6]\n", "rounds = 3\nlooks = []\n")
    config = config.replace(
        "[bench.suites.fixture]",
        "[gate.confirm]\nrounds = 24\nlooks = [12]\nmost = 3\n\n[bench.suites.fixture]",
    )
    # a run's offset of up to ±3%, different for each run and side, beside the samples' ±1%
    noisy = bench(3000, 1000).replace("* (1 + 0.01", "* (1 + 0.03 * sin($phase)) * (1 + 0.01")
    git(repo, "checkout", "-q", "-b", "decide", "c1")
    base = commit(repo, "noisier loops", {"benchtrack.toml": config, "bench.pl": noisy})
    commit(repo, "a comment", {"bench.pl": noisy.replace("two loops", "the loops")})
    return base


def test_the_second_stage_runs_no_round_the_budget_does_not_hold(repo) -> None:
    # The screening's three rounds spend a budget of 0.06 s: the second stage, whose first
    # segment ran whatever the budget (12 rounds here), now runs none; its benchmarks stay open.
    base = _open_loops(repo)
    code, doc, text = gate(repo, "--base", base, "--head", "HEAD", "--minutes", "0.001")
    assert code == 0 and doc, text
    second = doc["confirm"]
    assert second["open"] and second["rounds"] == 0 and second["stopped_by_budget"], second
    assert second["decided_unchanged"] == []
    assert "the screening spent the budget" in text


def test_shards_measure_their_own_benchmarks_and_merge_into_one_verdict(repo, tmp_path) -> None:
    # gate --shard K/N (gate/shards.py): each shard measures the benchmarks the plan deals it
    # (and of those it does not name, its share by a hash of the name: shards.by_name deals
    # `perl/fixture/extra` the first), at alpha / N; gate-merge makes one verdict,
    # and a shard without one leaves its benchmarks "not measured", the PR not ✅.
    from benchtrack.gate import shards

    plan = tmp_path / "plan.json"
    seconds = {"perl/fixture/square": 2.0, "perl/fixture/cube": 1.0, "perl/fixture/size": 1.0}
    doc = shards.write_plan(plan, 2, seconds)
    assert doc["benchmarks"] == {
        "perl/fixture/cube": 2, "perl/fixture/size": 2, "perl/fixture/square": 1,
    }  # fmt: skip
    outs = []
    for k in (1, 2):
        code, got, text = gate(repo, "--base", "c1", "--head", "c2", "--shard", f"{k}/2",
                               "--shard-plan", str(plan))  # fmt: skip
        assert got is not None and code == (1 if k == 1 else 0), text  # square: shard 1's
        assert got["shard"]["index"] == k and got["alpha"] == 0.005  # alpha / 2
        names = sorted(b["name"] for b in got["benchmarks"])
        # shard 1: square, and `extra` (new in head, not in the plan: only_head)
        assert names == (["perl/fixture/square"] if k == 1 else
                         ["perl/fixture/cube", "perl/fixture/size"]), names  # fmt: skip
        assert got["only_head"] == (["perl/fixture/extra"] if k == 1 else [])
        path = tmp_path / f"shard{k}" / "gate.json"
        path.parent.mkdir()
        path.write_text(json.dumps(got))
        outs.append(path)
    merged = tmp_path / "merged"
    cli = [sys.executable, "-m", "benchtrack.cli", "gate-merge", "--plan", str(plan), "--out"]
    done = subprocess.run([*cli, str(merged), *map(str, outs)], capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr  # square regressed
    whole = json.loads((merged / "gate.json").read_text())
    assert sorted(b["name"] for b in whole["benchmarks"]) == sorted(seconds)
    assert math.isclose(whole["alpha"], 0.01)
    assert "1 regression" in (merged / "gate.md").read_text()
    # shard 2 gave nothing: its two benchmarks are not measured, exit 3, named
    lone = tmp_path / "lone"
    done = subprocess.run([*cli, str(lone), str(outs[0])], capture_output=True, text=True)
    assert done.returncode == 3, done.stdout + done.stderr
    failed = json.loads((lone / "gate.json").read_text())["failed"]["head"]
    assert sorted(failed) == [
        "perl/fixture/cube",
        "perl/fixture/size",
        "shard 2/2's unplanned benchmarks",
    ]
    assert "not measured: shard 2/2" in failed["perl/fixture/cube"]
