"""The gate's diagnosis hook (gate/diagnose/run.py) on constructed outcomes: which rows it
diagnoses, what it says when it cannot run one (no step worker, the budget spent), a peak-RSS
series diagnosed from its own figures, and gate.json's shape. No process is started here: every
case below is one the hook must answer without running anything (the runs themselves:
test_diagnose_measure.py, test_diagnose_gate.py)."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_selftest import BASE, HEAD, PATCHES_FILE, SLOWS, caught

from benchtrack.errors import BadInput
from benchtrack.gate.diagnose import classify, run
from benchtrack.gate.diagnose.evidence import Evidence
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.gate.worktree import Checkout
from benchtrack.selftest import check, patches
from benchtrack.selftest import report as selftest_report
from benchtrack.suites import Suite

REPO = Path(__file__).resolve().parents[2]
STEPPED = Suite("py", "bash step.sh", "lockstep", "")
WHOLE = Suite("perl-rss", "bench", "perl", "raw.json")


def row(name, verdict="regressed", change=-0.3, lo=-0.4, hi=-0.2, suite="py", **kw) -> Row:
    defaults = dict(unit="calls/s", direction="bigger", base=100.0, head=100.0 * (1 + change))
    return Row(name=name, suite=suite, change=change, lo=lo, hi=hi, verdict=verdict,
               threshold=0.05, rounds=5, **{**defaults, **kw})  # fmt: skip


def outcome(*rows: Row) -> Outcome:
    return Outcome(list(rows), [], [], {"base": {}, "head": {}}, [], 0.01, [5])


def sides(tmp_path: Path) -> tuple[Checkout, Checkout]:
    return tuple(Checkout(s, s, "0" * 40, "", tmp_path / s, tmp_path / "cache" / s)
                 for s in ("base", "head"))  # type: ignore[return-value]  # fmt: skip


GATED = outcome(
    row("a/unchanged", verdict="unchanged", change=0.0, lo=-0.01, hi=0.01),
    row("a/small", verdict="inconclusive", change=-0.03, lo=-0.05, hi=-0.01),  # a smaller loss
    row("a/big"),
    row("a/big (instructions)", suite="py-count", unit="instructions/call", direction="smaller",
        change=0.2, lo=0.19, hi=0.21),
    row("a/tiny", verdict="inconclusive", change=-0.01, lo=-0.03, hi=0.01),  # under δ/2
    row("perl/rss/leak", suite="perl-rss", unit="KiB", direction="smaller", base=10_240.0,
        head=16_589.0, change=0.62, lo=0.6, hi=0.64),
)  # fmt: skip


def test_only_regressed_and_smaller_losses_are_diagnosed_largest_first():
    assert list(run.losing(GATED)) == ["perl/rss/leak", "a/big", "a/small"]  # its loss: 1 - 1/1.62
    assert [r.name for r in run.losing(GATED)["a/big"]] == ["a/big", "a/big (instructions)"]
    assert run.losing(outcome(GATED.rows[0], GATED.rows[4])) == {}


def test_what_cannot_run_says_why_and_runs_nothing(tmp_path):
    said: list[str] = []
    runs = run.measure_all(
        GATED, Rounds(), [WHOLE], sides(tmp_path), {}, None, tmp_path, said.append
    )
    assert runs.found == {
        "a/big": "not run: its suite does not step it (lockstep), so it cannot run alone",
        "a/small": "not run: its suite does not step it (lockstep), so it cannot run alone",
    }  # perl/rss/leak: its own figures, no run
    assert said == []
    runs = run.measure_all(GATED, Rounds(), [STEPPED], sides(tmp_path), {}, None, tmp_path,
                           said.append, budget=5.0)  # fmt: skip
    assert runs.found["a/big"] == "not run: the diagnoses' budget (5 s) is spent"
    assert said == [] and not (tmp_path / "diagnose").exists()


def evidence(wall: float, user: float) -> Evidence:
    return Evidence(calls=100, wall=wall, user=user, system=0.0, queued=0.0, voluntary=0.0,
                    involuntary=0.0, minor=0.0, major=0.0, rss_growth=0.0, peak=2**26,
                    busy_threads=1, syscalls={})  # fmt: skip


def test_attach_puts_each_benchmarks_diagnosis_on_its_losing_rows():
    doc = GATED.to_dict()
    doc["functions"] = {
        "a/big (instructions)": {
            "source": "lines",
            "unit": "Python lines",
            "functions": [{"function": "sigma", "base": 1, "head": 2, "share": 0.2}],
        }
    }
    runs = run.Runs({"a/big": {"base": evidence(1e-3, 1e-3), "head": evidence(1.4e-3, 1.4e-3)},
                     "a/small": "failed: the head side's worker timed out"}, 12.34)  # fmt: skip
    run.attach(doc, runs, GATED)
    rows = {r["name"]: r for r in doc["benchmarks"]}
    big = rows["a/big"]["diagnosis"]
    assert big["status"] == "ok" and [k["kind"] for k in big["kinds"]] == ["work"]
    work = big["kinds"][0]
    assert work["instructions"] == pytest.approx(0.2)
    assert work["functions"] == [{"function": "sigma", "share": 0.2}]
    assert rows["a/big (instructions)"]["diagnosis"] == big
    assert big["sides"]["head"]["wall"] == pytest.approx(1.4e-3)
    assert rows["a/small"]["diagnosis"] == {
        "status": "failed",
        "reason": "the head side's worker timed out",
    }
    rss = rows["perl/rss/leak"]["diagnosis"]
    assert rss["kinds"] == [{"kind": "memory", "share": None, "peak": pytest.approx(6349 * 1024),
                             "peak_growth": pytest.approx(0.62, abs=1e-3)}]  # fmt: skip
    assert "diagnosis" not in rows["a/unchanged"] and "diagnosis" not in rows["a/tiny"]
    assert doc["diagnosis_seconds"] == 12.3
    assert sorted(run.entries(doc)) == ["a/big", "a/big (instructions)", "a/small", "perl/rss/leak"]


def test_a_pr_with_nothing_lost_gets_nothing():
    quiet = outcome(GATED.rows[0], GATED.rows[4])
    doc = quiet.to_dict()
    run.attach(doc, run.Runs(), quiet)
    assert doc == quiet.to_dict()


def test_the_self_tests_slowdowns_declare_a_kind_the_diagnosis_knows(tmp_path):
    """selftest-patches.toml's `diagnosis` (tracker/bench/diagnose_selftest.py checks the
    diagnosis against it): one of classify's kinds, every wait slowdown has one, and a kind the
    diagnosis does not know is exit 2 naming the field."""
    assert patches.DIAGNOSES == classify.KINDS
    found = patches.load(REPO / "tracker" / "bench" / "selftest-patches.toml")
    waits = [s for p in found["wait"] for s in p.slows]
    assert waits and all(s.diagnosis in classify.KINDS for s in waits), waits
    f = tmp_path / "p.toml"
    f.write_text(PATCHES_FILE.replace("loss = 0.10 }", 'loss = 0.10, diagnosis = "gremlins" }'))
    with pytest.raises(BadInput) as raised:
        patches.load(f)
    assert (raised.value.field, raised.value.exit_code) == ("work[0].slows[0].diagnosis", 2)
    f.write_text(PATCHES_FILE.replace("loss = 0.10 }", 'loss = 0.10, diagnosis = "work" }'))
    assert patches.load(f)["work"][0].slows[0].diagnosis == "work"


def test_a_diagnosis_that_breaks_is_reported_never_raised(tmp_path):
    """The verdict is the gate's; a diagnosis that cannot even start its workers (here: its log
    directory is a file) is "failed", with why."""
    logs = tmp_path / "logs"
    logs.write_text("not a directory")
    runs = run.measure_all(outcome(row("a/big")), Rounds(), [STEPPED], sides(tmp_path), {}, None,
                           logs, lambda _: None)  # fmt: skip
    assert runs.found["a/big"].startswith("failed: NotADirectoryError"), runs.found


def test_the_self_test_reports_the_diagnosis_beside_the_declared_kind(tmp_path):
    """gate-selftest shows what the diagnosis named for each slowed benchmark against what its
    patch declares, and counts them; the verdicts alone decide its pass."""
    rows = caught()
    doc = Outcome(rows, [], [], {"base": {}, "head": {}}, [], 0.01, [6])
    doc.meta = {"base": {"ref": BASE, "sha": BASE}, "head": {"ref": HEAD, "sha": HEAD},
                "rounds": 6, "seconds": 300.0, "threshold": 0.05, "n_looks": 3}  # fmt: skip
    data = doc.to_dict()
    for r in data["benchmarks"]:
        if r["name"] == "python/sleep/sequential":
            r["diagnosis"] = {"status": "ok", "kinds": [{"kind": "waiting", "share": 0.9,
                              "off_cpu": 0.001, "voluntary": 1.0}]}  # fmt: skip
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(data))
    slows = [replace(s, diagnosis="waiting") if s.glob == "python/sleep/sequential" else s
             for s in SLOWS]  # fmt: skip
    slows = [replace(s, diagnosis="work") if s.glob == "python/sleep/gather" else s for s in slows]
    result = check.judge(check.load(path, BASE, HEAD), slows, restricted=False, gate_exit=1,
                         base=BASE, head=HEAD)  # fmt: skip
    by_key = {line.benchmark: line for line in result.lines}
    assert (
        by_key["python/sleep/sequential"].diagnosed,
        by_key["python/sleep/sequential"].declared,
    ) == ("waiting", "waiting")
    assert (by_key["python/sleep/gather"].diagnosed, by_key["python/sleep/gather"].declared) == (
        "",
        "work",
    )
    assert result.passed  # the diagnosis is shown, not judged
    md = selftest_report.markdown(result)
    assert "the diagnosis named 1 of 2 as declared" in md
    assert "diagnosed waiting (declared waiting)" in md and "diagnosed — (declared work)" in md


def test_the_held_out_set_declares_a_kind_and_a_syscall_for_each_slowdown(tmp_path):
    """tracker/bench/diagnose-heldout.toml (the diagnosis's held-out set): at least a lock, a
    leak, a pool size, a syscall and a blocking call, in Python and Perl, each declaring the kind
    to name first; `names` and `also` are checked as the rest of the file (exit 2 naming them)."""
    found = patches.load(REPO / "tracker" / "bench" / "diagnose-heldout.toml")
    slows = [s for p in found["wait"] for s in p.slows]
    assert all(s.diagnosis in classify.KINDS for s in slows), slows
    assert {s.glob.split("/")[0] for s in slows} >= {"python", "perl"}
    said = " ".join(s.wait for s in slows)
    assert all(w in said for w in ("lock", "leak", "pool", "stat", "fadvise", "blocking")), said
    assert all(s.names for s in slows if s.diagnosis in ("waiting", "syscalls")), slows
    bad = {
        'also = ["work"]': "work[0].slows[0].also[0]",  # the declared kind itself
        'also = ["gremlins"]': "work[0].slows[0].also[0]",
        "names = [1]": "work[0].slows[0].names[0]",
        'names = "fsync"': "work[0].slows[0].names",
    }
    f = tmp_path / "p.toml"
    for extra, field in bad.items():
        declared = f'loss = 0.10, diagnosis = "work", {extra} }}'
        f.write_text(PATCHES_FILE.replace("loss = 0.10 }", declared))
        with pytest.raises(BadInput) as raised:
            patches.load(f)
        assert (raised.value.field, raised.value.exit_code) == (field, 2), extra
    f.write_text(PATCHES_FILE.replace("loss = 0.10 }", 'loss = 0.10, names = ["fsync"] }'))
    with pytest.raises(BadInput) as raised:
        patches.load(f)
    assert raised.value.field == "work[0].slows[0].diagnosis"


@pytest.mark.parametrize(
    ("name", "languages", "earlier"),
    [
        ("diagnose-heldout2.toml", {"python", "perl", "rust"},
         ("diagnose-heldout.toml", "selftest-patches.toml")),
        ("diagnose-heldout3.toml", {"python", "perl"},
         ("diagnose-heldout.toml", "diagnose-heldout2.toml", "selftest-patches.toml")),
        ("diagnose-heldout4.toml", {"python", "perl"},
         ("diagnose-heldout.toml", "diagnose-heldout2.toml", "diagnose-heldout3.toml",
          "selftest-patches.toml")),
        ("diagnose-heldout5.toml", {"python", "perl"},
         ("diagnose-heldout.toml", "diagnose-heldout2.toml", "diagnose-heldout3.toml",
          "diagnose-heldout4.toml", "selftest-patches.toml")),
        ("diagnose-heldout6.toml", {"python", "perl"},
         ("diagnose-heldout.toml", "diagnose-heldout2.toml", "diagnose-heldout3.toml",
          "diagnose-heldout4.toml", "diagnose-heldout5.toml", "selftest-patches.toml")),
    ],
)  # fmt: skip
def test_a_later_held_out_set_has_new_changes_of_the_issues_kinds(name, languages, earlier):
    """tracker/bench/diagnose-heldout2.toml to -heldout6.toml (each the held-out
    figure once the sets before it became tuning data): a lock, a leak, a pool size, a syscall
    and a blocking call in two languages or more, each benchmark listed once with the kind to
    name first and, where the kind's evidence is a syscall, the syscall; no change of it is one
    of an earlier set's or the self-test's (no hunk's text in common)."""
    bench = REPO / "tracker" / "bench"
    found = patches.load(bench / name)
    slows = [s for p in found["wait"] for s in p.slows]
    assert all(s.diagnosis in classify.KINDS for s in slows), slows
    assert {s.glob.split("/")[0] for s in slows} >= languages
    said = " ".join(s.wait for s in slows)
    assert all(w in said for w in ("lock", "leak", "pool", "blocking")), said
    assert {"waiting", "syscalls", "memory"} <= {s.diagnosis for s in slows}
    assert all(s.names for s in slows if s.diagnosis in ("waiting", "syscalls")), slows
    assert len({s.glob for s in slows}) == len(slows), slows

    def hunks(name: str) -> set[str]:
        return {t for ps in patches.load(bench / name).values() for p in ps for h in p.hunks
                for t in h}  # fmt: skip

    new = {new for p in found["wait"] for _, new in p.hunks}
    assert not new & set().union(*(hunks(e) for e in earlier))


def selftest_script():
    """tracker/bench/diagnose_selftest.py as a module (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location(
        "diagnose_selftest", REPO / "tracker" / "bench" / "diagnose_selftest.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_measurement_scores_kind_names_and_false_kinds():
    """diagnose_selftest.score: the first kind against the declared one, a declared syscall
    named anywhere in the line, and every other kind named that the change does not cause."""
    script = selftest_script()
    slow = patches.Slow("a/b", 0.1, "a stat", diagnosis="syscalls",
                        names=("newfstatat", "statx"), also=("waiting",))  # fmt: skip
    entry = {"status": "ok", "kinds": [
        {"kind": "syscalls", "syscalls": [{"name": "statx", "base": 0.0, "head": 1.0}]},
        {"kind": "waiting", "syscalls": []},
        {"kind": "work", "functions": [{"function": "f", "share": 0.1}]},
    ]}  # fmt: skip
    got = script.score(slow, entry)
    assert (got["right"], got["names_right"], got["false_kinds"]) == (True, True, ["work"])
    assert got["named_names"] == ["statx", "f"]
    nothing = script.score(slow, {"status": "ok", "kinds": []})
    assert (nothing["named"], nothing["right"], nothing["names_right"]) == ("", False, False)
    unnamed = script.score(replace(slow, names=()), {"status": "failed", "reason": "x"})
    assert unnamed["names_right"] is None and unnamed["false_kinds"] == []


@pytest.mark.parametrize(
    ("recording", "right", "names_right", "false_kinds"),
    [
        ("diagnose-heldout6-r1.json", 6, 5, 0),
        ("diagnose-heldout6-r2.json", 6, 5, 0),
        ("diagnose-heldout6-r3.json", 6, 5, 0),
        ("diagnose-heldout5-r1.json", 4, 3, 0),
        ("diagnose-heldout5-r2.json", 4, 3, 0),
        ("diagnose-heldout5-r3.json", 4, 3, 0),
        ("diagnose-heldout4-r1.json", 8, 5, 0),
        ("diagnose-heldout4-r2.json", 8, 5, 0),
        ("diagnose-heldout4-r3.json", 7, 4, 0),
        ("diagnose-selftest-all-s1.json", 20, 3, 1),
        ("diagnose-selftest-all-s2.json", 21, 3, 0),
    ],
)
def test_the_recorded_runs_scored_under_todays_rules(recording, right, names_right, false_kinds):
    """The shipped runs of the fourth, fifth and sixth held-out sets and of the self-test, their
    recorded evidence classified by today's rules and scored against their patches files (what
    `diagnose_selftest.py --reclassify` does): kind first, syscall named and false kinds as
    DIAGNOSE.md states them. No false kind on any of the three held-out sets (the fourth's four
    "more work" named second went at 95ab240); the self-test's one in s1 (tuning data) is
    `rust/fanout/unordered_uniform`; s2 is the self-test run afresh under today's rules."""
    script = selftest_script()
    doc = json.loads((REPO / "tracker" / "bench" / "recordings" / recording).read_text())
    slows = {s.glob: s for ps in patches.load(REPO / doc["patches"]).values() for p in ps
             for s in p.slows}  # fmt: skip
    scored = []
    for b in doc["benchmarks"]:
        entry = b["diagnosis"]
        if entry.get("sides"):
            found = {side: Evidence(**e) for side, e in entry["sides"].items()}
            entry = run.entry(classify.classify(found["base"], found["head"]), found)
        scored.append(script.score(slows[b["benchmark"]], entry))
    assert sum(s["right"] for s in scored) == right
    assert sum(bool(s["names_right"]) for s in scored) == names_right
    assert sum(bool(s["false_kinds"]) for s in scored) == false_kinds
