"""benchtrack's pytest plugin for the gate's lockstep steps (`pytest -p benchtrack_step`).

Loaded by `benchtrack step-worker pytest` in the repository's own environment, so it uses the
standard library and pytest only. With `BENCH_STEP="<in>,<out>"` set it keeps the tests that
use pytest-benchmark's `benchmark` fixture (and match `BENCH_FILTER`), runs them in the order of
their benchmark names, and makes `benchmark(fn, ...)` and `benchmark.pedantic(...)` serve the
gate's steps instead of timing rounds of their own: one call as the warm-up (its result is what
the test checks), then `ready NAME<tab>UNIT<tab>ITEMS<tab>CLOCK`, then `run N` -> `ns T` (N calls
timed together; with a pedantic `setup`, each call after its own untimed setup) until `next`
(tracker/src/benchtrack/gate/lockstep.py has the protocol).

A benchmark's name is `<suite>/<group>/<test name>`, as `benchtrack ingest pytest` names one
without `extra_info["name"]`: the group from `@pytest.mark.benchmark(group=...)` (a group set
inside the test body is not known when the tests are ordered, so it is not used), else
`default`. `extra_info["unit"]` and `["items"]`, when the test sets them before the call, give
the unit and the items per call. (A `gc.collect()` before each step, tried so that both
sides' collector would run at the same points, spread bidict's rounds more, not less: the
steps then start with cold caches. docs/adopting.md has the recordings.)
"""

from __future__ import annotations

import os
import re
import time

import pytest

STEP_SECONDS = 0.01  # the wall time a step with a per-call setup may take (the gate's step)
_channel = None
_names: dict[str, str] = {}  # nodeid -> benchmark name
_current: list[str] = []  # the running test's benchmark name


def _active() -> bool:
    return bool(os.environ.get("BENCH_STEP"))


def step_name(item) -> str:
    suite = os.environ["BENCHTRACK_STEP_SUITE"]  # `benchtrack step-worker pytest --suite`
    marker = item.get_closest_marker("benchmark")
    group = (marker.kwargs.get("group") if marker else None) or "default"
    return f"{suite}/{group}/{item.name}"


def _open():
    global _channel
    if _channel is None:
        fd_in, fd_out = (int(x) for x in os.environ["BENCH_STEP"].split(","))
        _channel = (
            os.fdopen(fd_in, "r", encoding="utf-8"),
            os.fdopen(fd_out, "w", encoding="utf-8", buffering=1),
        )
    return _channel


def _one_line(text) -> str:
    return " ".join(str(text).split()) or "failed"


def _clock():
    which = os.environ.get("BENCH_STEP_CLOCK", "wall")
    return which, (time.process_time_ns if which == "cpu" else time.perf_counter_ns)


def serve(fixture, once, timed):
    """Warm up with `once()` (its result goes back to the test), offer the benchmark, and time
    the steps asked for with `timed(n, clock)` (nanoseconds of n calls)."""
    name = _current[-1] if _current else fixture.name
    commands, replies = _open()
    try:
        result = once()
    except BaseException as e:
        replies.write(f"error {name}\t{_one_line(f'{type(e).__name__}: {e}')}\n")
        raise
    extra = getattr(fixture, "extra_info", None) or {}
    unit, items = extra.get("unit") or "ops/s", extra.get("items", 1)
    which, clock = _clock()
    replies.write(f"ready {name}\t{unit}\t{items}\t{which}\n")
    for line in commands:
        word, _, arg = line.strip().partition(" ")
        if word == "next":
            break
        if word != "run" or not arg.isdigit():
            raise RuntimeError(f"benchtrack step mode: expected 'run N' or 'next', got {line!r}")
        try:
            ns = timed(int(arg), clock)
        except Exception as e:
            replies.write(f"error {_one_line(f'{type(e).__name__}: {e}')}\n")
            continue
        replies.write(f"ns {max(ns, 1)}\n")
    return result


def _call(self, function_to_benchmark, *args, **kwargs):
    self._mode = "benchmark(...)"  # used: pytest-benchmark warns about an unused fixture

    def timed(n, clock):
        t0 = clock()
        for _ in range(n):
            function_to_benchmark(*args, **kwargs)
        return clock() - t0

    return serve(self, lambda: function_to_benchmark(*args, **kwargs), timed)


def _pedantic(self, target, args=(), kwargs=None, setup=None, teardown=None, rounds=1,
              warmup_rounds=0, iterations=1):  # fmt: skip
    self._mode = "benchmark.pedantic(...)"
    kwargs = kwargs or {}

    def prepared():
        if setup is None:
            return args, kwargs
        got = setup()
        return got if got is not None else (args, kwargs)

    wall = [0.0]  # one call's wall time with its setup and teardown (the warm-up's)

    def once():
        t0 = time.perf_counter()
        a, k = prepared()
        result = target(*a, **k)
        if teardown is not None:
            teardown(*a, **k)
        wall[0] = time.perf_counter() - t0
        return result

    def timed(n, clock):
        if setup is None and teardown is None:
            t0 = clock()
            for _ in range(n):
                target(*args, **kwargs)
            return clock() - t0
        # Each call timed alone, its setup and teardown not. The gate sizes n by the timed
        # part only; a setup far slower than the call (a copy of a big input) would make a step
        # last seconds, so at most a step's worth of wall time is run and the time scaled to n.
        runs = max(1, min(n, int(STEP_SECONDS / max(wall[0], 1e-9))))
        total = 0
        for _ in range(runs):
            a, k = prepared()
            t0 = clock()
            target(*a, **k)
            total += clock() - t0
            if teardown is not None:
                teardown(*a, **k)
        return total * n // runs

    return serve(self, once, timed)


def pytest_configure(config):
    if not _active():
        return
    try:
        from pytest_benchmark.fixture import BenchmarkFixture
    except ImportError:
        raise pytest.UsageError(
            "benchtrack step mode: pytest-benchmark is not installed in this environment "
            "(the suite's build installs the repository's test dependencies)"
        ) from None
    BenchmarkFixture.__call__ = _call
    BenchmarkFixture.pedantic = _pedantic


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if not _active():
        return
    pattern = os.environ.get("BENCH_FILTER")
    rx = re.compile(pattern) if pattern else None
    keep, drop = [], []
    for item in items:
        name = step_name(item)
        uses = "benchmark" in getattr(item, "fixturenames", ())
        if uses and (rx is None or rx.search(name)):
            _names[item.nodeid] = name
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    # sorted by benchmark name: the gate merges both sides' lists
    items[:] = sorted(keep, key=lambda item: _names[item.nodeid])


def pytest_unconfigure(config):
    if _channel is not None:
        for f in _channel:
            f.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _current.append(_names.get(item.nodeid, item.name))
    try:
        yield
    finally:
        _current.pop()
