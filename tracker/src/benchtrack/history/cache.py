"""A derived cache of each runner's columns, so that reading an unchanged data.js skips the JSON.

The data.js stays the single source of truth: a cache file is named by, and only used for, the
SHA-256 of the exact bytes it was built from (hashing 100 MB costs a few tens of milliseconds;
parsing it costs a second), it records that digest, the file's size and the runner key inside and
is checked against them, and anything unreadable or stale is a miss, never an error. It lives
outside every history (never on a published branch): `$BENCHTRACK_CACHE`, else
`$XDG_CACHE_HOME/benchtrack/history` (`~/.cache/...`); `BENCHTRACK_CACHE=off` turns it off. The
newest few files per runner key are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
import orjson

from benchtrack.history.model import CommitInfo, RunnerHistory, Series

VERSION = 1  # of the layout below; part of every file name
KEEP = 6  # cache files per runner key (several histories, or a few recent versions of one)
_COLUMNS = ("commit_index", "date", "value", "spread", "ci_lo", "ci_hi", "samples")


def directory() -> Path | None:
    setting = os.environ.get("BENCHTRACK_CACHE")
    if setting is not None:
        return None if setting.lower() in ("", "0", "off", "no", "false") else Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "benchtrack" / "history"


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _path(root: Path, key: str, sha: str) -> Path:
    return root / f"{key}.v{VERSION}.{sha}.npz"


def load(key: str, sha: str, size: int) -> RunnerHistory | None:
    """The columns built from the data.js whose bytes have digest `sha`, if cached."""
    root = directory()
    if root is None:
        return None
    try:
        with np.load(_path(root, key, sha), allow_pickle=False) as z:
            meta = orjson.loads(z["meta"].tobytes())
            if (meta["version"], meta["key"], meta["sha"], meta["size"]) != (
                VERSION,
                key,
                sha,
                size,
            ):
                return None
            columns = {name: z[name] for name in _COLUMNS}
            bounds = z["bounds"]
    except (OSError, ValueError, KeyError, TypeError, orjson.JSONDecodeError):
        return None  # missing, truncated, or another layout: rebuild from the data.js
    commits = [CommitInfo(*c) for c in meta["commits"]]
    series = {}
    for i, (name, unit, direction, suite) in enumerate(meta["series"]):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        series[name] = Series(
            name, unit, direction, suite, *(columns[c][lo:hi] for c in _COLUMNS), commits=commits
        )
    return RunnerHistory(key, meta["label"], meta["cpus"], commits, series, meta["entries"])


def save(runner: RunnerHistory, sha: str, size: int) -> None:
    """Cache `runner`, built from bytes of digest `sha`; a cache that cannot be written is none."""
    root = directory()
    if root is None:
        return
    series = list(runner.series.values())
    meta = {
        "version": VERSION,
        "key": runner.key,
        "sha": sha,
        "size": size,
        "label": runner.label,
        "cpus": runner.cpus,
        "entries": runner.entries,
        "series": [[s.name, s.unit, s.direction, s.suite] for s in series],
        "commits": [[c.id, c.message, c.timestamp, c.url, c.author] for c in runner.commits],
    }
    arrays = {
        c: np.concatenate([getattr(s, c) for s in series]) if series else np.empty(0)
        for c in _COLUMNS
    }
    bounds = np.cumsum([0] + [len(s) for s in series], dtype=np.int64)
    path = _path(root, runner.key, sha)
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=root, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(
                    f, meta=np.frombuffer(orjson.dumps(meta), np.uint8), bounds=bounds, **arrays
                )
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        _evict(root, runner.key, keep=path)
    except OSError:
        return


def _evict(root: Path, key: str, keep: Path) -> None:
    """Keep the KEEP newest cache files of `key` (always `keep`, just written)."""
    files = sorted(
        (p for p in root.glob(f"{key}.v*.npz") if p != keep),
        key=lambda p: p.stat().st_mtime_ns,
        reverse=True,
    )
    for old in files[KEEP - 1 :]:
        with contextlib.suppress(OSError):
            old.unlink()
