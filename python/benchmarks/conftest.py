"""The benchmark harness: names, one fresh event loop per async benchmark, rounds, JSON extras.

Every benchmark module sets ``pytestmark = pytest.mark.bench_group("<group>")`` and parametrizes
``variant``; its name is ``python/<group>/<variant>`` (plus ``/<where>`` when the marker lists
``where`` among its params). ``BENCH_FILTER`` (a regular expression searched in those names)
selects benchmarks when they are measured; a filter that selects nothing is a usage error.

The JSON written by ``--benchmark-json`` gains ``errors`` (benchmarks that failed, by name; they
are removed from ``benchmarks``), ``skipped`` and ``suite`` (profile, threads).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import countmode
import pytest
import stepmode

from asyncio_patterns.params import Sizes, bench_profile, bench_threads
from asyncio_patterns.runner import new_runner

MARKER = "bench_group"
FAILED = pytest.StashKey[dict[str, str]]()
SKIPPED = pytest.StashKey[dict[str, str]]()
STARTED = pytest.StashKey[float]()


def bench_name(item: pytest.Item) -> str | None:
    """``python/<group>/<variant>[/<param>...]`` for a benchmark item, None for anything else."""
    mark = item.get_closest_marker(MARKER)
    if mark is None:
        return None
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    if "variant" not in params:
        raise pytest.UsageError(f"{item.nodeid}: a benchmark must parametrize 'variant'")
    parts = ["python", mark.args[0], params["variant"]]
    parts += [str(params[key]) for key in mark.kwargs.get("params", ())]
    return "/".join(parts)


def _measuring(config: pytest.Config) -> bool:
    return not config.getoption("benchmark_disable", False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(group, params=()): a benchmark of group python/<group>/<variant>"
    )
    config.stash[FAILED] = {}
    config.stash[SKIPPED] = {}
    config.stash[STARTED] = time.time()
    if stepmode.active():
        try:
            stepmode.fds()
        except ValueError as e:  # a usage error before anything runs, as a bad BENCH_FILTER
            raise pytest.UsageError(str(e)) from None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if stepmode.active():
        # The lockstep runner pairs two processes' benchmarks by merging their sorted names.
        items.sort(key=lambda item: bench_name(item) or "")
    pattern = os.environ.get("BENCH_FILTER", "").strip()
    if not pattern or not (_measuring(config) or countmode.iterations() or stepmode.active()):
        return
    try:
        regex = re.compile(pattern)
    except re.error as err:
        raise pytest.UsageError(
            f"BENCH_FILTER={pattern!r} is not a regular expression: {err}"
        ) from None
    keep, drop = [], []
    for item in items:
        name = bench_name(item)
        (drop if name is not None and not regex.search(name) else keep).append(item)
    if not any(bench_name(item) for item in keep):
        names = sorted({n for n in map(bench_name, items) if n})
        raise pytest.UsageError(
            f"BENCH_FILTER={pattern!r} matches no benchmark; names are like "
            f"{', '.join(names[:4]) or 'python/<group>/<variant>'}"
        )
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    name = bench_name(item)
    if name is not None:
        if report.failed and name not in item.config.stash[FAILED]:
            if call.excinfo is not None:
                message = f"{call.excinfo.typename}: {call.excinfo.value}".strip()
            else:
                message = report.longreprtext.strip().splitlines()[-1:]
                message = message[0] if message else "failed"
            item.config.stash[FAILED][name] = f"{report.when}: {message}"[:2000]
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
            item.config.stash[SKIPPED][name] = str(reason)
    return report


def _suite_info() -> dict[str, Any]:
    return {"profile": bench_profile().profile, "threads": bench_threads()}


def pytest_benchmark_update_json(
    config: pytest.Config, benchmarks: list[Any], output_json: dict[str, Any]
) -> None:
    failed = config.stash[FAILED]
    output_json["benchmarks"] = [
        b for b in output_json["benchmarks"] if b.get("extra_info", {}).get("name") not in failed
    ]
    output_json["errors"] = [{"name": n, "message": m} for n, m in sorted(failed.items())]
    output_json["skipped"] = [
        {"name": n, "reason": r} for n, r in sorted(config.stash[SKIPPED].items())
    ]
    output_json["suite"] = _suite_info()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """pytest-benchmark writes no JSON when no benchmark succeeded: write the errors anyway."""
    config = session.config
    path: Path | None = config.getoption("benchmark_json", None)
    if path is None or not _measuring(config):
        return
    if path.exists() and path.stat().st_mtime >= config.stash[STARTED]:
        return
    doc = {"benchmarks": []}
    pytest_benchmark_update_json(config, [], doc)
    path.write_text(json.dumps(doc, indent=4) + "\n")


class Bench:
    """Measures one pattern: ``bench(fn, *args, unit=..., items=...)``; async fns too."""

    def __init__(self, benchmark: Any, name: str, group: str, sizes: Sizes) -> None:
        self.benchmark = benchmark
        self.name = name
        self.group = group
        self.sizes = sizes
        self.threads = bench_threads()
        self._runner: Any = None

    def __call__(
        self, fn: Callable[..., Any], *args: Any, unit: str, items: int = 1, **extra: Any
    ) -> Any:
        self.benchmark.group = self.group
        self.benchmark.extra_info.update(
            name=self.name,
            unit=unit,
            items=items,
            threads=self.threads,
            profile=self.sizes.profile,
            **extra,
        )
        if inspect.iscoroutinefunction(fn):
            # A fresh loop for this benchmark, made (and later closed) outside the timed region.
            self._runner = new_runner(self.threads)
            runner = self._runner

            def target() -> Any:
                return runner.run(fn(*args))

        else:

            def target() -> Any:
                return fn(*args)

        if stepmode.active():  # timed in steps by the gate's lockstep runner
            return stepmode.serve(self.name, unit, items, target)
        iters = countmode.iterations()
        if iters is not None:  # instruction counts under benchtrack callgrind: no timing
            return countmode.count(self.name, unit, items, target, iters)
        if self.sizes.rounds is None:
            return self.benchmark(target)
        return self.benchmark.pedantic(target, rounds=self.sizes.rounds, warmup_rounds=1)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()


@pytest.fixture
def sizes() -> Sizes:
    return bench_profile()


@pytest.fixture
def bench(benchmark: Any, request: pytest.FixtureRequest, sizes: Sizes) -> Iterator[Bench]:
    """Synchronous, like pytest-benchmark's own fixture; owns the benchmark's event loop."""
    name = bench_name(request.node)
    if name is None:
        raise pytest.UsageError(f"{request.node.nodeid}: mark the module with {MARKER}(group)")
    measure = Bench(benchmark, name, name.split("/")[1], sizes)
    try:
        yield measure
    finally:
        measure.close()
