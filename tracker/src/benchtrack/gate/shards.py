"""Shards: a gate whose benchmarks do not fit one runner's budget, run as N jobs of one size.

Each shard measures its own benchmarks (all the series of each), both sides, as a whole gate
does, at alpha / N of its runner size's share: a false fail in any shard is one of the PR's, so
the PR's false-fail probability stays within alpha over every job and shard (a union bound).
Benchmarks are dealt to the shards by their recorded step seconds, the longest first, each to
the shard with the fewest seconds so far (LPT, longest processing time first, first analysed by
R. L. Graham: en.wikipedia.org/wiki/Longest-processing-time-first_scheduling), which keeps the
slowest shard, the PR's wall time, close to the best split without searching for it.

`plan` makes the split (`benchtrack shard-plan`, and `evaluate --shards`: gate/shard_replay.py);
`gate --shard K/N --shard-plan FILE` measures shard K's benchmarks (`name_filter`); `gate-merge`
makes the shards' gate.json one (`merge`). A benchmark the plan does not name (new since the
plan) is the first shard's.
"""

from __future__ import annotations


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
