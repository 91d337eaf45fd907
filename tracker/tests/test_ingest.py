"""Ingest adapters on real harness output (tests/fixtures/, see its README), and every bad input:
one line naming file, field and expectation, exit 2, nothing written."""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.result import ResultDocument

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def ingest(capsys, *args: str) -> tuple[int, str]:
    code = main(["ingest", *map(str, args)])
    return code, capsys.readouterr().err


# --- real output -------------------------------------------------------------------------------


def test_perl_keeps_direction_params_and_summarises_rounds(tmp_path, capsys):
    out = tmp_path / "perl.json"
    code, err = ingest(capsys, "perl", FIXTURES / "perl/perl.json", "--out", out)
    assert code == 0, err
    doc = ResultDocument.load(out)
    raw = {
        b["name"]: b for b in json.loads((FIXTURES / "perl/perl.json").read_text())["benchmarks"]
    }
    assert doc.suite == "perl" and {b.name for b in doc.benchmarks} == raw.keys()
    for bench in doc.benchmarks:
        source = raw[bench.name]
        assert list(bench.samples) == [float(s) for s in source["samples"]]
        assert bench.value == sorted(bench.samples)[len(bench.samples) // 2]  # median of 5
        assert min(bench.samples) <= bench.ci[0] <= bench.value <= bench.ci[1] <= max(bench.samples)
        assert bench.direction == source.get("direction", "bigger")
        assert bench.params == source.get("params", {})
    assert any(b.unit == "KB" and b.direction == "smaller" for b in doc.benchmarks)


def test_pytest_rounds_become_per_round_throughput(tmp_path, capsys):
    out = tmp_path / "python.json"
    code, err = ingest(capsys, "pytest", FIXTURES / "pytest/pytest.json", "--out", out)
    assert code == 0, err
    doc = ResultDocument.load(out)
    raw = json.loads((FIXTURES / "pytest/pytest.json").read_text())["benchmarks"]
    assert [b.name for b in doc.benchmarks] == [r["extra_info"]["name"] for r in raw]
    for bench, source in zip(doc.benchmarks, raw, strict=True):
        items = source["extra_info"].get("items", 1)
        assert bench.unit == source["extra_info"]["unit"]
        assert bench.samples == pytest.approx([items / t for t in source["stats"]["data"]])
        assert bench.value == statistics.median(bench.samples)
        # ... which is close to the throughput of the median round time (exact for odd rounds)
        assert bench.value == pytest.approx(items / source["stats"]["median"], rel=0.01)
        assert bench.params.get("threads") == source["extra_info"].get("threads")


def test_criterion_throughput_from_samples_and_inverted_interval(tmp_path, capsys):
    home = FIXTURES / "criterion"
    out = tmp_path / "rust.json"
    code, err = ingest(capsys, "criterion", home, "--out", out)
    assert code == 0, err
    doc = ResultDocument.load(out)
    news = sorted(p.parent for p in home.rglob("new/benchmark.json"))
    assert len(doc.benchmarks) == len(news) > 0
    by_name = doc.by_name()
    for new in news:
        info = json.loads((new / "benchmark.json").read_text())
        parts = ["rust", info["group_id"], info["function_id"], info["value_str"]]
        name = "/".join(p for p in parts if p)
        bench = by_name[name]
        per_iter = info["throughput"]["Elements"]
        meta = json.loads((home / "meta" / f"{info['group_id']}.json").read_text())
        assert bench.unit == meta["unit"] and bench.params == {"threads": meta["threads"]}
        median = json.loads((new / "estimates.json").read_text())["median"]
        assert bench.value == pytest.approx(per_iter / median["point_estimate"] * 1e9)
        ci = median["confidence_interval"]
        # the lower time bound is the upper throughput bound
        assert bench.ci[1] == pytest.approx(per_iter / ci["lower_bound"] * 1e9)
        assert bench.ci[0] == pytest.approx(per_iter / ci["upper_bound"] * 1e9)
        sample = json.loads((new / "sample.json").read_text())
        assert bench.samples[0] == pytest.approx(
            per_iter * sample["iters"][0] / sample["times"][0] * 1e9
        )


def test_criterion_ignores_base_and_change_dirs(tmp_path, capsys):
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "criterion", home)
    for new in list(home.rglob("new")):
        shutil.copytree(new, new.parent / "base")  # criterion's previous run
        (new.parent / "change").mkdir()
    code, err = ingest(capsys, "criterion", home, "--out", tmp_path / "r.json")
    assert code == 0, err
    expected = len(list((FIXTURES / "criterion").rglob("new/benchmark.json")))
    assert len(ResultDocument.load(tmp_path / "r.json").benchmarks) == expected


def test_failed_benchmarks_are_written_and_exit_3(tmp_path, capsys):
    raw = json.loads((FIXTURES / "perl/perl.json").read_text())
    raw["errors"] = [{"name": "perl/coro/pool_chan/sleep", "message": "died: channel closed"}]
    src = tmp_path / "perl-raw.json"
    src.write_text(json.dumps(raw))
    out = tmp_path / "perl.json"
    code, err = ingest(capsys, "perl", src, "--out", out)
    assert code == 3
    assert "perl/coro/pool_chan/sleep: died: channel closed" in err
    assert ResultDocument.load(out).errors[0].message == "died: channel closed"


# --- metadata ----------------------------------------------------------------------------------


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout


def test_runner_and_commit_flags_win(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BENCHTRACK_RUNNER_LABEL", "from-env")
    out = tmp_path / "p.json"
    parent = git("rev-parse", "HEAD~1").strip()
    code, err = ingest(
        capsys, "perl", FIXTURES / "perl/perl.json", "--out", out,
        "--runner-label", "Big Box", "--runner-cpus", "8", "--commit", parent,
    )  # fmt: skip
    assert code == 0, err
    doc = ResultDocument.load(out)
    assert (doc.runner.label, doc.runner.cpus, doc.runner.key) == ("Big Box", 8, "big-box-8cpu")
    assert doc.commit.id == parent
    assert doc.commit.message == git("log", "-1", "--format=%B", parent).strip()


def test_environment_and_github_actions(tmp_path, capsys, monkeypatch):
    head = git("rev-parse", "HEAD").strip()
    monkeypatch.setenv("BENCHTRACK_RUNNER_LABEL", "ubuntu-latest")
    monkeypatch.setenv("BENCHTRACK_RUNNER_CPUS", "4")
    monkeypatch.setenv("GITHUB_SHA", head)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/benchtrack")
    out = tmp_path / "p.json"
    code, err = ingest(capsys, "perl", FIXTURES / "perl/perl.json", "--out", out)
    assert code == 0, err
    doc = ResultDocument.load(out)
    assert doc.runner.key == "ubuntu-latest-4cpu"
    assert doc.commit.url == f"https://github.com/acme/benchtrack/commit/{head}"
    assert doc.runner.cpu_model and doc.runner.arch


def test_unknown_commit_is_bad_input(tmp_path, capsys):
    out = tmp_path / "p.json"
    code, err = ingest(
        capsys, "perl", FIXTURES / "perl/perl.json", "--out", out, "--commit", "nope"
    )
    assert code == 2 and "a git repository with that commit" in err
    assert not out.exists()


# --- bad input ---------------------------------------------------------------------------------


def perl_doc(**changes) -> dict:
    raw = json.loads((FIXTURES / "perl/perl.json").read_text())
    raw["errors"] = []
    for key, value in changes.items():
        index, field = key.split("__")
        raw["benchmarks"][int(index[1:])][field] = value
    return raw


PERL_BAD = [
    ("nan", perl_doc(b0__samples=[math.nan] * 5), "benchmarks[0].samples[0]", "positive finite"),
    ("zero", perl_doc(b0__samples=[0, 1, 2, 3, 4]), "benchmarks[0].samples[0]", "positive finite"),
    ("negative", perl_doc(b1__samples=[5, 4, -3, 2, 1]), "benchmarks[1].samples[2]", "positive"),
    ("absurd", perl_doc(b0__samples=[1e300] * 5), "benchmarks[0].value", "plausible"),
    ("few", perl_doc(b0__samples=[1, 2, 3]), "benchmarks[0].samples", "at least 5"),
    ("no unit", perl_doc(b0__unit=None), "benchmarks[0].unit", "missing"),
    ("bad unit", perl_doc(b0__unit="KB"), "benchmarks[0].unit", "need direction smaller"),
    ("name", perl_doc(b0__name="perl/x\ny"), "benchmarks[0].name", "without control"),
]


@pytest.mark.parametrize(
    ("doc", "field", "expected"), [p[1:] for p in PERL_BAD], ids=[p[0] for p in PERL_BAD]
)
def test_perl_bad_values(tmp_path, capsys, doc, field, expected):
    src = tmp_path / "perl-raw.json"
    src.write_text(json.dumps(doc))  # json writes NaN as NaN, as lenient writers do
    assert_bad(capsys, tmp_path, "perl", src, f"{src}: {field}: expected", expected)


def test_duplicate_names(tmp_path, capsys):
    raw = perl_doc()
    raw["benchmarks"].append(dict(raw["benchmarks"][0]))
    src = tmp_path / "perl-raw.json"
    src.write_text(json.dumps(raw))
    n = len(raw["benchmarks"]) - 1
    assert_bad(capsys, tmp_path, "perl", src, f"benchmarks[{n}].name: expected a name unique", "")


def test_empty_suite(tmp_path, capsys):
    raw = perl_doc()
    raw["benchmarks"] = []
    src = tmp_path / "perl-raw.json"
    src.write_text(json.dumps(raw))
    assert_bad(capsys, tmp_path, "perl", src, f"{src}: benchmarks: expected at least one", "")


@pytest.mark.parametrize("harness", ["perl", "pytest"])
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "not found"),
        (b"", "empty"),
        (b'{"benchmarks": [', "valid JSON"),
        (b"ok", "valid JSON"),
    ],
    ids=["missing", "empty", "truncated", "not-json"],
)
def test_unreadable_files(tmp_path, capsys, harness, content, expected):
    src = tmp_path / "raw.json"
    if content is not None:
        src.write_bytes(content)
    assert_bad(capsys, tmp_path, harness, src, str(src), expected)


def test_pytest_without_samples_says_to_keep_them(tmp_path, capsys):
    raw = json.loads((FIXTURES / "pytest/pytest.json").read_text())
    del raw["benchmarks"][1]["stats"]["data"]
    src = tmp_path / "pytest.json"
    src.write_text(json.dumps(raw))
    assert_bad(
        capsys, tmp_path, "pytest", src, "benchmarks[1].stats.data: expected", "keep the samples"
    )


def test_pytest_without_extra_info_keeps_the_test_name_as_written(tmp_path, capsys):
    raw = json.loads((FIXTURES / "pytest/pytest.json").read_text())
    raw["benchmarks"] = raw["benchmarks"][:1]
    raw["benchmarks"][0].update(extra_info={}, name="test_x[10-async]", group=None)
    src = tmp_path / "pytest.json"
    src.write_text(json.dumps(raw))
    out = tmp_path / "python.json"
    code, err = ingest(capsys, "pytest", src, "--out", out)
    assert code in (0, 3), err
    [bench] = ResultDocument.load(out).benchmarks
    assert (bench.name, bench.unit) == ("python/default/test_x[10-async]", "ops/s")


def test_pytest_missing_stats(tmp_path, capsys):
    raw = json.loads((FIXTURES / "pytest/pytest.json").read_text())
    del raw["benchmarks"][0]["stats"]
    src = tmp_path / "pytest.json"
    src.write_text(json.dumps(raw))
    assert_bad(capsys, tmp_path, "pytest", src, "benchmarks[0].stats: expected", "missing")


def test_criterion_bad_home(tmp_path, capsys):
    assert_bad(capsys, tmp_path, "criterion", tmp_path / "nope", "criterion's home", "not found")
    (tmp_path / "empty").mkdir()
    assert_bad(
        capsys, tmp_path, "criterion", tmp_path / "empty", "new/benchmark.json", "none found"
    )


@pytest.mark.parametrize(
    ("file", "edit", "field", "expected"),
    [
        ("sample.json", lambda d: d["times"].__setitem__(0, 0), "times[0]", "positive finite"),
        ("sample.json", lambda d: d["iters"].pop(), "times", "one per iters entry"),
        (
            "estimates.json",
            lambda d: d["median"].pop("point_estimate"),
            "median.point_estimate",
            "missing",
        ),
        (
            "benchmark.json",
            lambda d: d.__setitem__("throughput", {"Lines": 3}),
            "throughput",
            "one of",
        ),
        (
            "benchmark.json",
            lambda d: d.__setitem__("group_id", "a\nb"),
            "group_id/function_id/value_str",
            "without control characters",
        ),
    ],
)
def test_criterion_bad_files(tmp_path, capsys, file, edit, field, expected):
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "criterion", home)
    target = sorted(home.rglob(f"new/{file}"))[0]
    data = json.loads(target.read_text())
    edit(data)
    target.write_text(json.dumps(data))
    assert_bad(capsys, tmp_path, "criterion", home, f"{target}: {field}: expected", expected)


def test_criterion_ids_are_kept_as_written(tmp_path, capsys):
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "criterion", home)
    target = sorted(home.rglob("new/benchmark.json"))[0]
    data = json.loads(target.read_text())
    data["group_id"], data["function_id"], data["value_str"] = "my group", "f[x]", "8/real"
    target.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    code, err = ingest(capsys, "criterion", home, "--out", out)
    assert code == 0, err
    assert "rust/my group/f[x]/8/real" in ResultDocument.load(out).by_name()


def test_criterion_truncated_file(tmp_path, capsys):
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "criterion", home)
    target = sorted(home.rglob("new/estimates.json"))[0]
    target.write_bytes(target.read_bytes()[:30])
    assert_bad(capsys, tmp_path, "criterion", home, f"{target}: expected valid JSON", "")


def assert_bad(capsys, tmp_path: Path, harness: str, src: Path, where: str, expected: str) -> None:
    out = tmp_path / "out" / "result.json"
    code, err = ingest(capsys, harness, src, "--out", out)
    assert code == 2
    assert err.startswith("benchtrack: error: ") and err.count("\n") == 1, err
    assert where in err and expected in err, err
    assert "Traceback" not in err
    assert not out.exists() and not out.parent.exists()


# --- the installed entry point -----------------------------------------------------------------


def benchtrack(*args: object) -> subprocess.CompletedProcess[str]:
    command = ["uv", "run", "--frozen", "benchtrack", *map(str, args)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


def test_entry_point_subprocess(tmp_path):
    out = tmp_path / "perl.json"
    done = benchtrack("ingest", "perl", FIXTURES / "perl/perl.json", "--out", out)
    assert done.returncode == 0, done.stderr
    assert ResultDocument.load(out).suite == "perl"
    bad = benchtrack("ingest", "perl", tmp_path / "none.json", "--out", tmp_path / "x.json")
    assert bad.returncode == 2 and "none.json: expected" in bad.stderr
    assert not (tmp_path / "x.json").exists()
