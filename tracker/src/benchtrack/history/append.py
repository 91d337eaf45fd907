"""Appending one run to a runner's data.js, the way one github-action-benchmark call would.

All documents of one runner size and one commit (one per suite) become ONE entry per direction:
their benches merged in the order the documents were given, then in each document's order. A
commit already recorded under an entry name is not recorded twice: the existing entry is kept
and the outcome says "already recorded". Nothing here removes or rewrites an existing entry, and
`ensure_grows` refuses any document that has fewer entries or points than were read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from benchtrack.errors import BadInput, BenchtrackError
from benchtrack.fsutil import mapped
from benchtrack.history.format import (
    BIGGER_TOOL,
    SMALLER_SUFFIX,
    SMALLER_TOOL,
    empty,
    js_value,
)
from benchtrack.history.records import merged_benchmarks
from benchtrack.history.scan import Outline, Scanned, outline
from benchtrack.result import Commit, ResultDocument

APPENDED = "appended"
ALREADY = "already recorded"


class HistoryShrink(BenchtrackError):
    """A write would lose history: refused (exit 2), nothing written."""


@dataclass(frozen=True)
class NewEntry:
    runner_key: str
    entry_name: str
    entry: dict[str, Any]  # {commit, date, tool, benches}; date is set when applied

    @property
    def commit_id(self) -> str:
        return self.entry["commit"]["id"]


@dataclass(frozen=True)
class Outcome:
    runner_key: str
    entry_name: str
    commit_id: str
    status: str  # APPENDED or ALREADY
    benches: int


def entry_name(runner_key: str, direction: str) -> str:
    return runner_key if direction == "bigger" else runner_key + SMALLER_SUFFIX


def commit_object(commit: Commit) -> dict[str, Any]:
    """The action's commit shape. Local runs know only the author, who stands in as committer
    (the action's default page reads committer); `url` is "" when the remote is not a web host."""
    person = {"email": commit.author_email, "name": commit.author_name}
    return {
        "author": person,
        "committer": dict(person),
        "id": commit.id,
        "message": commit.message,
        "timestamp": commit.timestamp,
        "url": commit.url or "",
    }


def new_entries(docs: list[tuple[str, ResultDocument]]) -> list[NewEntry]:
    """Group documents by (runner size, commit) in the order given; one entry per direction."""
    groups: dict[tuple[str, str], list[tuple[str, ResultDocument]]] = {}
    for source, doc in docs:
        groups.setdefault((doc.runner.key, doc.commit.id), []).append((source, doc))
    out: list[NewEntry] = []
    for (key, _), group in groups.items():
        suites: dict[str, str] = {}
        for source, doc in group:
            if doc.suite in suites:
                raise BadInput(
                    source,
                    "suite",
                    f"one document per suite per run (also {suites[doc.suite]})",
                    doc.suite,
                )
            suites[doc.suite] = source
        commit = commit_object(group[0][1].commit)
        for direction, tool in (("bigger", BIGGER_TOOL), ("smaller", SMALLER_TOOL)):
            benches = merged_benchmarks(group, direction)
            if benches:
                entry = {"commit": commit, "date": 0, "tool": tool, "benches": benches}
                out.append(NewEntry(key, entry_name(key, direction), entry))
    return out


def repo_url(commit_url: str) -> str:
    """`https://host/owner/repo/commit/<id>` -> `https://host/owner/repo` (the action's repoUrl)."""
    head, sep, _ = commit_url.rpartition("/commit/")
    return head if sep else ""


@dataclass
class Plan:
    """What appending changes in one data.js: entries to add after each list's last, the new
    top-level scalars, and what happened to each new entry."""

    added: dict[str, list[dict[str, Any]]]  # entry name -> new entries, in order
    scalars: dict[str, Any]  # lastUpdate, repoUrl
    outcomes: list[Outcome]

    def document(self, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """`data` (the file's tree, None: no file yet) with the plan applied."""
        out = data if data is not None else empty()
        for name, runs in self.added.items():
            out["entries"].setdefault(name, []).extend(runs)
        out.update(self.scalars)
        return out

    def outline(self, before: Outline) -> Outline:
        """The file's outline after the plan, from the one before it."""
        after = dict(before)
        for name, runs in self.added.items():
            ids, points = after.get(name, ([], 0))
            after[name] = (
                ids + [run["commit"]["id"] for run in runs],
                points + sum(len(run["benches"]) for run in runs),
            )
        return after


def apply(
    scanned: Scanned | None,
    entries: list[NewEntry],
    now_ms: int | None = None,
    archived: dict[str, set[str]] | None = None,
) -> Plan:
    """What appending `entries` to `scanned` (None: no file yet) does; `archived` is entry name
    -> the commit ids the runner's archive.js holds, which count as recorded too.

    `date` is the time of recording, as the action's is, but never earlier than the entry before
    it, so that every entry list stays ordered.
    """
    existing = scanned.doc.entries if scanned is not None else {}
    scalars = {
        "lastUpdate": scanned.doc.lastUpdate if scanned is not None else 0,
        "repoUrl": scanned.doc.repoUrl if scanned is not None else "",
    }
    now = int(time.time() * 1000) if now_ms is None else now_ms
    added: dict[str, list[dict[str, Any]]] = {}
    outcomes: list[Outcome] = []
    for new in entries:
        runs = existing.get(new.entry_name, [])
        mine = added.setdefault(new.entry_name, [])
        count = len(new.entry["benches"])
        recorded = (
            any(run.commit.id == new.commit_id for run in runs)
            or any(run["commit"]["id"] == new.commit_id for run in mine)
            or new.commit_id in (archived or {}).get(new.entry_name, ())
        )
        if recorded:
            outcomes.append(Outcome(new.runner_key, new.entry_name, new.commit_id, ALREADY, count))
            continue
        last = mine[-1]["date"] if mine else runs[-1].date if runs else 0
        entry = dict(new.entry, date=js_value(max(now, int(last))))
        mine.append(entry)
        outcomes.append(Outcome(new.runner_key, new.entry_name, new.commit_id, APPENDED, count))
        url = repo_url(entry["commit"]["url"])
        if url and not scalars["repoUrl"]:
            scalars["repoUrl"] = url
    added = {name: runs for name, runs in added.items() if runs}
    if added:
        scalars["lastUpdate"] = now
    return Plan(added, scalars, outcomes)


def ensure_grows(before: Outline, after: Outline, source: str) -> None:
    """Refuse to write a file unless every entry list read is still there, its entries first
    and in order, with as many points or more."""
    for name, (ids, points) in before.items():
        now_ids, now_points = after.get(name, ([], 0))
        if now_ids[: len(ids)] != ids or now_points < points:
            raise HistoryShrink(
                f"{source}: refusing to write entries.{name} with {len(now_ids)} entries / "
                f"{now_points} points where {len(ids)} / {points} were read (or not those "
                "first): history only grows"
            )


def read_back(tmp: Path, source: str) -> Outline:
    """The outline of bytes staged to replace `source`, read back from disk; bytes that do not
    read back are refused (a bug in a serialiser, or a short copy, never costs history)."""
    try:
        with open(tmp, "rb") as f, mapped(f.fileno()) as raw:
            return outline(raw)
    except (msgspec.DecodeError, ValueError) as e:
        raise HistoryShrink(
            f"{source}: refusing to write bytes that do not read back: {e}"
        ) from None
