"""A history in a local directory (`.bench/history/` for bench-local, or a gh-pages checkout).

Layout (docs/architecture.md): `bench/<runner-key>/data.js`, one per runner size, and beside it
`archive.js` once retention has moved old entries there (history.archive). Writers take an
exclusive lock on the directory, read and check every file they will touch before writing any,
and replace each file atomically: a refused append or prune leaves every byte as it was.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.fsutil import mapped, staged
from benchtrack.history import archive as arc
from benchtrack.history import format as fmt
from benchtrack.history.append import (
    HistoryShrink,
    NewEntry,
    Outcome,
    Plan,
    apply,
    ensure_grows,
    read_back,
)
from benchtrack.history.model import History, combine
from benchtrack.history.reader import read_runners
from benchtrack.history.retention import Retention
from benchtrack.history.scan import Outline, Scanned, scan
from benchtrack.history.validate import problems_between, problems_in

BENCH = "bench"
DATA_JS = "data.js"
KEY_RE = re.compile(r"^[a-z0-9._-]+$")
_ARCHIVED = "~archive"  # the reader's name for a runner's archive.js (no runner key has `~`)


class DirStore:
    def __init__(self, root: str | Path, spec: str | None = None) -> None:
        self.root = Path(root)
        self.spec = spec or str(root)

    def relpath(self, key: str) -> str:
        return f"{BENCH}/{key}/{DATA_JS}"

    def archive_relpath(self, key: str) -> str:
        return f"{BENCH}/{key}/{arc.ARCHIVE_JS}"

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

    def _show(self, key: str, *, archive: bool = False) -> str:
        """How errors name a file: the spec's view of it (`HISTORY/bench/<key>/data.js`)."""
        rel = self.archive_relpath(key) if archive else self.relpath(key)
        return f"{self.spec.rstrip('/')}/{rel}"

    def read(self, *, archive: bool = True) -> History:
        """Every runner's history; with `archive`, each archive.js read together with its
        data.js (every reader but the dashboard's recent view wants the whole history)."""
        self._check_root(creating=False)
        keys = self.keys()
        files = [(key, self.root / self.relpath(key), self._show(key)) for key in keys]
        archived = [k for k in keys if (self.root / self.archive_relpath(k)).is_file()]
        archived = archived if archive else []
        files += [
            (key + _ARCHIVED, self.root / self.archive_relpath(key), self._show(key, archive=True))
            for key in archived
        ]
        runners = read_runners(files)
        for key in archived:
            runners[key] = combine(runners.pop(key + _ARCHIVED), runners[key])
        return History(self.spec, {key: runners[key] for key in keys})

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
                elif (child / arc.ARCHIVE_JS).is_file() and not (child / DATA_JS).is_file():
                    problems.append(
                        f"{self._show(child.name, archive=True)}: expected a {DATA_JS} beside "
                        "it (the archive holds only old entries; restore the recent ones)"
                    )
        for key in self.keys():
            scanned = []
            for archive in (False, True):
                show = self._show(key, archive=archive)
                rel = self.archive_relpath(key) if archive else self.relpath(key)
                try:
                    with fmt.opened(self.root / rel, show) as fd:
                        if fd is None:
                            continue  # no archive (or removed since listed)
                        with mapped(fd) as raw:
                            scanned.append(scan(raw, show))
                except BadInput as e:
                    problems.append(str(e))
                    continue
                problems.extend(problems_in(scanned[-1], key))
            if len(scanned) == 2:
                problems.extend(problems_between(*scanned))
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
            with ExitStack() as stack:
                fds = {  # open, and read, once: the bytes checked are the bytes copied
                    key: stack.enter_context(fmt.opened(self.root / self.relpath(key), show))
                    for key, show in ((key, self._show(key)) for key in by_key)
                }
                raws = {  # mapped: no copy of a 100 MB file
                    key: None if fd is None else stack.enter_context(mapped(fd))
                    for key, fd in fds.items()
                }
                loaded = {  # every file checked before any is written
                    key: None if raw is None else scan(raw, self._show(key))
                    for key, raw in raws.items()
                }
                archived = {  # commits moved to archive.js are recorded too
                    key: arc.recorded_ids(stack.enter_context(fmt.opened(path, show)), show)
                    for key, path, show in (
                        (k, self.root / self.archive_relpath(k), self._show(k, archive=True))
                        for k in by_key
                    )
                }
                outcomes: list[Outcome] = []
                staged_files: list[tuple[Path, Path]] = []
                for key, news in by_key.items():
                    plan = apply(loaded[key], news, now_ms, archived[key])
                    outcomes.extend(plan.outcomes)
                    if not plan.added:
                        continue
                    show, path = self._show(key), self.root / self.relpath(key)
                    before, pieces = _serialise(raws[key], loaded.pop(key), plan, show)
                    tmp = stack.enter_context(staged(path, pieces, source=fds[key]))
                    _check_written(tmp, before, plan, show)
                    staged_files.append((tmp, path))
                for tmp, path in staged_files:  # all written and checked: now in place
                    os.replace(tmp, path)
            return outcomes

    def prune(self, retention: Retention, *, dry_run: bool = False) -> list[arc.Move]:
        """Move the entries `retention` no longer keeps in data.js to archive.js, per runner:
        every file read and checked, and every move planned, before any is written; then per
        runner the archive first, then data.js, each read back before it replaces the old one.
        An archive that does not read is bad input: it is never started over. Returns the moves
        (none: nothing was written)."""
        self._check_root(creating=False)
        with self._locked(), ExitStack() as stack:
            moves: list[arc.Move] = []
            sources: dict[str, int | None] = {}
            for key in self.keys():
                mapped_files = []
                for archive in (False, True):
                    show = self._show(key, archive=archive)
                    rel = self.archive_relpath(key) if archive else self.relpath(key)
                    fd = stack.enter_context(fmt.opened(self.root / rel, show))
                    raw = None if fd is None else stack.enter_context(mapped(fd))
                    mapped_files.append((fd, raw, None if raw is None else scan(raw, show)))
                (_, data_raw, data), (archive_fd, archive_raw, archive) = mapped_files
                if data_raw is None or data is None:
                    continue  # removed since listed
                move = arc.plan(key, data_raw, data, archive_raw, archive, retention)
                if move is not None:
                    moves.append(move)
                    sources[key] = archive_fd
            if dry_run:
                return moves
            for move in moves:
                archive_path = self.root / self.archive_relpath(move.key)
                show = self._show(move.key, archive=True)
                with staged(archive_path, move.archive, source=sources[move.key]) as tmp:
                    arc.check_written(tmp, move.archive_after, show)
                    os.replace(tmp, archive_path)
                data_path, show = self.root / self.relpath(move.key), self._show(move.key)
                with staged(data_path, [move.data]) as tmp:
                    arc.check_written(tmp, move.data_after, show)
                    os.replace(tmp, data_path)
            return moves

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
    raw: bytes | None, scanned: Scanned | None, plan: Plan, source: str
) -> tuple[Outline, list[bytes | tuple[int, int]]]:
    """The outline read and the new file's pieces: the old bytes (as ranges of the old file)
    with the new entries spliced in when the file has JSON.stringify's layout (a 100 MB file is
    not re-serialised for one entry), else the whole document serialised as the action would."""
    if raw is None or scanned is None:
        return {}, [fmt.dumps(plan.document())]
    before = scanned.outline()
    names = list(scanned.doc.entries)
    del scanned  # the caller's reference was popped: free its structs before the new bytes
    pieces = fmt.splice(raw, names, plan.scalars, plan.added)
    if pieces is None:  # another layout: the action's tree, numbers spelled as JS would
        pieces = [fmt.dumps(plan.document(fmt.parse(raw, source, for_write=True).data))]
    return before, pieces


def _check_written(tmp: Path, before: Outline, plan: Plan, source: str) -> None:
    """The bytes about to replace a data.js, read back from disk, hold every entry read, in
    order, and exactly the plan's on top: a bug in the splice or the serialiser, or a short
    copy, can never cost history."""
    after = read_back(tmp, source)
    ensure_grows(before, after, source)
    if after != plan.outline(before):
        raise HistoryShrink(f"{source}: refusing to write: the new entries did not land as planned")
