"""stats.compare_samples verdicts and benchtrack compare: exit codes, runner sizes, new, removed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from benchtrack import stats
from benchtrack.cli import main
from benchtrack.compare import compare_documents
from benchtrack.result import Benchmark, ResultDocument, Runner


def noisy(center: float, n: int = 30, spread: float = 0.01, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(center, center * spread, n)


@pytest.mark.parametrize(
    ("head_center", "bigger", "verdict"),
    [
        (90, True, stats.REGRESSED),  # throughput -10 %
        (110, True, stats.IMPROVED),
        (90, False, stats.IMPROVED),  # memory -10 % is better
        (110, False, stats.REGRESSED),
        (102, True, stats.UNCHANGED),  # real but below the 5 % threshold
        (100, True, stats.UNCHANGED),
    ],
)
def test_verdicts_are_direction_aware(head_center, bigger, verdict):
    change = stats.compare_samples(noisy(100), noisy(head_center, seed=2), bigger_is_better=bigger)
    assert change.verdict == verdict
    assert change.ratio == pytest.approx(head_center / 100, rel=0.02)
    assert change.ratio_ci[0] <= change.ratio <= change.ratio_ci[1]


def test_too_noisy_is_inconclusive_not_a_guess():
    base, head = noisy(100, n=5, spread=0.2), noisy(93, n=5, spread=0.2, seed=3)
    change = stats.compare_samples(base, head)
    assert change.verdict == stats.INCONCLUSIVE and not change.significant


def test_threshold_decides_between_unchanged_and_regressed():
    base, head = noisy(100), noisy(96, seed=2)
    assert stats.compare_samples(base, head).verdict == stats.UNCHANGED
    assert stats.compare_samples(base, head, threshold=0.02).verdict == stats.REGRESSED


def test_same_inputs_same_answer():
    a, b = noisy(100, n=7), noisy(97, n=7, seed=5)
    assert stats.compare_samples(a, b) == stats.compare_samples(a, b)


def test_median_ci_contains_the_median():
    value, (lo, hi) = stats.median_ci([5.0, 1.0, 4.0, 2.0, 3.0])
    assert value == 3.0 and 1.0 <= lo <= 3.0 <= hi <= 5.0


# --- documents and the command -----------------------------------------------------------------


def base_doc() -> ResultDocument:
    from test_result import GOOD as DOC  # the reference result document

    data = json.loads(json.dumps(DOC))
    data["errors"] = []
    for b in data["benchmarks"]:
        b["samples"] = [float(x) for x in noisy(b["value"], n=10)]
        b["ci"] = [min(b["samples"]), max(b["samples"])]
        b["value"] = float(np.median(b["samples"]))
    return ResultDocument.from_dict(data, "base")


def scaled(doc: ResultDocument, name: str, factor: float) -> ResultDocument:
    def scale(b: Benchmark) -> Benchmark:
        if b.name != name:
            return b
        return dataclasses.replace(
            b,
            value=b.value * factor,
            ci=(b.ci[0] * factor, b.ci[1] * factor),
            samples=tuple(s * factor for s in b.samples),
        )

    return dataclasses.replace(doc, benchmarks=tuple(scale(b) for b in doc.benchmarks))


def write(tmp_path: Path, name: str, doc: ResultDocument) -> Path:
    path = tmp_path / name
    doc.dump(path)
    return path


def test_regression_exits_1_and_is_named(tmp_path, capsys):
    base = base_doc()
    head = scaled(base, "rust/streams/async_next", 0.8)
    code = main(
        [
            "compare",
            str(write(tmp_path, "b.json", base)),
            str(write(tmp_path, "h.json", head)),
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["regressed"]
    verdicts = {b["name"]: b["verdict"] for b in report["suites"][0]["benchmarks"]}
    assert verdicts == {"rust/streams/async_next": "regressed", "rust/rss/walk/1000": "unchanged"}


def test_memory_growth_is_a_regression(tmp_path, capsys):
    base = base_doc()
    head = scaled(base, "rust/rss/walk/1000", 1.3)
    code = main(
        ["compare", str(write(tmp_path, "b.json", base)), str(write(tmp_path, "h.json", head))]
    )
    assert code == 1
    assert "regressed" in capsys.readouterr().out


def test_improvement_and_no_change_exit_0(tmp_path, capsys):
    base = base_doc()
    head = scaled(base, "rust/streams/async_next", 1.25)
    assert (
        main(
            ["compare", str(write(tmp_path, "b.json", base)), str(write(tmp_path, "h.json", head))]
        )
        == 0
    )
    assert "improved" in capsys.readouterr().out


def test_different_runner_sizes_are_refused(tmp_path, capsys):
    base = base_doc()
    head = dataclasses.replace(base, runner=dataclasses.replace(base.runner, cpus=2))
    code = main(
        ["compare", str(write(tmp_path, "b.json", base)), str(write(tmp_path, "h.json", head))]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "runner: expected the runner size of" in err and "ubuntu-latest-4cpu" in err
    assert "ubuntu-latest-2cpu" in err


def test_new_removed_and_failed(tmp_path):
    base = base_doc()
    renamed = dataclasses.replace(base.benchmarks[0], name="rust/streams/async_next_v2")
    head = dataclasses.replace(
        base,
        benchmarks=(renamed,),
        errors=(_error("rust/rss/walk/1000"),),
    )
    result = compare_documents(base, head)
    assert {r.name: r.verdict for r in result.rows} == {
        "rust/streams/async_next": "removed",
        "rust/streams/async_next_v2": "new",
        "rust/rss/walk/1000": "failed",
    }
    code = main(
        ["compare", str(write(tmp_path, "b.json", base)), str(write(tmp_path, "h.json", head))]
    )
    assert code == 3  # a benchmark failed to run: it could hide a regression


def test_one_figure_a_run_is_never_judged(tmp_path):
    """A harness's single summary figure (libtest, BMF) has no noise to judge a change by:
    a 20 % drop is inconclusive, not a regression."""

    def single(doc: ResultDocument) -> ResultDocument:
        first = dataclasses.replace(
            doc.benchmarks[0], samples=(doc.benchmarks[0].value,), ci=(doc.benchmarks[0].value,) * 2
        )
        return dataclasses.replace(doc, benchmarks=(first, *doc.benchmarks[1:]))

    base = single(base_doc())
    head = scaled(base, "rust/streams/async_next", 0.8)
    row = {r.name: r for r in compare_documents(base, head).rows}["rust/streams/async_next"]
    assert row.verdict == stats.INCONCLUSIVE and "one figure per run" in (row.note or "")
    code = main(
        ["compare", str(write(tmp_path, "b.json", base)), str(write(tmp_path, "h.json", head))]
    )
    assert code == 0


def _error(name: str):
    from benchtrack.result import BenchError

    return BenchError(name, "panicked at walk.rs:1")


def test_directories_pair_documents_by_suite(tmp_path, capsys):
    base = base_doc()
    (tmp_path / "b").mkdir()
    (tmp_path / "h").mkdir()
    write(tmp_path / "b", "rust.json", base)
    write(tmp_path / "h", "rust.json", scaled(base, "rust/streams/async_next", 0.5))
    assert main(["compare", str(tmp_path / "b"), str(tmp_path / "h"), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["suites"][0]["suite"] == "rust"


@pytest.mark.parametrize("threshold", ["abc", "-5", "0", "100", "150", "nan", "inf"])
def test_bad_threshold_is_usage_error(tmp_path, threshold, capsys):
    path = write(tmp_path, "b.json", base_doc())
    with pytest.raises(SystemExit) as caught:
        main(["compare", str(path), str(path), "--threshold", threshold])
    assert caught.value.code == 2
    assert "argument --threshold: expected a percentage" in capsys.readouterr().err


def test_first_run_has_only_new_benchmarks():
    result = compare_documents(None, base_doc())
    assert {r.verdict for r in result.rows} == {"new"} and not result.regressed


def test_runner_key_is_the_comparison_key():
    assert Runner("ubuntu-latest", 4, "", "", "").key == base_doc().runner.key


@pytest.mark.parametrize("sizes", [(10, 10), (5, 7), (30, 1), (200, 9), (300, 6)])
def test_fast_bootstrap_equals_the_plain_definition_bit_for_bit(sizes):
    """stats resamples via cached draw counts; the numbers must be np.median's of x[idx]."""
    rng = np.random.default_rng(sizes[0])
    head, base = (np.round(rng.lognormal(0, 0.3, n) * 50) for n in sizes)  # ties included
    plain = stats._rng()
    expected = [stats._bootstrap_medians(x, plain, 2000) for x in (head, base)]
    got = stats._resampled_medians((head, base), 2000)
    assert all(np.array_equal(g, e) for g, e in zip(got, expected, strict=True))


def test_many_pairs_bootstrapped_together_equal_each_alone():
    """compare_many stacks pairs of equal sizes into one bootstrap: the same Change as one by
    one (each of which is the plain definition, above), whatever the mix of sizes."""
    rng = np.random.default_rng(11)
    pairs = []
    for i in range(40):
        nb, nh = rng.choice([5, 6, 10, 11]), rng.choice([5, 10, 300])
        base = np.round(rng.lognormal(0, 0.1, nb) * 100)  # ties
        head = rng.lognormal(rng.normal(0, 0.08), 0.1, nh) * 100
        pairs.append((base, head, bool(i % 3)))
    pairs.append(([1.0, float("inf"), 2, 3, 4], [1.0, 2, 3, 4, 5], True))  # the plain path
    steady = 100 + rng.normal(0, 0.1, 10)
    pairs.append((steady, steady[::-1] + 0.05, True))  # well within the threshold
    together = stats.compare_many(pairs, threshold=0.03)
    alone = [stats.compare_samples(b, h, bigger_is_better=g, threshold=0.03) for b, h, g in pairs]
    assert together == alone
    assert {c.verdict for c in together} >= {stats.UNCHANGED, stats.REGRESSED, stats.IMPROVED}


def test_split_medians_draw_the_exact_bootstrap_distribution_of_the_median():
    """From stats.SPLIT_FROM samples on, resample medians are drawn without building resamples:
    for a small sample the distribution is enumerable (n^n equally likely resamples), and the
    drawn frequencies must match it (odd and even n, ties included)."""
    import itertools
    from collections import Counter

    for x in ([1.0, 2.0, 2.0, 5.0], [3.0, 1.0, 4.0, 1.5, 9.0]):
        n = len(x)
        exact = Counter(
            float(np.median([x[i] for i in idx])) for idx in itertools.product(range(n), repeat=n)
        )
        draws = 200_000
        got = Counter(stats._split_medians(np.asarray(x), stats._rng(), draws).tolist())
        assert set(got) <= set(exact)
        for value, ways in exact.items():
            p = ways / n**n
            sd = (p * (1 - p) / draws) ** 0.5
            assert abs(got[value] / draws - p) < 5 * sd + 1e-9, (x, value)


def test_a_hundred_thousand_samples_bootstrap_in_bounded_memory():
    """pytest-benchmark records ~100k rounds of a fast function: the interval comes from the
    split draws (no 10,000 x 100,000 matrix: 8 GB), with the plain way's percentiles. The
    allocations' peak is the code's, whatever the machine; its time is not asserted."""
    import tracemalloc

    rng = np.random.default_rng(5)
    x = rng.lognormal(0, 0.2, 100_000)
    tracemalloc.start()
    med, (lo, hi) = stats.median_ci(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50e6, peak
    assert lo < med < hi and (hi - lo) / med < 0.01
    # the plain way on a sample just above SPLIT_FROM: the same interval within resampling error
    y = x[: stats.SPLIT_FROM + 1]
    plain = np.quantile(stats._bootstrap_medians(y, stats._rng(), 10_000), [0.025, 0.975])
    split = stats.median_ci(y)[1]
    width = plain[1] - plain[0]
    assert abs(split[0] - plain[0]) < 0.1 * width and abs(split[1] - plain[1]) < 0.1 * width
