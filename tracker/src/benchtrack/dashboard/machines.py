"""Which machine each runner size ran on, run by run: the `cpu=`/`os=` fields of `extra`.

Hosted runners of one label change CPU model from time to time, and a CPU change moves every
wall-time level at once: the classic false step. `benchtrack append` and `export` record the
runner's machine in each point's `extra` (history/extra.py); the dashboard shows each runner's
machine and marks the runs where it changed. Read here from a data.js as it is (the history
model keeps columns of numbers, not these strings): the first point of each entry that names its
machine stands for the entry.
"""

from __future__ import annotations

from pathlib import Path

from benchtrack.history import format as fmt
from benchtrack.history.extra import machine


def runs(path: Path) -> list[tuple[str, int, str, str]]:
    """(commit id, date, cpu model, os) of every run of the data.js at `path` that names its
    machine, oldest first; [] when none does (a history written before the machine was kept)."""
    raw = path.read_bytes()
    if b"; cpu=" not in raw:
        return []
    data = fmt.decode(raw, str(path))
    seen: dict[str, tuple[str, int, str, str]] = {}
    for entries in data.get("entries", {}).values():
        for entry in entries:
            commit = entry.get("commit", {}).get("id", "")
            if commit in seen:
                continue
            for bench in entry.get("benches", []):
                found = machine(str(bench.get("extra", "")))
                if found is not None:
                    seen[commit] = (commit, int(entry.get("date", 0)), *found)
                    break
    return sorted(seen.values(), key=lambda run: run[1])


def changes(found: list[tuple[str, int, str, str]]) -> list[tuple[str, str, str]]:
    """(commit id, cpu model, os) of the first run and of each run whose machine differs from the
    run before it."""
    out: list[tuple[str, str, str]] = []
    for commit, _, cpu, os in found:
        if not out or out[-1][1:] != (cpu, os):
            out.append((commit, cpu, os))
    return out
