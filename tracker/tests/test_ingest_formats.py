"""Adapters for what other projects run (issue 18, item 2): libtest, go test, Google Benchmark,
github-action-benchmark's custom JSON, Bencher's BMF (read and write). Each reads its real sample
(tests/fixtures/<adapter>/README.md says how each was captured); bad input is exit 2, one line
naming file, field and expectation, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.result import ResultDocument

FIXTURES = Path(__file__).parent / "fixtures"


def ingest(capsys, tmp_path: Path, harness: str, src: Path, *flags: str) -> ResultDocument:
    out = tmp_path / "result.json"
    code = main(["ingest", harness, str(src), "--out", str(out), *flags])
    err = capsys.readouterr().err
    assert code == 0, err
    return ResultDocument.load(out)


def assert_bad(
    capsys, tmp_path: Path, harness: str, content: str | bytes, where: str, expected: str
):
    src = tmp_path / "raw"
    if isinstance(content, bytes):
        src.write_bytes(content)
    else:
        src.write_text(content)
    out = tmp_path / "out" / "result.json"
    code = main(["ingest", harness, str(src), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("benchtrack: error: ") and err.count("\n") == 1, err
    assert f"{src}: {where}" in err and expected in err, err
    assert not out.exists() and not out.parent.exists()


# --- github-action-benchmark's custom JSON ------------------------------------------------------


@pytest.mark.parametrize(
    ("harness", "direction"),
    [("customSmallerIsBetter", "smaller"), ("customBiggerIsBetter", "bigger")],
)
def test_custom_entries_keep_name_unit_range_and_extra(tmp_path, capsys, harness, direction):
    src = FIXTURES / "custom/smaller.json"
    doc = ingest(capsys, tmp_path, harness, src)
    raw = json.loads(src.read_text())
    assert doc.suite == "custom"
    assert [b.name for b in doc.benchmarks] == [f"custom/{r['name']}" for r in raw]
    cpu, memory = doc.benchmarks
    assert (cpu.unit, cpu.value, cpu.ci, cpu.samples) == ("Percent", 50.0, (50.0, 50.0), (50.0,))
    assert (memory.unit, memory.value, memory.ci) == ("Megabytes", 100.0, (97.0, 103.0))
    assert memory.params == {"extra": raw[1]["extra"]}
    assert {b.direction for b in doc.benchmarks} == {direction}


def test_custom_suite_flag(tmp_path, capsys):
    doc = ingest(
        capsys,
        tmp_path,
        "customSmallerIsBetter",
        FIXTURES / "custom/smaller.json",
        "--suite",
        "app",
    )
    assert doc.suite == "app" and doc.benchmarks[0].name.startswith("app/My Custom")


CUSTOM_BAD = [
    ("not an array", '{"name": "x"}', "expected a JSON array", ""),
    ("empty", "[]", "expected at least one", ""),
    ("no value", '[{"name": "a", "unit": "ms"}]', "[0].value: expected a number", "missing"),
    ("zero", '[{"name": "a", "unit": "ms", "value": 0}]', "[0].value: expected a positive", ""),
    ("text", '[{"name": "a", "unit": "ms", "value": "fast"}]', "[0].value", "positive finite"),
    ("no name", '[{"unit": "ms", "value": 1}]', "[0].name: expected the benchmark's name", ""),
    ("control", '[{"name": "a\\nb", "unit": "ms", "value": 1}]', "[0].name", "control"),
    (
        "dup",
        '[{"name":"a","unit":"ms","value":1},{"name":"a","unit":"ms","value":2}]',
        "benchmarks[1].name",
        "unique",
    ),
    ("truncated", '[{"name": "a"', "expected valid JSON", ""),
]


@pytest.mark.parametrize(
    ("content", "where", "expected"), [c[1:] for c in CUSTOM_BAD], ids=[c[0] for c in CUSTOM_BAD]
)
def test_custom_bad_input(tmp_path, capsys, content, where, expected):
    assert_bad(capsys, tmp_path, "customSmallerIsBetter", content, where, expected)


def test_custom_unit_against_the_tools_direction(tmp_path, capsys):
    content = '[{"name": "a", "unit": "ms", "value": 3}]'
    assert_bad(
        capsys, tmp_path, "customBiggerIsBetter", content, "[0].unit", "need direction smaller"
    )


# --- Bencher Metric Format ---------------------------------------------------------------------


def test_bmf_measures_units_directions_and_bounds(tmp_path, capsys):
    doc = ingest(capsys, tmp_path, "bmf", FIXTURES / "bmf/bmf.json")
    got = {b.name: (b.unit, b.direction, b.value, b.ci) for b in doc.benchmarks}
    assert got == {
        "bmf/benchmark_name - latency": ("ns", "smaller", 88.0, (87.42, 88.88)),
        "bmf/benchmark_name - throughput": ("ops/s", "bigger", 5.55, (3.14, 6.30)),
        "bmf//bin/sh -c ./my_build_script.sh": ("build-time", "smaller", 87.0, (87.0, 87.0)),
        "bmf/my_binary": ("file-size", "smaller", 42.0, (42.0, 42.0)),
    }


def export_bmf(capsys, *docs: Path) -> dict:
    code = main(["export", "--format", "bmf", *map(str, docs)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_bmf_read_write_read_round_trip(tmp_path, capsys):
    """BMF -> result document -> BMF is Bencher's own example (bounds filled in), and that
    read back is the same document."""
    first = ingest(capsys, tmp_path, "bmf", FIXTURES / "bmf/bmf.json")
    written = export_bmf(capsys, tmp_path / "result.json")
    raw = json.loads((FIXTURES / "bmf/bmf.json").read_text())
    for measures in raw.values():
        for metric in measures.values():
            metric.setdefault("lower_value", metric["value"])
            metric.setdefault("upper_value", metric["value"])
    assert written == raw
    again = tmp_path / "again"
    again.mkdir()
    (again / "bmf.json").write_text(json.dumps(written))
    second = ingest(capsys, again, "bmf", again / "bmf.json")
    assert second.benchmarks == first.benchmarks


def test_bmf_write_then_read_keeps_a_suites_benchmarks(tmp_path, capsys):
    """This repository's own result documents (samples, throughputs, KB) through BMF: names,
    units, directions, values and intervals come back; the samples become the one figure."""
    src = FIXTURES / "perl/perl.json"
    code = main(["ingest", "perl", str(src), "--out", str(tmp_path / "perl.json")])
    capsys.readouterr()
    assert code == 0
    original = ResultDocument.load(tmp_path / "perl.json")
    (tmp_path / "bmf.json").write_text(json.dumps(export_bmf(capsys, tmp_path / "perl.json")))
    back = ingest(capsys, tmp_path, "bmf", tmp_path / "bmf.json", "--suite", "perl")
    assert [(b.name, b.unit, b.direction, b.value, b.ci) for b in back.benchmarks] == [
        (b.name, b.unit, b.direction, b.value, b.ci) for b in original.benchmarks
    ]
    assert all(b.samples == (b.value,) for b in back.benchmarks)


def test_bmf_export_refuses_a_direction_bmf_cannot_carry(tmp_path, capsys):
    src = tmp_path / "in.json"
    src.write_text(json.dumps({"x": {"items": {"value": 3}}}))
    ingest(capsys, tmp_path, "bmf", src)  # `items` read as smaller is better
    data = json.loads((tmp_path / "result.json").read_text())
    data["benchmarks"][0].pop("direction")  # ... declared bigger is better instead
    (tmp_path / "bigger.json").write_text(json.dumps(data))
    code = main(["export", "--format", "bmf", str(tmp_path / "bigger.json")])
    err = capsys.readouterr().err
    assert code == 2 and "benchmarks[0].unit" in err and "BMF carries no direction" in err, err


def test_bmf_export_takes_no_direction_flag(tmp_path, capsys):
    ingest(capsys, tmp_path, "bmf", FIXTURES / "bmf/bmf.json")
    code = main(
        ["export", "--format", "bmf", "--direction", "smaller", str(tmp_path / "result.json")]
    )
    out, err = capsys.readouterr()
    assert code == 2 and "--direction" in err and out == ""


BMF_BAD = [
    ("not an object", "[1]", "expected a BMF object", ""),
    ("empty", "{}", "expected a BMF object", ""),
    ("no measures", '{"a": {}}', "a: expected an object of measures", ""),
    ("no value", '{"a": {"latency": {"lower_value": 1}}}', "a.latency.value", "missing"),
    ("negative", '{"a": {"latency": {"value": -1}}}', "a.latency.value", "positive"),
    ("bounds", '{"a": {"latency": {"value": 5, "lower_value": 6}}}', "a.latency", "lower_value <="),
    ("metric", '{"a": {"latency": 5}}', "a.latency: expected a metric object", ""),
    ("name", '{"a\\u0007": {"latency": {"value": 5}}}', "['a\\x07'].latency.name", "control"),
]


@pytest.mark.parametrize(
    ("content", "where", "expected"), [c[1:] for c in BMF_BAD], ids=[c[0] for c in BMF_BAD]
)
def test_bmf_bad_input(tmp_path, capsys, content, where, expected):
    assert_bad(capsys, tmp_path, "bmf", content, where, expected)


# --- shared ------------------------------------------------------------------------------------


def test_suite_flag_is_checked_and_only_for_other_projects_harnesses(tmp_path, capsys):
    src = FIXTURES / "bmf/bmf.json"
    out = tmp_path / "r.json"
    assert main(["ingest", "bmf", str(src), "--out", str(out), "--suite", "Not A Suite"]) == 2
    assert "--suite: expected a lowercase suite name" in capsys.readouterr().err
    perl = FIXTURES / "perl/perl.json"
    assert main(["ingest", "perl", str(perl), "--out", str(out), "--suite", "x"]) == 2
    assert "it names its own suite" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("harness", ["libtest", "gotest"])
@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "not found"), (b"\xff\xfe", "UTF-8"), (b"nothing here\n", "none found")],
    ids=["missing", "binary", "no-benchmarks"],
)
def test_text_harnesses_unreadable(tmp_path, capsys, harness, content, expected):
    src = tmp_path / "raw"
    if content is not None:
        src.write_bytes(content)
    out = tmp_path / "out" / "r.json"
    assert main(["ingest", harness, str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(src) in err and expected in err and err.count("\n") == 1, err
    assert not out.parent.exists()
