"""`benchtrack detect` end to end on data.js histories: bad inputs, changes.json, the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from benchtrack import detect
from benchtrack.cli import main
from benchtrack.detect.publish import SCHEMA
from benchtrack.detect.series import load_series
from benchtrack.errors import BadInput

RUNNER = "ubuntu-latest-4cpu"


def sha(i: int) -> str:
    return f"{i:08x}" + "ab" * 16


def run_entry(i: int, benches: dict[str, float], *, tool="customBiggerIsBetter", when=None):
    return {
        "commit": {
            "id": sha(i),
            "message": f"change {i}\n\nbody",
            "timestamp": when or f"2026-03-{1 + i // 24:02d}T{i % 24:02d}:00:00Z",
            "url": f"https://github.com/o/r/commit/{sha(i)}",
        },
        "date": 1772323200000 + i * 3600_000,
        "tool": tool,
        "benches": [
            {"name": name, "value": value, "unit": "KB" if "rss" in name else "items/s",
             "range": "± 1", "extra": "runner=ubuntu-latest; cpus=4; samples=5; ci=1..2; suite=x"}
            for name, value in benches.items()
        ],
    }  # fmt: skip


def write_history(root: Path, entries: dict[str, list[dict]], runner: str = RUNNER) -> Path:
    doc = {"lastUpdate": 1, "repoUrl": "https://github.com/o/r", "entries": entries}
    path = root / "bench" / runner / "data.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("window.BENCHMARK_DATA = " + json.dumps(doc, indent=2) + "\n")
    return root


def levels(n: int, step_at: int | None, ratio: float, seed: int, sigma=0.01) -> list[float]:
    v = 1000.0 * np.exp(np.random.default_rng(seed).normal(0, sigma, n))
    if step_at is not None:
        v[step_at:] *= ratio
    return [float(x) for x in v]


def stepped_history(root: Path, n=50, step_at=30) -> Path:
    a = levels(n, step_at, 0.90, 1)  # a 10% throughput loss
    b = levels(n, None, 1.0, 2)  # flat
    runs = [run_entry(i, {"rust/g/a": a[i], "rust/g/b": b[i]}) for i in range(n)]
    return write_history(root, {RUNNER: runs})


def test_finds_the_commit_and_the_levels(tmp_path):
    report = detect.analyse(stepped_history(tmp_path), now="2026-04-01T00:00:00Z")
    [c] = report.changes
    assert (c.series, c.runner, c.commit, c.index) == ("rust/g/a", RUNNER, sha(30), 30)
    assert c.change == pytest.approx(-0.10, abs=0.01) and c.regression
    assert c.url.endswith(sha(30)) and c.message.startswith("change 30")
    assert c.date == "2026-03-02T06:00:00Z" and c.first_seen == "2026-04-01T00:00:00Z"
    assert report.new == report.changes


def test_smaller_is_better_rise_is_a_regression_and_fall_is_not(tmp_path):
    up, down = levels(40, 20, 1.2, 3), levels(40, 20, 0.8, 4)
    big = [run_entry(i, {"rust/g/a": 1000.0 + (i % 3)}) for i in range(40)]
    small = [
        run_entry(i, {"perl/rss/up": up[i], "perl/rss/down": down[i]}, tool="customSmallerIsBetter")
        for i in range(40)
    ]
    root = write_history(tmp_path, {RUNNER: big, f"{RUNNER} (smaller is better)": small})
    got = {c.series: c for c in detect.analyse(root).changes}
    assert set(got) == {"perl/rss/up", "perl/rss/down"}
    assert got["perl/rss/up"].regression and got["perl/rss/up"].direction == "smaller"
    assert not got["perl/rss/down"].regression


def test_benchmark_added_and_removed_mid_history(tmp_path):
    late = levels(40, 20, 0.85, 5)  # exists from run 10 on; its step is at its 20th point
    gone = levels(25, None, 1.0, 6)  # removed after run 24
    runs = []
    for i in range(50):
        benches = {"rust/g/keep": 500.0 + (i % 4)}
        if i >= 10:
            benches["rust/g/late"] = late[i - 10]
        if i < 25:
            benches["rust/g/gone"] = gone[i]
        runs.append(run_entry(i, benches))
    changes = detect.analyse(write_history(tmp_path, {RUNNER: runs})).changes
    assert [(c.series, c.commit, c.index) for c in changes] == [("rust/g/late", sha(30), 20)]


def test_duplicate_commit_keeps_the_later_run(tmp_path):
    a = levels(40, 20, 0.9, 7)
    runs = [run_entry(i, {"rust/g/a": a[i]}) for i in range(40)]
    rerun = run_entry(25, {"rust/g/a": 123.0})
    runs.insert(30, rerun)  # commit 25 appended again later (a re-run of the publish job)
    root = write_history(tmp_path, {RUNNER: runs})
    [s] = load_series(root)
    assert s.duplicates == 1 and len(s.points) == 40
    assert [p.commit for p in s.points].count(sha(25)) == 1
    assert s.points[[p.commit for p in s.points].index(sha(25))].value == 123.0
    report = detect.analyse(root)
    assert any("repeated commits" in note for note in report.notes)


def test_non_monotonic_dates_keep_history_order(tmp_path):
    a = levels(40, 20, 0.9, 8)
    runs = [run_entry(i, {"rust/g/a": a[i]}) for i in range(40)]
    runs[20]["commit"]["timestamp"] = "2025-01-01T00:00:00Z"  # a rebased, older-dated commit
    report = detect.analyse(write_history(tmp_path, {RUNNER: runs}))
    assert [c.commit for c in report.changes] == [sha(20)]
    assert any("dates out of order" in note for note in report.notes)


def test_too_short_series_are_reported_not_judged(tmp_path, capsys):
    runs = [run_entry(i, {"rust/g/a": 100.0 * (1 + i % 2)}) for i in range(5)]
    root = write_history(tmp_path, {RUNNER: runs})
    report = detect.analyse(root)
    assert report.changes == [] and report.skipped[0]["points"] == 5
    assert "too short" in report.skipped[0]["reason"]
    assert main(["detect", str(root), "--markdown", "-"]) == 0
    assert "too short to judge: 5 points" in capsys.readouterr().err


def test_unusable_values_are_dropped(tmp_path):
    a = levels(30, None, 1.0, 9)
    runs = [run_entry(i, {"rust/g/a": a[i]}) for i in range(30)]
    runs[7]["benches"][0]["value"] = 0
    runs[8]["benches"][0]["value"] = -1.5
    [s] = load_series(write_history(tmp_path, {RUNNER: runs}))
    assert s.dropped == 2 and len(s.points) == 28


def test_corrupt_history_is_bad_input(tmp_path, capsys):
    path = tmp_path / "bench" / RUNNER / "data.js"
    path.parent.mkdir(parents=True)
    path.write_text("window.BENCHMARK_DATA = {entries: ")
    with pytest.raises(BadInput):
        detect.analyse(tmp_path)
    assert main(["detect", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "data.js" in err and "Traceback" not in err
    assert main(["detect", str(tmp_path / "nowhere")]) == 2


def test_changes_json_keeps_first_seen_and_tells_what_is_new(tmp_path):
    root = stepped_history(tmp_path)
    first = detect.analyse(root, write=True, now="2026-04-01T00:00:00Z")
    assert len(first.new) == 1
    doc = json.loads((root / "bench" / "changes.json").read_text())
    assert doc["schema"] == SCHEMA and doc["changes"][0]["commit"] == sha(30)
    assert set(doc["changes"][0]) >= {
        "series", "runner", "commit", "date", "message", "url", "index", "before", "after",
        "change", "direction", "regression", "significance", "first_seen",
    }  # fmt: skip

    written = (root / "bench" / "changes.json").read_bytes()
    again = detect.analyse(root, write=True, now="2026-04-02T00:00:00Z")
    assert again.new == [] and again.changes[0].first_seen == "2026-04-01T00:00:00Z"
    # nothing changed: not even `generated` moves, so a publish has nothing to commit
    assert (root / "bench" / "changes.json").read_bytes() == written

    # more history arrives, with a new step in the other series: only that one is new
    data = root / "bench" / RUNNER / "data.js"
    doc = json.loads(data.read_text().split("=", 1)[1])
    a, b = levels(30, None, 1.0, 11), levels(30, 10, 1.15, 12)
    for i in range(30):
        doc["entries"][RUNNER].append(
            run_entry(50 + i, {"rust/g/a": 900 * a[i] / 1000, "rust/g/b": b[i]})
        )
    write_history(root, doc["entries"])
    later = detect.analyse(root, write=True, now="2026-04-03T00:00:00Z")
    assert [(c.series, c.commit) for c in later.new] == [("rust/g/b", sha(60))]
    assert [c.series for c in later.changes] == ["rust/g/b", "rust/g/a"]  # newest first
    assert not later.new[0].regression and later.new[0].first_seen == "2026-04-03T00:00:00Z"
    old = next(c for c in later.changes if c.series == "rust/g/a")
    assert old.first_seen == "2026-04-01T00:00:00Z"


def test_a_step_that_moves_by_a_commit_is_not_new(tmp_path):
    root = stepped_history(tmp_path)
    path = root / "bench" / "changes.json"
    detect.analyse(root, write=True, now="2026-04-01T00:00:00Z")
    doc = json.loads(path.read_text())
    doc["changes"][0]["commit"], doc["changes"][0]["index"] = sha(29), 29  # as if found at 29
    path.write_text(json.dumps(doc))
    report = detect.analyse(root, now="2026-04-02T00:00:00Z")
    assert report.new == [] and report.changes[0].first_seen == "2026-04-01T00:00:00Z"


def test_corrupt_changes_json_stops_the_writer(tmp_path):
    root = stepped_history(tmp_path)
    path = root / "bench" / "changes.json"
    path.write_text("{not json")
    with pytest.raises(BadInput, match=r"changes\.json"):
        detect.analyse(root, write=True)
    assert path.read_text() == "{not json"


def test_cli_json_summary_and_exit_codes(tmp_path, capsys):
    root = stepped_history(tmp_path)
    summary = tmp_path / "summary.md"
    rc = main(["detect", "--history", str(root), "--json", "--summary", str(summary)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"] == SCHEMA and [c["commit"] for c in out["new"]] == [sha(30)]
    md = summary.read_text()
    assert f"[`{sha(30)[:7]}`](https://github.com/o/r/commit/{sha(30)})" in md
    assert "-10." in md and "regression" in md
    assert main(["detect", str(root), "--write", "--fail-on-new-regression"]) == 1
    assert main(["detect", str(root), "--write", "--fail-on-new-regression"]) == 0  # seen now
    assert main(["detect"]) == 2
    with pytest.raises(SystemExit) as usage:  # a percentage: 100% is no step at all
        main(["detect", str(root), "--min-effect", "100"])
    assert usage.value.code == 2


def test_run_returns_all_and_new_for_bench_local(tmp_path):
    root = stepped_history(tmp_path)
    all_changes, new_changes = detect.run(root, write=True)
    assert [c.commit for c in all_changes] == [c.commit for c in new_changes] == [sha(30)]
    assert detect.run(root, write=True)[1] == []
    assert "0 new since the previous run" in detect.markdown(*detect.run(root))


def test_history_on_a_branch_of_this_repository(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    stepped_history(repo)
    ident = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    for k, v in {**ident, "GIT_COMMITTER_EMAIL": "t@x"}.items():
        monkeypatch.setenv(k, v)
    for cmd in (["init", "-q", "-b", "gh-pages"], ["add", "bench"], ["commit", "-qm", "h"]):
        subprocess.run(["git", "-C", str(repo), *cmd], check=True)
    (repo / "bench" / RUNNER / "data.js").unlink()  # only the branch has it now
    monkeypatch.chdir(repo)
    [c] = detect.analyse("gh-pages", out=tmp_path / "changes.json", write=True).changes
    assert c.commit == sha(30)
    assert json.loads((tmp_path / "changes.json").read_text())["changes"][0]["commit"] == sha(30)
    with pytest.raises(BadInput, match="a branch of this repository"):
        detect.analyse("no-such-branch")
