"""A pytest plugin that adds Chromium's CPU to the CPU the dashboard's tests are charged with (not
loaded by default): the root conftest.py's "CPU seconds by file" counts the tests' own process and
the processes they waited for, and Playwright's browser is never waited for.

    PYTHONPATH=gh-pages/tests PYTEST_ADDOPTS="-p cpu_tree" \
        /usr/bin/time -v cargo make test-dashboard

prints, at the end, each test's CPU seconds with every live descendant's (Chromium's processes,
Playwright's driver; each one's utime+stime+cutime+cstime from /proc, a process that ended being
in its parent's c-fields) and the browser's whole CPU just before it closed: /usr/bin/time's user
and system time plus that figure is what the task burnt. A test's figure includes whatever else
the tree did meanwhile; the session's last test's figure loses the browser's CPU when it closes."""

from __future__ import annotations

import os
import time

import pytest

_TICK = os.sysconf("SC_CLK_TCK")
_BY_TEST: dict[str, tuple[float, float]] = {}
_BROWSER: list[float] = []


def _own() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _descendants() -> float:
    """CPU seconds of this process's live descendants, theirs and their ended children's."""
    children: dict[int, list[tuple[int, float]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpu = sum(int(x) for x in fields[11:15]) / _TICK  # utime stime cutime cstime
        children.setdefault(int(fields[1]), []).append((int(name), cpu))
    total, todo = 0.0, [os.getpid()]
    while todo:
        for pid, cpu in children.get(todo.pop(), []):
            total += cpu
            todo.append(pid)
    return total


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    before, start = _own() + _descendants(), time.monotonic()
    try:
        return (yield)
    finally:
        spent = _own() + _descendants() - before
        _BY_TEST[item.nodeid] = (spent, time.monotonic() - start)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    if nextitem is None:  # the session's fixtures (the browser) close in this teardown
        _BROWSER.append(_descendants())
    return (yield)


def pytest_terminal_summary(terminalreporter) -> None:
    tr = terminalreporter
    tr.section("CPU seconds by test, the browser's included (cpu, wall)")
    for nodeid, (cpu, wall) in sorted(_BY_TEST.items(), key=lambda kv: -kv[1][0]):
        tr.write_line(f"{cpu:7.1f} {wall:7.1f}  {nodeid}")
    if _BROWSER:
        tr.write_line(f"the browser's processes, before they closed: {_BROWSER[0]:.1f} CPU-s")
