"""One run of a suite in one checkout: its environment, its build, its raw output parsed.

`run` is the one way a suite's command is run, by every round of the gate (gate/rounds.py) and by
bench-local (commands/bench_local.py); a lockstep suite's step workers get the same environment
(gate/lockstep_round.py).
"""

from __future__ import annotations

import os
import shutil
import string
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchtrack import ingest
from benchtrack.errors import BadInput
from benchtrack.gate.model import SuiteFailed, SuiteFailure
from benchtrack.gate.worktree import Checkout
from benchtrack.machine.cpuset import pinned_shell
from benchtrack.machine.processes import Freezer, shell
from benchtrack.suites import Suite

# Inherited variables that would point a checkout's tools at the user's tree or environment
# (set by `uv run` or an outer `cargo make`); each checkout resolves its own.
_STRIP = ("BENCH_RAW", "BENCH_RESULTS", "BENCH_HISTORY", "VIRTUAL_ENV", "CARGO_TARGET_DIR")


def child_env(
    co: Checkout,
    suite: Suite,
    pins: dict[str, str],
    filt: str | None,
    replace: bool,
    base_cache: Path,
) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in _STRIP and not k.startswith("CARGO_MAKE_")
    }
    env.update(pins)
    env["GATE_CHECKOUT"], env["GATE_CACHE"], env["GATE_SIDE"] = str(co.path), str(co.cache), co.side
    env["GATE_SHARED_CACHE"] = str(co.cache.parent / "shared")
    # What a head's build may start from: this run's base side's cache (record-aa names its
    # sides' caches after its suites, so not always cache/base).
    env["GATE_BASE_CACHE"] = str(base_cache)
    # This tracker, for suites that call one (instruction counts): both sides counted alike.
    env["BENCHTRACK"] = f"{sys.executable} -m benchtrack"
    if suite.lockstep:  # what the step worker times: wall time or the process's CPU time
        env["BENCH_STEP_CLOCK"] = suite.clock
    for key, value in suite.env.items():
        env[key] = string.Template(value).safe_substitute(env)
    # A suite with a filter of its own keeps it (suites of one harness split its benchmarks
    # between them); the gate then applies `filt` to what it measures (lockstep skips the rest
    # after their warm-up). `replace`: `filt` names exact benchmarks of this suite (the
    # confirmation's candidates), so it is the harness's filter.
    if filt and ("BENCH_FILTER" not in suite.env or replace):
        env["BENCH_FILTER"] = filt
    return env


def toolchain_pins(head: Path) -> dict[str, str]:
    """Pin both sides to the head's toolchains, whatever the base's rust-toolchain.toml says."""
    pins = {"UV_PYTHON": getattr(sys, "_base_executable", sys.executable)}
    if shutil.which("rustup"):
        proc = subprocess.run(
            ["rustup", "show", "active-toolchain"],
            cwd=head,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode == 0 and proc.stdout.split():
            pins["RUSTUP_TOOLCHAIN"] = proc.stdout.split()[0]
    return pins


def parse_raw(suite: Suite, raw: Path):
    own = ingest.names_own_suite(suite.adapter)
    return ingest.parse(suite.adapter, raw, None if own else suite.name)


@dataclass(frozen=True)
class Ran:
    """One run of a suite's command: its exit code, its output's tail, its seconds, and where
    its raw output is (not there when the harness wrote none)."""

    code: int
    tail: str
    seconds: float
    raw: Path


def run(
    suite: Suite, cwd: Path, env: dict[str, str], cpus: str | None, log: Path, command=None, **wait
) -> Ran:
    """Run a suite once, the one way the gate's rounds and bench-local both do: its raw output
    cleared first (a stale file must not pass for this run's), `command` (default the suite's)
    under bash on CPU list `cpus`, in a process group of its own, its output to `log`. `wait`:
    processes.shell's `timeout` (none by default), `freezer` and `progress`."""
    raw = suite.fresh_raw(cwd)
    start = time.monotonic()
    line = pinned_shell(cpus, command or suite.command)
    code, tail = shell(line, cwd, env, wait.pop("timeout", None), log, **wait)
    return Ran(code, tail, time.monotonic() - start, raw)


def run_once(
    suite: Suite,
    co: Checkout,
    env: dict[str, str],
    cpus: str | None,
    log: Path,
    freezer: Freezer | None = None,
) -> tuple[list, list]:
    """One short measurement of `suite` in checkout `co`: (benchmarks, errors) of its raw output."""
    ran = run(suite, co.path, env, cpus, log, timeout=suite.timeout, freezer=freezer)
    code, tail = ran.code, ran.tail
    if not ran.raw.exists():
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", tail, log))
    try:
        parsed = parse_raw(suite, ran.raw)
    except BadInput as e:
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", f"{tail}\n{e}", log)) from None
    if code != 0 and not parsed.errors and not parsed.benchmarks:
        raise SuiteFailed(SuiteFailure(co.side, suite.name, "run", tail, log))
    errors = list(parsed.errors)
    if code != 0 and not errors:
        # The harness said something failed but its output names nothing: never let the missing
        # benchmarks pass as "present on one side only".
        errors.append(RunError(suite.name, f"exit {code}: {tail.splitlines()[-1] if tail else ''}"))
    return parsed.benchmarks, errors


@dataclass(frozen=True)
class RunError:
    """A failed run whose harness output names no benchmark: its exit code and last line."""

    name: str
    message: str


def build(suite: Suite, co: Checkout, env: dict[str, str], log: Path) -> None:
    if suite.build:
        code, tail = shell(suite.build, co.path, env, suite.timeout * 4, log)
        if code != 0:
            raise SuiteFailed(SuiteFailure(co.side, suite.name, "build", tail, log))


def round_log(logs: Path, rnd: int, side: str, suite: Suite) -> Path:
    return logs / f"round{rnd + 1:02d}-{side}-{suite.name}.log"
