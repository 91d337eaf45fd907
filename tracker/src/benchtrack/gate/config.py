"""`benchtrack.toml` at the repository root: the gate's suites, threshold, alpha and rounds.

    [gate]
    threshold = 0.05          # default δ: the smallest loss that fails a PR (a fraction)
    alpha = 0.01              # family-wise false-fail probability per PR
    rounds = 16               # most rounds (one base + one head measurement each)
    looks = [8, 12]           # adaptive stopping: also check after these many rounds
    minutes = 14              # time budget: no look is started that would end after it
    suites = ["rust", "python", "perl"]
    skip_paths = ["*.md", "docs/**"]   # a PR changing only these is not measured (gate/skip.py;
                                       # default: documentation, skip.DEFAULT)

    [gate.thresholds]         # per benchmark or group: glob on the name, longest pattern wins
    "perl/rss/*" = 0.02

    [gate.notes]              # why a benchmark is hard to resolve, for the reports
    "python/cpu/process_pool_gather" = "bound by process start-up"

    [suites.python]
    command = "cargo make bench-python-raw"   # produces raw output in a checkout (bash -c)
    build = "uv sync --frozen"                 # optional, once per side before the rounds
    adapter = "pytest"                         # benchtrack.ingest adapter reading `raw`
    raw = "target/bench/raw/python/pytest.json"
    timeout = 600                              # seconds per round of this suite
    [suites.python.env]                        # a short per-round measurement
    BENCH_PROFILE = "round"

    [suites.python-lockstep]                   # base and head stepping in turn on one CPU
    adapter = "lockstep"                       # `command` is a step worker; no `raw`
    command = "bash scripts/bench-python-step.sh"
    pairs = 30                                 # pairs per benchmark per round, at most
    pair_seconds = 1.0                         # no new pair after this long (at least 5); or
                                               # per benchmark: { "*" = 1.0, "python/x/*" = 2.0 }
    processes = 1                              # worker processes per side per round, the
                                               # pairs and seconds shared out over them
    series = "cpu"                             # optional: steps timed by the process's CPU
                                               # time, keys "<name> (cpu)" (default "time")

    [suites.rust-instructions]                 # a second series of the same benchmarks
    series = "instructions"                    # their key: "<name> (instructions)"
    rounds = 3                                 # deterministic: measured in 3 rounds only

Every `[bench.suites.<name>]` table (benchtrack/suites.py) is a gate suite too, measured whole
each round with its command, adapter, raw, build, env and profile (a companion one as series
"instructions"), unless a `[suites.<name>]` table of the same name declares it for the gate.

Env values may use ${GATE_CACHE} (a per-side cache directory under target/gate/cache/ that
survives runs; a build dir such as CARGO_TARGET_DIR belongs here, one per side),
${GATE_SHARED_CACHE} (one for both sides: only for what does not depend on the checkout, since
the two sides may run at once; cargo names a workspace crate's artifacts by a hash relative to
the workspace root, so two checkouts in one target dir overwrite each other's binaries),
${GATE_BASE_CACHE} (the base side's cache, which the base builds first: a head's build may start
from a copy of it, as scripts/gate-cargo-build.sh does) and ${GATE_CHECKOUT} (the side's checkout).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack import suites as bench_suites
from benchtrack.errors import BadInput
from benchtrack.gate import skip
from benchtrack.ingest import HARNESSES
from benchtrack.tomlcheck import Checker as _V
from benchtrack.tomlcheck import read_toml

CONFIG_NAME = bench_suites.CONFIG_NAME
# Any ingest adapter reads a whole suite's output; "lockstep" runs a step worker (gate/lockstep.py).
ADAPTERS = (*HARNESSES, "lockstep")
# What a suite's values are: wall time, instruction counts (callgrind; they repeat run to run, so
# a few rounds are judged by their range), or the process's CPU time per step (lockstep only).
SERIES = ("time", "instructions", "cpu")
COUNTED = "instructions"
STEP_CLOCKS = {"time": "wall", "cpu": "cpu"}  # a lockstep suite's series -> BENCH_STEP_CLOCK


@dataclass(frozen=True)
class Suite:
    name: str
    command: str
    adapter: str
    raw: str
    build: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 900.0
    series: str = "time"  # what its values are; "time" keeps the benchmark's own name
    rounds: int | None = None  # measured in the first N rounds only (deterministic counts)
    # adapter "lockstep": `command` is a step worker (gate/lockstep.py), no raw output
    pairs: int = 30  # pairs per benchmark per round, at most
    pair_seconds: float = 1.0  # per benchmark per round: no new pair after it
    pair_seconds_by: dict[str, float] = field(default_factory=dict)  # glob -> seconds
    # Where a lockstep suite's two workers take turns: "all" the job's CPUs (each step free to
    # use every one of them, so lost parallelism and contention show: the throughput a user
    # sees at the runner's size), or "one" CPU (quieter for single-threaded benchmarks).
    cpus: str = "all"
    # Lockstep: worker processes per side per round, one after the other, the round's pairs
    # shared out over them. What a process gets once and keeps (its memory layout, its threads'
    # placement) is fixed for all its pairs, so more pairs cannot average it away; more
    # processes do (tracker/bench/lockstep_spread.py measures it). A round's value is then the
    # mean over its processes of each one's median pair log-ratio.
    processes: int = 1
    # Lockstep, series "time": benchmarks (globs) whose steps are also timed by the process's
    # CPU time, a second series "<name> (cpu)" from the same steps (the clock `wall+cpu`).
    cpu_time: tuple[str, ...] = ()

    @property
    def lockstep(self) -> bool:
        return self.adapter == "lockstep"

    @property
    def clock(self) -> str:
        """What a lockstep suite's steps are timed by (BENCH_STEP_CLOCK)."""
        return "wall+cpu" if self.cpu_time else STEP_CLOCKS[self.series]

    def times_cpu(self, name: str) -> bool:
        """Whether benchmark `name` also gets the CPU-time series (`cpu_time`)."""
        return any(fnmatch.fnmatchcase(name, g) for g in self.cpu_time)

    def key(self, name: str) -> str:
        """A benchmark's series key in the gate: its name, or `<name> (<series>)`."""
        return name if self.series == "time" else f"{name} ({self.series})"


def split_key(key: str) -> tuple[str, str]:
    """`<name> (<series>)` -> (name, series); a plain name is the time series."""
    for series in SERIES[1:]:
        if key.endswith(f" ({series})"):
            return key[: -len(series) - 3], series
    return key, "time"


@dataclass(frozen=True)
class Confirm:
    """`[gate.confirm]`: the confirmation stage (gate/confirm.py): its most rounds, its looks,
    and the most candidates it measures."""

    rounds: int = 16
    looks: tuple[int, ...] = (8,)
    most: int = 10

    def look_schedule(self) -> list[int]:
        return [*sorted({k for k in self.looks if k < self.rounds}), self.rounds]


@dataclass(frozen=True)
class GateConfig:
    source: str
    threshold: float = 0.05
    alpha: float = 0.01
    rounds: int = 16
    looks: tuple[int, ...] = ()
    minutes: float | None = None  # the gate's time budget, builds included
    default_suites: tuple[str, ...] = ()
    thresholds: dict[str, float] = field(default_factory=dict)
    suites: dict[str, Suite] = field(default_factory=dict)
    # The runner-size jobs CI runs for one PR (.github/bench-runners.toml): each job is gated at
    # alpha / jobs, so the PR's whole check keeps its false-fail probability <= alpha.
    jobs: int = 1
    # Screen, then confirm (gate/confirm.py); None: one stage, as [gate] rounds and looks say.
    confirm: Confirm | None = None
    notes: dict[str, str] = field(default_factory=dict)  # glob -> why it is hard to resolve
    skip_paths: tuple[str, ...] = skip.DEFAULT  # gitignore-style globs that cannot affect timing

    def note_for(self, name: str) -> str:
        """What `[gate.notes]` says about a benchmark (longest matching glob), or ""."""
        hits = [p for p in self.notes if fnmatch.fnmatchcase(name, p)]
        return self.notes[max(hits, key=len)] if hits else ""

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
    return parse(read_toml(path, f"a gate config file ({CONFIG_NAME}, not found)"), str(path))


def parse(data: dict[str, Any], source: str) -> GateConfig:
    v = _V(source)
    gate = v.table(data.get("gate", {}), "gate")
    v.known(
        gate,
        "gate",
        {"threshold", "alpha", "rounds", "looks", "minutes", "suites", "thresholds", "jobs"}
        | {"notes", "skip_paths", "gating", "confirm"},
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
    jobs = v.integer(gate.get("jobs", 1), "gate.jobs", 1)
    threshold = v.fraction(gate.get("threshold", 0.05), "gate.threshold")
    alpha = v.number(gate.get("alpha", 0.01), "gate.alpha", 1e-9, 0.5)
    rounds = v.integer(gate.get("rounds", 16), "gate.rounds", 3)
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
    suites = {}
    for name, raw in v.table(data.get("suites", {}), "suites").items():
        where = f"suites.{name}"
        s = v.table(raw, where)
        v.known(
            s,
            where,
            {"command", "build", "adapter", "raw", "env", "timeout", "series", "rounds"}
            | {"pairs", "pair_seconds", "cpus", "cpu_time", "processes"},
        )
        series = s.get("series", "time")
        if series not in SERIES:
            raise BadInput(source, f"{where}.series", f"one of {', '.join(SERIES)}", series)
        adapter = v.string(s, "adapter", where)
        if adapter not in ADAPTERS:
            raise BadInput(source, f"{where}.adapter", f"one of {', '.join(ADAPTERS)}", adapter)
        env = {
            str(k): v.scalar(x, f"{where}.env.{k}")
            for k, x in v.table(s.get("env", {}), f"{where}.env").items()
        }
        suites[name] = Suite(
            name=name,
            command=v.string(s, "command", where),
            adapter=adapter,
            raw=v.string(s, "raw", where) if adapter != "lockstep" else "",
            build=v.string(s, "build", where) if "build" in s else None,
            env=env,
            timeout=v.number(s.get("timeout", 900), f"{where}.timeout", 1, 86400),
            series=series,
            rounds=v.integer(s["rounds"], f"{where}.rounds", 3) if "rounds" in s else None,
            pairs=v.integer(s.get("pairs", 30), f"{where}.pairs", 5),
            **_pair_seconds(v, s.get("pair_seconds", 1.0), f"{where}.pair_seconds"),
            cpus=_placement(source, s.get("cpus", "all"), f"{where}.cpus", adapter),
            processes=v.integer(s.get("processes", 1), f"{where}.processes", 1),
            cpu_time=tuple(
                v.string({"g": g}, "g", f"{where}.cpu_time[{i}]")
                for i, g in enumerate(v.array(s.get("cpu_time", []), f"{where}.cpu_time"))
            ),
        )
        if suites[name].processes > 1 and adapter != "lockstep":
            expected = "left out: only a lockstep suite runs several processes a round"
            raise BadInput(source, f"{where}.processes", expected, suites[name].processes)
        if suites[name].cpu_time and (adapter != "lockstep" or series != "time"):
            expected = 'left out: only a lockstep suite of series "time" takes "cpu_time"'
            raise BadInput(source, f"{where}.cpu_time", expected, suites[name].cpu_time)
        allowed = tuple(STEP_CLOCKS) if adapter == "lockstep" else ("time", COUNTED)
        if series not in allowed:
            why = (
                "a lockstep suite times steps"
                if adapter == "lockstep"
                else "CPU time is a step clock"
            )
            expected = f"{' or '.join(repr(a) for a in allowed)} ({why})"
            raise BadInput(source, f"{where}.series", expected, series)
    for name, b in bench_suites.parse(data, source).items():
        suites.setdefault(name, _from_bench(b))  # [suites.<name>] overrides it for the gate
    if not suites:
        raise BadInput(
            source, "suites", "at least one [suites.<name>] or [bench.suites.<name>] table"
        )
    default = tuple(str(x) for x in v.array(gate.get("suites", []), "gate.suites"))
    globs = v.array(gate.get("skip_paths", list(skip.DEFAULT)), "gate.skip_paths")
    skips = tuple(skip.check_glob(source, f"gate.skip_paths[{i}]", g) for i, g in enumerate(globs))
    cfg = GateConfig(
        source,
        threshold,
        alpha,
        rounds,
        looks,
        minutes,
        default,
        thresholds,
        suites,
        jobs=jobs,
        notes=notes,
        skip_paths=skips,
        confirm=_confirm(v, gate.get("confirm")),
    )
    cfg.select(None)  # validates gate.suites against the tables
    return cfg


def _from_bench(b: bench_suites.BenchSuite) -> Suite:
    """A `[bench.suites.<name>]` suite measured whole each round, as bench-local measures it."""
    env = dict(b.env, **({"BENCH_PROFILE": b.profile} if b.profile else {}))
    series = COUNTED if b.companion else "time"
    return Suite(b.name, b.command, b.adapter, b.raw, b.build, env, series=series)


def _confirm(v: _V, x: Any) -> Confirm | None:
    if x is None:
        return None
    t = v.table(x, "gate.confirm")
    v.known(t, "gate.confirm", {"rounds", "looks", "most"})
    rounds = v.integer(t.get("rounds", Confirm.rounds), "gate.confirm.rounds", 3)
    looks = tuple(
        v.integer(k, f"gate.confirm.looks[{i}]", 3)
        for i, k in enumerate(v.array(t.get("looks", list(Confirm.looks)), "gate.confirm.looks"))
    )
    most = v.integer(t.get("most", Confirm.most), "gate.confirm.most", 1)
    return Confirm(rounds, looks, most)


PLACEMENTS = ("all", "one")


def _placement(source: str, x: Any, where: str, adapter: str) -> str:
    """`cpus`: where a lockstep suite's workers take turns, "all" the job's CPUs or "one"."""
    if x not in PLACEMENTS:
        raise BadInput(source, where, '"all" (every CPU of the job) or "one" (one CPU)', x)
    if adapter != "lockstep" and x != "all":
        raise BadInput(source, where, 'left out: only a lockstep suite takes "cpus"', x)
    return x


def _pair_seconds(v: _V, x: Any, where: str) -> dict[str, Any]:
    """`pair_seconds`: a number, or a table of globs on benchmark names (the longest match
    wins; "*" the default) to numbers."""
    if not isinstance(x, dict):
        return {"pair_seconds": v.number(x, where, 0.01, 600)}
    by = {str(k): v.number(s, f"{where}.{k!r}", 0.01, 600) for k, s in x.items()}
    return {"pair_seconds": by.pop("*", 1.0), "pair_seconds_by": by}
