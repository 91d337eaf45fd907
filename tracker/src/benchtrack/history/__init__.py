"""The history: github-action-benchmark's data.js per runner size, in a directory or on a branch.

Reader API (the dashboard, change-point detection):

    from benchtrack.history import open_store
    history = open_store(".bench/history").read()        # or "git:<url>#gh-pages"
    for key, runner in history.runners.items():          # runner sizes, e.g. "local-2cpu"
        runner.cpus, runner.label, runner.commits         # CommitInfo(id, message, timestamp, ...)
        for name, s in runner.series.items():             # "rust/streams/async_next"
            s.value, s.ci_lo, s.ci_hi, s.samples, s.date  # numpy arrays, one item per point
            s.commit_index                                # -> runner.commits[i]
            s.direction, s.unit, s.suite, s.points()

Writer API (append, bench-local): `store.append(new_entries(docs))` with
`history.append.new_entries`; `store.validate()` lists problems.
"""

from __future__ import annotations

from pathlib import Path

from benchtrack.history.append import ALREADY, APPENDED, NewEntry, Outcome, new_entries
from benchtrack.history.dirstore import DirStore
from benchtrack.history.gitstore import GitStore, PublishFailed, parse_spec
from benchtrack.history.model import CommitInfo, History, Point, RunnerHistory, Series

Store = DirStore | GitStore
LOCAL_HISTORY = Path(".bench/history")

__all__ = [
    "ALREADY",
    "APPENDED",
    "LOCAL_HISTORY",
    "CommitInfo",
    "DirStore",
    "GitStore",
    "History",
    "NewEntry",
    "Outcome",
    "Point",
    "PublishFailed",
    "RunnerHistory",
    "Series",
    "Store",
    "new_entries",
    "open_store",
]


def open_store(spec: str | Path, **git_options: float) -> Store:
    """`git:<remote-url>#<branch>` -> GitStore; anything else is a directory."""
    text = str(spec)
    if text.startswith("git:"):
        url, branch = parse_spec(text)
        return GitStore(url, branch, **git_options)  # type: ignore[arg-type]
    return DirStore(Path(text), text)
