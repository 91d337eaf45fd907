"""Shared by every test directory: keep what the tests cache out of the user's home."""

from __future__ import annotations

import os
import resource

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_history_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The history reader caches columns (benchtrack.history.cache); subprocesses inherit this.
    os.environ["BENCHTRACK_CACHE"] = str(tmp_path_factory.mktemp("history-cache"))


@pytest.fixture(autouse=True, scope="session")
def _no_xdist_worker_in_children() -> None:
    # pytest-xdist marks its workers' environment (PYTEST_XDIST_WORKER, …), and every harness a
    # test starts would inherit it: pytest-benchmark then disables itself ("xdist plugin is
    # active") and a suite measured under a test reads no benchmarks at all.
    for name in [n for n in os.environ if n.startswith("PYTEST_XDIST_")]:
        del os.environ[name]


# --- CPU seconds by test file -----------------------------------------------------------------
# Wall-time durations swell with whatever else the machine runs; the CPU time a file costs (its
# tests' own and that of every process they started and waited for) does not, so the summary
# says which files to make cheaper. Each phase's cost rides on the test's reports (xdist sends
# them to the controller); the teardown report carries all three phases.

_CPU_BY_FILE: dict[str, float] = {}
_SPAN_BY_FILE: dict[str, list[float]] = {}  # first start, last stop (epoch seconds)


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _phase_cpu(item: pytest.Item):
    before = _cpu_seconds()
    try:
        return (yield)
    finally:
        item.user_properties.append(("cpu_seconds", _cpu_seconds() - before))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    return (yield from _phase_cpu(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    return (yield from _phase_cpu(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    return (yield from _phase_cpu(item))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        spent = sum(v for k, v in report.user_properties if k == "cpu_seconds")
        path = report.nodeid.split("::", 1)[0]
        _CPU_BY_FILE[path] = _CPU_BY_FILE.get(path, 0.0) + spent
    span = _SPAN_BY_FILE.setdefault(report.nodeid.split("::", 1)[0], [report.start, report.stop])
    span[0], span[1] = min(span[0], report.start), max(span[1], report.stop)


def pytest_terminal_summary(terminalreporter) -> None:
    if not _CPU_BY_FILE:
        return
    ranked = sorted(_CPU_BY_FILE.items(), key=lambda kv: -kv[1])
    total = sum(_CPU_BY_FILE.values())
    terminalreporter.section(
        f"CPU seconds by file ({total:.0f} s in all; the 15 costliest, the last to end)"
    )
    first = min(start for start, _ in _SPAN_BY_FILE.values())
    terminalreporter.write_line(
        "     CPU   from     to  file (wall seconds from the first test's start)"
    )
    last = sorted(_SPAN_BY_FILE, key=lambda path: -_SPAN_BY_FILE[path][1])[:5]
    shown = [path for path, _ in ranked[:15]] + [p for p in last if p not in dict(ranked[:15])]
    for path in shown:  # the costliest, then those of the last five to end not among them
        start, stop = _SPAN_BY_FILE[path]
        terminalreporter.write_line(
            f"{_CPU_BY_FILE[path]:7.1f}s {start - first:6.0f} {stop - first:6.0f}  {path}"
        )
