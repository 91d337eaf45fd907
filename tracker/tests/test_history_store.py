"""The directory store via the CLI and the API: append-only, no duplicates, bad input refused."""

from __future__ import annotations

import os
from functools import partial

import pytest

from benchtrack.cli import main
from benchtrack.history import format as fmt
from benchtrack.history import new_entries, open_store
from benchtrack.history.append import HistoryShrink, ensure_grows
from benchtrack.history.scan import scan
from benchtrack.lab import synthetic

KEY = "ubuntu-latest-2cpu"


write_run = partial(synthetic.dump_run, benches=30)


def test_one_run_of_all_suites_is_one_entry_per_direction(tmp_path, capsys):
    hist = tmp_path / "history"
    assert main(["append", str(hist), *write_run(tmp_path, 0, 2)]) == 0
    data = fmt.parse((hist / f"bench/{KEY}/data.js").read_bytes(), "d").data
    assert set(data["entries"]) == {KEY, f"{KEY} (smaller is better)"}
    bigger, smaller = data["entries"][KEY], data["entries"][f"{KEY} (smaller is better)"]
    assert len(bigger) == len(smaller) == 1
    assert bigger[0]["tool"] == "customBiggerIsBetter"
    assert smaller[0]["tool"] == "customSmallerIsBetter"
    names = [b["name"] for b in bigger[0]["benches"]]
    assert {n.split("/")[0] for n in names} == {"rust", "python", "perl"}  # suites merged
    assert all(b["unit"] == "KB" for b in smaller[0]["benches"])
    assert "appended" in capsys.readouterr().out


def test_same_commit_twice_is_kept_not_duplicated(tmp_path, capsys):
    hist = tmp_path / "history"
    run = write_run(tmp_path, 0, 2)
    assert main(["append", str(hist), *run]) == 0
    path = hist / f"bench/{KEY}/data.js"
    before = path.read_bytes()
    assert main(["append", str(hist), *run]) == 0
    assert "already recorded" in capsys.readouterr().out
    assert path.read_bytes() == before
    assert main(["append", str(hist), *write_run(tmp_path, 1, 2)]) == 0
    assert main(["validate-history", str(hist)]) == 0
    runner = open_store(hist).read().runners[KEY]
    assert [c.id for c in runner.commits] == [synthetic.commit(i).id for i in (0, 1)]


def test_reader_recovers_value_ci_samples_and_cpus_from_extra(tmp_path):
    hist = tmp_path / "history"
    docs = synthetic.run(3, 4, 30)
    open_store(hist).append(new_entries([(d.suite, d) for d in docs]))
    runner = open_store(hist).read().runners["ubuntu-latest-4cpu"]
    assert (runner.label, runner.cpus) == ("ubuntu-latest", 4)
    for doc in docs:
        for bench in doc.benchmarks:
            series = runner.series[bench.name]
            assert series.direction == bench.direction
            assert series.suite == doc.suite
            point = series.points()[-1]
            assert point.value == bench.value
            assert point.ci == bench.ci
            assert point.samples == len(bench.samples)
            assert point.commit.id == doc.commit.id


def test_corrupt_data_js_is_refused_and_left_untouched(tmp_path, capsys):
    hist = tmp_path / "history"
    assert main(["append", str(hist), *write_run(tmp_path, 0, 2)]) == 0
    path = hist / f"bench/{KEY}/data.js"
    truncated = path.read_bytes()[:-200]
    path.write_bytes(truncated)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    capsys.readouterr()
    assert main(["append", str(hist), *write_run(tmp_path, 1, 2)]) == 2
    err = capsys.readouterr().err
    assert f"bench/{KEY}/data.js: expected valid JSON" in err
    assert "Traceback" not in err
    assert path.read_bytes() == truncated
    assert path.stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in path.parent.iterdir()) == ["data.js"]  # no temp file left
    assert main(["validate-history", str(hist)]) == 2
    assert f"bench/{KEY}/data.js" in capsys.readouterr().err


def test_hand_broken_value_is_refused_naming_the_field(tmp_path, capsys):
    hist = tmp_path / "history"
    assert main(["append", str(hist), *write_run(tmp_path, 0, 2)]) == 0
    path = hist / f"bench/{KEY}/data.js"
    text = path.read_text()
    first_value = text.index('"value": ') + len('"value": ')
    broken = text[:first_value] + '"fast"' + text[text.index(",", first_value) :]
    path.write_text(broken)
    capsys.readouterr()
    assert main(["append", str(hist), *write_run(tmp_path, 1, 2)]) == 2
    err = capsys.readouterr().err
    assert f"bench/{KEY}/data.js: entries.{KEY}[0].benches[0].value: expected a number" in err
    assert path.read_text() == broken


def test_a_directory_that_is_not_a_history_is_refused(tmp_path, capsys):
    run = write_run(tmp_path, 0, 2)
    not_history = tmp_path / "project"
    not_history.mkdir()
    (not_history / "README.md").write_text("hello")
    assert main(["append", str(not_history), *run]) == 2
    assert "a history directory" in capsys.readouterr().err
    assert sorted(p.name for p in not_history.iterdir()) == ["README.md"]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert main(["validate-history", str(a_file)]) == 2
    assert main(["validate-history", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_validate_lists_duplicates_disorder_and_wrong_tools(tmp_path, capsys):
    hist = tmp_path / "history"
    for i in range(3):
        assert main(["append", str(hist), *write_run(tmp_path, i, 2)]) == 0
    path = hist / f"bench/{KEY}/data.js"
    data = fmt.parse(path.read_bytes(), "d", for_write=True).data
    runs = data["entries"][KEY]
    runs.append(dict(runs[0], date=runs[-1]["date"] + 1))  # the same commit again
    runs[1]["date"] = runs[0]["date"] - 3_600_000  # an hour before its predecessor
    runs[2]["tool"] = "cargo"
    path.write_bytes(fmt.dumps(data))
    capsys.readouterr()
    assert main(["validate-history", str(hist)]) == 2
    err = capsys.readouterr().err
    assert f"entries.{KEY}[3].commit.id: duplicate commit" in err
    assert f"entries.{KEY}[1].date: entries out of order" in err
    assert f"entries.{KEY}[2].tool: expected customBiggerIsBetter, got cargo" in err
    assert "3 problem(s)" in err


def test_no_write_may_shrink_the_history(tmp_path):
    synthetic.history(tmp_path, commits=3, benches=10, runners=(2,))
    path = tmp_path / f"bench/{KEY}/data.js"
    before = scan(path.read_bytes(), "d").outline()
    ids, points = before[KEY]
    assert (len(ids), points) == (3, 30)
    ensure_grows(before, {KEY: ([*ids, "new"], points + 10)}, "d")  # growing is fine
    for after in (
        {KEY: (ids[1:], points - 10)},  # the first entry gone
        {KEY: (ids, points - 1)},  # a bench gone
        {KEY: ([ids[0], "other", ids[2]], points)},  # an entry replaced
        {},  # the whole list gone
    ):
        with pytest.raises(HistoryShrink, match="history only grows"):
            ensure_grows(before, after, "d")


def test_append_refuses_bytes_that_would_lose_an_entry(tmp_path, monkeypatch):
    """The written bytes are read back before they replace the file: a splice that drops an
    entry (a bug) is refused with exit 2 and the file keeps every byte."""
    synthetic.history(tmp_path / "h", commits=3, benches=10, runners=(2,))
    path = tmp_path / f"h/bench/{KEY}/data.js"
    original = path.read_bytes()
    real_splice = fmt.splice

    def lossy(raw, *args):
        data = fmt.parse(raw, "d").data
        data["entries"][KEY].pop(0)
        shorter = fmt.dumps(data)  # the pieces, as bytes: ranges would be of the real file
        pieces = real_splice(shorter, *args)
        return [p if isinstance(p, bytes) else shorter[p[0] : p[0] + p[1]] for p in pieces]

    monkeypatch.setattr(fmt, "splice", lossy)
    docs = [(d.suite, d) for d in synthetic.run(3, 2, 10)]
    with pytest.raises(HistoryShrink, match="history only grows"):
        open_store(tmp_path / "h").append(new_entries(docs))
    assert path.read_bytes() == original
    monkeypatch.setattr(fmt, "splice", lambda raw, *args: [b"window.BENCHMARK_DATA = {"])
    with pytest.raises(HistoryShrink, match="do not read back"):
        open_store(tmp_path / "h").append(new_entries(docs))
    assert path.read_bytes() == original


def test_column_cache_serves_only_the_exact_bytes_it_was_built_from(tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("BENCHTRACK_CACHE", str(cache_dir))
    synthetic.history(tmp_path / "h", commits=4, benches=20, runners=(1, 2))
    store = open_store(tmp_path / "h")
    monkeypatch.setenv("BENCHTRACK_CACHE", "off")
    fresh = store.read()
    assert not cache_dir.exists()
    monkeypatch.setenv("BENCHTRACK_CACHE", str(cache_dir))
    for _ in range(2):  # builds the cache, then reads from it
        got = store.read()
        assert len(list(cache_dir.glob("*.npz"))) == 2
        for key, runner in fresh.runners.items():
            other = got.runners[key]
            assert (other.label, other.cpus, other.commits, other.entries) == (
                runner.label,
                runner.cpus,
                runner.commits,
                runner.entries,
            )
            assert list(other.series) == list(runner.series)
            for name, s in runner.series.items():
                assert other.series[name].points() == s.points()
                assert (other.series[name].unit, other.series[name].direction) == (
                    s.unit,
                    s.direction,
                )
    # one more run: the changed file is parsed again, never served from the old cache
    store.append(new_entries([(d.suite, d) for d in synthetic.run(4, 2, 20)]))
    assert len(store.read().runners[KEY].commits) == 5
    # a broken cache file is a miss, not an error
    for path in cache_dir.glob("*.npz"):
        path.write_bytes(b"not a zip")
    assert store.read().runners[KEY].series.keys() == fresh.runners[KEY].series.keys()
