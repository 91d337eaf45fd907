"""tracker/bench/fit_inflated.py: the shards `shard-plan --fit` gives an inflated suite."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

from benchtrack.gate import shards
from benchtrack.lab import aa

HERE = Path(__file__).resolve().parents[1]
SCRIPT = HERE / "bench" / "fit_inflated.py"
RECORDING = HERE / "bench/recordings/aa-all-quiet-q18.json.gz"
spec = importlib.util.spec_from_file_location("fit_inflated", SCRIPT)
fit_inflated = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_inflated)


def _slowest(seconds: dict[str, float], n: int) -> float:
    split = shards.plan(seconds, n)
    return max(sum(seconds[b] for b, k in split.items() if k == j) for j in range(n))


def test_an_inflated_suites_seconds_and_the_fewest_shards_that_fit(capsys) -> None:
    data = aa.load(RECORDING)
    each = fit_inflated.seconds([data], 300)
    assert len(each) == 300 and all(s > 0 for s in each.values())
    # 300 benchmarks drawn in turn from the recording's ~75 stepped ones: ~4x its round's steps
    recorded = sum(
        statistics.median(known)
        for xs in data.doc["bench_seconds"].values()
        if (known := [x for x in xs if x is not None])
    )
    assert 3.5 < sum(each.values()) / recorded < 4.5
    n = shards.fewest(each, 29, 10.0)
    assert n is not None and n > 1
    assert _slowest(each, n) * 29 <= 600 < _slowest(each, n - 1) * 29
    config = HERE.parent / "benchtrack.toml"
    args = ["--inflate", "300", "--fit", "10", "--config", str(config), str(RECORDING)]
    assert fit_inflated.main(args) == 0
    assert "300 benchmarks" in capsys.readouterr().out


def test_bad_input_is_named_and_exits_2(tmp_path: Path, capsys) -> None:
    config = HERE.parent / "benchtrack.toml"
    for args, named in (
        (["--inflate", "0", "--fit", "10"], "--inflate"),
        (["--inflate", "10", "--fit", "0"], "--fit"),
        (["--inflate", "10", "--fit", "10", str(tmp_path / "missing.json")], "missing.json"),
    ):
        argv = [*args, "--config", str(config)]
        if not any(a.endswith(".json") for a in args):
            argv.append(str(RECORDING))
        assert fit_inflated.main(argv) == 2
        assert named in capsys.readouterr().err
