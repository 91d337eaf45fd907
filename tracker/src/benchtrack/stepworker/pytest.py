"""pytest-benchmark: one pytest process per side and round serves every benchmark's steps.

pytest's start-up (imports, collection) takes far longer than a step, so the steps are served
inside one pytest process by a plugin shipped with benchtrack (`plugin/benchtrack_step.py`,
standard library only, so it loads in the repository's own environment whatever that holds).
This command runs `PYTHON -m pytest -p benchtrack_step ARGS` with the plugin's directory on
PYTHONPATH, and the gate's descriptors passed through (the plugin speaks the protocol itself).
`PYTHON` is the side's own environment's interpreter (a venv per worktree: the gate's `build`
makes it from that worktree, so an editable install imports that worktree's code).
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--python", default="python3", help="the interpreter of the side's environment")
    p.add_argument(
        "--pytest-args", default="", help="pytest's arguments, one string (the benchmark files)"
    )


def argv(args: argparse.Namespace) -> list[str]:
    return [
        args.python,
        "-m",
        "pytest",
        "-p",
        "benchtrack_step",
        "-q",
        *shlex.split(args.pytest_args),
    ]


def exec_worker(args: argparse.Namespace) -> None:
    """Replace this process with pytest (the descriptors in BENCH_STEP stay open across exec)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PLUGIN_DIR), env.get("PYTHONPATH", "")) if p
    )
    env["BENCHTRACK_STEP_SUITE"] = args.suite
    # One hash seed for both sides (unless the repository fixes its own): with a random one per
    # process, dict and set layouts, and so their speed, differ between the two sides' processes.
    env.setdefault("PYTHONHASHSEED", "0")
    for fd in os.environ.get("BENCH_STEP", "").split(","):
        if fd.isdigit():
            os.set_inheritable(int(fd), True)
    command = argv(args)
    try:
        os.execvpe(command[0], command, env)
    except OSError as e:
        raise SystemExit(f"benchtrack step-worker pytest: {command[0]}: {e.strerror}") from None
