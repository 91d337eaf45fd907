"""A runner's data.js put right after a publish that went wrong (history/publish.py runs it).

github-action-benchmark appends without looking at what is recorded, and starts over from an
empty history when it cannot read a data.js, then pushes that. So after the action:

- a commit may be recorded twice under one entry name: two publishes of one commit whose store
  jobs overlapped (a push's run and a dispatch), each planned before the other stored. The later
  copy is removed, the first kept (the one readers and change points may have seen already);
- entries may be gone: a data.js that did not read was pushed between the plan and the action's
  pull, and the action replaced it with the one entry it appended. Every entry an earlier
  version held (the tip the plan validated, and each version since that reads) that neither the
  tip's data.js nor its archive.js holds is put back, in recording order.

Nothing else is removed or rewritten, and every removal, restoration and version that did not
read is named in the result: the caller commits them with a message that says so, and prints it.
A removed copy stays in the branch's git history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from benchtrack.history import format as fmt
from benchtrack.history.append import HistoryShrink
from benchtrack.history.scan import Outline, outline

Version = tuple[str, bytes]  # (what names it, e.g. a commit; the data.js bytes it held)


@dataclass
class Mended:
    """What `mend` changed in one data.js, and its new bytes."""

    source: str
    removed: list[tuple[str, str]] = field(default_factory=list)  # (entry name, commit id)
    restored: list[tuple[str, str, str]] = field(default_factory=list)  # (name, id, version)
    unreadable: list[str] = field(default_factory=list)  # versions that did not read
    data: bytes = b""

    def notes(self) -> list[str]:
        out = [
            f"{self.source}: entries.{name}: commit {cid} was recorded twice (two publishes of "
            "one commit): the later copy removed, the first kept"
            for name, cid in self.removed
        ]
        restored: dict[str, list[str]] = {}
        for name, cid, version in self.restored:
            restored.setdefault(name, []).append(f"{cid[:12]} (from {version[:12]})")
        out += [
            f"{self.source}: entries.{name}: {len(ids)} entries the tip had lost put back: "
            + ", ".join(ids)
            for name, ids in restored.items()
        ]
        out += [
            f"{self.source} at {version[:12]} did not read: entries only it held are not put "
            "back (they are in the branch's git history)"
            for version in self.unreadable
        ]
        return out


def outline_of(raw: bytes | None) -> Outline | None:
    """The outline of data.js bytes; None if they are not a data.js of that shape."""
    if raw is None or raw[: len(fmt.PREFIX)] != fmt.PREFIX:
        return None
    try:
        return outline(raw)
    except (msgspec.DecodeError, ValueError):
        return None


def mend(
    source: str, tip: bytes, archive: bytes | None, earlier: list[Version] = ()
) -> Mended | None:
    """`tip` (a runner's data.js) with the later copy of any commit recorded twice under one
    entry name removed, and every entry of the `earlier` versions (oldest first) that neither
    `tip` nor `archive` (its archive.js, or None) holds put back. None when there is nothing to
    do, or when `tip` or `archive` does not read (then validation refuses the history, naming
    the file: it is not this function's to rewrite).

    Each entry list becomes the commits of the versions and the tip in order of first
    appearance (the recording order), each taken from the tip when the tip has it, else from
    the first version that held it."""
    now = outline_of(tip)
    archived = outline_of(archive) if archive is not None else {}
    if now is None or archived is None:
        return None
    done = Mended(source)
    for name, (ids, _) in now.items():
        seen: set[str] = set()
        for cid in ids:
            if cid in seen:
                done.removed.append((name, cid))
            seen.add(cid)
    sources: list[tuple[str, Outline]] = []
    for version, raw in earlier:
        shape = outline_of(raw)
        if shape is None:
            done.unreadable.append(version)
            continue
        sources.append((version, shape))
        for name, (ids, _) in shape.items():
            have = set(now.get(name, ([], 0))[0]) | set(archived.get(name, ([], 0))[0])
            have |= {cid for n, cid, _ in done.restored if n == name}
            done.restored += [(name, cid, version) for cid in dict.fromkeys(ids) if cid not in have]
    if not done.removed and not done.restored:
        return None
    done.data = _rebuilt(source, tip, dict(earlier), sources, done)
    return done


def _rebuilt(
    source: str,
    tip: bytes,
    raws: dict[str, bytes],
    sources: list[tuple[str, Outline]],
    done: Mended,
) -> bytes:
    """The new data.js: the tip's entries (each commit once) and the restored ones, in order."""
    tree = fmt.parse(tip, source, for_write=True).data
    wanted: dict[str, dict[str, str]] = {}  # name -> id -> the version to take it from
    for name, cid, version in done.restored:
        wanted.setdefault(name, {})[cid] = version
    takes: dict[str, dict[str, Any]] = {}  # version -> its tree (parsed only if needed)
    for version in {v for names in wanted.values() for v in names.values()}:
        takes[version] = fmt.parse(raws[version], f"{source} at {version}", for_write=True).data
    order: dict[str, dict[str, None]] = {}  # name -> ids in order of first appearance
    for _, shape in sources:
        for name, (ids, _) in shape.items():
            order.setdefault(name, {}).update(dict.fromkeys(ids))
    for name, runs in tree["entries"].items():
        order.setdefault(name, {}).update(dict.fromkeys(run["commit"]["id"] for run in runs))
    entries: dict[str, list[dict[str, Any]]] = {}
    for name, ids in order.items():
        mine: dict[str, dict[str, Any]] = {}
        for run in tree["entries"].get(name, []):
            mine.setdefault(run["commit"]["id"], run)  # the first copy
        for cid, version in wanted.get(name, {}).items():
            mine[cid] = next(
                run for run in takes[version]["entries"][name] if run["commit"]["id"] == cid
            )
        runs = [mine[cid] for cid in ids if cid in mine]
        if runs:
            entries[name] = runs
    if not tree["repoUrl"]:  # the action's empty start: the history's own
        tree["repoUrl"] = next(
            (t["repoUrl"] for t in takes.values() if t["repoUrl"]), tree["repoUrl"]
        )
    tree["entries"] = entries
    data = fmt.dumps(tree)
    _check(source, tip, data, done)
    return data


def _check(source: str, tip: bytes, data: bytes, done: Mended) -> None:
    """The new bytes read back as a data.js holding every commit of the tip once and every one
    put back: a bug here never costs history."""
    fmt.parse(data, source)
    before, after = outline(tip), outline(data)
    gone = {name: set(ids) - set(after.get(name, ([], 0))[0]) for name, (ids, _) in before.items()}
    lost = {name: ids for name, ids in gone.items() if ids}
    missing = [(n, c) for n, c, _ in done.restored if c not in after.get(n, ([], 0))[0]]
    twice = [n for n, (ids, _) in after.items() if len(set(ids)) != len(ids)]
    if lost or missing or twice:
        raise HistoryShrink(
            f"{source}: refusing to write a mended data.js that lost {lost or 'nothing'}, "
            f"missed {missing or 'nothing'}, or records a commit twice in {twice or 'no list'}"
        )
