"""`[gate]` of benchtrack.toml: the gate's threshold, alpha, rounds, looks, budget and suites.

    [gate]
    threshold = 0.05          # δ: the smallest loss that fails a PR (a fraction)
    alpha = 0.01              # family-wise false-fail probability per PR (all its jobs)
    jobs = 1                  # the runner-size jobs CI runs for one PR: each gated at alpha/jobs
    rounds = 16               # most rounds (one base + one head measurement each)
    looks = []                # adaptive stopping: also check after these many rounds, e.g. [8]
    minutes = 15              # time budget, builds included (left out: none)
    suites = ["rust", "python", "perl"]   # the gate suites measured by default (left out: all)
    skip_paths = ["*.md", "docs/**"]      # a PR changing only these is not measured (gate/skip.py;
                                          # default: documentation, skip.DEFAULT)
    idle = "poll"             # idle CPUs poll while measuring (idle.py); "machine": as they are

    [gate.confirm]            # screen, then confirm the candidates (gate/confirm.py); left out:
    rounds = 16               # one stage, as [gate] rounds and looks say
    looks = [8]
    most = 24
    uneven_rounds = 32        # its most rounds when the screening read the vCPUs apart
                              # (machine/vcpus.py; left out: `rounds` in every state)

    [gate.thresholds]         # per benchmark or group: glob on the name, longest pattern wins
    "perl/rss/*" = 0.02

    [gate.notes]              # why a benchmark is hard to resolve, for the reports
    "python/cpu/process_pool_gather" = "bound by process start-up"

    [gate.selftest]           # `gate-selftest`'s slowdowns: a file of this repository
    patches = "tracker/bench/selftest-patches.toml"

The gate's suites are the `[bench.suites.<name>]` tables and their `gate` tables (suites.py):
each suite measured whole, or as its gate tables say; `suites` names them. The defaults above
are the code's (`DEFAULTS`); tracker/GATE.md, "Configuration", lists the same.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchtrack import config, suites
from benchtrack.config import CONFIG_NAME
from benchtrack.errors import BadInput
from benchtrack.gate import idle, skip
from benchtrack.suites import SERIES, Suite
from benchtrack.tomlcheck import Checker as _V

__all__ = ["CONFIG_NAME", "Confirm", "GateConfig", "Suite", "load", "parse", "split_key"]

# [gate]'s defaults, the code's and the documentation's (tracker/GATE.md, "Configuration").
THRESHOLD = 0.05
ALPHA = 0.01
ROUNDS = 16
JOBS = 1
IDLE = "poll"


def split_key(key: str) -> tuple[str, str]:
    """`<name> (<series>)` -> (name, series); a plain name is the time series."""
    for series in SERIES[1:]:
        if key.endswith(f" ({series})"):
            return key[: -len(series) - 3], series
    return key, "time"


@dataclass(frozen=True)
class Confirm:
    """`[gate.confirm]`: the confirmation stage (gate/confirm.py): its most rounds, its looks,
    the most candidates it measures, and its most rounds when the screening read the job's
    vCPUs apart in speed (None: `rounds` in every state)."""

    rounds: int = 16
    looks: tuple[int, ...] = (8,)
    most: int = 24
    uneven_rounds: int | None = None

    def look_schedule(self) -> list[int]:
        return [*sorted({k for k in self.looks if k < self.rounds}), self.rounds]

    @property
    def most_rounds(self) -> int:
        return max(self.rounds, self.uneven_rounds or 0)

    def for_state(self, uneven: bool) -> Confirm:
        """The stage as it runs after a screening that read the vCPUs even or `uneven`: a
        reading of the machine, not of the benchmarks, so the rounds it adds leave each look's
        false-fail level as it was (tracker/GATE.md, "Reading a verdict")."""
        if uneven and self.uneven_rounds:
            return replace(self, rounds=self.uneven_rounds)
        return self


@dataclass(frozen=True)
class GateConfig:
    source: str
    threshold: float = THRESHOLD
    alpha: float = ALPHA
    rounds: int = ROUNDS
    looks: tuple[int, ...] = ()
    minutes: float | None = None  # the gate's time budget, builds included
    default_suites: tuple[str, ...] = ()
    thresholds: dict[str, float] = field(default_factory=dict)
    suites: dict[str, Suite] = field(default_factory=dict)
    # The runner-size jobs CI runs for one PR (.github/bench-runners.toml): each job is gated at
    # alpha / jobs, so the PR's whole check keeps its false-fail probability <= alpha.
    jobs: int = JOBS
    # Screen, then confirm (gate/confirm.py); None: one stage, as [gate] rounds and looks say.
    confirm: Confirm | None = None
    notes: dict[str, str] = field(default_factory=dict)  # glob -> why it is hard to resolve
    skip_paths: tuple[str, ...] = skip.DEFAULT  # gitignore-style globs that cannot affect timing
    # [gate.selftest] patches: gate-selftest's slowdowns, a file relative to the repository root
    selftest_patches: str | None = None
    # While measuring, hold a 0 µs wake-up latency request so idle CPUs poll (idle.py), or leave
    # the machine's idle states ("machine").
    idle: str = IDLE

    def note_for(self, name: str) -> str:
        """What `[gate.notes]` says about a benchmark (longest matching glob), or ""."""
        hits = [p for p in self.notes if fnmatch.fnmatchcase(name, p)]
        return self.notes[max(hits, key=len)] if hits else ""

    @property
    def all_rounds(self) -> int:
        """The most rounds one gate can take: the screening's and the confirmation's."""
        return self.rounds + (self.confirm.most_rounds if self.confirm else 0)

    @property
    def even_rounds(self) -> int:
        """The most rounds when the vCPUs read even: what a shard plan fits its minutes to (the
        uneven state's more rounds run within the time budget, `minutes`)."""
        return self.rounds + (self.confirm.rounds if self.confirm else 0)

    def threshold_for(self, name: str) -> float:
        """The most specific (longest) matching pattern's threshold, else the default."""
        hits = [p for p in self.thresholds if fnmatch.fnmatchcase(name, p)]
        return self.thresholds[max(hits, key=len)] if hits else self.threshold

    def look_schedule(self, rounds: int | None = None, adaptive: bool = True) -> list[int]:
        """Round counts at which verdicts are checked; the last one is the round limit."""
        last = rounds or self.rounds
        early = [k for k in self.looks if k < last] if adaptive else []
        return [*sorted(set(early)), last]

    def select(self, names: list[str] | None) -> list[Suite]:
        chosen = names or list(self.default_suites) or list(self.suites)
        unknown = [n for n in chosen if n not in self.suites]
        if unknown:
            raise BadInput(
                self.source, "suites", f"one of {sorted(self.suites)}", ", ".join(unknown)
            )
        return [self.suites[n] for n in chosen]


def load(path: Path) -> GateConfig:
    return parse(config.read(path, f"a gate config file ({CONFIG_NAME}, not found)"), str(path))


def parse(data: dict[str, Any], source: str) -> GateConfig:
    v = _V(source)
    gate = v.table(data.get("gate", {}), "gate")
    v.known(
        gate,
        "gate",
        {"threshold", "alpha", "rounds", "looks", "minutes", "suites", "thresholds", "jobs"}
        | {"notes", "skip_paths", "gating", "confirm", "selftest", "idle"},
    )
    if "gating" in gate:
        raise BadInput(
            source,
            "gate.gating",
            "no such table: every series a benchmark is measured as (wall time, instructions, "
            "CPU time) can fail the PR, and its wall time alone decides an improvement "
            "(tracker/GATE.md); remove the table",
            "a table",
        )
    jobs = v.integer(gate.get("jobs", JOBS), "gate.jobs", 1)
    threshold = v.fraction(gate.get("threshold", THRESHOLD), "gate.threshold")
    alpha = v.number(gate.get("alpha", ALPHA), "gate.alpha", 1e-9, 0.5)
    rounds = v.integer(gate.get("rounds", ROUNDS), "gate.rounds", 3)
    looks = tuple(
        v.integer(x, f"gate.looks[{i}]", 3)
        for i, x in enumerate(v.array(gate.get("looks", []), "gate.looks"))
    )
    minutes = v.number(gate["minutes"], "gate.minutes", 1, 24 * 60) if "minutes" in gate else None
    thresholds = {
        str(k): v.fraction(x, f"gate.thresholds.{k!r}")
        for k, x in v.table(gate.get("thresholds", {}), "gate.thresholds").items()
    }
    notes = {}
    for k, x in v.table(gate.get("notes", {}), "gate.notes").items():
        if not isinstance(x, str) or not x.strip():
            raise BadInput(source, f"gate.notes.{k!r}", "a non-empty string", x)
        notes[str(k)] = x.strip()
    default = tuple(str(x) for x in v.array(gate.get("suites", []), "gate.suites"))
    globs = v.array(gate.get("skip_paths", list(skip.DEFAULT)), "gate.skip_paths")
    skips = tuple(skip.check_glob(source, f"gate.skip_paths[{i}]", g) for i, g in enumerate(globs))
    confirm = _confirm(v, gate.get("confirm"))
    idle_mode = gate.get("idle", IDLE)
    if idle_mode not in idle.MODES:
        raise BadInput(source, "gate.idle", " or ".join(f'"{m}"' for m in idle.MODES), idle_mode)
    selftest = _selftest(v, gate.get("selftest"))
    gate_suites = suites.parse(data, source).gate
    if not gate_suites:
        raise BadInput(source, "bench.suites", "at least one [bench.suites.<name>] table")
    cfg = GateConfig(
        source,
        threshold,
        alpha,
        rounds,
        looks,
        minutes,
        default,
        thresholds,
        gate_suites,
        jobs=jobs,
        notes=notes,
        skip_paths=skips,
        confirm=confirm,
        selftest_patches=selftest,
        idle=idle_mode,
    )
    cfg.select(None)  # validates gate.suites against the tables
    return cfg


def _confirm(v: _V, x: Any) -> Confirm | None:
    if x is None:
        return None
    t = v.table(x, "gate.confirm")
    v.known(t, "gate.confirm", {"rounds", "looks", "most", "uneven_rounds"})
    rounds = v.integer(t.get("rounds", Confirm.rounds), "gate.confirm.rounds", 3)
    looks = tuple(
        v.integer(k, f"gate.confirm.looks[{i}]", 3)
        for i, k in enumerate(v.array(t.get("looks", list(Confirm.looks)), "gate.confirm.looks"))
    )
    most = v.integer(t.get("most", Confirm.most), "gate.confirm.most", 1)
    uneven = t.get("uneven_rounds")
    if uneven is not None:  # more rounds than the even state's, or the key says nothing
        uneven = v.integer(uneven, "gate.confirm.uneven_rounds", rounds)
    return Confirm(rounds, looks, most, uneven)


def _selftest(v: _V, x: Any) -> str | None:
    """`[gate.selftest]`: `patches`, the file of gate-selftest's slowdowns (selftest/patches.py
    reads it), relative to the repository root."""
    if x is None:
        return None
    t = v.table(x, "gate.selftest")
    v.known(t, "gate.selftest", {"patches"})
    return v.string(t, "patches", "gate.selftest")
