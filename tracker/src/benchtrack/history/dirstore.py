"""A history in a local directory (`.bench/history/` for bench-local, or a gh-pages checkout).

Layout (docs/conventions.md): `bench/<runner-key>/data.js`, one per runner size. Writers take an
exclusive lock on the directory, read and check every file they will touch before writing any,
and replace each file atomically: a refused append leaves every byte as it was.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.history import cache
from benchtrack.history import format as fmt
from benchtrack.history.append import NewEntry, Outcome, apply, ensure_grows
from benchtrack.history.model import History, RunnerHistory, build_runner
from benchtrack.history.validate import problems_in

BENCH = "bench"
DATA_JS = "data.js"
KEY_RE = re.compile(r"^[a-z0-9._-]+$")


class DirStore:
    def __init__(self, root: str | Path, spec: str | None = None) -> None:
        self.root = Path(root)
        self.spec = spec or str(root)

    def relpath(self, key: str) -> str:
        return f"{BENCH}/{key}/{DATA_JS}"

    def _check_root(self, *, creating: bool) -> None:
        root = self.root
        if not root.exists():
            if creating:
                return
            raise BadInput(self.spec, None, "a history directory (it does not exist)")
        if not root.is_dir():
            raise BadInput(self.spec, None, "a history directory, got a file")
        bench = root / BENCH
        if bench.exists() and not bench.is_dir():
            raise BadInput(self.spec, BENCH, "a directory of runner sizes, got a file")
        if not bench.exists() and any(p.name != ".git" for p in root.iterdir()):
            raise BadInput(
                self.spec,
                None,
                f"a history directory: empty or holding {BENCH}/<runner>/{DATA_JS} "
                f"(this one has other files and no {BENCH}/)",
            )

    def keys(self) -> list[str]:
        """Runner keys that have a data.js, sorted."""
        bench = self.root / BENCH
        if not bench.is_dir():
            return []
        return sorted(p.parent.name for p in bench.glob(f"*/{DATA_JS}") if p.is_file())

    def _load(self, key: str, *, for_write: bool) -> fmt.DataJs | None:
        return fmt.load(self.root / self.relpath(key), self._show(key), for_write=for_write)

    def _show(self, key: str) -> str:
        """How errors name a file: the spec's view of it (`HISTORY/bench/<key>/data.js`)."""
        return f"{self.spec.rstrip('/')}/{self.relpath(key)}"

    def read(self) -> History:
        self._check_root(creating=False)
        return History(self.spec, {key: self._read_runner(key) for key in self.keys()})

    def _read_runner(self, key: str) -> RunnerHistory:
        """One runner's columns: from the cache when it holds these exact bytes, else parsed
        (one file's parse tree at a time, dropped before the next: bounds peak memory)."""
        show = self._show(key)
        raw = fmt.read_raw(self.root / self.relpath(key), show)
        if raw is None:
            raise BadInput(show, None, "a readable data.js (it vanished while reading)")
        sha, size = cache.digest(raw), len(raw)
        runner = cache.load(key, sha, size)
        if runner is None:
            data = fmt.decode(raw, show)
            del raw  # only the parse tree in memory while the columns are gathered
            runner = build_runner(key, fmt.check(data, show))
            del data
            cache.save(runner, sha, size)
            _give_back_freed_memory()  # before the next file's tree is built on top
        return runner

    def validate(self) -> list[str]:
        """Every problem found, one line each (empty: the history is valid)."""
        self._check_root(creating=False)
        problems: list[str] = []
        bench = self.root / BENCH
        if bench.is_dir():
            for child in sorted(bench.iterdir()):
                if child.is_dir() and not KEY_RE.match(child.name):
                    problems.append(
                        f"{self.spec.rstrip('/')}/{BENCH}/{child.name}: expected a runner key "
                        "slugged to [a-z0-9._-]"
                    )
        for key in self.keys():
            try:
                parsed = self._load(key, for_write=False)
            except BadInput as e:
                problems.append(str(e))
                continue
            assert parsed is not None
            problems.extend(problems_in(parsed, key))
        return problems

    def append(self, entries: list[NewEntry], now_ms: int | None = None) -> list[Outcome]:
        """Append `entries` (history.append.new_entries); nothing is written if any file is bad."""
        self._check_root(creating=True)
        self.root.mkdir(parents=True, exist_ok=True)
        with self._locked():
            by_key: dict[str, list[NewEntry]] = {}
            for new in entries:
                by_key.setdefault(new.runner_key, []).append(new)
            for key in by_key:
                if not KEY_RE.match(key):
                    raise BadInput(self.spec, "runner", "a runner key slugged to [a-z0-9._-]", key)
            raws = {
                key: fmt.read_raw(self.root / self.relpath(key), self._show(key)) for key in by_key
            }
            loaded = {  # every file checked before any is written
                key: None if raw is None else fmt.parse(raw, self._show(key))
                for key, raw in raws.items()
            }
            outcomes: list[Outcome] = []
            writes: list[tuple[Path, list[bytes | memoryview]]] = []
            for key, news in by_key.items():
                parsed = loaded[key]
                before = parsed.counts() if parsed is not None else {}
                data, done = apply(parsed, news, now_ms)
                outcomes.extend(done)
                if any(o.status == "appended" for o in done):
                    ensure_grows(before, data, self._show(key))
                    writes.append(
                        (self.root / self.relpath(key), _serialise(raws[key], parsed, data, before))
                    )
            for path, pieces in writes:
                atomic_write(path, pieces)
            return outcomes

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialise writers of this directory (two local runs at once): flock on the dir."""
        fd = os.open(self.root, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _serialise(
    raw: bytes | None,
    parsed: fmt.DataJs | None,
    data: dict[str, Any],
    before: dict[str, tuple[int, int]],
) -> list[bytes | memoryview]:
    """The new file's bytes, in pieces: the old bytes with the new entries spliced in when the
    file has JSON.stringify's layout (a 100 MB file is not re-serialised for one entry), else
    the whole document serialised as the action would."""
    if raw is None or parsed is None:
        return [fmt.dumps(data)]  # a new file: only new entries, already spelled as JS would
    added = {name: runs[before.get(name, (0, 0))[0] :] for name, runs in data["entries"].items()}
    pieces = fmt.splice(raw, data, {name: runs for name, runs in added.items() if runs})
    if pieces is not None:
        return pieces
    fmt.normalise(parsed)
    return [fmt.dumps(data)]


def _give_back_freed_memory() -> None:
    """glibc keeps much of a freed 100 MB parse in its heap (its mmap threshold grows with the
    blocks freed); trimming returns it to the OS, so that peak memory is one file's, not more."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "malloc_trim") else None  # glibc only
    except OSError:
        return None


_LIBC = _libc()
