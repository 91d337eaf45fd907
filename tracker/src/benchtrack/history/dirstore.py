"""A history in a local directory (`.bench/history/` for bench-local, or a gh-pages checkout).

Layout (docs/architecture.md): `bench/<runner-key>/data.js`, one per runner size. Writers take an
exclusive lock on the directory, read and check every file they will touch before writing any,
and replace each file atomically: a refused append leaves every byte as it was.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import msgspec

from benchtrack.errors import BadInput
from benchtrack.fsutil import mapped, staged
from benchtrack.history import format as fmt
from benchtrack.history.append import (
    HistoryShrink,
    NewEntry,
    Outcome,
    Plan,
    apply,
    ensure_grows,
)
from benchtrack.history.model import History
from benchtrack.history.reader import read_runners
from benchtrack.history.scan import Outline, Scanned, outline, scan
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

    def _show(self, key: str) -> str:
        """How errors name a file: the spec's view of it (`HISTORY/bench/<key>/data.js`)."""
        return f"{self.spec.rstrip('/')}/{self.relpath(key)}"

    def read(self) -> History:
        self._check_root(creating=False)
        files = [(key, self.root / self.relpath(key), self._show(key)) for key in self.keys()]
        return History(self.spec, read_runners(files))

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
            show = self._show(key)
            try:
                with fmt.opened(self.root / self.relpath(key), show) as fd:
                    if fd is None:
                        continue  # removed since listed
                    with mapped(fd) as raw:
                        scanned = scan(raw, show)
            except BadInput as e:
                problems.append(str(e))
                continue
            problems.extend(problems_in(scanned, key))
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
                outcomes: list[Outcome] = []
                staged_files: list[tuple[Path, Path]] = []
                for key, news in by_key.items():
                    plan = apply(loaded[key], news, now_ms)
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
    try:
        with open(tmp, "rb") as f, mapped(f.fileno()) as raw:
            after = outline(raw)
    except (msgspec.DecodeError, ValueError) as e:
        raise HistoryShrink(
            f"{source}: refusing to write bytes that do not read back: {e}"
        ) from None
    ensure_grows(before, after, source)
    if after != plan.outline(before):
        raise HistoryShrink(f"{source}: refusing to write: the new entries did not land as planned")
