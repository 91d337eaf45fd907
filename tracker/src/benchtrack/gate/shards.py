"""Shards: a gate whose benchmarks do not fit one runner's budget, run as N jobs of one size.

Each shard measures its own benchmarks (all the series of each), both sides, as a whole gate
does, at alpha / N of its runner size's share: a false fail in any shard is one of the PR's, so
the PR's false-fail probability stays within alpha over every job and shard (a union bound).
Benchmarks are dealt to the shards by their recorded step seconds, the longest first, each to
the shard with the fewest seconds so far (LPT, longest processing time first, first analysed by
R. L. Graham: en.wikipedia.org/wiki/Longest-processing-time-first_scheduling), which keeps the
slowest shard, the PR's wall time, close to the best split without searching for it.

`plan` makes the split (`benchtrack shard-plan`, and `evaluate --shards`: lab/shard_replay.py),
`fewest` the count that fits a time (`shard-plan --fit`);
`gate --shard K/N --shard-plan FILE` measures shard K's benchmarks (`wanted`); `gate-merge`
makes the shards' gate.json one (`merge`). A benchmark the plan does not name (new since the
plan, or every one in the plan `benchtrack init` writes before any seconds are recorded) is
dealt by a stable hash of its name (`by_name`), so new benchmarks spread over the shards.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write


def plan(seconds: dict[str, float], shards: int) -> dict[str, int]:
    """Each benchmark's shard (0-based), by LPT over its seconds; ties by name, so the same
    seconds always give the same plan."""
    load = [0.0] * shards
    count = [0] * shards  # equal seconds (none recorded): the fewest benchmarks
    out: dict[str, int] = {}
    for name, s in sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0])):
        k = min(range(shards), key=lambda j: (load[j], count[j], j))
        out[name] = k
        load[k] += max(s, 0.0)
        count[k] += 1
    return out


MOST = 64  # shards a plan holds (read_plan's bound, a matrix of a reasonable size)


def fewest(seconds: dict[str, float], rounds: int, minutes: float) -> int | None:
    """The fewest shards whose slowest, its benchmarks' seconds a round times `rounds`, fits
    `minutes` (`shard-plan --fit`): every benchmark measured in every round, the most a shard's
    rounds can take. None when not even MOST shards fit (a benchmark alone is longer)."""
    for n in range(1, MOST + 1):
        if max(shard_seconds(seconds, plan(seconds, n)).values()) * rounds <= minutes * 60:
            return n
    return None


def shard_seconds(seconds: dict[str, float], split: dict[str, int]) -> dict[int, float]:
    """Each shard's seconds a round under `split` (benchmark -> shard, either numbering); a
    shard dealt nothing is absent."""
    out: dict[int, float] = {}
    for name, k in split.items():
        out[k] = out.get(k, 0.0) + max(seconds[name], 0.0)
    return out


SCHEMA = "benchtrack.shards/1"


def plan_doc(shards: int, seconds: dict[str, float]) -> dict[str, Any]:
    """The plan file's document: each benchmark's shard, 1-based, and the seconds it was dealt
    by; with no seconds (`benchtrack init`'s), no names: every benchmark dealt `by_name`."""
    split = plan(seconds, shards)
    return {
        "schema": SCHEMA,
        "shards": shards,
        "benchmarks": {n: split[n] + 1 for n in sorted(split)},
        "seconds": {n: round(seconds[n], 3) for n in sorted(seconds)},
    }


def plan_bytes(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


def write_plan(path: Path, shards: int, seconds: dict[str, float]) -> dict[str, Any]:
    """The plan file (plan_doc) at `path`."""
    doc = plan_doc(shards, seconds)
    atomic_write(path, plan_bytes(doc))
    return doc


def read_plan(path: Path) -> tuple[int, dict[str, int]]:
    """(shards, benchmark -> shard, 1-based) from a plan file, or BadInput naming the field."""
    try:
        doc = orjson.loads(path.read_bytes())
    except OSError as e:
        raise BadInput(path, None, "a shard plan (benchtrack shard-plan)", e.strerror) from None
    except orjson.JSONDecodeError as e:
        raise BadInput(path, None, "JSON, a shard plan", str(e)) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput(path, "schema", SCHEMA, doc.get("schema") if isinstance(doc, dict) else doc)
    n = doc.get("shards")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MOST:
        raise BadInput(path, "shards", f"a whole number from 1 to {MOST}", n)
    split = doc.get("benchmarks")
    if not isinstance(split, dict):
        raise BadInput(path, "benchmarks", "an object: benchmark -> shard", split)
    for name, k in split.items():
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n:
            raise BadInput(path, f"benchmarks.{name!r}", f"a shard from 1 to {n}", k)
    return n, dict(split)


def _forms(names: list[str]) -> set[str]:
    # as confirm.name_filter: the full name, or (criterion's ids) without its first segment
    return {f for n in names for f in (n, n.split("/", 1)[-1])}


def by_name(name: str, shards: int) -> int:
    """The shard (1-based) of a benchmark no plan names: a CRC-32 of its name, the same on
    every runner and Python (unlike hash(), which is salted per process)."""
    return zlib.crc32(name.encode()) % shards + 1


def wanted(split: dict[str, int], shard: int, shards: int) -> Callable[[str], bool]:
    """Whether the gate of shard `shard` (1-based) measures a benchmark: the plan's own, and of
    those it does not name, the ones `by_name` deals it. Applied by the gate to what it
    measures, never handed to a harness; a plan's shard with none measures none of its
    names (only new ones)."""
    mine = _forms([n for n, k in split.items() if k == shard])
    named = _forms(list(split))

    def want(name: str) -> bool:
        if name in mine:
            return True
        return name not in named and by_name(name, shards) == shard

    return want
