"""Moving a runner's old entries from data.js to archive.js (history.retention says which).

`bench/<runner-key>/archive.js` has data.js's format and shape (`window.BENCHMARK_DATA = {...}`,
the same entry names, entries in recording order), so anything that reads a data.js reads it.
A move writes the archive first, then data.js, each staged and read back before it replaces the
old file (`check_written`): a crash in between leaves the moved entries in both files, never in
neither, and the next prune finishes the move (an entry already in the archive, equal to it, is
only removed from data.js). Readers take data.js's copy of an entry found in both.

A move that would move nothing plans nothing, so pruning twice writes no byte the second time.
"""

from __future__ import annotations

import heapq
import mmap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from benchtrack.errors import BadInput
from benchtrack.fsutil import mapped
from benchtrack.history import format as fmt
from benchtrack.history.append import HistoryShrink, read_back
from benchtrack.history.retention import Retention, to_archive
from benchtrack.history.scan import Outline, Scanned, outline

ARCHIVE_JS = "archive.js"

Pieces = list[bytes | tuple[int, int]]


@dataclass
class Move:
    """What pruning one runner does: the new bytes of both files and what they must hold."""

    key: str
    moved: dict[str, list[str]]  # entry name -> commit ids leaving data.js, in order
    points: int  # benches of the moved entries
    archive: Pieces  # the new archive.js (ranges of the old one, or whole)
    data: bytes  # the new data.js
    archive_after: Outline
    data_after: Outline

    @property
    def kept(self) -> dict[str, int]:
        """Entry name -> entries left in data.js."""
        return {name: len(ids) for name, (ids, _) in self.data_after.items()}

    @property
    def archived(self) -> dict[str, int]:
        """Entry name -> entries in archive.js after the move."""
        return {name: len(ids) for name, (ids, _) in self.archive_after.items()}


def _outline(entries: dict[str, list[dict[str, Any]]]) -> Outline:
    """Entry name -> (commit ids in order, benches): what a file holding `entries` reads as."""
    return {
        name: ([e["commit"]["id"] for e in runs], sum(len(e["benches"]) for e in runs))
        for name, runs in entries.items()
    }


def plan(
    key: str,
    data_raw: bytes | mmap.mmap,
    data: Scanned,
    archive_raw: bytes | mmap.mmap | None,
    archive: Scanned | None,
    retention: Retention,
) -> Move | None:
    """The move `retention` asks of one runner's files (scanned and checked); None if nothing
    moves. BadInput if an entry to move is already in the archive with other contents."""
    picked = to_archive(data, retention)
    if not picked:
        return None
    in_archive = {
        name: {run.commit.id: run for run in runs}
        for name, runs in (archive.doc.entries.items() if archive else ())
    }
    tree = fmt.parse(bytes(data_raw), data.source, for_write=True).data
    added: dict[str, list[dict[str, Any]]] = {}
    moved: dict[str, list[str]] = {}
    points = 0
    for name, indices in picked.items():
        runs = data.doc.entries[name]
        for i in indices:
            run = runs[i]
            twin = in_archive.get(name, {}).get(run.commit.id)
            if twin is not None and twin != run:
                raise BadInput(
                    data.source,
                    f"entries.{name}[{i}]",
                    f"the entry of commit {run.commit.id} as archive.js holds it (both files "
                    "have it, with different results: keep the right one by hand)",
                )
            if twin is None:  # else an interrupted move: already archived, only drop it here
                added.setdefault(name, []).append(tree["entries"][name][i])
            moved.setdefault(name, []).append(run.commit.id)
            points += len(run.benches)
        chosen = set(indices)
        tree["entries"][name] = [e for i, e in enumerate(tree["entries"][name]) if i not in chosen]
    scalars = {"lastUpdate": tree["lastUpdate"], "repoUrl": tree["repoUrl"]}
    if not scalars["repoUrl"] and archive is not None:
        scalars["repoUrl"] = archive.doc.repoUrl
    pieces, archive_after = _archive_bytes(archive_raw, archive, added, scalars)
    data_after = _outline(tree["entries"])
    move = Move(key, moved, points, pieces, fmt.dumps(tree), archive_after, data_after)
    ensure_nothing_lost(data, archive, move)
    return move


def _archive_bytes(
    raw: bytes | mmap.mmap | None,
    scanned: Scanned | None,
    added: dict[str, list[dict[str, Any]]],
    scalars: dict[str, Any],
) -> tuple[Pieces, Outline]:
    """The archive with `added` in it, and its outline. The moved entries are newer than the
    archived ones (they were kept longer), so they usually go at the lists' ends: spliced in,
    the old archive's bytes copied as ranges; otherwise each list is merged by date, whole."""
    before = scanned.outline() if scanned else {}
    if raw is not None and scanned is not None and added:
        lists = scanned.doc.entries
        at_end = all(
            lists.get(name) and min(e["date"] for e in runs) >= lists[name][-1].date
            for name, runs in added.items()
        )
        names = list(lists)
        pieces = fmt.splice(raw, names, scalars, added) if at_end else None
        if pieces is not None:
            after = dict(before)
            for name, (ids, points) in _outline(added).items():
                old_ids, old_points = after[name]
                after[name] = (old_ids + ids, old_points + points)
            return pieces, after
    tree = (
        fmt.parse(bytes(raw), scanned.source, for_write=True).data
        if raw is not None and scanned is not None
        else fmt.empty()
    )
    for name, runs in added.items():
        old = tree["entries"].get(name, [])
        # merge keeps each list's own order (ties: the archived entry first)
        tree["entries"][name] = list(heapq.merge(old, runs, key=lambda e: e["date"]))
    tree.update(scalars)
    return [fmt.dumps(tree)], _outline(tree["entries"])


def ensure_nothing_lost(data: Scanned, archive: Scanned | None, move: Move) -> None:
    """Every commit recorded under an entry name before the move is in exactly one of the two
    files after it (or both, if it was before), and the benches add up: the plan cannot lose an
    entry, whatever bug it may have."""
    source = f"bench/{move.key}"
    archive_lists = archive.doc.entries if archive else {}
    for name in set(data.doc.entries) | set(archive_lists):
        runs_d, runs_a = data.doc.entries.get(name, []), archive_lists.get(name, [])
        ids_d, ids_a = {r.commit.id for r in runs_d}, {r.commit.id for r in runs_a}
        twins = ids_d & ids_a
        new_d, points_d = move.data_after.get(name, ([], 0))
        new_a, points_a = move.archive_after.get(name, ([], 0))
        if ids_d | ids_a != set(new_d) | set(new_a) or (set(new_d) & set(new_a)) - twins:
            raise HistoryShrink(
                f"{source}: refusing to prune entries.{name}: the commits would not each be in "
                "exactly one of data.js and archive.js"
            )
        twin_points = sum(len(r.benches) for r in runs_d if r.commit.id in twins)
        had = sum(len(r.benches) for r in runs_d) + sum(len(r.benches) for r in runs_a)
        new_twins = set(new_d) & set(new_a)
        kept_twin_points = sum(len(r.benches) for r in runs_d if r.commit.id in new_twins)
        if points_d + points_a - kept_twin_points != had - twin_points:
            raise HistoryShrink(
                f"{source}: refusing to prune entries.{name}: {points_d + points_a} benches "
                f"after the move where {had} were read"
            )


def check_written(tmp: Path, expected: Outline, source: str) -> None:
    """The staged bytes read back hold exactly the planned entries, in order."""
    if read_back(tmp, source) != expected:
        raise HistoryShrink(f"{source}: refusing to write: the entries did not land as planned")


def recorded_ids(fd: int | None, source: str) -> dict[str, set[str]]:
    """Entry name -> the commit ids of an open archive.js (no file: none). A file that does not
    read is bad input naming it: an append must not record a commit twice across the files."""
    if fd is None:
        return {}
    with mapped(fd) as raw:
        fmt.body(raw, source)  # the prefix, or a clear error
        try:
            return {name: set(ids) for name, (ids, _) in outline(raw).items()}
        except (msgspec.DecodeError, ValueError):
            fmt.parse(bytes(raw), source)  # raises, naming the field
            raise BadInput(source, None, "an archive.js benchtrack can read") from None


def prune_message(moves: list[Move], retention: Retention) -> str:
    """The commit message of a prune on a branch."""
    entries = sum(len(ids) for m in moves for ids in m.moved.values())
    keys = ", ".join(sorted(m.key for m in moves))
    return f"benchtrack: archive {entries} entries of {keys} (retention: {retention.describe()})"


def summary(
    spec: str, retention: Retention | None, moves: list[Move], *, dry_run: bool
) -> dict[str, object]:
    """`prune-history --json`: the retention and, per runner that moves entries, how many."""
    return {
        "history": spec,
        "retention": retention.__dict__ if retention else None,
        "dry_run": dry_run,
        "runners": [
            {
                "runner": m.key,
                "moved": {name: len(ids) for name, ids in m.moved.items()},
                "benches": m.points,
                "data_js": m.kept,
                "archive_js": m.archived,
            }
            for m in moves
        ],
    }


def describe(
    spec: str,
    config: Path,
    retention: Retention | None,
    moves: list[Move],
    *,
    dry_run: bool = False,
) -> list[str]:
    """One line per runner that moves entries, or one saying why nothing moves (`config`: the
    file the retention came from)."""
    if retention is None:
        return [f"{config}: no [history.retention]: every entry stays in data.js"]
    if not moves:
        return [f"{spec}: nothing to archive (keeping {retention.describe()})"]
    verb = "would move" if dry_run else "moved"
    return [
        f"{spec}/bench/{m.key}: {verb} {sum(map(len, m.moved.values()))} entries "
        f"({m.points} benches) to archive.js; data.js keeps {sum(m.kept.values())}, "
        f"archive.js holds {sum(m.archived.values())}"
        for m in moves
    ]
