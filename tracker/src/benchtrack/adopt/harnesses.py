"""What `benchtrack init` finds in a repository: the benchmark harnesses it already uses, each as
a suite (the one `Suite` type benchtrack.suites reads) and how the gate steps it."""

from __future__ import annotations

import re
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.ingest import HARNESSES
from benchtrack.result import SUITE_RE
from benchtrack.suites import Suite
from benchtrack.tomlcheck import read_toml

_GO_BENCH = re.compile(r"^func Benchmark", re.MULTILINE)
_SKIP_DIRS = {".git", "target", "vendor", "node_modules", ".venv"}


@dataclass(frozen=True)
class Lockstep:
    """How the gate measures a detected suite: benchtrack's step worker for its harness
    (`benchtrack step-worker`, benchtrack.stepworker), base and head in lockstep."""

    build: str  # once per side: the side's environment, binaries, the benchmark list
    command: str  # the step worker
    benchmarks: int  # how many init found (an estimate from the sources), sets pair_seconds
    per_benchmark: float  # seconds a benchmark costs a round besides its pairs (warm-ups)
    env: tuple[tuple[str, str], ...] = ()
    why: str = ""  # a comment on the table: what the worker does, and any choice made
    processes: int = 1  # worker process pairs a round (the gate's `processes`)
    build_once: bool = True  # sharded: built by the build job and carried (gate/prebuilt.py)


@dataclass(frozen=True)
class Found:
    """A suite init declares, and how its gate measures it."""

    suite: Suite  # its [bench.suites.<name>] table: command, adapter, raw
    gate: Lockstep | None = None  # None: the gate runs `command` whole each round

    @property
    def name(self) -> str:
        return self.suite.name

    def to_dict(self) -> dict[str, Any]:
        s = self.suite
        return {"name": s.name, "adapter": s.adapter, "command": s.command, "raw": s.raw} | {
            "gate": asdict(self.gate) if self.gate else None
        }


def _found(name: str, adapter: str, command: str, raw: str, gate: Lockstep | None = None):
    return Found(Suite(name=name, command=command, adapter=adapter, raw=raw), gate)


def declared(name: str, adapter: str, command: str, raw: str) -> Found:
    """A suite given on the command line, checked as benchtrack.toml's reader checks it."""
    if not SUITE_RE.match(name):
        raise BadInput("--suite", None, "a lowercase suite name (a-z, 0-9, -, _)", name)
    if adapter not in HARNESSES:
        raise BadInput("--adapter", None, f"one of {', '.join(HARNESSES)}", adapter)
    for flag, value in (("--command", command), ("--raw", raw)):
        if not value or not value.strip():
            raise BadInput(flag, None, "a non-empty string", value)
    return _found(name, adapter, command, raw)


def detect(root: Path) -> list[Found]:
    """The harnesses `root` already uses: criterion, pytest-benchmark, `go test -bench`."""
    found: list[Found] = []
    if "criterion" in read_toml(root / "Cargo.toml").get("dev-dependencies", {}):
        # criterion keeps its samples in its home, target/criterion, which the adapter reads
        found.append(
            _found("rust", "criterion", "cargo bench", "target/criterion", _criterion(root))
        )
    python = _pytest_suite(root)
    if python is not None:
        found.append(python)
    go_tests = [p.read_text(errors="replace") for p in _go_tests(root)]
    if any(_GO_BENCH.search(text) for text in go_tests):
        raw = "target/bench/raw/go.txt"
        # 5 runs a benchmark: the adapter's samples (fewer than 5 would be refused as too few)
        command = f"mkdir -p target/bench/raw && go test -run '^$' -bench . -count 5 ./... > {raw}"
        count = sum(len(_GO_BENCH.findall(t)) + len(_GO_SUB.findall(t)) for t in go_tests)
        found.append(_found("go", "gotest", command, raw, _gotest(count)))
    return found


_GO_SUB = re.compile(r"\bb\.Run\(")
_RUST_BENCH = re.compile(r"\.bench_(?:function|with_input)\(")
_PY_BENCH = re.compile(r"^\s*def test\w*\([^)]*\bbenchmark\b", re.MULTILINE)
_PY_PARAMS = re.compile(r"@pytest\.mark\.parametrize\(")


# Every function and loop header on a 64-byte boundary (LLVM's -align-all-functions takes a log2),
# so that where a change moves other code, benchmarks it does not touch keep their speed
# (tracker/GATE.md, "Code placement"). Both sides are built with it, so it costs neither.
ALIGNED_RUSTFLAGS = "-C llvm-args=-align-all-functions=6 -C llvm-args=-align-loops=64"


def _worker(kind: str, suite: str, extra: str = "") -> tuple[str, str]:
    """The step worker's `build` and `command` for a compiled harness: binaries and their list
    in the side's cache (${GATE_CACHE}: per side, kept across gate runs)."""
    base = f'$BENCHTRACK step-worker {kind} --suite {suite} --dir "$GATE_CACHE/{kind}"{extra}'
    return f"{base} --build", base


def _gotest(count: int) -> Lockstep:
    build, command = _worker("gotest", "go")
    why = (
        "`go test -c` per package; a step runs one benchmark with -test.benchtime Nx, "
        "-test.cpu 1 (names without the -GOMAXPROCS suffix, as ingest stores them)"
    )
    return Lockstep(build, command, max(count, 1), 0.1, why=why)


def _criterion(root: Path) -> Lockstep:
    build, command = _worker("criterion", "rust")
    count = sum(
        len(_RUST_BENCH.findall(p.read_text(errors="replace")))
        for p in sorted((root / "benches").rglob("*.rs"))
    )
    why = (
        "the bench binaries `cargo bench` builds, functions and loops 64-byte aligned (a PR's "
        "code then moves the code of benchmarks it does not touch less); a step runs one "
        "benchmark (--exact) with a 0.02 s measurement of criterion's own; a target dir per side"
    )
    env = (("CARGO_TARGET_DIR", "${GATE_CACHE}/cargo"), ("RUSTFLAGS", ALIGNED_RUSTFLAGS))
    return Lockstep(build, command, max(count, 1), 0.3, env=env, why=why)


def _pytest_suite(root: Path) -> Found | None:
    """pytest-benchmark, named in pyproject.toml's dependencies, extras or dependency groups:
    run in the repository's environment for the history, in a venv per side for the gate."""
    data = read_toml(root / "pyproject.toml")
    where = _pytest_benchmark_source(data)
    if where is None:
        return None
    files = _benchmark_files(root)
    raw = "target/bench/raw/python.json"
    # The repository's pytest options may turn the benchmarks off (`-p no:benchmark`) or spread
    # them over processes (`-n auto`): both are cleared for the benchmarks, the rest of its
    # configuration (rootdir, conftest, markers) stays.
    pytest_args = (["-o", "addopts="] if _has_addopts(root, data) else []) + files
    args = shlex.join(pytest_args)
    uv_lock = (root / "uv.lock").is_file()
    kind, name = where
    # only the group that names pytest-benchmark (a default group may be docs tooling)
    selector = {"group": f" --no-default-groups --group {name}", "extra": f" --extra {name}"}.get(
        kind, ""
    )
    if uv_lock:
        run = f"uv run --frozen{selector} python -m pytest"
        build = f"uv sync --frozen{selector}"
        env = (("UV_PROJECT_ENVIRONMENT", "${GATE_CACHE}/venv"),)
        how = "uv sync from the side's uv.lock"
    else:
        run = "python -m pytest"
        spec = f"-e '.[{name}]'" if kind == "extra" else "-e ."
        group = f" --group {name}" if kind == "group" else ""
        build = (
            'uv venv --allow-existing --quiet "$GATE_CACHE/venv" && uv pip install --quiet '
            f'--python "$GATE_CACHE/venv/bin/python" {spec}{group} pytest-benchmark'
        )
        env = ()
        how = "uv venv and an editable install of the side's checkout"
    command = f"mkdir -p target/bench/raw && {run} {args} --benchmark-only --benchmark-json={raw}"
    worker = (
        '$BENCHTRACK step-worker pytest --suite python --python "$GATE_CACHE/venv/bin/python"'
        f" --pytest-args {shlex.join([args])}"
    )
    count = sum(_pytest_count((root / f).read_text(errors="replace")) for f in files)
    why = (
        f"a venv per side ({how}: an editable install then imports that side's code, never "
        "this checkout's); one pytest process a side serves each benchmark's steps "
        "(benchtrack's plugin)"
    )
    # Six process pairs a round: a Python process keeps a speed of its own (its memory layout),
    # and a round's one pair of processes made single rounds read 15-30% off; the round's mean
    # over six averages it (bidict's A/A recordings at 1, 3 and 6: docs/adopting.md, section 5).
    # Sharded, each shard makes its venv: a venv holds absolute paths and its packages' weight.
    gate = Lockstep(
        build, worker, max(count, 1), 0.05, env=env, why=why, processes=6, build_once=False
    )
    return _found("python", "pytest", command, raw, gate)


def _pytest_count(text: str) -> int:
    """About how many benchmarks `text` holds: each test taking `benchmark`, times 3 for each
    `parametrize` decorator right above it (a guess at its values: they may be names)."""
    count = 0
    for m in _PY_BENCH.finditer(text):
        above = text[: m.start()].rstrip("\n").split("\n")
        decorators = []
        for line in reversed(above):
            if not line.strip() or not (line.startswith(("@", " ", ")", "]"))):
                break
            decorators.append(line)
        count += 3 ** sum(len(_PY_PARAMS.findall(d)) for d in decorators)
    return count


def _names_pytest_benchmark(requirement: str) -> bool:
    name = re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name.lower()) == "pytest-benchmark"


def _go_tests(root: Path):
    for path in sorted(root.rglob("*_test.go")):
        if not _SKIP_DIRS.intersection(path.relative_to(root).parts):
            yield path


def _pytest_benchmark_source(data: dict) -> tuple[str, str] | None:
    """Where pyproject.toml names pytest-benchmark: ("dependencies", ""), ("extra", NAME) or
    ("group", NAME); None if nowhere."""
    project = data.get("project", {})
    if any(_names_pytest_benchmark(d) for d in project.get("dependencies", [])):
        return "dependencies", ""
    for kind, groups in (
        ("extra", project.get("optional-dependencies", {})),
        ("group", data.get("dependency-groups", {})),
    ):
        for name, items in groups.items():
            if any(_names_pytest_benchmark(d) for d in items if isinstance(d, str)):
                return kind, name
    return None


def _benchmark_files(root: Path) -> list[str]:
    """The Python files with a test taking pytest-benchmark's `benchmark` fixture (relative,
    sorted): given to pytest by path, so a file outside its `python_files` pattern is run too."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if _SKIP_DIRS.intersection(rel.parts) or any(p.startswith(".") for p in rel.parts):
            continue
        if _PY_BENCH.search(path.read_text(errors="replace")):
            found.append(rel.as_posix())
    return found


def _has_addopts(root: Path, pyproject: dict) -> bool:
    """Whether the repository's pytest configuration sets `addopts` (pyproject.toml's
    [tool.pytest] or [tool.pytest.ini_options], pytest.ini, tox.ini, setup.cfg)."""
    tool = pyproject.get("tool", {}).get("pytest", {})
    if "addopts" in tool or "addopts" in tool.get("ini_options", {}):
        return True
    for name in ("pytest.ini", "tox.ini", "setup.cfg"):
        path = root / name
        if path.is_file() and re.search(r"^\s*addopts\s*=", path.read_text(errors="replace"), re.M):
            return True
    return False
