"""Narrowing a confirmed step to its commit: when the A/B's two commits are several merges apart
(the history's resolution, or a step detect placed on a range), the merges between them are
bisected, each probe the gate's lockstep A/B of the range's base against the probed merge.

The search assumes one step in the range (what the confirmation found between its ends): a probe
that shows the step puts it at or before the probe, one that does not puts it after. A probe that
cannot measure (a build or a suite failing on a side) stops the search with the range so far.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack import git

_PR = (re.compile(r"^Merge pull request #(\d+)\b"), re.compile(r"\(#(\d+)\)\s*$"))


def merges(repo: Path, base: str, head: str) -> list[str]:
    """The first-parent commits after `base` up to `head`, oldest first (main's merges)."""
    out = git.run(repo, "rev-list", "--first-parent", "--reverse", f"{base}..{head}").stdout
    return out.split()


def pr_number(message: str) -> int | None:
    """The PR a merge commit names: GitHub's "Merge pull request #N" or a squash's "(#N)"."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    for pattern in _PR:
        found = pattern.search(first)
        if found:
            return int(found.group(1))
    return None


@dataclass
class Search:
    culprit: str | None  # the one commit, or None when a probe could not measure
    low: int  # the range left: commits[low..high] hold the step
    high: int
    probes: list[tuple[str, bool | None]] = field(default_factory=list)


def search(commits: Sequence[str], stepped: Callable[[str], bool | None]) -> Search:
    """The first of `commits` (oldest first; the last one known to carry the step) at which
    `stepped` (the base vs that commit) shows the step: ⌈log2 n⌉ probes."""
    lo, hi = 0, len(commits) - 1
    probes: list[tuple[str, bool | None]] = []
    while lo < hi:
        mid = (lo + hi) // 2
        found = stepped(commits[mid])
        probes.append((commits[mid], found))
        if found is None:
            return Search(None, lo, hi, probes)
        if found:
            hi = mid
        else:
            lo = mid + 1
    return Search(commits[hi] if commits else None, lo, hi, probes)


def subject(repo: Path, commit: str) -> str:
    return git.run(repo, "log", "-1", "--format=%B", commit).stdout
