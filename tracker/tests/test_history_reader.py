"""The fast history reader: ranges decoded here or by worker processes give what a whole-file
decode gives, any valid layout reads the same, and a bad field is still named exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.history import format as fmt
from benchtrack.history import open_store, reader, scan
from benchtrack.history.model import RunnerHistory, finish, reduce_batches
from benchtrack.lab import synthetic

KEY = "ubuntu-latest-2cpu"
COLUMNS = ("commit_index", "date", "value", "spread", "ci_lo", "ci_hi", "samples")


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    monkeypatch.setenv("BENCHTRACK_CACHE", "off")  # every read decodes


def whole(path, key: str) -> RunnerHistory:
    """The reference: one decode of the whole file, every list one batch."""
    raw = path.read_bytes()
    return finish(key, reduce_batches(scan.whole_batches(raw, str(path))))


def cut(raw: bytes, source: str) -> list[scan.Batch]:
    """Every part of a file cut small (100 bytes of JSON a range), decoded."""
    return [
        what if isinstance(what, scan.Batch) else scan.decode_range(raw, source, name, *what)
        for name, what in scan.parts(raw, source, 100)
    ]


def assert_same(got: RunnerHistory, want: RunnerHistory) -> None:
    assert (got.key, got.label, got.cpus, got.entries) == (
        want.key,
        want.label,
        want.cpus,
        want.entries,
    )
    assert got.commits == want.commits
    assert list(got.series) == list(want.series)  # sorted by name
    for name, s in want.series.items():
        g = got.series[name]
        assert (g.unit, g.direction, g.suite) == (s.unit, s.direction, s.suite), name
        for column in COLUMNS:
            np.testing.assert_array_equal(getattr(g, column), getattr(s, column), err_msg=name)


@pytest.mark.parametrize("parallel", [False, True])
def test_ranges_read_here_or_by_workers_equal_a_whole_file_decode(tmp_path, monkeypatch, parallel):
    synthetic.history(tmp_path, commits=40, benches=30, runners=(1, 2))
    monkeypatch.setattr(reader, "RANGE_BYTES", 3000)  # a few entries per range: many ranges
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0 if parallel else 1 << 40)
    pools = []
    if parallel:
        monkeypatch.setattr(reader._Workers, "__init__", _two_workers)

        class Pool(reader.ProcessPoolExecutor):
            def submit(self, fn, *args, **kwargs):
                pools.append(self)
                return super().submit(fn, *args, **kwargs)

        monkeypatch.setattr(reader, "ProcessPoolExecutor", Pool)
    history = open_store(tmp_path).read()
    assert len(pools) > 10 if parallel else not pools  # every range went to the workers
    assert sorted(history.runners) == ["ubuntu-latest-1cpu", "ubuntu-latest-2cpu"]
    for key, runner in history.runners.items():
        want = whole(tmp_path / f"bench/{key}/data.js", key)
        assert len(scan.parts((tmp_path / f"bench/{key}/data.js").read_bytes(), "d", 3000)) > 10
        assert_same(runner, want)
        assert any(s.direction == "smaller" for s in runner.series.values())
        assert runner.entries == {key: 40, f"{key}{fmt.SMALLER_SUFFIX}": 40}


def _two_workers(self: reader._Workers) -> None:
    self.pool, self.count = None, 2  # a pool even on a one-CPU machine


def test_a_valid_file_in_another_layout_reads_the_same(tmp_path):
    synthetic.history(tmp_path, commits=5, benches=10, runners=(2,))
    path = tmp_path / f"bench/{KEY}/data.js"
    want = whole(path, KEY)
    data = fmt.parse(path.read_bytes(), "d").data
    for text in (
        json.dumps(data),  # compact: no layout to cut along
        json.dumps(data, indent=4),  # another indent
        # JSON.stringify's layout, but a bench list laid out so that a `},` / `{` pair sits
        # at the entries' indent: a cut there is not between entries
        fmt.dumps(data)
        .decode()[len(fmt.PREFIX) :]
        .replace("\n          },\n          {\n", "\n      },\n      {\n", 3),
    ):
        path.write_text(fmt.PREFIX.decode() + text)
        with pytest.raises(scan.OddLayout):
            cut(path.read_bytes(), "d")
        assert_same(open_store(tmp_path).read().runners[KEY], want)


def test_a_bad_field_deep_in_a_file_is_named_from_a_worker(tmp_path, monkeypatch, capsys):
    synthetic.history(tmp_path, commits=30, benches=10, runners=(2,))
    path = tmp_path / f"bench/{KEY}/data.js"
    data = fmt.parse(path.read_bytes(), "d").data
    data["entries"][KEY][25]["benches"][3]["value"] = "31"
    path.write_bytes(fmt.dumps(data))
    monkeypatch.setattr(reader, "RANGE_BYTES", 2000)
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(reader._Workers, "__init__", _two_workers)
    with pytest.raises(BadInput, match=rf"entries\.{KEY}\[25\]\.benches\[3\]\.value: expected a"):
        open_store(tmp_path).read()
    before = path.read_bytes()
    assert main(["validate-history", str(tmp_path)]) == 2
    assert f"entries.{KEY}[25].benches[3].value" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_rules_beyond_types_are_enforced_by_both_decoders(tmp_path):
    """What a msgspec type cannot say (non-empty names, ids and lists) is checked on the
    decoded structs; the message is format.check's, naming the field."""
    synthetic.history(tmp_path, commits=3, benches=5, runners=(2,))
    original = (tmp_path / f"bench/{KEY}/data.js").read_bytes()
    for where, edit, expected in (
        ("benches[1].name", lambda e: e["benches"][1].update(name=""), "a non-empty string"),
        ("commit.id", lambda e: e["commit"].update(id=""), "a commit id string"),
        ("benches", lambda e: e.update(benches=[]), "a non-empty list"),
    ):
        data = fmt.parse(original, "d").data
        edit(data["entries"][KEY][2])
        raw = fmt.dumps(data)
        message = f"entries.{KEY}[2].{where}: expected {expected}"
        for read in (lambda r: scan.scan(r, "f"), lambda r: cut(r, "f")):
            with pytest.raises(BadInput) as err:
                read(raw)
            assert message in str(err.value)


def test_bad_input_survives_the_trip_from_a_worker():
    import pickle

    error = BadInput("bench/x/data.js", "entries.x[3].value", "a number", "31")
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), str(again)) == (BadInput, str(error))
