"""`benchtrack site` without a browser: builds are a function of the history (byte-identical when
rebuilt), and a git history is read through the git store's public checkout()."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from benchtrack import cli
from benchtrack.history import GitStore, open_store
from benchtrack.lab import synthetic


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _history(root: Path) -> Path:
    synthetic.history(root, commits=30, benches=6, runners=(1, 2))
    runner = next(iter(open_store(str(root)).read().runners.values()))
    change = {
        "series": next(iter(runner.series)),
        "runner": runner.key,
        "commit": runner.commits[20].id,
        "change": -0.2,
        "direction": "bigger",
        "regression": True,
        "first_seen": "2026-11-21T10:00:00Z",
    }
    doc = {"schema": "benchtrack.changes/1", "generated": "2026-11-21T10:00:00Z"}
    (root / "bench" / "changes.json").write_bytes(orjson.dumps({**doc, "changes": [change]}))
    return root


def _index(site: Path) -> dict:
    text = (site / "dashboard/data/index.js").read_bytes()
    return orjson.loads(text.removeprefix(b"window.BENCHTRACK_INDEX=").rstrip().rstrip(b";"))


def test_rebuilding_an_unchanged_history_writes_the_same_bytes(tmp_path: Path) -> None:
    history = _history(tmp_path / "h")
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli.main(["site", str(history), "--out", str(a)]) == 0
    first = _tree(a)
    assert cli.main(["site", str(history), "--out", str(a)]) == 0  # again, in place
    assert cli.main(["site", str(history), "--out", str(b)]) == 0  # and somewhere else
    assert "dashboard/data/index.js" in first and "bench/changes.json" in first
    assert _tree(a) == first
    assert _tree(b) == first
    # the index carries no wall-clock stamp, only what the history says
    index = _index(a)
    assert "generated" not in index
    assert index["lastUpdate"] > 0
    # built into the history itself, twice: the same bytes too (and data.js untouched)
    before = _tree(history)
    assert cli.main(["site", str(history)]) == 0
    once = _tree(history)
    assert cli.main(["site", str(history)]) == 0
    assert _tree(history) == once
    assert {k: v for k, v in once.items() if k in before} == before


def test_a_build_over_an_older_site_drops_the_code_the_source_no_longer_has(
    tmp_path: Path,
) -> None:
    history = _history(tmp_path / "h")
    fresh, old = tmp_path / "fresh", tmp_path / "old"
    assert cli.main(["site", str(history), "--out", str(fresh)]) == 0
    assert cli.main(["site", str(history), "--out", str(old)]) == 0
    # what a build before the split of the dashboard's code into js/ left behind
    (old / "dashboard/app.js").write_bytes(b"(function () {})();\n")
    (old / "dashboard/js/gone.js").write_bytes(b"(function () {})();\n")
    kept = {"notes.txt": b"not the dashboard's\n", "dashboard/data/g/x.json": b"{}\n"}
    for rel, data in kept.items():
        (old / rel).write_bytes(data)
    assert cli.main(["site", str(history), "--out", str(old)]) == 0
    assert _tree(old) == {**_tree(fresh), **kept}


def _git_history(tmp_path: Path) -> Path:
    repo = _history(tmp_path / "remote")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "gh-pages"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "history"], check=True)
    return repo


def test_git_store_checkout_is_public_and_temporary(tmp_path: Path) -> None:
    repo = _git_history(tmp_path)
    store = GitStore(repo.as_uri(), "gh-pages")
    with store.checkout() as work:
        assert work is not None
        assert (work / "bench/changes.json").read_bytes() == (
            repo / "bench/changes.json"
        ).read_bytes()
        keys = sorted(p.parent.name for p in work.glob("bench/*/data.js"))
        assert keys == sorted(store.read().runners)
    assert not work.exists()  # removed when the context ends
    with GitStore(repo.as_uri(), "no-such-branch").checkout() as missing:
        assert missing is None


def test_site_of_a_git_history_equals_the_site_of_its_directory(tmp_path: Path) -> None:
    repo = _git_history(tmp_path)
    from_git, from_dir = tmp_path / "g", tmp_path / "d"
    assert cli.main(["site", f"git:{repo.as_uri()}#gh-pages", "--out", str(from_git)]) == 0
    assert cli.main(["site", str(repo), "--out", str(from_dir)]) == 0
    assert _tree(from_git) == _tree(from_dir)
    index = _index(from_git)
    # detect's time, the runs it needs per series (2 x min_segment), the series here and skipped
    assert index["detect"] == {
        "generated": "2026-11-21T10:00:00Z",
        "min_points": 8,
        "series": 12,
        "skipped": 0,
    }
    assert [(c["i"], c["new"]) for c in index["changes"]] == [(20, True)]


def test_index_carries_both_runs_of_a_cards_change_with_their_spreads(tmp_path: Path) -> None:
    """A card judges its change (latest vs previous run) against both runs' ± half-widths, from
    the index alone: `last` is [commit index, value, half-width, previous value, its half-width],
    each the history's own (values to 6 digits, half-widths to 3)."""
    history = _history(tmp_path / "h")
    assert cli.main(["site", str(history), "--out", str(tmp_path / "s")]) == 0
    index = _index(tmp_path / "s")
    model = open_store(str(history)).read()
    position = {c: i for i, c in enumerate(index["commits"]["id"])}
    checked = 0
    for suite in index["suites"]:
        for group in suite["groups"]:
            for bench in group["benches"]:
                for key, last in bench["last"].items():
                    series = model.runners[key].series[bench["name"]]
                    commits = [series.commits[c].id for c in series.commit_index[-2:]]
                    value, spread = series.value[-2:], series.spread[-2:]
                    assert last[0] == position[commits[-1]]
                    assert last[1] == pytest.approx(value[-1], rel=1e-5)
                    assert last[2] == pytest.approx(abs(spread[-1]), rel=1e-2)
                    assert last[3] == pytest.approx(value[-2], rel=1e-5)
                    assert last[4] == pytest.approx(abs(spread[-2]), rel=1e-2)
                    assert spread[-2] > 0 and spread[-2] != spread[-1]  # a real, distinct range
                    checked += 1
    assert checked == 6 * 2


def test_suites_follow_the_declared_order_then_the_alphabet(tmp_path: Path, monkeypatch) -> None:
    """The dashboard lists suites in benchtrack.toml's [bench.suites] order (read from the
    current directory), the undeclared ones after them alphabetically; no file: alphabetically."""
    history = _history(tmp_path / "h")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["site", str(history), "--out", "plain"]) == 0
    assert [s["name"] for s in _index(tmp_path / "plain")["suites"]] == ["perl", "python", "rust"]
    table = '[bench.suites.{}]\nadapter = "bmf"\ncommand = "true"\nraw = "r"\n'
    (tmp_path / "benchtrack.toml").write_text(table.format("rust") + table.format("go"))
    assert cli.main(["site", str(history), "--out", "ordered"]) == 0
    assert [s["name"] for s in _index(tmp_path / "ordered")["suites"]] == ["rust", "perl", "python"]


def _archive(site: Path) -> dict:
    text = (site / "dashboard/data/archive/index.js").read_bytes()
    return orjson.loads(text.removeprefix(b"window.BENCHTRACK_ARCHIVE=").rstrip().rstrip(b";"))


def _payload(path: Path) -> tuple[str, dict]:
    """(store key, series) of a group file: `(window.BENCHTRACK_DATA=…)["key"]={…};`."""
    text = path.read_text()
    key, _, body = text.partition("]=")
    return orjson.loads(key[key.index("[") + 1 :]), orjson.loads(body.rstrip().rstrip(";"))


def test_archived_points_are_separate_files_over_the_whole_history(tmp_path: Path) -> None:
    """After a prune, the index and data/g/ draw data.js alone; data/archive/ has the whole
    history's commits, where each of the index's commits sits among them, and every point of
    data.js and archive.js per group; rebuilding writes the same bytes; without the archive the
    site has no data/archive/ left."""
    history = tmp_path / "h"
    synthetic.history(history, commits=200, benches=6, runners=(1, 2), every_ms=86_400_000)
    config = tmp_path / "benchtrack.toml"
    config.write_text('[history.retention]\nkeep_all_days = 30\nkeep_one_per = "month"\n')
    assert cli.main(["prune-history", str(history), "--config", str(config)]) == 0
    site = tmp_path / "s"
    assert cli.main(["site", str(history), "--out", str(site)]) == 0
    index, archive = _index(site), _archive(site)
    recent = open_store(str(history)).read(archive=False)
    whole = open_store(str(history)).read()
    assert len(index["commits"]["id"]) == len(recent.runners["ubuntu-latest-1cpu"].commits) < 50
    assert len(archive["commits"]["id"]) == 200
    assert index["archive"] == {
        "index": "data/archive/index.js",
        "commits": 200 - len(index["commits"]["id"]),
        "points": sum(len(s) for r in whole.runners.values() for s in r.series.values())
        - sum(len(s) for r in recent.runners.values() for s in r.series.values()),
        "first": archive["commits"]["t"][0],
        "changes": 0,  # no change points in this history's archived part
    }
    assert all(r["archive"] == f"bench/{r['key']}/archive.js" for r in index["runners"])
    # every commit of the index keeps its identity at its place in the whole table
    assert [archive["commits"]["id"][i] for i in archive["recent"]] == index["commits"]["id"]
    assert archive["recent"] == sorted(archive["recent"])
    # every group's archive file: every point of the whole history, under its own store key
    for suite in index["suites"]:
        for group in suite["groups"]:
            names = archive["groups"][group["key"]]
            key, series = _payload(site / "dashboard/data/archive/g" / names["file"])
            assert key == group["key"] + "#archive"
            for bench in group["benches"]:
                for runner in bench["runners"]:
                    deltas = series[bench["name"]][runner][0]
                    assert len(deltas) == len(whole.runners[runner].series[bench["name"]])
    assert (site / "bench/ubuntu-latest-2cpu/archive.js").read_bytes() == (
        history / "bench/ubuntu-latest-2cpu/archive.js"
    ).read_bytes()
    built = _tree(site)
    assert cli.main(["site", str(history), "--out", str(site)]) == 0
    assert _tree(site) == built
    # the history without its archive (say, restored from before the prune): no archive files
    for path in history.glob("bench/*/archive.js"):
        path.unlink()
    fresh = tmp_path / "fresh"
    assert cli.main(["site", str(history), "--out", str(fresh)]) == 0
    for path in site.glob("bench/*/archive.js"):
        path.unlink()
    assert cli.main(["site", str(history), "--out", str(site)]) == 0
    assert _index(site)["archive"] is None
    assert not list((site / "dashboard/data").rglob("archive/**/*.js"))
    assert {k: v for k, v in _tree(site).items() if not k.startswith("bench/")} == {
        k: v for k, v in _tree(fresh).items() if not k.startswith("bench/")
    }
