"""Change-point detection over main's history (tracker/DETECT.md): `benchtrack detect`, and
`run()` for bench-local.

    from benchtrack import detect
    all_changes, new_changes = detect.run(".bench/history", write=True)
    print(detect.markdown(all_changes, new_changes))   # or detect.table(...) for a terminal

series.py reads the history into series, method.py finds the steps of one series, publish.py keeps
`bench/changes.json` (with first-seen times), render.py shows them, pipeline.py ties them up.
Everything here imports lazily: scipy and ruptures take seconds to import on a busy runner, and
`benchtrack --help` should not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchtrack.detect.config import Config

if TYPE_CHECKING:
    from benchtrack.detect.pipeline import Report
    from benchtrack.detect.publish import Change

__all__ = ["Config", "analyse", "changes_path", "markdown", "run", "table"]


def run(
    history: str | Path, *, write: bool = False, config: Config | None = None
) -> tuple[list[Change], list[Change]]:
    """(all change points newest first, those new since the previous write)."""
    from benchtrack.detect import pipeline

    return pipeline.run(history, write=write, config=config)


def analyse(history: str | Path, config: Config | None = None, **kwargs: Any) -> Report:
    from benchtrack.detect import pipeline

    return pipeline.analyse(history, config, **kwargs)


def changes_path(history: str | Path) -> Path | None:
    from benchtrack.detect import pipeline

    return pipeline.changes_path(history)


def markdown(all_changes: list[Change], new_changes: list[Change], **kwargs: Any) -> str:
    from benchtrack.detect import render

    return render.markdown(all_changes, new_changes, **kwargs)


def table(all_changes: list[Change], new_changes: list[Change], **kwargs: Any) -> None:
    from benchtrack.detect import render

    render.table(all_changes, new_changes, **kwargs)
