"""The data flows one way: the CLI entry point dispatches to commands, which use the library;
no command reaches back up to `benchtrack.cli` (publish-site once did, to run two others)."""

from __future__ import annotations

import ast
from pathlib import Path

COMMANDS = Path(__file__).resolve().parents[1] / "src" / "benchtrack" / "commands"


def _imported(path: Path) -> set[str]:
    """Every module `path` imports, at any depth (function-level imports included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_no_command_imports_the_cli() -> None:
    modules = sorted(COMMANDS.glob("*.py"))
    assert len(modules) > 10
    offenders = [p.name for p in modules if "benchtrack.cli" in _imported(p)]
    assert offenders == []


def test_nothing_a_pr_runs_imports_the_lab() -> None:
    """lab/ (evaluate, A/A recordings, replay, simulators) measures the gate: it reads gate/, and
    only its own commands read it, so nothing of the lab is in what a PR runs."""
    src = COMMANDS.parent
    modules = sorted(src.rglob("*.py"))
    assert any(p.parent.name == "lab" for p in modules)
    offenders = [
        str(p.relative_to(src))
        for p in modules
        if p.parent.name not in ("lab", "commands")
        and any(m.startswith("benchtrack.lab") for m in _imported(p))
    ]
    assert offenders == []


def test_a_step_workers_start_imports_no_numpy() -> None:
    """The gate starts a step worker per side, suite and round (lockstep): numpy's import was
    most of each start (~0.9 of 1.0 CPU-s beside load), paid hundreds of times a test run and a
    PR. Only what parses a harness's output is imported; statistics wait until they are used."""
    import subprocess
    import sys

    kinds = ("criterion", "gotest", "googlebenchmark", "pytest")
    script = [
        "import sys, importlib, benchtrack.commands.step_worker",
        *(f"importlib.import_module('benchtrack.stepworker.{k}')" for k in kinds),
        "print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))",
    ]
    loaded = subprocess.check_output([sys.executable, "-c", "\n".join(script)], text=True)
    assert loaded.strip() == "[]", loaded
