"""data.js bytes: ours equal what github-action-benchmark (Node's JSON) reads and writes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from benchtrack.errors import BadInput
from benchtrack.history import format as fmt
from benchtrack.history import new_entries, open_store
from benchtrack.lab import synthetic

# What the action does: load = JSON.parse(script.slice(PREFIX.length)); store = PREFIX +
# JSON.stringify(data, null, 2). Prints whether our bytes equal its re-serialisation, and the data.
NODE_ROUNDTRIP = r"""
const fs = require('fs');
const PREFIX = 'window.BENCHMARK_DATA = ';
const script = fs.readFileSync(process.argv[1], 'utf8');
const data = JSON.parse(script.slice(PREFIX.length));
const again = PREFIX + JSON.stringify(data, null, 2);
process.stdout.write(JSON.stringify({same: again === script, data}));
"""


def node_roundtrip(path: Path) -> dict:
    done = subprocess.run(
        ["node", "-e", NODE_ROUNDTRIP, str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_js_number_matches_node_for_awkward_floats():
    values = [
        1.0,
        0.5,
        -0.0,
        1e21,
        1e20 + 2**20,
        123e18,
        1e-7,
        1.5e-6,
        9.99e-6,
        0.0001,
        1e-5,
        2**53 + 2.0,
        494995203.0,
        6.02214076e23,
        5e-324,
        1.7976931348623157e308,
        0.1 + 0.2,
    ]
    script = f"process.stdout.write(JSON.stringify({json.dumps(values)}.map(String)))"
    node = json.loads(
        subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    )
    assert [fmt.js_number(v) for v in values] == node


def test_dumps_equals_json_stringify_for_awkward_values(tmp_path):
    data = fmt.empty()
    data["entries"]["k"] = [
        {
            "commit": {"id": "a" * 40, "message": 'é "quoted" \\ \t\n\u2028 😀', "url": ""},
            "date": 1700000000000,
            "tool": fmt.BIGGER_TOOL,
            "benches": [
                {"name": f"n{i}", "value": fmt.js_value(v), "unit": "x/s"}
                for i, v in enumerate([1.0, 2.5e-6, 1e22, 3.25, 12345678901234567890.0])
            ],
        }
    ]
    path = tmp_path / "data.js"
    path.write_bytes(fmt.dumps(data))
    assert node_roundtrip(path)["same"]


def test_written_history_reads_back_identically_in_node(tmp_path):
    synthetic.history(tmp_path, commits=6, benches=30, runners=(2,))
    store = open_store(tmp_path)
    store.append(new_entries([(f"d{i}", d) for i, d in enumerate(synthetic.run(6, 2, 30))]))
    path = tmp_path / "bench/ubuntu-latest-2cpu/data.js"
    node = node_roundtrip(path)
    assert node["same"], "JSON.stringify(JSON.parse(ours), null, 2) must give our bytes back"
    ours = fmt.parse(path.read_bytes(), "data.js").data
    assert node["data"] == json.loads(json.dumps(ours))  # the same values, names, strings
    runner = store.read().runners["ubuntu-latest-2cpu"]
    node_entry = node["data"]["entries"]["ubuntu-latest-2cpu"]
    first = node_entry[-1]["benches"][0]
    series = runner.series[first["name"]]
    assert series.value[-1] == first["value"]
    assert len(series) == len(node_entry) == 7


def test_parse_refuses_truncated_file_naming_it():
    good = fmt.dumps(fmt.empty())
    with pytest.raises(BadInput, match=r"^bench/x/data.js: expected valid JSON"):
        fmt.parse(good[:-3], "bench/x/data.js")
    with pytest.raises(BadInput, match=r"starting with 'window\.BENCHMARK_DATA = '"):
        fmt.parse(b'{"entries": {}}', "bench/x/data.js")
    with pytest.raises(BadInput, match="the file is empty"):
        fmt.parse(b"", "bench/x/data.js")


def test_parse_names_the_field_of_a_bad_value():
    data = fmt.empty()
    bench = {"name": "rust/a/b", "value": 1, "unit": "x/s"}
    entry = {"commit": {"id": "c"}, "date": 1, "tool": fmt.BIGGER_TOOL}
    data["entries"]["x"] = [dict(entry, benches=[bench]) for _ in range(3)]
    data["entries"]["x"].append(dict(entry, benches=[dict(bench, value="31")]))
    raw = fmt.dumps(data)
    with pytest.raises(BadInput) as err:
        fmt.parse(raw, "bench/local-2cpu/data.js")
    assert str(err.value) == (
        "bench/local-2cpu/data.js: entries.x[3].benches[0].value: expected a number, got '31'"
    )


def test_append_splices_the_new_entry_into_the_bytes_json_stringify_wrote(tmp_path, monkeypatch):
    """The splice path (no re-serialisation of the existing file) gives the full rewrite's bytes,
    which are JSON.stringify's; a first entry under a new name falls back to the full rewrite."""
    synthetic.history(tmp_path / "a", commits=5, benches=30, runners=(2,))
    spliced = []
    real_splice = fmt.splice

    def spy(*args):
        pieces = real_splice(*args)
        spliced.append(pieces is not None)
        return pieces

    docs = [(d.suite, d) for d in synthetic.run(5, 2, 30)]
    monkeypatch.setattr(fmt, "splice", lambda *args: None)  # the full rewrite, for reference
    open_store(tmp_path / "a").append(new_entries(docs), now_ms=1_800_000_000_123)
    expected = (tmp_path / "a/bench/ubuntu-latest-2cpu/data.js").read_bytes()
    synthetic.history(tmp_path / "b", commits=5, benches=30, runners=(2,))
    monkeypatch.setattr(fmt, "splice", spy)
    open_store(tmp_path / "b").append(new_entries(docs), now_ms=1_800_000_000_123)
    path = tmp_path / "b/bench/ubuntu-latest-2cpu/data.js"
    assert spliced == [True]
    assert path.read_bytes() == expected
    assert node_roundtrip(path)["same"]
    data = fmt.parse(path.read_bytes(), "d").data
    assert data["lastUpdate"] == 1_800_000_000_123
    assert [len(runs) for runs in data["entries"].values()] == [6, 6]
    # two commits at once, into both lists; both spliced
    more = [(f"{d.suite}{i}", d) for i in (6, 7) for d in synthetic.run(i, 2, 30)]
    open_store(tmp_path / "b").append(new_entries(more), now_ms=1_800_000_000_999)
    assert spliced == [True, True]
    assert node_roundtrip(path)["same"]
    assert [len(runs) for runs in fmt.parse(path.read_bytes(), "d").data["entries"].values()] == [
        8,
        8,
    ]


def test_splice_refuses_a_layout_json_stringify_did_not_write():
    data = fmt.empty()
    entry = {"commit": {"id": "c"}, "date": 1, "tool": fmt.BIGGER_TOOL, "benches": [{"x": 1}]}
    data["entries"]["k"] = [entry]
    raw = fmt.dumps(data)
    scalars = {"lastUpdate": 2, "repoUrl": ""}
    added = {"k": [dict(entry, commit={"id": "d"})]}
    assert fmt.splice(raw, ["k"], scalars, added) is not None
    compact = fmt.PREFIX + json.dumps(data).encode()
    assert fmt.splice(compact, ["k"], scalars, added) is None
    assert fmt.splice(raw, ["k"], scalars, {"new": [entry]}) is None
    data["entries"] = {"k": [], "j": [entry]}
    assert fmt.splice(fmt.dumps(data), ["k", "j"], scalars, {"k": [entry]}) is None  # `[]`


def test_extras_parse_fast_paths_agree_with_the_one_by_one_parse():
    from benchtrack.history import extra

    def one_by_one(extras):
        return [extra.parse_extra(e) for e in extras]

    same = [
        extra.format_extra("ubuntu-latest", 2, 10, (lo, lo * 1.5), "rust")
        for lo in (1e-7, 0.5, 3.0, 2.5e21, 123456.789)
    ]
    mixed = [*same, extra.format_extra("ubuntu-latest", 4, 7, (1.0, 2.0), "perl"), "a note"]
    for extras in (same, mixed, [*same[:2], "runner=x; cpus=2; samples=10; ci=1..2..3; suite=s"]):
        got = extra.parse_many(extras)
        for i, fields in enumerate(one_by_one(extras)):
            lo, _, hi = fields.get("ci", "").partition("..")
            assert got.cpus[i] == int(fields.get("cpus", -1))
            assert got.samples[i] == int(fields.get("samples", -1))
            for value, text in ((got.ci_lo[i], lo), (got.ci_hi[i], hi)):
                expected = extra._float(text)
                assert value == expected or (np.isnan(value) and np.isnan(expected))
    assert extra._parse_uniform(same) is not None  # the uniform case takes the fast path


def test_extras_with_the_machine_keep_the_fast_paths_and_read_back():
    from benchtrack.history import extra

    cpu, os = "AMD EPYC 7763 64-Core Processor", "Ubuntu 24.04.1 LTS, Linux 6.8.0-1017-azure"
    mixed = [
        extra.format_extra("ubuntu-latest", 2, n, (1.0 + n, 2.0 + n), "rust", cpu, os)
        for n in (5, 10, 12)
    ]
    assert extra._parse_ours(mixed) is not None  # the machine's fields do not cost the fast path
    got = extra.parse_many(mixed)
    assert list(got.samples) == [5, 10, 12] and list(got.ci_hi) == [7.0, 12.0, 14.0]
    assert extra.machine(mixed[0]) == (cpu, os)
    assert extra.parse_extra(mixed[0])["cpu"] == cpu
    hostile = extra.format_extra("x", 1, 5, (1.0, 2.0), "s", "a;b=c\nd", "e=f;g")
    assert extra.machine(hostile) == ("a b c d", "e f g")
    assert extra.machine(extra.format_extra("x", 1, 5, (1.0, 2.0), "s")) is None
