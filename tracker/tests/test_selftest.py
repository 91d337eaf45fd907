"""gate-selftest: its patches apply to this repository's sources (a real clone, a real commit), a
patch that no longer applies is exit 2 naming the file, and the checker judges the gate's
gate.json (written by the gate's own Outcome, read by the gate's own reader) as specified.

The gate itself is not run here (minutes of benchmarks); `cargo make gate-selftest` does that.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
import subprocess
from pathlib import Path

import orjson
import pytest

from benchtrack import cli
from benchtrack.commands.gate_selftest import load_patches
from benchtrack.errors import BadInput
from benchtrack.gate import config
from benchtrack.gate.model import SuiteFailure
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.selftest import branch, check, patches, report
from benchtrack.selftest.patches import LOSSES, Patch, Slow, divisor, render, slows

REPO = Path(__file__).resolve().parents[2]
KINDS = load_patches(REPO)  # this repository's, the file [gate.selftest] names
PATCHES, WAIT_PATCHES = KINDS["work"], KINDS["wait"]
ALL = PATCHES + WAIT_PATCHES  # both kinds, in one branch as `gate-selftest` makes it


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> branch.Branch:
    """The real patched branch, from this repository's HEAD."""
    return branch.prepare(REPO, tmp_path_factory.mktemp("selftest") / "repo", patches=ALL)


# --- the patches, on the real sources


def test_the_branch_starts_at_head_and_changes_only_the_patched_files(made) -> None:
    assert made.base == git(REPO, "rev-parse", "HEAD")
    assert git(made.path, "rev-parse", f"{made.head}^") == made.base
    assert git(made.path, "rev-parse", "--abbrev-ref", "HEAD") == branch.BRANCH
    changed = git(made.path, "diff", "--name-only", made.base, made.head).splitlines()
    assert sorted(changed) == sorted({p.path for p in ALL}) == list(made.files)
    assert git(made.path, "status", "--porcelain") == ""  # everything patched is committed


@pytest.mark.parametrize("patch", ALL, ids=[f"{p.path}:{p.slows[0].glob}" for p in ALL])
def test_every_patch_applies_once_and_changes_its_source(made, patch: Patch) -> None:
    before = git(made.path, "show", f"{made.base}:{patch.path}")
    after = git(made.path, "show", f"{made.head}:{patch.path}")
    assert after != before
    for old, new in patch.hunks:
        assert before.count(old.rstrip("\n")) == 1, f"{patch.path}: {old!r} not found once"
        assert render(new).rstrip("\n") in after
        assert "@D" not in render(new)


def test_the_patched_python_still_computes_what_the_benchmarks_assert(made) -> None:
    # The benchmarks check their results: a patch that broke them would fail the gate's run.
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "selftest_cpu", made.path / "python/src/asyncio_patterns/cpu.py"
    )
    assert spec and spec.loader
    cpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpu)
    import asyncio

    nums = [0, 1, 7, 20_000]
    want = [n * (n + 1) // 2 for n in nums]
    assert cpu.multi_sigma(nums) == want
    assert asyncio.run(cpu.async_multi_sigma(nums)) == want
    assert asyncio.run(cpu.async_multi_sigma_to_thread(nums)) == want


def test_the_patched_perl_compiles_and_runs_more_tasks_than_it_declares(made) -> None:
    lib = made.path / "perl/lib"
    script = (
        "for my $b (CoroBench::Suite::benchmarks()) { next unless $b->{kind} eq 'throughput';"
        " my ($v, $case) = $b->{name} =~ m{^perl/coro/([^/]+)/(\\w+)$};"
        " print join(qq{\\t}, $b->{name}, $b->{tasks},"
        " CoroBench::Suite::selftest_extra(CoroBench::Suite::variant($v), $case, $b->{tasks})),"
        " qq{\\n} }"
    )
    done = subprocess.run(
        ["perl", f"-I{lib}", "-MCoroBench::Suite", "-e", script], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    extra = {n: (int(t), int(e)) for n, t, e in (ln.split("\t") for ln in done.stdout.splitlines())}
    for s in slows(PATCHES):
        if s.glob.startswith("perl/"):
            tasks, more = extra[s.glob]
            # at least 1/k more work per declared task: a loss of at least s.loss
            assert more / (tasks + more) >= s.loss - 1e-12, s.glob
    unslowed = [n for n, (_, e) in extra.items() if n not in {s.glob for s in slows(PATCHES)}]
    assert unslowed and all(extra[n][1] == 0 for n in unslowed)


def test_each_patch_text_uses_the_losses_its_table_declares() -> None:
    for p in PATCHES:
        assert p.tokens() == {round(s.loss * 100) for s in p.slows}, p.path
    globs = [s.glob for s in slows(PATCHES)]
    assert len(globs) == len(set(globs))
    assert [divisor(d) for d in LOSSES] == [round(1 / d - 1) for d in LOSSES]
    with pytest.raises(ValueError, match=r"0\.3"):
        divisor(0.3)


def test_every_suite_is_slowed_at_every_level_counted_and_not() -> None:
    cfg = config.load(REPO / config.CONFIG_NAME)
    counts = [s for s in cfg.select(None) if s.series == "instructions"]

    def counted(name: str) -> bool:  # a count suite's filter selects it (criterion: no rust/)
        target = name.split("/", 1)[1] if name.startswith("rust/") else name
        return any(
            name.startswith(s.name.split("-")[0] + "/")
            and re.search(s.env.get("BENCH_FILTER", ""), target)
            for s in counts
        )

    for language in ("rust", "python", "perl"):
        mine = [s for s in slows(PATCHES) if s.glob.startswith(f"{language}/")]
        assert {s.loss for s in mine} == set(LOSSES), language
        assert {counted(s.glob) for s in mine} == {True, False}, language


def test_the_other_kind_covers_every_blind_spot_of_the_counts() -> None:
    # A blocking call in async code, a syscall, an fsync, a contended lock, lost parallelism and
    # a cache-hostile access order: each at least the loss the gate must catch, none overlapping
    # the work-kind slowdowns (one benchmark, one cause).
    kinds = {s.wait.split(":")[0] for s in slows(WAIT_PATCHES)}
    assert kinds == {
        "a blocking call in async code", "a syscall per entry", "an fsync per write",
        "a contended lock", "lost parallelism", "a cache-hostile access order",
    }  # fmt: skip
    assert all(s.loss >= check.REQUIRED for s in slows(WAIT_PATCHES))
    work = [s.glob for s in slows(PATCHES)]
    for s in slows(WAIT_PATCHES):
        assert not any(
            fnmatch.fnmatchcase(s.glob, g) or fnmatch.fnmatchcase(g, s.glob) for g in work
        )


def test_a_patch_whose_text_is_missing_is_exit_2_naming_the_file_and_text(tmp_path) -> None:
    gone = Patch("python/src/asyncio_patterns/sleep.py", (("time.sleep(never)\n", "x"),), ())
    dest = tmp_path / "repo"
    with pytest.raises(BadInput) as raised:
        branch.prepare(REPO, dest, patches=(gone,))
    assert raised.value.exit_code == 2
    message = str(raised.value)
    assert "python/src/asyncio_patterns/sleep.py" in message
    assert "time.sleep(never)" in message and "found 0 times" in message
    assert not dest.exists()  # no half-made branch is left


def test_a_patch_whose_text_is_there_twice_is_exit_2(tmp_path) -> None:
    twice = Patch(
        "python/src/asyncio_patterns/sleep.py", (("    for period in periods:\n", ""),), ()
    )
    with pytest.raises(BadInput, match="found 2 times"):
        branch.prepare(REPO, tmp_path / "repo", patches=(twice,))


PATCHES_FILE = """\
[[work]]
path = "a.py"
slows = [{ glob = "x/a", loss = 0.10 }]
[[work.hunk]]
old = "v = 1\\n"
new = "v = @D10@\\n"
"""


def test_the_patches_file_is_data_the_mechanism_reads(tmp_path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(PATCHES_FILE, encoding="utf-8")
    kinds = patches.load(f)
    assert kinds["wait"] == ()
    (p,) = kinds["work"]
    assert p == Patch("a.py", (("v = 1\n", "v = @D10@\n"),), (Slow("x/a", 0.10),))
    assert render(p.hunks[0][1]) == "v = 9\n"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (PATCHES_FILE.replace("loss = 0.10", "loss = 0.3"), "work[0].slows[0].loss"),
        (PATCHES_FILE.replace('path = "a.py"\n', ""), "work[0].path"),
        (PATCHES_FILE.replace("[[work.hunk]]", "[[work.hunks]]"), "work[0].hunks"),
        (
            PATCHES_FILE.replace("loss = 0.10 }", 'loss = 0.10, wait = "x" }'),
            "work[0].slows[0].wait",
        ),
        (PATCHES_FILE.split("[[work.hunk]]")[0], "work[0].hunk"),
        (PATCHES_FILE.replace("[[work]]", "[[slow]]").replace("work.", "slow."), "slow"),
        (
            PATCHES_FILE.replace("[[work]]", "[[wait]]").replace("work.", "wait."),
            "wait[0].slows[0].wait",
        ),
    ],
)
def test_a_bad_patches_file_is_exit_2_naming_the_file_and_field(tmp_path, text, field) -> None:
    f = tmp_path / "p.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(BadInput) as raised:
        patches.load(f)
    assert raised.value.exit_code == 2
    assert (raised.value.source, raised.value.field) == (str(f), field)


def test_without_a_gate_selftest_table_the_command_is_exit_2_naming_it(tmp_path, monkeypatch):
    text = (REPO / config.CONFIG_NAME).read_text(encoding="utf-8")
    start = text.index("[gate.selftest]")
    end = text.index("[gate.thresholds]")
    (tmp_path / config.CONFIG_NAME).write_text(text[:start] + text[end:], encoding="utf-8")
    with pytest.raises(BadInput) as raised:
        load_patches(tmp_path)
    assert raised.value.field == "gate.selftest.patches"
    assert str(tmp_path / config.CONFIG_NAME) in str(raised.value)


def test_no_patch_or_slowed_benchmark_is_named_in_the_package() -> None:
    # The mechanism is benchtrack's, the slowdowns this repository's (tracker/bench/).
    source = (REPO / "tracker/src/benchtrack/selftest/patches.py").read_text(encoding="utf-8")
    for p in ALL:
        assert p.path not in source


def test_dry_run_builds_the_branch_and_lists_every_slowed_benchmark(tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"  # a clone as the user's checkout, so target/ is the test's own
    git(tmp_path, "clone", "--quiet", "--no-local", str(REPO), str(work))
    monkeypatch.chdir(work)
    monkeypatch.setenv("COLUMNS", "200")
    assert cli.main(["gate-selftest", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for s in slows(PATCHES):
        assert s.glob in out
    clone = work / "target/gate/selftest/repo"
    assert git(clone, "rev-parse", "HEAD^") == git(work, "rev-parse", "HEAD")
    assert not (work / "target/gate/selftest/gate.json").exists()  # the gate did not run


def test_the_real_gate_runs_in_the_clone_and_its_refusal_is_exit_2(tmp_path, monkeypatch, capfd):
    # --rounds 2 is refused by the gate before it builds or measures anything: the run path up to
    # the gate (clone, caches, the gate in the clone, cleanup) without minutes of benchmarks.
    work = tmp_path / "work"
    git(tmp_path, "clone", "--quiet", "--no-local", str(REPO), str(work))
    monkeypatch.chdir(work)
    assert cli.main(["gate-selftest", "--rounds", "2"]) == 2
    err = capfd.readouterr().err
    assert "--rounds: expected at least 3 rounds" in err  # the gate's own message
    assert "gate-selftest: expected flags the gate accepts, got --rounds 2" in err
    home = work / "target/gate/selftest"
    assert not (home / "repo").exists()  # the clone is removed
    assert (home / "cache").is_dir() and (home / "logs").is_dir()  # these outlive it
    assert not (home / "selftest.json").exists()


# --- the checker, on gate.json documents the gate's own Outcome writes

BASE, HEAD = "0123abcd" * 5, "89abcdef" * 5
SLOWS = [
    Slow("rust/streams/iterator", 0.10),
    Slow("python/sleep/sequential", 0.20),
    Slow("python/sleep/gather", 0.05),
]


def row(name: str, change: float, verdict: str, *, counted: bool = False, primary=None):
    key = f"{name} (instructions)" if counted else name
    unit, direction = ("instructions/item", "smaller") if counted else ("items/s", "bigger")
    half = 0.01
    return Row(
        name=key, suite="rust-instructions" if counted else "python", unit=unit,
        direction=direction, base=100.0, head=100.0 * (1 + change), change=change,
        lo=change - half, hi=change + half, verdict=verdict, threshold=0.05, rounds=6,
        primary=not counted if primary is None else primary,
    )  # fmt: skip


def gate_json(tmp_path: Path, rows: list[Row], failures: list[SuiteFailure] | None = None) -> Path:
    outcome = Outcome(rows, [], [], {"base": {}, "head": {}}, failures or [], 0.01, [6])
    outcome.meta = {
        "base": {"ref": BASE, "sha": BASE}, "head": {"ref": HEAD, "sha": HEAD},
        "rounds": 6, "seconds": 300.0, "threshold": 0.05, "n_looks": 3,
    }  # fmt: skip
    path = tmp_path / "gate.json"
    path.write_bytes(orjson.dumps(outcome.to_dict()))
    return path


def judged(tmp_path, rows, *, restricted=False, failures=None, gate_exit=1) -> check.Report:
    outcome = check.load(gate_json(tmp_path, rows, failures), BASE, HEAD)
    return check.judge(
        outcome, SLOWS, restricted=restricted, gate_exit=gate_exit, base=BASE, head=HEAD
    )


def caught() -> list[Row]:
    """Every slowed benchmark as the gate should see it, and two unslowed ones."""
    return [
        row("rust/streams/iterator", 1 / 0.9 - 1, "regressed", counted=True),
        row("rust/streams/iterator", -0.02, "unchanged"),  # caught by its instructions
        row("python/sleep/sequential", -0.2, "regressed"),
        row("python/sleep/gather", -0.05, "inconclusive"),
        row("python/db/gather", 0.01, "unchanged"),
        row("rust/walk/rayon", -0.03, "inconclusive", counted=True, primary=True),
    ]


def test_all_required_losses_flagged_and_nothing_else_passes(tmp_path) -> None:
    result = judged(tmp_path, caught())
    assert result.passed and result.exit_code == 0
    assert result.unslowed == 2
    by_key = {line.benchmark: line for line in result.lines}
    assert set(by_key) == {
        "rust/streams/iterator (instructions)", "rust/streams/iterator",
        "python/sleep/sequential", "python/sleep/gather",
    }  # fmt: skip
    assert by_key["rust/streams/iterator"].caught and by_key["rust/streams/iterator"].ok
    assert not by_key["python/sleep/gather"].required and by_key["python/sleep/gather"].ok
    # instructions per element up by 1/9 is a 10% loss of throughput
    assert math.isclose(by_key["rust/streams/iterator (instructions)"].change, -0.10)
    iterator = by_key["rust/streams/iterator (instructions)"]
    assert iterator.lo < iterator.change < iterator.hi
    doc = json.loads(json.dumps(result.to_dict()))  # plain JSON: no NaN
    assert doc["passed"] is True and doc["exit_code"] == 0
    md = report.markdown(result)
    assert all(key in md for key in by_key) and "passed" in md


def test_a_required_loss_not_flagged_fails(tmp_path) -> None:
    rows = caught()
    rows[2] = row("python/sleep/sequential", -0.2, "inconclusive")
    result = judged(tmp_path, rows)
    assert result.exit_code == 1
    bad = [line for line in result.lines if not line.ok]
    assert [line.benchmark for line in bad] == ["python/sleep/sequential"]
    assert "not flagged" in bad[0].note


def test_an_unslowed_benchmark_regressed_fails(tmp_path) -> None:
    rows = caught()
    rows[4] = row("python/db/gather", -0.08, "regressed")
    result = judged(tmp_path, rows)
    assert result.exit_code == 1
    assert [(line.benchmark, line.loss) for line in result.lines if not line.ok] == [
        ("python/db/gather", None)
    ]


def test_a_slowed_benchmark_missing_from_the_gate_fails_unless_restricted(tmp_path) -> None:
    rows = [r for r in caught() if not r.name.startswith("python/sleep/sequential")]
    assert judged(tmp_path, rows).exit_code == 1
    assert judged(tmp_path, rows, restricted=True).exit_code == 0
    # restricted to nothing slowed at all: nothing was tested, which does not pass
    none = [r for r in caught() if r.name.startswith(("python/db", "rust/walk"))]
    assert judged(tmp_path, none, restricted=True).exit_code == 1


def test_a_suite_that_failed_to_run_is_exit_3(tmp_path) -> None:
    failure = SuiteFailure("head", "perl", "run", "died", Path("log"))
    result = judged(tmp_path, caught(), failures=[failure], gate_exit=3)
    assert result.exit_code == 3 and result.broken == ["perl failed to run on the head side"]


def test_a_gate_json_of_another_run_or_malformed_is_bad_input(tmp_path) -> None:
    path = gate_json(tmp_path, caught())
    with pytest.raises(BadInput, match=r"head\.sha"):
        check.load(path, BASE, BASE)
    doc = json.loads(path.read_text())
    doc["benchmarks"][0]["verdict"] = "bogus"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match=r"benchmarks\[0\]\.verdict"):
        check.load(path, BASE, HEAD)
    with pytest.raises(BadInput, match=r"gate\.json"):
        check.load(tmp_path / "missing" / "gate.json", BASE, HEAD)
