"""Adapters for what other projects run (issue 18, item 2): libtest, go test, Google Benchmark,
github-action-benchmark's custom JSON, Bencher's BMF (read and write). Each reads its real sample
(tests/fixtures/<adapter>/README.md says how each was captured); bad input is exit 2, one line
naming file, field and expectation, nothing written."""

from __future__ import annotations

import json
import statistics
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


# --- cargo bench (libtest) ---------------------------------------------------------------------


def test_libtest_median_spread_and_mb_per_s(tmp_path, capsys):
    src = FIXTURES / "libtest/libtest.txt"
    doc = ingest(capsys, tmp_path, "libtest", src)
    lines = [line for line in src.read_text().splitlines() if " ... bench:" in line]
    assert len(lines) == 3 and doc.suite == "libtest"
    by_name = doc.by_name()
    for line in lines:
        name = line.split(" ... ")[0].removeprefix("test ").strip()
        median, _, rest = line.split("bench:")[1].strip().partition(" ns/iter (+/- ")
        spread = float(rest.split(")")[0].replace(",", ""))
        bench = by_name[f"libtest/{name}"]
        value = float(median.replace(",", ""))
        assert (bench.unit, bench.direction, bench.value) == ("ns/iter", "smaller", value)
        assert bench.samples == (value,)
        assert bench.ci == (pytest.approx(value - spread), pytest.approx(value + spread))
    [copy] = [b for b in doc.benchmarks if b.name.endswith(" - MB/s")]
    assert copy.name == "libtest/benches::bench_copy_4k - MB/s"
    assert (copy.unit, copy.direction) == ("MB/s", "bigger")


LIBTEST_LINE = "test a::b ... bench:       1,234 ns/iter (+/- 56)\n"
LIBTEST_BAD = [
    ("changed format", "test a::b ... bench:  fast (+/- 56)\n", "line 1", "as libtest prints"),
    ("twice", LIBTEST_LINE * 2, "benchmarks[1].name", "unique"),
]


def test_libtest_failed_and_zero_are_errors(tmp_path, capsys):
    src = tmp_path / "out.txt"
    src.write_text(LIBTEST_LINE + "test a::c ... FAILED\ntest a::z ... bench: 0 ns/iter (+/- 0)\n")
    out = tmp_path / "r.json"
    assert main(["ingest", "libtest", str(src), "--out", str(out)]) == 3  # written, with errors
    capsys.readouterr()
    doc = ResultDocument.load(out)
    assert [b.name for b in doc.benchmarks] == ["libtest/a::b"]
    assert [e.name for e in doc.errors] == ["libtest/a::c", "libtest/a::z"]


# --- go test -bench ----------------------------------------------------------------------------


def _go_runs(src: Path, name: str, unit: str) -> list[float]:
    """Every `<value> <unit>` pair of `name`'s result lines, read field by field."""
    runs = []
    for line in src.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == name:
            runs += [float(v) for v, u in zip(fields[2::2], fields[3::2], strict=True) if u == unit]
    return runs


def test_gotest_count_5_runs_are_samples_and_columns_are_series(tmp_path, capsys):
    src = FIXTURES / "gotest/count5.txt"
    doc = ingest(capsys, tmp_path, "gotest", src)
    names = {line.split()[0] for line in src.read_text().splitlines() if line.startswith("Bench")}
    assert all(n.endswith("-2") for n in names)  # GOMAXPROCS 2: off the names, into params
    assert {n.removesuffix("-2") for n in names} <= {
        b.name.removeprefix("gotest/") for b in doc.benchmarks
    }
    for bench in doc.benchmarks:
        base, _, unit = bench.name.removeprefix("gotest/").partition(" - ")
        unit = unit or "ns/op"
        assert bench.unit == unit and bench.params == {"gomaxprocs": 2}
        assert list(bench.samples) == _go_runs(src, f"{base}-2", unit) and len(bench.samples) == 5
        assert bench.value == pytest.approx(statistics.median(bench.samples))
        assert bench.direction == ("bigger" if unit == "MB/s" else "smaller")
    units = {b.unit for b in doc.benchmarks}
    assert {"ns/op", "B/op", "allocs/op", "MB/s", "calls/op"} <= units
    # 0 allocs/op (fib allocates nothing): no positive figure, no series
    assert not any(
        b.name.startswith("gotest/BenchmarkFib") and b.unit == "B/op" for b in doc.benchmarks
    )


def test_gotest_one_run_is_one_figure(tmp_path, capsys):
    doc = ingest(capsys, tmp_path, "gotest", FIXTURES / "gotest/count1.txt")
    assert doc.benchmarks and all(len(b.samples) == 1 for b in doc.benchmarks)
    assert all(b.ci == (b.value, b.value) for b in doc.benchmarks)


GO_LINE = "BenchmarkX-2   \t  100\t  12.5 ns/op\n"
GOTEST_BAD = [
    ("three runs", GO_LINE * 3, "line 1", "go test -count 5 or more"),
    ("odd fields", "BenchmarkX-2 100 12.5 ns/op 7\n", "line 1", "<iterations> <value> <unit>"),
    ("text value", "BenchmarkX-2 100 fast ns/op\n", "line 1", "a number before each unit"),
]


def test_gotest_failures_and_packages(tmp_path, capsys):
    src = tmp_path / "out.txt"
    src.write_text(
        "pkg: example.com/a\n" + GO_LINE + "--- FAIL: BenchmarkBroken\n"
        "pkg: example.com/b\n" + GO_LINE
    )
    out = tmp_path / "r.json"
    assert main(["ingest", "gotest", str(src), "--out", str(out)]) == 3
    capsys.readouterr()
    doc = ResultDocument.load(out)
    assert [b.name for b in doc.benchmarks] == [
        "gotest/example.com/a/BenchmarkX",
        "gotest/example.com/b/BenchmarkX",
    ]
    assert [e.name for e in doc.errors] == ["gotest/example.com/a/BenchmarkBroken"]


@pytest.mark.parametrize(
    ("suffixes", "kept"),
    [
        (["-2", "-2"], ["BenchmarkX", "BenchmarkY"]),  # one GOMAXPROCS: the runner's size, off
        (["-4", "-4"], ["BenchmarkX", "BenchmarkY"]),  # the same series on a 4-vCPU runner
        (["", ""], ["BenchmarkX", "BenchmarkY"]),  # GOMAXPROCS 1: no suffix to take off
        (["-1", "-2"], ["BenchmarkX-1", "BenchmarkY-2"]),  # -cpu 1,2: the suffix tells them apart
        (["-2", ""], ["BenchmarkX-2", "BenchmarkY"]),  # not one suffix for all: as written
    ],
)
def test_gotest_names_do_not_carry_the_runners_gomaxprocs(tmp_path, capsys, suffixes, kept):
    src = tmp_path / "out.txt"
    src.write_text(
        "".join(
            f"Benchmark{x}{sfx} 100 12.5 ns/op\n" for x, sfx in zip("XY", suffixes, strict=True)
        )
    )
    doc = ingest(capsys, tmp_path, "gotest", src)
    assert [b.name.removeprefix("gotest/") for b in doc.benchmarks] == kept


# --- Google Benchmark --------------------------------------------------------------------------


def test_googlebenchmark_repetitions_are_samples(tmp_path, capsys):
    src = FIXTURES / "googlebenchmark/repetitions.json"
    doc = ingest(capsys, tmp_path, "googlebenchmark", src)
    raw = json.loads(src.read_text())["benchmarks"]
    runs = [r for r in raw if r["run_type"] == "iteration"]
    run_names = list(dict.fromkeys(r["run_name"] for r in runs))
    assert [b.name for b in doc.benchmarks if " - " not in b.name] == [
        f"googlebenchmark/{n}" for n in run_names
    ]
    assert "googlebenchmark/BM_VectorPush/64/real_time" in doc.by_name()
    for name in run_names:
        bench = doc.by_name()[f"googlebenchmark/{name}"]
        mine = [r for r in runs if r["run_name"] == name]
        assert list(bench.samples) == [r["real_time"] for r in mine]
        assert (bench.unit, bench.direction) == (mine[0]["time_unit"], "smaller")
        assert bench.value == pytest.approx(statistics.median(bench.samples))
        # the library's own median aggregate is the same statistic of the same runs
        [median] = [r for r in raw if r["name"] == f"{name}_median"]
        assert bench.value == pytest.approx(median["real_time"])
    rates = doc.by_name()["googlebenchmark/BM_StringCopy/512 - bytes/s"]
    assert (rates.unit, rates.direction, len(rates.samples)) == ("bytes/s", "bigger", 5)
    assert "googlebenchmark/BM_VectorPush/64/real_time - items/s" in doc.by_name()


def test_googlebenchmark_one_run(tmp_path, capsys):
    doc = ingest(capsys, tmp_path, "googlebenchmark", FIXTURES / "googlebenchmark/single.json")
    assert doc.benchmarks and all(len(b.samples) == 1 for b in doc.benchmarks)


def _gb(**run) -> str:
    base = {
        "name": "BM_A",
        "run_name": "BM_A",
        "run_type": "iteration",
        "real_time": 5.0,
        "cpu_time": 5.0,
        "time_unit": "ns",
        "iterations": 10,
    }
    return json.dumps({"context": {}, "benchmarks": [{**base, **run}]})


GB_BAD = [
    ("no list", '{"context": {}}', "benchmarks: expected Google Benchmark's list", "missing"),
    ("time unit", _gb(time_unit="fortnights"), "benchmarks[0].time_unit", "one of ns"),
    ("nan", _gb(real_time=None), "benchmarks[0].real_time", "missing"),
    ("negative", _gb(real_time=-1), "benchmarks[0].real_time", "positive"),
    ("run type", _gb(run_type="other"), "benchmarks[0].run_type", "iteration"),
]


def test_googlebenchmark_error_occurred_is_an_error(tmp_path, capsys):
    src = tmp_path / "gb.json"
    src.write_text(_gb(error_occurred=True, error_message="no device"))
    out = tmp_path / "r.json"
    assert main(["ingest", "googlebenchmark", str(src), "--out", str(out)]) == 3
    capsys.readouterr()
    [error] = ResultDocument.load(out).errors
    assert (error.name, error.message) == ("googlebenchmark/BM_A", "no device")


BAD_INPUT = [
    (harness, *case)
    for table, harness in [
        (CUSTOM_BAD, "customSmallerIsBetter"),
        (BMF_BAD, "bmf"),
        (LIBTEST_BAD, "libtest"),
        (GOTEST_BAD, "gotest"),
        (GB_BAD, "googlebenchmark"),
    ]
    for case in table
]


@pytest.mark.parametrize(
    ("harness", "content", "where", "expected"),
    [(h, *c[1:]) for h, *c in BAD_INPUT],
    ids=[f"{h}-{c[0]}" for h, *c in BAD_INPUT],
)
def test_bad_input(tmp_path, capsys, harness, content, where, expected):
    assert_bad(capsys, tmp_path, harness, content, where, expected)


def test_a_pytest_benchmark_file_of_100k_rounds_a_benchmark_ingests_under_500_mb(tmp_path):
    """pytest-benchmark records ~100,000 rounds of a fast function; the median's bootstrap over
    them once asked numpy for a 10,000 x 100,000 int64 array (7.45 GiB). Peak RSS of the whole
    `benchtrack ingest` process, 15 such benchmarks, measured by the benchmark that reports it
    (tracker/bench/ingest_memory.py; docs/adopting.md has the figures)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import ingest_memory
    finally:
        sys.path.pop(0)

    got = ingest_memory.measure(15, 100_000, tmp_path)
    assert got.code == 0
    assert got.peak_kb < 500 * 1024, f"peak RSS {got.peak_kb} KB"
    doc = ResultDocument.load(got.out)
    assert len(doc.benchmarks) == 15 and all(len(b.samples) == 100_000 for b in doc.benchmarks)
    assert all(b.ci[0] < b.value < b.ci[1] for b in doc.benchmarks)
