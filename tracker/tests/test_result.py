"""The result document: round trip, and one clear BadInput per kind of bad field."""

from __future__ import annotations

import copy
import math

import orjson
import pytest

from benchtrack.errors import BadInput
from benchtrack.result import SCHEMA, ResultDocument, Runner

GOOD = {
    "schema": SCHEMA,
    "suite": "rust",
    "created": "2026-11-21T10:00:00Z",
    "commit": {
        "id": "0123456789abcdef0123456789abcdef01234567",
        "message": "streams: poll less",
        "timestamp": "2026-11-21T09:58:00+01:00",
        "author": {"name": "A. Dev", "email": "a@example.org"},
        "url": None,
    },
    "runner": {
        "label": "ubuntu-latest",
        "cpus": 4,
        "cpu_model": "x",
        "os": "Linux",
        "arch": "x86_64",
    },
    "benchmarks": [
        {
            "name": "rust/streams/async_next",
            "unit": "items/s",
            "value": 4.95e8,
            "ci": [4.9e8, 4.99e8],
            "samples": [4.93e8, 4.96e8, 4.95e8, 4.91e8, 4.97e8],
        },
        {
            "name": "rust/rss/walk/1000",
            "unit": "KB",
            "direction": "smaller",
            "value": 9240.0,
            "ci": [9232.0, 9244.0],
            "samples": [9240.0, 9244.0, 9232.0, 9236.0, 9240.0],
            "params": {"threads": 4},
        },
    ],
    "errors": [{"name": "rust/walk/joinset", "message": "panicked at src/walk.rs:10"}],
}


def mutated(path: str, value: object) -> dict:
    """GOOD with the field at dotted `path` (list indices as numbers) set, or deleted if ...."""
    doc = copy.deepcopy(GOOD)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = doc
    for p in parents:
        node = node[p]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return doc


def test_round_trip_keeps_every_field():
    doc = ResultDocument.from_dict(GOOD, "r.json")
    assert doc.to_dict() == GOOD
    assert doc.benchmarks[1].direction == "smaller" and not doc.benchmarks[1].bigger_is_better
    assert doc.runner.key == "ubuntu-latest-4cpu"


def test_dump_then_load(tmp_path):
    path = tmp_path / "deep" / "rust.json"
    ResultDocument.from_dict(GOOD, "r.json").dump(path)
    assert ResultDocument.load(path).to_dict() == GOOD
    assert [p.name for p in path.parent.iterdir()] == ["rust.json"]  # no temp file left


@pytest.mark.parametrize(
    ("label", "cpus", "key"),
    [("local", 1, "local-1cpu"), ("Ubuntu Latest (x86)", 16, "ubuntu-latest-x86-16cpu")],
)
def test_runner_key_is_slugged(label, cpus, key):
    assert Runner(label, cpus, "", "", "").key == key


BAD = [
    ("benchmarks.0.value", math.nan, "benchmarks[0].value", "positive finite"),
    ("benchmarks.0.value", math.inf, "benchmarks[0].value", "positive finite"),
    ("benchmarks.0.value", 0, "benchmarks[0].value", "positive finite"),
    ("benchmarks.0.value", -3.0, "benchmarks[0].value", "positive finite"),
    ("benchmarks.0.value", 1e300, "benchmarks[0].value", "plausible"),
    ("benchmarks.0.value", "fast", "benchmarks[0].value", "a number"),
    ("benchmarks.0.value", ..., "benchmarks[0].value", "missing"),
    ("benchmarks.0.samples.2", -1.0, "benchmarks[0].samples[2]", "positive finite"),
    ("benchmarks.0.samples", [1.0, 2.0, 3.0, 4.0], "benchmarks[0].samples", "at least 5"),
    ("benchmarks.0.samples", [], "benchmarks[0].samples", "or 1: a harness's single summary"),
    ("benchmarks.0.ci", [4.96e8, 4.99e8], "benchmarks[0].ci", "lo <= value"),
    ("benchmarks.0.unit", "KB", "benchmarks[0].unit", "need direction smaller"),
    ("benchmarks.0.unit", "ns", "benchmarks[0].unit", "need direction smaller"),
    ("benchmarks.0.unit", "instructions/item", "benchmarks[0].unit", "need direction smaller"),
    ("benchmarks.0.unit", "items\n/s", "benchmarks[0].unit", "without control characters"),
    ("benchmarks.1.unit", "items/s", "benchmarks[1].unit", "throughputs need direction bigger"),
    ("benchmarks.1.direction", "down", "benchmarks[1].direction", "bigger"),
    ("benchmarks.0.name", "rust/", "benchmarks[0].name", "'<suite>/<name as the harness"),
    ("benchmarks.0.name", "rust", "benchmarks[0].name", "'<suite>/<name as the harness"),
    ("benchmarks.0.name", "rust/a\tb", "benchmarks[0].name", "without control characters"),
    ("benchmarks.0.name", "rust/a\n", "benchmarks[0].name", "without control characters"),
    ("benchmarks.0.name", "rust/a\u2028b", "benchmarks[0].name", "without control characters"),
    ("benchmarks.0.name", "rust/a\x85", "benchmarks[0].name", "without control characters"),
    ("benchmarks.0.name", "rust/a\u202eb", "benchmarks[0].name", "or bidi controls"),
    ("benchmarks.0.name", "rust/\u2066a", "benchmarks[0].name", "or bidi controls"),
    ("benchmarks.0.name", "rust/" + "x" * 252, "benchmarks[0].name", "at most 256 characters"),
    ("benchmarks.0.name", "python/streams/x", "benchmarks[0].name", "'rust/'"),
    ("benchmarks.1.name", "rust/streams/async_next", "benchmarks[1].name", "unique"),
    ("benchmarks.0.params", {"x": [1]}, "benchmarks[0].params", "scalar"),
    ("commit.id", "abc123", "commit.id", "40 lowercase hex"),
    ("commit.id", ..., "commit.id", "missing"),
    ("commit.timestamp", "yesterday", "commit.timestamp", "ISO 8601"),
    ("commit.url", "ftp://x", "commit.url", "http"),
    ("runner.cpus", 0, "runner.cpus", "1..4096"),
    ("runner.cpus", "4", "runner.cpus", "whole number"),
    ("runner.label", "", "runner.label", "non-empty"),
    ("created", "2026-13-45", "created", "ISO 8601"),
    ("schema", "benchtrack.result/2", "schema", "benchtrack.result/1"),
    ("suite", "Rust Suite", "suite", "lowercase"),
    ("errors.0.message", ..., "errors[0].message", "missing"),
    ("errors", {}, "errors", "a list"),
]


@pytest.mark.parametrize(("path", "value", "field", "expected"), BAD)
def test_bad_field_names_file_field_and_expectation(path, value, field, expected):
    with pytest.raises(BadInput) as caught:
        ResultDocument.from_dict(mutated(path, value), "target/bench/results/rust.json")
    message = str(caught.value)
    assert message.startswith(f"target/bench/results/rust.json: {field}: expected ")
    assert expected in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "name",
    [
        "rust/streams",  # the harness's part may be one segment...
        "rust/a/b/c/d",  # ...or several
        "rust/my group/x",
        "rust/test_x[10-async]",  # pytest's parametrised id
        "rust/BM_Foo/8/real_time",  # Google Benchmark's
        "rust/über/ü 100% (x)",
        "rust/../..//",
        "rust/a|b *c* #1 @x `d` <e> [f](g)",  # Markdown's characters: shown as code
        "rust/zero\u200bwidth",  # shown as its escape
        "rust/" + "𝔸" * 251,  # 256 characters, the most
    ],
)
def test_names_are_kept_as_the_harness_wrote_them(name):
    doc = ResultDocument.from_dict(mutated("benchmarks.0.name", name), "r.json")
    assert doc.benchmarks[0].name == name
    assert ResultDocument.from_dict(doc.to_dict(), "r.json").benchmarks[0].name == name


@pytest.mark.parametrize(
    ("unit", "direction"), [("items", "bigger"), ("allocs", "smaller"), ("Percent", "bigger")]
)
def test_a_unit_of_no_known_direction_takes_the_declared_one(unit, direction):
    data = mutated("benchmarks.0.unit", unit)
    data["benchmarks"][0]["direction"] = direction
    assert ResultDocument.from_dict(data, "r.json").benchmarks[0].direction == direction


def test_one_summary_figure_is_a_benchmark():
    data = mutated("benchmarks.0.samples", [495000000.0])
    assert ResultDocument.from_dict(data, "r.json").benchmarks[0].samples == (495000000.0,)


def test_empty_suite_without_errors_is_bad_but_with_errors_is_a_result():
    empty = mutated("benchmarks", [])
    assert ResultDocument.from_dict(empty, "r.json").errors  # nothing ran, and it says why
    empty["errors"] = []
    with pytest.raises(BadInput, match=r"r.json: benchmarks: expected at least one benchmark"):
        ResultDocument.from_dict(empty, "r.json")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file is empty"),
        (b"  \n", "the file is empty"),
        (orjson.dumps(GOOD)[:-40], "valid JSON"),
        (b"<html>not json</html>", "valid JSON"),
        (b"[1, 2]", "a JSON object"),
    ],
)
def test_load_rejects_unreadable_files(tmp_path, content, expected):
    path = tmp_path / "rust.json"
    path.write_bytes(content)
    with pytest.raises(BadInput, match=expected) as caught:
        ResultDocument.load(path)
    assert str(caught.value).startswith(str(path))


def test_load_missing_file(tmp_path):
    with pytest.raises(BadInput, match="not found"):
        ResultDocument.load(tmp_path / "nope.json")


def test_nan_written_by_a_lenient_writer_is_named_by_field(tmp_path):
    path = tmp_path / "rust.json"
    path.write_text(orjson.dumps(GOOD).decode().replace("495000000.0", "NaN"))
    with pytest.raises(BadInput, match=r"benchmarks\[0\]\.value: expected a positive finite"):
        ResultDocument.load(path)
