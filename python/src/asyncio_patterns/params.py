"""Profiles and pool sizes, read from the environment (docs/conventions.md).

``BENCH_PROFILE`` picks the sizes: ``quick`` (default) scales seed 004's sleeps and sizes down so
the whole suite measures in about a minute on 2 cores; ``full`` uses the seed's own figures and
pytest-benchmark's own round calibration; ``round`` is the PR gate's short per-round
measurement; ``count`` the smaller sizes of instruction counts. ``BENCH_THREADS`` sizes every
pool the patterns size to the CPUs (default: the CPUs this process may run on, so ``taskset`` is
honoured).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Sizes:
    """The knobs of every experiment, for one profile."""

    profile: str
    sleep: float  # seconds per sleep (experiments 1, 4, 5)
    sleeps: int  # sleeps / requests / queries per call
    files: int  # files written per call (experiment 2 and 6)
    file_bytes: int  # bytes per file
    sigma_n: int  # sum 0..n (experiment 3 and 6)
    sigma_times: int  # sums per call
    sleep0_every: int  # the interleaving variant yields every this many additions
    mix_sleep: float  # seconds per request / query in the network + CPU mixes
    mix_sigma_n: int  # sum 0..n in the network + CPU mixes
    rounds: int | None  # timed rounds per benchmark; None: pytest-benchmark's calibration


QUICK = Sizes(
    profile="quick",
    sleep=0.04,
    sleeps=3,
    files=10,
    file_bytes=2 * MIB,
    sigma_n=5 * 10**5,
    sigma_times=3,
    sleep0_every=1000,
    mix_sleep=0.2,
    mix_sigma_n=10**5,
    rounds=10,
)

# The seed's own figures (0.2 s sleeps, 10 files of 256 MiB, sum to 10^7, 1 s mixes).
FULL = Sizes(
    profile="full",
    sleep=0.2,
    sleeps=3,
    files=10,
    file_bytes=256 * MIB,
    sigma_n=10**7,
    sigma_times=3,
    sleep0_every=1000,
    mix_sleep=1.0,
    mix_sigma_n=10**5,
    rounds=None,
)

# One short measurement per gate round (benchtrack.toml): the gate repeats rounds and pairs them,
# so each round only needs a stable median, not the quick profile's ten rounds.
ROUND = Sizes(
    profile="round",
    sleep=0.02,
    sleeps=3,
    files=4,
    file_bytes=1 * MIB,
    sigma_n=2 * 10**5,
    sigma_times=3,
    sleep0_every=1000,
    mix_sleep=0.1,
    mix_sigma_n=5 * 10**4,
    rounds=5,  # the fewest a result document accepts
)

# Instruction counts (count mode, under callgrind at ~50x the run time): a tenth of the gate's
# sizes. A count per element does not depend on how many elements a run handles, beyond the
# fixed costs both sides share; fewer elements only make the count cheaper.
COUNT = Sizes(
    profile="count",
    sleep=0.02,
    sleeps=3,
    files=2,
    file_bytes=256 * 1024,
    sigma_n=2 * 10**4,
    sigma_times=3,
    sleep0_every=1000,
    mix_sleep=0.1,
    mix_sigma_n=5 * 10**3,
    rounds=5,
)

PROFILES = {"quick": QUICK, "full": FULL, "round": ROUND, "count": COUNT}


def bench_profile() -> Sizes:
    """The sizes chosen by ``BENCH_PROFILE`` (``quick`` unless set)."""
    name = os.environ.get("BENCH_PROFILE", "").strip() or "quick"
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"BENCH_PROFILE={name!r}: expected one of {', '.join(sorted(PROFILES))}"
        ) from None


def bench_threads() -> int:
    """``BENCH_THREADS``, else the number of CPUs this process may use (honours taskset)."""
    raw = os.environ.get("BENCH_THREADS", "").strip()
    if not raw:
        return len(os.sched_getaffinity(0))
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"BENCH_THREADS={raw!r}: expected a positive integer")
    return value


def default_executor_workers(threads: int | None = None) -> int:
    """The default executor's size: CPython's ``min(32, cpus + 4)``, counting allowed CPUs."""
    return min(32, (threads if threads is not None else bench_threads()) + 4)
