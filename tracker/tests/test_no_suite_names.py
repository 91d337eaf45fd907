"""Suites are configuration only (benchtrack.toml's [bench.suites], docs/architecture.md "Suites"):
the tracker's code must not name this repository's suites as constants, or a fourth suite would
be treated differently from the first three. Docstrings and comments may name them as examples.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "benchtrack"
NAMES = ("rust", "python", "perl")
# A string constant that is a suite name, or starts one: "rust", "perl-instructions", "python/".
SUITE_LIKE = re.compile(rf"^({'|'.join(NAMES)})([-/].*)?$", re.S)
# Modules where the name is a fact of a harness's format, not configuration: each of these
# adapters reads one of this repository's harnesses (docs/conventions.md, "Raw harness output"),
# whose benchmark names the format fixes under that prefix; lab/synthetic.py makes demo histories
# with realistic names.
FORMAT_FACTS = {
    "ingest/criterion.py",
    "ingest/pytest.py",
    "ingest/perl.py",
    "lab/synthetic.py",
}
SKIPPED_DIRS: tuple[str, ...] = ()  # selftest/ too: its slowdowns are data (tracker/bench/)
# Words that are a harness's name (an ingest adapter, the CLI's `ingest perl`), not a suite's;
# `benchtrack init` names the suites it writes into another repository's benchtrack.toml after
# the language whose harness it found there (criterion: "rust", pytest-benchmark: "python").
HARNESS_WORDS = {
    "ingest/__init__.py": {"perl"},
    "adopt/harnesses.py": {"rust", "python"},
    "gate/diagnose/pyspy.py": {"python"},  # an interpreter's executable name, which py-spy reads
    # the interpreters a worker runs, which choose its sampler, and the Perl sampler's name
    "gate/diagnose/measure.py": {"python", "perl"},
    "gate/diagnose/perlsub.py": {"perl"},  # the folder of its Perl module
    "gate/diagnose/profile_diff.py": {"perl"},
    "gate/diagnose/run.py": {"perl"},
}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of the module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def suite_constants(source: str) -> list[tuple[int, str]]:
    """(line, value) of every string constant in `source` that names a suite, docstrings aside."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and SUITE_LIKE.match(node.value)
    ]


def test_the_scan_finds_a_suite_name_and_ignores_docs() -> None:
    source = '"""rust and perl."""\n# python\nORDER = ("zig", "python")\nx = f"perl/{y}"\n'
    assert suite_constants(source) == [(3, "python"), (4, "perl/")]


def test_no_suite_name_in_the_tracker_code() -> None:
    modules = [
        p
        for p in sorted(SRC.rglob("*.py"))
        if p.relative_to(SRC).parts[0] not in SKIPPED_DIRS
        and p.relative_to(SRC).as_posix() not in FORMAT_FACTS
    ]
    assert len(modules) > 50
    found = [
        f"{p.relative_to(SRC)}:{line}: {value!r}"
        for p in modules
        for line, value in suite_constants(p.read_text(encoding="utf-8"))
        if value not in HARNESS_WORDS.get(p.relative_to(SRC).as_posix(), ())
    ]
    assert found == [], "suite names belong in benchtrack.toml:\n" + "\n".join(found)
