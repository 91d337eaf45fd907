"""Errors a user can cause, each mapped to an exit code; EXIT_CODES is the one table of them,
shown by `benchtrack --help` and in docs/architecture.md (Exit codes).

A user mistake never shows a traceback: the CLI prints `str(error)` on one line and exits
with `error.exit_code`. Messages name the file, the field and what was expected.
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_BAD_INPUT = 2
EXIT_BENCHMARK_FAILED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM

# (code, meaning): tracker/tests/test_docs_architecture.py checks the page and --help show these.
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "ok, no regression"),
    (
        EXIT_REGRESSION,
        "a regression beyond the threshold (compare, gate; detect only with "
        "--fail-on-new-regression)",
    ),
    (
        EXIT_BAD_INPUT,
        "bad input, bad config or usage: one line on stderr naming the file, the field and what "
        "was expected, no traceback, nothing written",
    ),
    (
        EXIT_BENCHMARK_FAILED,
        "a benchmark failed to run (ingest and record-aa after writing; compare, gate, "
        "bench-local); wins over 1",
    ),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
    (
        EXIT_TERMINATED,
        "terminated (SIGTERM, as CI cancels a job): the command unwinds, so temporary worktrees "
        "and clones are removed",
    ),
)


class BenchtrackError(Exception):
    """Base class: carries the exit code the CLI ends with."""

    exit_code = EXIT_BAD_INPUT


class BadInput(BenchtrackError):
    """Bad input, config or usage: exit 2, nothing written.

    >>> str(BadInput("r.json", "benchmarks[3].value", "a positive finite number", "NaN"))
    'r.json: benchmarks[3].value: expected a positive finite number, got NaN'
    """

    exit_code = EXIT_BAD_INPUT

    def __init__(
        self, source: str | Path, field: str | None, expected: str, got: object = None
    ) -> None:
        self.source, self.field, self.expected, self.got = str(source), field, expected, got
        where = f"{self.source}: {field}" if field else self.source
        tail = "" if got is None else f", got {_short(got)}"
        super().__init__(f"{where}: expected {expected}{tail}")

    def __reduce__(self) -> tuple[type, tuple[str, str | None, str, object]]:
        """Rebuilt from its parts (a history reader raises it in a worker process)."""
        return (type(self), (self.source, self.field, self.expected, self.got))


class BenchmarkFailed(BenchtrackError):
    """A benchmark failed to run: exit 3."""

    exit_code = EXIT_BENCHMARK_FAILED


def _short(value: object, limit: int = 80) -> str:
    # repr for text a terminal would not show as is (a newline would split the one-line message);
    # a boolean as TOML and JSON spell it, the files a bad value comes from
    if isinstance(value, bool):
        return "true" if value else "false"
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
