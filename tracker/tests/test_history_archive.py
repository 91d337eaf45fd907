"""Bounded history: `[history.retention]` moves old entries from data.js to archive.js, never
drops one. Real files, a real bare git repository as origin with a gh-pages branch, the CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from benchtrack import detect
from benchtrack.cli import main
from benchtrack.detect.series import load_series
from benchtrack.history import format as fmt
from benchtrack.history import new_entries, open_store
from benchtrack.lab import synthetic

DAY = 86_400_000
EVERY = 8 * 3_600_000  # three runs a day: 600 runs span 200 days
RUNS = 600
RUNNERS = (1, 2, 4)
KEYS = [f"ubuntu-latest-{n}cpu" for n in RUNNERS]
RETENTION = '[history.retention]\nkeep_all_days = 90\nkeep_one_per = "week"\n'


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("BENCHTRACK_CACHE", "off")


SEED = 11  # its python/sleep/threads/0 steps up 40 % at run 139, in what gets archived


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    # 30 benchmarks: 29 bigger-is-better, one peak-RSS metric (a second entry list per runner)
    root = tmp_path_factory.mktemp("template")
    synthetic.history(root, commits=RUNS, benches=30, runners=RUNNERS, seed=SEED, every_ms=EVERY)
    return root


@pytest.fixture
def make_history(template):
    def make(root: Path) -> Path:
        shutil.copytree(template, root)
        return root

    return make


def config(tmp_path: Path, text: str = RETENTION) -> Path:
    path = tmp_path / "benchtrack.toml"
    path.write_text(text)
    return path


def lists(path: Path) -> dict[str, list[tuple[str, int, int]]]:
    """Entry name -> (commit id, date, benches) of each entry of a data.js or archive.js, in
    order; {} when the file does not exist."""
    if not path.is_file():
        return {}
    data = fmt.parse(path.read_bytes(), str(path)).data
    return {
        name: [(e["commit"]["id"], e["date"], len(e["benches"])) for e in runs]
        for name, runs in data["entries"].items()
    }


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.js"))}


def week(date_ms: int) -> tuple[int, int]:
    return datetime.fromtimestamp(date_ms / 1000, tz=UTC).isocalendar()[:2]


def test_prune_moves_old_entries_to_the_archive_and_loses_none(make_history, tmp_path, capsys):
    hist = make_history(tmp_path / "h")
    before = {key: lists(hist / f"bench/{key}/data.js") for key in KEYS}
    series_before = load_series(hist)
    cfg = config(tmp_path)

    assert main(["prune-history", str(hist), "--config", str(cfg), "--dry-run"]) == 0
    assert "would move" in capsys.readouterr().out
    assert not list(hist.rglob("archive.js"))  # a dry run writes nothing

    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert out.count("to archive.js") == len(KEYS)
    for key in KEYS:
        data = lists(hist / f"bench/{key}/data.js")
        archive = lists(hist / f"bench/{key}/archive.js")
        assert set(data) == set(before[key]) == set(archive)  # both directions' lists
        for name, original in before[key].items():
            kept, moved = data[name], archive[name]
            # every entry in exactly one file, in its original order, benches intact
            assert len(kept) + len(moved) == len(original)
            assert sorted(kept + moved) == sorted(original)
            assert [e for e in original if e in kept] == kept
            assert [e for e in original if e in moved] == moved
            newest = max(e[1] for e in original)
            cutoff = newest - 90 * DAY
            assert all(e in kept for e in original if e[1] >= cutoff)  # 90 days in full
            assert all(e[1] < cutoff for e in moved)
            old = [e for e in kept if e[1] < cutoff]
            # before that, the last entry of each ISO week, and only it
            weeks = {week(e[1]) for e in original if e[1] < cutoff}
            assert len(old) == len(weeks - {week(cutoff)})
            for e in old:
                same_week = [o for o in original if week(o[1]) == week(e[1])]
                assert e == same_week[-1]
            assert len(kept) < len(original) / 2  # bounded: 200 days became ~90 + weeks
    assert main(["validate-history", str(hist)]) == 0
    capsys.readouterr()

    # Readers see the whole history: detect's series are the same points as before the prune.
    assert load_series(hist) == series_before
    whole = open_store(hist).read()
    recent = open_store(hist).read(archive=False)
    for key in KEYS:
        total = sum(n for runs in before[key].values() for _, _, n in runs)
        assert sum(len(s) for s in whole.runners[key].series.values()) == total
        assert sum(len(s) for s in recent.runners[key].series.values()) < total / 2
        for s in whole.runners[key].series.values():
            assert np.all(np.diff(s.date) >= 0)

    # A second prune has nothing to do and writes no byte.
    files = snapshot(hist)
    mtimes = {p: p.stat().st_mtime_ns for p in hist.rglob("*.js")}
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    assert "nothing to archive" in capsys.readouterr().out
    assert snapshot(hist) == files
    assert {p: p.stat().st_mtime_ns for p in hist.rglob("*.js")} == mtimes
    assert sorted(p.name for p in (hist / f"bench/{KEYS[0]}").iterdir()) == [
        "archive.js",
        "data.js",
    ]  # no temp file left


def test_appending_after_a_prune_and_pruning_again_keeps_everything(make_history, tmp_path, capsys):
    hist = make_history(tmp_path / "h")
    cfg = config(tmp_path)
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    key = KEYS[1]
    archived = lists(hist / f"bench/{key}/archive.js")[key]
    capsys.readouterr()
    # a commit that lives in the archive is recorded: not appended to data.js again
    oldest = synthetic.dump_run(tmp_path, 0, 2, benches=30)
    assert main(["append", str(hist), *oldest]) == 0
    assert "already recorded" in capsys.readouterr().out
    assert synthetic.commit(0).id == archived[0][0]
    # 60 more days of runs, then a prune moves the next stretch
    data_js, archive_js = hist / f"bench/{key}/data.js", hist / f"bench/{key}/archive.js"
    store = open_store(hist)
    last = max(e[1] for e in lists(data_js)[key])
    for i in range(RUNS, RUNS + 20):
        docs = [(d.suite, d) for d in synthetic.run(i, 2, 30)]
        store.append(new_entries(docs), now_ms=last + (i - RUNS + 1) * 3 * DAY)
    before = lists(data_js)[key] + lists(archive_js)[key]
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    after_data, after_archive = lists(data_js)[key], lists(archive_js)[key]
    assert sorted(after_data + after_archive) == sorted(before)
    assert after_archive[: len(archived)] == archived  # the archive only grows
    assert len(after_archive) > len(archived)
    assert main(["validate-history", str(hist)]) == 0


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[history.retention]\nkeep_all_days = 0\n", "history.retention.keep_all_days"),
        ('[history.retention]\nkeep_all_days = "90"\n', "history.retention.keep_all_days"),
        ("[history.retention]\nkeep_all_days = true\n", "history.retention.keep_all_days"),
        ("[history.retention]\nkeep_one_per = 'week'\n", "history.retention.keep_all_days"),
        (
            '[history.retention]\nkeep_all_days = 90\nkeep_one_per = "fortnight"\n',
            "history.retention.keep_one_per",
        ),
        ("[history.retention]\nkeep_all_days = 90\nkeep = 1\n", "history.retention.keep"),
        ("[history]\nretention = 90\n", "history.retention"),
        ("[history]\nretain = {}\n", "history.retain"),
        ("history = 1\n", "history"),
    ],
)
def test_a_bad_retention_is_exit_2_naming_the_field_with_nothing_written(
    make_history, tmp_path, capsys, text, field
):
    hist = make_history(tmp_path / "h")
    files = snapshot(hist)
    cfg = config(tmp_path, text)
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert f"benchtrack.toml: {field}: expected" in err
    assert "Traceback" not in err
    assert snapshot(hist) == files


def test_without_a_retention_table_nothing_moves(make_history, tmp_path, capsys, monkeypatch):
    hist = make_history(tmp_path / "h")
    files = snapshot(hist)
    monkeypatch.chdir(tmp_path)  # no benchtrack.toml here: the default keeps everything
    assert main(["prune-history", str(hist)]) == 0
    assert "every entry stays in data.js" in capsys.readouterr().out
    config(tmp_path, "[gate]\nthreshold = 0.05\n")  # a config without [history]
    assert main(["prune-history", str(hist), "--json"]) == 0
    assert '"runners": []' in capsys.readouterr().out
    assert snapshot(hist) == files
    assert main(["prune-history", str(hist), "--config", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml: expected a config file" in capsys.readouterr().err


def test_an_unreadable_archive_is_an_error_and_never_started_over(make_history, tmp_path, capsys):
    hist = make_history(tmp_path / "h")
    cfg = config(tmp_path)
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    key = KEYS[0]
    archive = hist / f"bench/{key}/archive.js"
    broken = archive.read_bytes()[:-300]
    archive.write_bytes(broken)
    files = snapshot(hist)
    capsys.readouterr()
    for argv in (
        ["prune-history", str(hist), "--config", str(cfg)],
        ["validate-history", str(hist)],
        ["append", str(hist), *synthetic.dump_run(tmp_path, RUNS, 1, benches=30)],
        ["detect", str(hist)],
        ["site", str(hist), "--out", str(tmp_path / "site")],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"bench/{key}/archive.js: expected valid JSON" in err, argv
        assert "Traceback" not in err
        assert snapshot(hist) == files, argv  # nothing rewritten, nothing reset


def test_a_prune_cut_short_between_its_two_writes_is_finished_by_the_next(
    make_history, tmp_path, capsys
):
    """The archive is written first: a crash before data.js is replaced leaves the moved
    entries in both files. Readers count them once, validation accepts them (they are equal),
    and the next prune only removes them from data.js."""
    hist = make_history(tmp_path / "h")
    cfg = config(tmp_path)
    crashed = tmp_path / "crashed"
    shutil.copytree(hist, crashed)
    assert main(["prune-history", str(hist), "--config", str(cfg)]) == 0
    key = KEYS[2]
    shutil.copy(hist / f"bench/{key}/archive.js", crashed / f"bench/{key}/archive.js")
    series = load_series(hist)
    assert load_series(crashed) == series
    capsys.readouterr()
    assert main(["validate-history", str(crashed)]) == 0
    assert main(["prune-history", str(crashed), "--config", str(cfg)]) == 0
    assert snapshot(crashed) == snapshot(hist)  # the same two files as an uninterrupted prune

    # A twin with other results is not silently resolved.
    data_js = crashed / f"bench/{key}/data.js"
    data = fmt.parse(data_js.read_bytes(), "d", for_write=True).data
    archived = lists(crashed / f"bench/{key}/archive.js")[key]
    twin = dict(data["entries"][key][-1], commit={**data["entries"][key][-1]["commit"]})
    twin["commit"]["id"] = archived[0][0]
    data["entries"][key].append(twin)
    data_js.write_bytes(fmt.dumps(data))
    capsys.readouterr()
    assert main(["validate-history", str(crashed)]) == 2
    assert f"is also in {crashed}/bench/{key}/data.js, with other results" in (
        capsys.readouterr().err
    )


def test_detect_keeps_its_long_view(make_history, tmp_path):
    """Change points found on the whole history are found after pruning too (detect reads the
    archive with data.js), at the same commits."""
    hist = make_history(tmp_path / "h")
    full = tmp_path / "full"
    shutil.copytree(hist, full)
    assert main(["prune-history", str(hist), "--config", str(config(tmp_path))]) == 0
    found = detect.analyse(full, now="2026-08-01T00:00:00Z").changes
    step = synthetic.commit(139).id  # 46 days in: archived on every runner size
    assert {c.runner for c in found if c.commit == step} == set(KEYS)
    assert all(e[0] != step for k in KEYS for e in lists(hist / f"bench/{k}/data.js")[k])
    assert all(any(e[0] == step for e in lists(hist / f"bench/{k}/archive.js")[k]) for k in KEYS)
    pruned = detect.analyse(hist, now="2026-08-01T00:00:00Z").changes
    assert [(c.series, c.runner, c.commit) for c in pruned] == [
        (c.series, c.runner, c.commit) for c in found
    ]


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def test_a_git_branch_is_pruned_in_one_commit_and_a_rerun_pushes_nothing(
    make_history, tmp_path, capsys
):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    pages = make_history(tmp_path / "pages")
    git(pages, "init", "-q", "-b", "gh-pages")
    git(pages, "add", "-A")
    git(pages, "commit", "-q", "-m", "history")
    git(pages, "push", "-q", str(origin), "gh-pages")
    before = {key: lists(pages / f"bench/{key}/data.js") for key in KEYS}
    spec = f"git:{origin}#gh-pages"
    cfg = config(tmp_path)
    tip = git(tmp_path, "--git-dir", str(origin), "rev-parse", "gh-pages")

    assert main(["prune-history", spec, "--config", str(cfg), "--dry-run"]) == 0
    assert git(tmp_path, "--git-dir", str(origin), "rev-parse", "gh-pages") == tip
    assert main(["prune-history", spec, "--config", str(cfg)]) == 0
    log = git(tmp_path, "--git-dir", str(origin), "log", "--format=%s", "gh-pages").splitlines()
    assert len(log) == 2 and log[0].startswith("benchtrack: archive ")
    changed = git(
        tmp_path, "--git-dir", str(origin), "diff", "--name-only", "gh-pages~1", "gh-pages"
    ).split()
    assert sorted(changed) == sorted(
        f"bench/{key}/{name}" for key in KEYS for name in ("archive.js", "data.js")
    )
    check = tmp_path / "check"
    git(tmp_path, "clone", "-q", "-b", "gh-pages", str(origin), str(check))
    for key in KEYS:
        data, archive = (
            lists(check / f"bench/{key}/data.js"),
            lists(check / f"bench/{key}/archive.js"),
        )
        for name, original in before[key].items():
            assert sorted(data[name] + archive[name]) == sorted(original)
            assert not set(data[name]) & set(archive[name])
    assert main(["validate-history", spec]) == 0

    tip = git(tmp_path, "--git-dir", str(origin), "rev-parse", "gh-pages")
    capsys.readouterr()
    assert main(["prune-history", spec, "--config", str(cfg), "--json"]) == 0
    assert '"runners": []' in capsys.readouterr().out
    assert git(tmp_path, "--git-dir", str(origin), "rev-parse", "gh-pages") == tip  # no commit


def test_bytes_that_would_lose_an_entry_are_refused_before_they_replace_a_file(
    make_history, tmp_path, monkeypatch
):
    """Each staged file is read back before it replaces the old one. Bytes that lose an entry
    (a serialiser bug) are refused: for the archive, nothing changes; for data.js, written
    after the archive, the moved entries are then in both files, never in neither, and the
    next prune finishes the move."""
    from benchtrack.history import archive as arc
    from benchtrack.history.append import HistoryShrink
    from benchtrack.history.retention import Retention

    hist = make_history(tmp_path / "h")
    original = make_history(tmp_path / "original")
    files = snapshot(hist)
    retention = Retention(90, "week")
    real_dumps = fmt.dumps

    def lossy(data):  # the document with one entry fewer than it was given
        data = {**data, "entries": {k: v[:-1] for k, v in data["entries"].items()}}
        return real_dumps(data)

    monkeypatch.setattr(arc.fmt, "dumps", lossy)  # the archive is new: written whole
    with pytest.raises(HistoryShrink, match="did not land as planned"):
        open_store(hist).prune(retention)
    assert snapshot(hist) == files
    assert sorted(p.name for p in (hist / f"bench/{KEYS[0]}").iterdir()) == ["data.js"]

    calls = []

    def lossy_data_js(data):  # the archive (written first) whole, data.js short of an entry
        calls.append(data)
        return real_dumps(data) if len(calls) % 2 == 1 else lossy(data)

    monkeypatch.setattr(arc.fmt, "dumps", lossy_data_js)
    with pytest.raises(HistoryShrink, match="did not land as planned"):
        open_store(hist).prune(retention)
    key = KEYS[0]
    data, archive = lists(hist / f"bench/{key}/data.js"), lists(hist / f"bench/{key}/archive.js")
    assert (hist / f"bench/{key}/data.js").read_bytes() == files[f"bench/{key}/data.js"]
    assert set(archive[key]) <= set(data[key])  # the moved entries are in both files
    monkeypatch.setattr(arc.fmt, "dumps", real_dumps)
    assert load_series(hist) == load_series(original)  # readers count them once
    open_store(hist).prune(retention)
    data = lists(hist / f"bench/{key}/data.js")
    assert not set(archive[key]) & set(data[key])
    assert main(["validate-history", str(hist)]) == 0
