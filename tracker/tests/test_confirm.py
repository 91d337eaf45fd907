"""Change points confirmed in lockstep (issue 47): one event per change (detect/events.py), the
append-only confirmations store, what the checks make of an event, and `benchtrack confirm` end
to end: a real git history of a known-cost Perl suite (test_gate_e2e's), the real gate for every
A/B, a step bisected to its merge and a blip refuted."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from test_detect_history import RUNNER, levels, run_entry, sha, write_history
from test_gate_e2e import CONFIG, bench, commit, git

from benchtrack import detect
from benchtrack.cli import main
from benchtrack.confirm import bisect, status, store
from benchtrack.detect import events
from benchtrack.detect.publish import SCHEMA as CHANGES_SCHEMA
from benchtrack.errors import BadInput

OTHER = "ubuntu-latest-1cpu"


def change(series, runner, at, *, bad=True, pct=-0.1, base=None):
    return {
        "series": series,
        "runner": runner,
        "commit": sha(at),
        "base": base if base is not None else sha(at - 1),
        "change": pct,
        "before": 100.0,
        "after": 100.0 * (1 + pct),
        "unit": "items/s",
        "regression": bad,
        "first_seen": f"2026-04-{at:02d}T00:00:00Z",
    }


POSITION = {sha(i): i for i in range(60)}


# --- one event per change ---------------------------------------------------------------------


def test_a_benchmarks_series_and_sizes_a_few_commits_apart_are_one_event() -> None:
    found = events.group(
        [
            change("rust/g/a", RUNNER, 30, pct=-0.10),
            change("rust/g/a (instructions)", RUNNER, 31, pct=0.12, bad=True),
            change("rust/g/a", OTHER, 32, pct=-0.14),
            change("rust/g/a", RUNNER, 40, pct=-0.05),  # 8 commits on: another change
            change("rust/g/a", OTHER, 33, pct=0.2, bad=False),  # back the other way: another
            change("rust/g/b", RUNNER, 30),  # another benchmark
            change("rust/g/c", RUNNER, 70),  # a commit not in the history shown: left out
        ],
        POSITION,
    )
    assert [(e["benchmark"], e["commit"], e["regression"]) for e in found] == [
        ("rust/g/a", sha(40), True),
        ("rust/g/a", sha(33), False),
        ("rust/g/a", sha(30), True),
        ("rust/g/b", sha(30), True),
    ]
    one = found[2]
    assert one["id"] == f"rust/g/a@{sha(30)}:regression" and one["runners"] == [OTHER, RUNNER]
    assert [(p["series"], p["runner"], p["change"]) for p in one["parts"]] == [
        ("rust/g/a", RUNNER, -0.10),
        ("rust/g/a (instructions)", RUNNER, 0.12),
        ("rust/g/a", OTHER, -0.14),
    ]  # each part's own figures kept
    assert one["change"] == pytest.approx(-0.12)  # the wall-time parts' median
    assert one["commits"] == [sha(30), sha(31), sha(32)]
    assert one["first_seen"] == "2026-04-30T00:00:00Z"
    # the A/B that checks it on each size: the commit before its first part there, its last part
    assert events.span(one, RUNNER) == (sha(29), sha(31))
    assert events.span(one, OTHER) == (sha(31), sha(32))
    assert events.span(one, "local-8cpu") is None
    # a chain of steps 3 apart is one event; 4 apart is two
    chain = [change("rust/g/a", RUNNER, at) for at in (10, 13, 16)]
    assert len(events.group(chain, POSITION)) == 1
    assert len(events.group([*chain[:1], change("rust/g/a", RUNNER, 14)], POSITION)) == 2


def test_detect_writes_the_events_and_each_change_names_its_commit_before(tmp_path: Path) -> None:
    n, at = 40, 24
    root = tmp_path / "h"
    for runner, seed, step in ((RUNNER, 1, at), (OTHER, 5, at + 1)):
        a, b = levels(n, step, 0.85, seed), levels(n, None, 1.0, seed + 1)
        runs = [run_entry(i, {"rust/g/a": a[i], "rust/g/b": b[i]}) for i in range(n)]
        write_history(root, {runner: runs}, runner)
    report = detect.analyse(root, write=True)
    assert {(c.runner, c.commit, c.base) for c in report.changes} == {
        (RUNNER, sha(at), sha(at - 1)),
        (OTHER, sha(at + 1), sha(at)),
    }
    doc = orjson.loads((root / "bench" / "changes.json").read_bytes())
    assert doc["schema"] == CHANGES_SCHEMA
    [event] = doc["events"]
    assert event["benchmark"] == "rust/g/a" and event["commit"] == sha(at)
    assert event["runners"] == sorted([RUNNER, OTHER]) and len(event["parts"]) == 2


def test_a_step_at_the_newest_merge_is_a_candidate_at_once_and_its_check_outlives_the_tip(
    tmp_path: Path,
) -> None:
    """The latest merge's step is an event the night it lands (detect/tip.py), checked on its one
    merge; when four runs follow it, detect places it at the same commit, and that check, keyed
    by what it measured, is still the event's: it is not checked again."""
    root, n = tmp_path / "h", 30
    a, b = levels(n + 4, n - 1, 0.85, 3), levels(n + 4, None, 1.0, 4)
    runs = [run_entry(i, {"rust/g/a": a[i], "rust/g/b": b[i]}) for i in range(n + 4)]
    write_history(root, {RUNNER: runs[:n]}, RUNNER)
    first = detect.analyse(root, write=True, now="2026-04-01T00:00:00Z")
    assert first.changes == [] and [(c.series, c.commit) for c in first.tip] == [
        ("rust/g/a", sha(n - 1))
    ]
    doc = orjson.loads((root / "bench" / "changes.json").read_bytes())
    [event] = doc["events"]
    assert event["tip"] and event["regression"] and event["commit"] == sha(n - 1)
    assert doc["tip"][0]["base"] == sha(n - 2)
    assert status.to_check([event], [], RUNNER) == [(event, (sha(n - 2), sha(n - 1)))]
    made = check(base=sha(n - 2), head=sha(n - 1))
    assert status.of(event, store.latest([made]))["status"] == status.CONFIRMED
    # the next nights: the run of new levels grows (still at the tip, the same check) ...
    write_history(root, {RUNNER: runs[: n + 2]}, RUNNER)
    again = detect.analyse(root, write=True, now="2026-04-02T00:00:00Z")
    assert [(c.commit, c.first_seen) for c in again.tip] == [(sha(n - 1), "2026-04-01T00:00:00Z")]
    # ... until detect's own test places it: no longer a tip candidate, the check still its own
    write_history(root, {RUNNER: runs}, RUNNER)
    placed = detect.analyse(root, write=True, now="2026-04-03T00:00:00Z")
    assert placed.tip == [] and [c.commit for c in placed.changes] == [sha(n - 1)]
    [event] = orjson.loads((root / "bench" / "changes.json").read_bytes())["events"]
    assert not event["tip"] and status.to_check([event], [made], RUNNER) == []
    assert status.of(event, store.latest([made]))["status"] == status.CONFIRMED


# --- the store: append-only, validated --------------------------------------------------------


def check(benchmark="rust/g/a", runner=RUNNER, base=None, head=None, outcome="regression"):
    base, head = base or sha(29), head or sha(30)
    return {
        "event": f"{benchmark}@{head}",
        "benchmark": benchmark,
        "runner": runner,
        "base": base,
        "head": head,
        "expected": "regression",
        "outcome": outcome,
        "confirmed": outcome == "regression",
        "rows": [{"series": benchmark, "verdict": "regressed", "change": -0.1}],
        "checked": "2026-04-30T00:00:00Z",
        "run": None,
        "culprit": None,
    }


def test_checks_are_appended_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "bench" / store.FILENAME
    store.append(path, [check()])
    first = path.read_bytes()
    store.append(path, [check(outcome="noise"), check(benchmark="rust/g/b")])
    got = store.read(path)
    assert [(c["benchmark"], c["outcome"]) for c in got] == [
        ("rust/g/a", "regression"),
        ("rust/g/a", "noise"),
        ("rust/g/b", "regression"),
    ]
    assert json.loads(first)["checks"] == got[:1]  # the old checks as they were, first
    # the latest check of a key wins for the status; the older one stays in the file
    assert store.latest(got)[("rust/g/a", RUNNER, sha(29), sha(30))]["outcome"] == "noise"


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.update(schema="benchtrack.changes/1"), "schema"),
        (lambda d: d.update(checks={}), "checks"),
        (lambda d: d["checks"][0].update(outcome="slower"), "checks[0].outcome"),
        (lambda d: d["checks"][0].pop("base"), "checks[0].base"),
        (lambda d: d["checks"][0].update(confirmed=False), "checks[0].confirmed"),
        (lambda d: d["checks"][0].update(rows="x"), "checks[0].rows"),
    ],
)
def test_a_damaged_store_is_refused_naming_the_field_and_never_overwritten(
    tmp_path: Path, edit, field: str
) -> None:
    path = tmp_path / store.FILENAME
    doc = {"schema": store.SCHEMA, "checks": [check()]}
    edit(doc)
    path.write_text(json.dumps(doc))
    before = path.read_bytes()
    with pytest.raises(BadInput) as err:
        store.append(path, [check(benchmark="rust/g/b")])
    assert err.value.exit_code == 2 and str(path) in str(err.value) and field in str(err.value)
    assert path.read_bytes() == before


def test_a_bad_new_check_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / store.FILENAME
    store.append(path, [check()])
    before = path.read_bytes()
    with pytest.raises(BadInput, match=r"checks\[1\]\.outcome"):
        store.append(path, [check(outcome="faster")])
    assert path.read_bytes() == before
    path.write_text("{not json")
    with pytest.raises(BadInput, match="confirmations"):
        store.read(path)


# --- what the checks make of an event ---------------------------------------------------------


def test_an_event_is_confirmed_noise_or_a_candidate() -> None:
    [event] = events.group(
        [change("rust/g/a", RUNNER, 30), change("rust/g/a", OTHER, 31)], POSITION
    )
    on_one = check(base=sha(29), head=sha(30))
    assert status.of(event, {})["status"] == status.CANDIDATE
    refuted = store.latest([{**on_one, "outcome": "noise", "confirmed": False}])
    assert status.of(event, refuted)["status"] == status.CANDIDATE  # one size left to check
    other = check(runner=OTHER, base=sha(30), head=sha(31), outcome="noise")
    both = store.latest([{**on_one, "outcome": "noise", "confirmed": False}, other])
    assert status.of(event, both)["status"] == status.NOISE
    assert status.of(event, store.latest([on_one]))["status"] == status.CONFIRMED
    # the sizes left to check
    assert [s for _, s in status.to_check([event], [on_one], OTHER)] == [(sha(30), sha(31))]
    assert status.to_check([event], [on_one], RUNNER) == []


def test_bisect_finds_the_first_stepped_commit_in_log2_probes() -> None:
    commits = [f"c{i}" for i in range(1, 9)]
    for culprit in range(8):
        asked: list[str] = []

        def stepped(c: str, at=culprit, asked=asked) -> bool:
            asked.append(c)
            return commits.index(c) >= at

        found = bisect.search(commits, stepped)
        assert found.culprit == commits[culprit] and len(asked) <= 3
    stops = bisect.search(commits, lambda c: None)
    assert stops.culprit is None and (stops.low, stops.high) == (0, 7)
    assert bisect.pr_number("Merge pull request #42 from o/b\n\nx") == 42
    assert bisect.pr_number("walk: fewer allocations (#7)\n\nbody (#9)") == 7
    assert bisect.pr_number("no number here") is None


# --- `benchtrack confirm` on a real git history, the real gate for each A/B -------------------


@pytest.fixture
def merged(tmp_path: Path) -> tuple[Path, list[str]]:
    """main: a base, then four merges; the second makes `square` do twice the work."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = bench(3000, 1000)
    c0 = commit(
        repo,
        "base",
        {"benchtrack.toml": CONFIG, ".gitignore": "/target/\n", "bench.pl": base},
    )
    slower = bench(6000, 1000)
    c1 = commit(repo, "Merge pull request #11 from o/docs", {"bench.pl": base + "# docs\n"})
    c2 = commit(repo, "square: a second pass (#12)", {"bench.pl": slower})
    c3 = commit(repo, "comment (#13)", {"bench.pl": slower + "# c3\n"})
    c4 = commit(repo, "comment (#14)", {"bench.pl": slower + "# c4\n"})
    return repo, [c0, c1, c2, c3, c4]


def history_with(root: Path, changes: list[dict]) -> Path:
    position = {c["commit"]: i for i, c in enumerate(changes)}
    doc = {
        "schema": CHANGES_SCHEMA,
        "changes": changes,
        "events": events.group(changes, position),
    }
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "changes.json").write_bytes(orjson.dumps(doc))
    return root


def test_confirm_bisects_a_real_step_and_refutes_a_blip(
    merged: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    repo, c = merged
    step = {**change("perl/fixture/square", "local-1cpu", 0), "commit": c[4], "base": c[0]}
    blip = {**change("perl/fixture/cube", "local-1cpu", 0), "commit": c[3], "base": c[2]}
    history = history_with(tmp_path / "pages", [step, blip])
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NO_COLOR", "1")
    argv = ["confirm", str(history), "--runner", "local-1cpu", "--gate-arg=--rounds=3"]
    assert main([*argv, "--list"]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == [
        "perl/fixture/cube",  # newest first
        "perl/fixture/square",
    ]
    assert main([*argv, "--json"]) == 0
    checks = store.read(store.path_of(history))
    by = {x["benchmark"]: x for x in checks}
    square, cube = by["perl/fixture/square"], by["perl/fixture/cube"]
    assert (square["base"], square["head"]) == (c[0], c[4])
    assert square["outcome"] == "regression" and square["confirmed"]
    assert square["rows"][0]["series"] == "perl/fixture/square"
    assert square["rows"][0]["verdict"] == "regressed" and square["rows"][0]["change"] < -0.3
    # bisected over the four merges in two probes to the one that doubled the work, its PR named
    culprit = square["culprit"]
    assert culprit["commit"] == c[2] and culprit["pr"] == 12
    assert [p["commit"] for p in culprit["probes"]] == [c[2], c[1]]
    assert [p["stepped"] for p in culprit["probes"]] == [True, False]
    assert cube["outcome"] == "noise" and not cube["confirmed"] and cube["culprit"] is None
    # what the dashboard makes of them, and nothing left to check on this size
    found = store.latest(checks)
    doc = orjson.loads((history / "bench" / "changes.json").read_bytes())
    told = {e["benchmark"]: status.of(e, found)["status"] for e in doc["events"]}
    assert told == {"perl/fixture/square": "confirmed", "perl/fixture/cube": "noise"}
    capsys.readouterr()
    assert main([*argv, "--list"]) == 0 and capsys.readouterr().out == ""
    # a size none of the events was seen on has none of them to check
    assert main(["confirm", str(history), "--runner", "local-2cpu", "--list"]) == 0
    assert capsys.readouterr().out == ""


def test_confirm_checks_a_step_at_the_newest_merge_the_night_it_lands(
    merged: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The history's newest run is the merge that doubled `square`'s work: detect makes it a
    candidate at once (detect/tip.py) and confirm's real gate A/B of the merge before against it
    confirms it, naming the merge and its PR without a bisect (one merge)."""
    repo, c = merged
    n = 11  # eight runs of commits before the fixture's, then its base, #11 and #12
    square, cube = levels(n, n - 1, 0.5, 7), levels(n, None, 1.0, 8)
    runs = [run_entry(i, {"perl/fixture/cube": cube[i], "perl/fixture/square": square[i]})
            for i in range(n)]  # fmt: skip
    for run, real in zip(runs[-3:], c[:3], strict=True):
        run["commit"]["id"] = real
    pages = write_history(tmp_path / "pages", {"local-1cpu": runs}, "local-1cpu")
    report = detect.analyse(pages, write=True)
    assert report.changes == [] and [x.series for x in report.tip] == ["perl/fixture/square"]
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NO_COLOR", "1")
    argv = ["confirm", str(pages), "--runner", "local-1cpu", "--gate-arg=--rounds=3", "--json"]
    assert main(argv) == 0
    [made] = json.loads(capsys.readouterr().out)["checks"]
    assert (made["benchmark"], made["base"], made["head"]) == ("perl/fixture/square", c[1], c[2])
    assert made["outcome"] == "regression" and made["confirmed"]
    assert made["culprit"]["commit"] == c[2] and made["culprit"]["pr"] == 12
    assert made["culprit"]["probes"] == []
    assert store.read(store.path_of(pages)) == [made]


def test_confirm_bad_input_exits_2_and_writes_nothing(tmp_path: Path, capsys) -> None:
    history = history_with(tmp_path / "pages", [change("rust/g/a", RUNNER, 3)])
    path = store.path_of(history)
    path.write_text('{"schema": "benchtrack.confirmations/1", "checks": [{"event": 1}]}')
    before = path.read_bytes()
    assert main(["confirm", str(history), "--runner", RUNNER]) == 2
    err = capsys.readouterr().err
    assert "confirmations.json" in err and "checks[0].event" in err and "Traceback" not in err
    assert path.read_bytes() == before
    (history / "bench" / "changes.json").write_text('{"schema": "x"}')
    assert main(["confirm", str(history), "--runner", RUNNER]) == 2
    assert "events" in capsys.readouterr().err
    assert main(["confirm", "--runner", RUNNER]) == 2  # neither HISTORY nor --publish


def test_confirm_publish_appends_on_gh_pages_and_rebuilds_the_dashboard(
    merged: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # The scheduled job's command: gh-pages read from origin, the check and the dashboard pushed
    # there in one commit, the history's data.js untouched; a second run has nothing to do.
    repo, c = merged
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    pages = tmp_path / "pages"
    runs = [run_entry(i, {"perl/fixture/cube": 1e6, "perl/fixture/square": 1e6}) for i in range(5)]
    for i, run in enumerate(runs):
        run["commit"]["id"] = c[i]
    write_history(pages, {"local-1cpu": runs}, "local-1cpu")
    blip = {**change("perl/fixture/cube", "local-1cpu", 0), "commit": c[3], "base": c[2]}
    doc = {"schema": CHANGES_SCHEMA, "changes": [blip]}
    doc["events"] = events.group([blip], {c[3]: 3})
    (pages / "bench" / "changes.json").write_bytes(orjson.dumps(doc))
    git(repo, "checkout", "-q", "--orphan", "gh-pages")
    git(repo, "rm", "-rq", "--cached", ".")
    git(repo, "--work-tree", str(pages), "add", "bench")
    git(repo, "--work-tree", str(pages), "commit", "-q", "-m", "history")
    git(repo, "push", "-q", "origin", "gh-pages")
    git(repo, "checkout", "-q", "-f", "main")
    git(repo, "branch", "-q", "-D", "gh-pages")
    data_js = git(repo, "rev-parse", "origin/gh-pages:bench/local-1cpu/data.js")
    monkeypatch.chdir(repo)
    argv = ["confirm", "--publish", "--runner", "local-1cpu", "--gate-arg=--rounds=3", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(x["benchmark"], x["outcome"]) for x in out["checks"]] == [
        ("perl/fixture/cube", "noise")
    ]
    git(repo, "fetch", "-q", "origin", "gh-pages")
    shown = git(repo, "show", "origin/gh-pages:bench/confirmations.json")
    assert [x["head"] for x in json.loads(shown)["checks"]] == [c[3]]
    index = git(repo, "show", "origin/gh-pages:dashboard/data/index.js")
    site = json.loads(index.removeprefix("window.BENCHTRACK_INDEX=").rstrip().rstrip(";"))
    assert [(e["benchmark"], e["status"]) for e in site["events"]] == [
        ("perl/fixture/cube", "noise")
    ]
    assert git(repo, "rev-parse", "origin/gh-pages:bench/local-1cpu/data.js") == data_js
    tip = git(repo, "rev-parse", "origin/gh-pages")
    assert main(argv) == 0 and json.loads(capsys.readouterr().out)["checks"] == []
    git(repo, "fetch", "-q", "origin", "gh-pages")
    assert git(repo, "rev-parse", "origin/gh-pages") == tip


def test_a_checks_diagnosis_is_shown_as_plain_text_and_a_bad_one_is_refused_naming_it() -> None:
    """The dashboard's "why" beside a confirmed event: the gate's line without its Markdown; the
    diagnosis read back as the PR comment reads a PR's (it came from a run's gate.json)."""
    diagnosis = {
        "status": "ok",
        "loss": 0.25,
        "kinds": [
            {
                "kind": "syscalls",
                "share": 1.0,
                "syscalls": [{"name": "fsync", "base": 0, "head": 1}],
            }
        ],
    }
    made = check()
    made["rows"] = [{"series": "rust/g/a", "verdict": "regressed", "diagnosis": diagnosis}]
    assert status.why(made, Path("confirmations.json")) == (
        "syscalls: +1 fsync a call (all of this run's wall time a call +25.0%)"
    )
    made["rows"][0]["diagnosis"] = {"status": "ok", "kinds": [{"kind": "luck"}]}
    with pytest.raises(BadInput, match=r"rows\[0\]\.diagnosis.*kinds\[0\]\.kind"):
        status.why(made, Path("confirmations.json"))
    made["rows"][0]["diagnosis"] = None
    assert status.why(made, Path("confirmations.json")) is None


def test_the_dashboard_lists_a_tip_candidate_as_an_event_at_the_tip(tmp_path: Path) -> None:
    """changes.json's `tip` (detect/tip.py) reaches the Regressions list the night it lands: an
    event of its own, marked `tip`, a candidate until confirm checks it; the change points
    beside it stay unmarked. A `tip` that is not a list is refused naming the field."""
    from benchtrack.dashboard import derive, read

    runs = [run_entry(i, {"t/a": 100.0, "t/b": 100.0 if i < 9 else 80.0}) for i in range(10)]
    write_history(tmp_path, {RUNNER: runs})
    stepped = change("t/a", RUNNER, 4)
    at_tip = change("t/b", RUNNER, 9)
    doc = {"schema": CHANGES_SCHEMA, "changes": [stepped], "tip": [at_tip]}
    (tmp_path / "bench" / "changes.json").write_bytes(orjson.dumps(doc))
    with read.open_history(str(tmp_path)) as history:
        index = derive.derive(history).index
    tips = {c["series"]: c.get("tip", False) for c in index["changes"]}
    assert tips == {"t/a": False, "t/b": True}
    got = {e["benchmark"]: (e["status"], e.get("tip", False)) for e in index["events"]}
    assert got == {"t/a": ("candidate", False), "t/b": ("candidate", True)}
    (tmp_path / "bench" / "changes.json").write_bytes(orjson.dumps({**doc, "tip": {}}))
    with pytest.raises(BadInput, match="tip"), read.open_history(str(tmp_path)) as history:
        pass


def test_a_one_cpu_taskset_goes_to_the_gate_as_a_list_not_a_count() -> None:
    """confirm.yml's 1-vCPU size pins CPU 0 (BENCH_TASKSET=0): the gate's --cpus reads "0" as a
    count of none and refused it, exit 2 (the engine test's scheduled run found it)."""
    from benchtrack.commands import flags
    from benchtrack.commands.confirm import gate_cpus

    assert gate_cpus("0") == "0-0" and gate_cpus("0-1") == "0-1" and gate_cpus("0,2") == "0,2"
    assert tuple(flags.cpus(gate_cpus("0")).ids) == (0,)


# --- each A/B builds and runs only the suites that can hold its benchmark ---------------------

# Two suites the Perl fixture's benchmarks are not in, as the repository's Rust and Python gate
# suites are not: were either built or run, its `exit 1` would be a suite failure in gate.json.
OTHERS = """
[bench.suites.rustlike]
adapter = "perl"
raw = "target/bench/raw/other.json"
build = "exit 1"
command = "exit 1"
[[bench.suites.rustlike.gate]]
env = { BENCH_FILTER = "^(streams/|walk/std_sync$)" }
[[bench.suites.rustlike.gate]]
name = "pylike"
env = { BENCH_FILTER = "^python/(sleep/|cpu/sequential$)" }
"""


def test_a_perl_candidates_ab_neither_builds_nor_runs_the_other_suites(
    merged: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, c = merged
    commit(repo, "two more suites (#15)", {"benchtrack.toml": CONFIG + OTHERS})
    step = {**change("perl/fixture/square", "local-1cpu", 0), "commit": c[2], "base": c[1]}
    history = history_with(tmp_path / "pages", [step])
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NO_COLOR", "1")
    out = tmp_path / "out"
    argv = ["confirm", str(history), "--runner", "local-1cpu", "--gate-arg=--rounds=3"]
    assert main([*argv, "--out", str(out)]) == 0
    [check] = store.read(store.path_of(history))
    assert check["confirmed"] and check["culprit"]["commit"] == c[2]
    doc = json.loads((out / "0" / "ab" / "gate.json").read_text())
    assert doc["suites"] == ["fixture"] and doc["suites_left_out"] == ["rustlike", "pylike"]
    assert doc["suite_failures"] == []
    logs = sorted(p.name for p in (repo / "target" / "gate" / "logs").iterdir())
    assert logs and not [n for n in logs if "like" in n]


def test_the_suites_that_can_hold_each_benchmark_of_this_repository() -> None:
    """The repository's own eleven gate suites: a benchmark's A/B keeps its harness's lockstep
    suite that measures it and its counting companion, none of the others."""
    from benchtrack.gate import config, suite_filter
    from benchtrack.gate.confirm import names_filter

    cfg = config.load(Path(__file__).resolve().parents[2] / "benchtrack.toml")
    every = cfg.select(None)
    kept = {
        b: [s.name for s in suite_filter.narrow(every, names_filter([b]))[0]]
        for b in (
            "perl/coro/pool_chan/trivial",
            "rust/streams/async_next",
            "python/cpu/sequential",
            "python/sleep/gather",
            "rust/walk/rayon",
            "rust/fanout/chanchan_uniform/cap[3W]",
        )
    }
    assert kept == {
        "perl/coro/pool_chan/trivial": ["perl", "perl-instructions"],
        "rust/streams/async_next": ["rust", "rust-instructions-streams"],
        "python/cpu/sequential": ["python", "python-instructions"],
        "python/sleep/gather": ["python"],
        "rust/walk/rayon": ["rust-threads-pooled", "rust-instructions"],
        "rust/fanout/chanchan_uniform/cap[3W]": ["rust-threads"],
    }
    # what cannot be told from the configuration keeps every suite: a filter not of exact
    # names, or exact names no suite's own filter finds (the harnesses then say)
    for pattern in ("sleep", "^python/sleep/.*$", "^(?:no/such|names)$"):
        assert suite_filter.narrow(every, pattern) == (every, [])
    assert suite_filter.exact_names("^a|b$") is None
    assert suite_filter.exact_names(r"^(?:a\|b|c\.d)$") == ["a|b", "c.d"]
