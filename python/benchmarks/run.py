"""bench-python: measure the Python suite, write target/bench/raw/python/pytest.json.

Usage: run.py [FILTER] [PYTEST-ARGS...]

FILTER (optional, only as the first argument) is a regular expression searched in the benchmark
names ``python/<group>/<variant>[/<where>]``; without it ``BENCH_FILTER`` is used. Every other
argument goes to pytest unchanged (e.g. ``-x``, ``-k gather``). The JSON keeps every round's time
(``stats.data``), plus ``errors`` (failed benchmarks, by name), ``skipped`` and ``suite``.

Exit codes (docs/conventions.md): 0 ok, 2 bad usage or a filter matching nothing (nothing written),
3 a benchmark failed (named on stderr and in the JSON's ``errors``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = Path(__file__).resolve().parent
MIN_SAMPLES = 5


def fail(code: int, message: str) -> int:
    print(f"bench-python: {message}", file=sys.stderr)
    return code


def check_output(path: Path, measured: bool) -> tuple[list[dict], list[dict], str | None]:
    """The JSON's benchmarks and errors, or a description of what is wrong with it."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return [], [], f"{path} was not written"
    except json.JSONDecodeError as err:
        return [], [], f"{path} is not JSON: {err}"
    benchmarks, errors = doc.get("benchmarks", []), doc.get("errors", [])
    for bench in benchmarks:
        name = bench.get("extra_info", {}).get("name", bench.get("fullname"))
        data = bench.get("stats", {}).get("data")
        if not isinstance(data, list) or (measured and len(data) < MIN_SAMPLES):
            why = f"has no stats.data with {MIN_SAMPLES}+ samples"
            return benchmarks, errors, f"{path}: {name} {why}"
    return benchmarks, errors, None


def main(argv: list[str]) -> int:
    pattern = os.environ.get("BENCH_FILTER", "")
    extra = list(argv)  # cargo make's "--" is dropped by the task (python/tasks.toml)
    if "-h" in extra or "--help" in extra:  # this runner's usage; pytest's is `pytest --help`
        print(__doc__.strip())
        return 0
    if extra and not extra[0].startswith("-"):
        pattern = extra.pop(0)
    if pattern:
        try:
            re.compile(pattern)
        except re.error as err:
            return fail(2, f"filter {pattern!r} is not a regular expression: {err}")

    try:
        from asyncio_patterns.params import bench_profile, bench_threads

        profile, threads = bench_profile().profile, bench_threads()
    except ValueError as err:
        return fail(2, str(err))
    print(f"bench-python: profile {profile}, {threads} thread(s)", file=sys.stderr)

    raw = Path(os.environ.get("BENCH_RAW") or ROOT / "target" / "bench" / "raw")
    out = raw / "python" / "pytest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)  # a stale file must never pass for this run's results

    env = dict(os.environ)
    env.pop("BENCH_FILTER", None)
    if pattern:
        env["BENCH_FILTER"] = pattern
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        str(BENCH_DIR.relative_to(ROOT)),
        "-o",
        "python_files=bench_*.py",
        "-p",
        "no:cacheprovider",
        "-v",
        "--timeout=600",
        "--benchmark-group-by=group",
        "--benchmark-columns=mean,stddev,median,ops,rounds",
        f"--benchmark-json={out}",
        *extra,
    ]
    print(f"bench-python: {' '.join(cmd[2:])}", file=sys.stderr, flush=True)
    code = subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode

    if code in (4, 5):
        out.unlink(missing_ok=True)
        why = "no benchmark was collected" if code == 5 else "usage error (see above)"
        return fail(2, f"{why} (filter {pattern or '-'}, args {extra or '-'})")
    measured = "--benchmark-disable" not in extra
    benchmarks, errors, problem = check_output(out, measured)
    for error in errors:
        print(f"bench-python: FAILED {error['name']}: {error['message']}", file=sys.stderr)
    if problem:
        return fail(3, problem)
    if code != 0 or errors:
        count = len(errors) or "some"
        return fail(3, f"{count} benchmark(s) failed (pytest exit {code}); see {out}")
    return fail(0, f"{len(benchmarks)} benchmarks, every round kept, in {out}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
