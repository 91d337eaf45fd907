"""The benchmark harness (python/benchmarks/conftest.py) names failures instead of leaving gaps."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

BENCH_CONFTEST = Path(__file__).resolve().parents[1] / "benchmarks" / "conftest.py"

MODULE = """
import pytest

pytestmark = pytest.mark.bench_group("demo")


def add(a, b):
    return a + b


async def boom():
    raise RuntimeError("the pattern broke")


@pytest.mark.parametrize("variant", ["ok", "raises", "wrong"])
def test_demo(bench, variant):
    if variant == "ok":
        assert bench(add, 2, 3, unit="ops/s") == 5
    elif variant == "raises":
        bench(boom, unit="ops/s")
    else:
        assert bench(add, 2, 2, unit="ops/s") == 5
"""


# The plugins the count and step workers start without (scripts/bench-python-count.sh,
# bench-python-step.sh: the suite uses none of them), so those modes are tested as they run;
# each pytest start saves ~0.8 CPU-s of imports.
WORKER_PLUGINS_OFF = ("-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:asyncio")


def _run(tmp_path, *args, env_extra=None):
    shutil.copy(BENCH_CONFTEST, tmp_path / "conftest.py")
    for helper in ("countmode.py", "stepmode.py"):  # the modules the conftest imports
        shutil.copy(BENCH_CONFTEST.with_name(helper), tmp_path / helper)
    (tmp_path / "bench_demo.py").write_text(MODULE)
    out = tmp_path / "out.json"
    env = {k: v for k, v in os.environ.items() if k != "BENCH_FILTER"}
    env.update(BENCH_PROFILE="quick", **(env_extra or {}))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "python_files=bench_*.py",
         f"--rootdir={tmp_path}", "-c", os.devnull, f"--benchmark-json={out}", *args, "."],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done, out


def test_failures_are_named_in_the_json_and_fail_the_run(tmp_path):
    done, out = _run(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    names = [b["extra_info"]["name"] for b in doc["benchmarks"]]
    assert names == ["python/demo/ok"]
    assert len(doc["benchmarks"][0]["stats"]["data"]) >= 5  # every round kept
    errors = {e["name"]: e["message"] for e in doc["errors"]}
    assert set(errors) == {"python/demo/raises", "python/demo/wrong"}
    assert "the pattern broke" in errors["python/demo/raises"]


def test_a_filter_selecting_nothing_is_a_usage_error(tmp_path):
    done, _ = _run(tmp_path, env_extra={"BENCH_FILTER": "nothing/like/this"})
    assert done.returncode == 4
    assert "matches no benchmark" in done.stdout + done.stderr


def test_a_malformed_step_channel_is_a_usage_error(tmp_path):
    done, out = _run(tmp_path, *WORKER_PLUGINS_OFF, env_extra={"BENCH_STEP": "garbage"})
    assert done.returncode == 4
    assert "BENCH_STEP='garbage': expected two file descriptors" in done.stdout + done.stderr
    assert not out.exists()  # nothing measured, nothing written


def test_a_filter_selects_by_name(tmp_path):
    done, out = _run(tmp_path, env_extra={"BENCH_FILTER": "demo/ok$"})
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    assert [b["extra_info"]["name"] for b in doc["benchmarks"]] == ["python/demo/ok"]
    assert doc["errors"] == []


def test_all_failing_still_writes_the_errors(tmp_path):
    done, out = _run(tmp_path, env_extra={"BENCH_FILTER": "raises|wrong"})
    assert done.returncode == 1
    doc = json.loads(out.read_text())
    assert doc["benchmarks"] == []
    assert [e["name"] for e in doc["errors"]] == ["python/demo/raises", "python/demo/wrong"]


def test_count_mode_runs_each_benchmark_warm_then_k_times_between_markers(tmp_path):
    """Count mode (BENCH_COUNT) times nothing: it logs one marker line per getppid() call, in
    order, and a failing benchmark still fails; outside valgrind the client request is a no-op."""
    labels = tmp_path / "labels.tsv"
    env = {"BENCH_COUNT": "2", "BENCH_COUNT_LABELS": str(labels), "BENCH_FILTER": "ok|raises"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done, out = _run(tmp_path, "--benchmark-disable", *WORKER_PLUGINS_OFF, env_extra=env)
    assert done.returncode == 1, done.stdout  # "raises" fails in count mode too
    assert not out.exists() or json.loads(out.read_text())["benchmarks"] == []
    lines = labels.read_text().splitlines()
    assert lines == [
        "meta\tpython/demo/ok\tops/s",
        "start\tpython/demo/ok",
        "sample\tpython/demo/ok\t1",
        "sample\tpython/demo/ok\t1",
    ]
    assert list((tmp_path / "cache" / "benchtrack").glob("callgrind-client-*.so"))


def test_count_mode_rejects_a_bad_iteration_count(tmp_path):
    env = {"BENCH_COUNT": "0", "BENCH_COUNT_LABELS": str(tmp_path / "l.tsv")}
    done, _ = _run(tmp_path, "--benchmark-disable", *WORKER_PLUGINS_OFF, env_extra=env)
    assert done.returncode != 0
    assert "BENCH_COUNT='0'" in done.stdout + done.stderr
