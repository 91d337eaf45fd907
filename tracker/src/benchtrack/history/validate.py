"""What `validate-history` checks beyond the format (which format.parse already enforces).

Per runner file: entry names and tools follow docs/architecture.md, entries are in recording
order, no commit is recorded twice under one entry name, no bench name twice in one entry, and
the vCPUs in `extra` agree with the runner key. The same holds for an archive.js, and a commit
is in only one of the two files (or in both with equal entries: a prune cut short between its
two writes, which the next prune finishes). CI runs this before github-action-benchmark touches
a data.js, so the action never appends to (or silently restarts) a broken history.
"""

from __future__ import annotations

import re

from benchtrack.history.extra import parse_many
from benchtrack.history.format import BIGGER_TOOL, SMALLER_SUFFIX, SMALLER_TOOL
from benchtrack.history.scan import Scanned

# Racing publishers stamp `date` before they win the push, so a later entry may carry a date a
# little earlier than the one before it; more than this is a reordered or hand-edited history.
ORDER_SLACK_MS = 10 * 60 * 1000
_KEY_CPUS = re.compile(r"-(\d+)cpu$")


def problems_in(parsed: Scanned, key: str) -> list[str]:
    src = parsed.source
    problems: list[str] = []
    expected_tools = {key: BIGGER_TOOL, key + SMALLER_SUFFIX: SMALLER_TOOL}
    for name, runs in parsed.doc.entries.items():
        where = f"{src}: entries.{name}"
        tool = expected_tools.get(name)
        if tool is None:
            problems.append(f"{where}: expected the entry name '{key}' or '{key}{SMALLER_SUFFIX}'")
        seen: dict[str, int] = {}
        last_date = None
        for i, run in enumerate(runs):
            if tool is not None and run.tool != tool:
                problems.append(f"{where}[{i}].tool: expected {tool}, got {run.tool}")
            cid = run.commit.id
            if cid in seen:
                problems.append(
                    f"{where}[{i}].commit.id: duplicate commit {cid} (also [{seen[cid]}])"
                )
            else:
                seen[cid] = i
            date = run.date
            if last_date is not None and date < last_date - ORDER_SLACK_MS:
                problems.append(
                    f"{where}[{i}].date: entries out of order ({date} before [{i - 1}]'s "
                    f"{last_date})"
                )
            last_date = date if last_date is None else max(last_date, date)
            names = [b.name for b in run.benches]
            if len(set(names)) != len(names):
                dups = sorted({n for n in names if names.count(n) > 1})
                problems.append(f"{where}[{i}].benches: duplicate bench names {dups}")
    match = _KEY_CPUS.search(key)
    if match and parsed.benches:
        cpus = parse_many(parsed.extras).cpus
        wrong = cpus[(cpus > 0) & (cpus != int(match.group(1)))]
        if len(wrong):
            problems.append(
                f"{src}: {len(wrong)} benches say cpus={int(wrong[0])} in extra, "
                f"but the runner key says {match.group(1)}"
            )
    return problems


def problems_between(data: Scanned, archive: Scanned) -> list[str]:
    """A runner's data.js and archive.js together: no commit in both under one entry name,
    unless the two entries are equal (an interrupted prune; readers take data.js's)."""
    problems: list[str] = []
    for name, runs in archive.doc.entries.items():
        recent = {run.commit.id: run for run in data.doc.entries.get(name, [])}
        for i, run in enumerate(runs):
            twin = recent.get(run.commit.id)
            if twin is not None and twin != run:
                problems.append(
                    f"{archive.source}: entries.{name}[{i}].commit.id: commit {run.commit.id} "
                    f"is also in {data.source}, with other results"
                )
    return problems
