"""`[bench.suites.<name>]` of benchtrack.toml: the suites, in order, and how the gate measures
each one. One `Suite` type serves bench-local, the gate and `benchtrack init`.

    [bench.suites.rust]
    command = "cargo make bench-rust-raw"   # run with bash -c at the repository root
    adapter = "criterion"                   # the benchtrack.ingest harness reading `raw`
    raw = "target/bench/raw/rust"           # what `command` writes (a file, or criterion's dir)
    build = "cargo bench --no-run"          # optional: run before `command`, untimed
    profile = "count"                       # optional: a fixed BENCH_PROFILE (default --profile)
    companion = true                        # optional: the values are instruction counts of
                                            # other suites' benchmarks, stored beside them as
                                            # `<name> (instructions)` (benchtrack.history.companion)
    [bench.suites.rust.env]                 # optional: added to the command's environment
    CARGO_TERM_COLOR = "never"

    [bench.suites.python.gate]              # optional: how the gate measures this suite
    adapter = "lockstep"                    # an ingest adapter, or "lockstep": base and head
    command = "bash scripts/bench-python-step.sh"   # stepping in turn (`command`: a step worker)
    build = "uv sync --frozen"              # once per side before the rounds
    build_once = false                      # shards: built by each, not carried (below)
    timeout = 900                           # seconds per round of this suite
    pairs = 30                              # lockstep: pairs per benchmark per round, at most
    pair_seconds = 1.0                      # no new pair after this long; or per benchmark:
                                            # { "*" = 1.0, "python/x/*" = 2.0 }
    processes = 1                           # worker processes per side per round
    min_pairs = 5                           # pairs per process at least (5; 2 with several)
    pool = "processes"                      # their value: "processes" or "pairs" (below)
    cpus = "all"                            # where the turns are taken: "all" CPUs or "one"
    cpu_time = []                           # globs also timed by the process's CPU time
    series = "time"                         # "instructions" (callgrind), "cpu" (lockstep)
    rounds = 3                              # measured in the first N rounds only (counts)
    one_run = true                          # counts: those rounds from one run a side (below)
    [bench.suites.python.gate.env]          # a short per-round measurement
    BENCH_PROFILE = "round"

    [[bench.suites.rust.gate]]              # the gate measures a suite in several parts: an
    adapter = "lockstep"                    # array of tables, each a gate suite of its own
    cpus = "one"                            # name (the first one's defaults to the suite's)
    [[bench.suites.rust.gate]]
    name = "rust-threads"
    adapter = "lockstep"

Every part reads this one declaration: `bench-local` (and so the CI bench job) runs the tables in
order, the dashboard lists suites in that order (those not declared after, alphabetically), and
the gate measures each suite whole as bench-local does (a companion one as series
"instructions") unless its `gate` table says otherwise. A gate table's `command`, `adapter`,
`raw`, `build` and `env` default to the suite's own (`env` with BENCH_PROFILE = `profile`): a key
given replaces the suite's value whole. The tracker's code names no suite.

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
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchtrack import config
from benchtrack.config import CONFIG_NAME
from benchtrack.errors import BadInput
from benchtrack.ingest import HARNESSES
from benchtrack.result import SUITE_RE
from benchtrack.tomlcheck import Checker

__all__ = ["CONFIG_NAME", "Suite", "Suites", "load", "order", "parse"]

KEYS = {"command", "adapter", "raw", "build", "env", "profile", "companion", "gate"}
GATE_KEYS = {"name", "command", "build", "adapter", "raw", "env", "timeout", "series", "rounds"}
GATE_KEYS |= {"pairs", "pair_seconds", "cpus", "cpu_time", "processes", "pool", "min_pairs"}
GATE_KEYS |= {"one_run", "build_once"}
# Any ingest adapter reads a whole suite's output; "lockstep" runs a step worker (gate/lockstep.py).
ADAPTERS = (*HARNESSES, "lockstep")
# What a suite's values are: wall time, instruction counts (callgrind; they repeat run to run, so
# a few rounds are judged by their range), or the process's CPU time per step (lockstep only).
SERIES = ("time", "instructions", "cpu")
COUNTED = "instructions"
STEP_CLOCKS = {"time": "wall", "cpu": "cpu"}  # a lockstep suite's series -> BENCH_STEP_CLOCK
PLACEMENTS = ("all", "one", "auto")
POOLS = ("processes", "pairs")  # how several lockstep processes make a round's value
# The defaults of a gate table's keys (tracker/GATE.md, "Configuration", lists them).
TIMEOUT = 900.0
PAIRS = 30
PAIR_SECONDS = 1.0
PROCESSES = 1
POOL = "processes"
CPUS = "all"


@dataclass(frozen=True)
class Suite:
    name: str
    command: str
    adapter: str
    raw: str  # relative to the repository root ("" for a lockstep gate suite)
    build: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    # --- the gate's (a [bench.suites.<name>.gate] table) ---
    timeout: float = TIMEOUT
    series: str = "time"  # what its values are; "time" keeps the benchmark's own name
    rounds: int | None = None  # measured in the first N rounds only (deterministic counts)
    # Counts: those `rounds` rounds from one run of `command` a side, its k-th counted run of a
    # benchmark round k's value. For counts that a fresh process does not change (single-threaded
    # code: they repeat exactly or within ~2%), where a run's cost is mostly the harness's start
    # under valgrind; a thread pool's counts move with each process's wake-ups and need a
    # process per round for their range to hold that spread (tracker/GATE.md, "The quieter
    # series").
    one_run: bool = False
    # Shards (gate/prebuilt.py): the build made once for all the shards of a runner size and
    # carried to them (`gate --build-only`, `--prebuilt`); false: made by every job, for a build
    # whose product is an environment made from a cache in seconds (a venv holds absolute paths
    # and weighs hundreds of MB).
    build_once: bool = True
    # adapter "lockstep": `command` is a step worker (gate/lockstep.py), no raw output
    pairs: int = PAIRS  # pairs per benchmark per round, at most
    pair_seconds: float = PAIR_SECONDS  # per benchmark per round: no new pair after it
    pair_seconds_by: dict[str, float] = field(default_factory=dict)  # glob -> seconds
    # Where a lockstep suite's two workers take turns: "all" the job's CPUs (each step free to
    # use every one of them, so lost parallelism and contention show: the throughput a user
    # sees at the runner's size), "one" CPU (quieter for single-threaded benchmarks), or
    # "auto": one CPU for each benchmark that keeps no more than one busy (gate/placement.py).
    cpus: str = CPUS
    # Lockstep: worker processes per side per round, one after the other, the round's pairs
    # shared out over them. What a process gets once and keeps (its memory layout, its threads'
    # placement) is fixed for all its pairs, so more pairs cannot average it away; more
    # processes do (tracker/bench/lockstep_spread.py measures it).
    processes: int = PROCESSES
    # Lockstep: the fewest pairs per benchmark a process pair takes, however long its steps
    # (pair_seconds stops it no sooner); None: 5 with one process, 2 with several (each at
    # least AB then BA). Fewer spare the rounds of benchmarks whose steps are long and quiet.
    min_pairs: int | None = None
    # How the processes make a round's value: "processes", the mean over them of each one's
    # median pair log-ratio (an offset a process keeps for its life, e.g. its memory layout,
    # one of a few modes, which a median would jump between); "pairs", the median of all their
    # pairs' log-ratios (a state that comes and goes and hits one side's steps for a while,
    # e.g. threads placed beside a neighbour: each process adds pairs untouched by the others'
    # episodes, and a median sets aside the minority that one episode touches).
    pool: str = POOL
    # Lockstep, series "time": benchmarks (globs) whose steps are also timed by the process's
    # CPU time, a second series "<name> (cpu)" from the same steps (the clock `wall+cpu`).
    cpu_time: tuple[str, ...] = ()
    # --- bench-local's ---
    profile: str | None = None  # a fixed BENCH_PROFILE (None: bench-local's --profile)
    companion: bool = False  # instruction counts, stored as `<name> (instructions)`

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

    def fresh_raw(self, root: Path) -> Path:
        """Where the harness writes its output under `root`, emptied before a run (bench-local's
        and each of the gate's): a stale result must never pass for this run's."""
        raw = root / self.raw
        if raw.is_dir():  # criterion's home
            shutil.rmtree(raw)
        else:
            raw.unlink(missing_ok=True)
        raw.parent.mkdir(parents=True, exist_ok=True)  # harnesses write there but may not create it
        return raw


@dataclass(frozen=True)
class Suites:
    """What bench-local measures (`bench`, by suite name) and the gate's suites (`gate`, by gate
    suite name: each bench suite, or the parts its gate tables declare), both in file order."""

    bench: dict[str, Suite]
    gate: dict[str, Suite]


def parse(data: dict[str, Any], source: str) -> Suites:
    """The `[bench.suites]` tables, in file order (none: both empty)."""
    config.refuse_old(data, source)
    v = Checker(source)
    bench_table = v.table(data.get("bench", {}), "bench")
    v.known(bench_table, "bench", {"suites"})
    tables = v.table(bench_table.get("suites", {}), "bench.suites")
    bench: dict[str, Suite] = {}
    gate: dict[str, Suite] = {}
    for name, raw in tables.items():
        where = f"bench.suites.{name}"
        if not SUITE_RE.match(name):
            raise BadInput(source, where, "a lowercase suite name (a-z, 0-9, -, _)", name)
        s = v.table(raw, where)
        v.known(s, where, KEYS)
        adapter = v.string(s, "adapter", where)
        if adapter not in HARNESSES:
            raise BadInput(source, f"{where}.adapter", f"one of {', '.join(HARNESSES)}", adapter)
        companion = v.boolean(s, "companion", where) if "companion" in s else False
        suite = Suite(
            name=name,
            command=v.string(s, "command", where),
            adapter=adapter,
            raw=v.string(s, "raw", where),
            build=v.string(s, "build", where) if "build" in s else None,
            env=_env(v, s, where),
            profile=v.string(s, "profile", where) if "profile" in s else None,
            companion=companion,
        )
        bench[name] = suite
        for part in _gate_parts(v, suite, s.get("gate", {}), set(tables)):
            if part.name in gate:
                raise BadInput(source, where, "gate suite names used once", part.name)
            gate[part.name] = part
    return Suites(bench, gate)


def load(path: Path) -> dict[str, Suite]:
    """The suites to measure: at least one, or BadInput naming the file and `bench.suites`."""
    data = config.read(path, "the suites' [bench.suites.<name>] tables (not found)")
    suites = parse(data, str(path)).bench
    if not suites:
        raise BadInput(path, "bench.suites", "at least one [bench.suites.<name>] table")
    return suites


def order(path: Path) -> tuple[str, ...]:
    """The declared suites' names in file order; () without the file or the tables."""
    return tuple(parse(config.read(path), str(path)).bench)


def _env(v: Checker, t: dict[str, Any], where: str) -> dict[str, str]:
    return {
        str(k): v.scalar(x, f"{where}.env.{k}")
        for k, x in v.table(t.get("env", {}), f"{where}.env").items()
    }


def _gate_parts(v: Checker, suite: Suite, x: Any, names: set[str]) -> list[Suite]:
    """The gate suites measuring `suite`'s benchmarks: its `gate` table (one), each table of its
    `[[...gate]]` array (a part each), or, without one, the suite itself measured whole."""
    where = f"bench.suites.{suite.name}.gate"
    if isinstance(x, list):
        if not x:
            raise v.fail(where, "at least one [[...gate]] table (or none at all)", x)
        parts = [(f"{where}[{i}]", v.table(t, f"{where}[{i}]")) for i, t in enumerate(x)]
    else:
        parts = [(where, v.table(x, where))]
    out = []
    for i, (at, t) in enumerate(parts):
        v.known(t, at, GATE_KEYS)
        if "name" not in t and i > 0:
            raise v.fail(f"{at}.name", "a gate suite name for every part after the first", None)
        name = v.string(t, "name", at) if "name" in t else suite.name
        if not SUITE_RE.match(name) or (name != suite.name and name in names):
            expected = "a lowercase suite name (a-z, 0-9, -, _) that no other suite has"
            raise v.fail(f"{at}.name", expected, name)
        out.append(_gate_suite(v, suite, name, t, at))
    return out


def _gate_suite(v: Checker, b: Suite, name: str, t: dict[str, Any], where: str) -> Suite:
    """One gate suite: the table's keys, the rest the bench suite's own or the defaults."""
    source = v.source
    adapter = v.string(t, "adapter", where) if "adapter" in t else b.adapter
    if adapter not in ADAPTERS:
        raise BadInput(source, f"{where}.adapter", f"one of {', '.join(ADAPTERS)}", adapter)
    series = t.get("series", COUNTED if b.companion else "time")
    if series not in SERIES:
        raise BadInput(source, f"{where}.series", f"one of {', '.join(SERIES)}", series)
    own_env = dict(b.env, **({"BENCH_PROFILE": b.profile} if b.profile else {}))
    suite = Suite(
        name=name,
        command=v.string(t, "command", where) if "command" in t else b.command,
        adapter=adapter,
        raw="" if adapter == "lockstep" else v.string(t, "raw", where) if "raw" in t else b.raw,
        build=v.string(t, "build", where) if "build" in t else b.build,
        env=_env(v, t, where) if "env" in t else own_env,
        timeout=v.number(t.get("timeout", TIMEOUT), f"{where}.timeout", 1, 86400),
        series=series,
        rounds=v.integer(t["rounds"], f"{where}.rounds", 3) if "rounds" in t else None,
        pairs=v.integer(t.get("pairs", PAIRS), f"{where}.pairs", 5),
        **_pair_seconds(v, t.get("pair_seconds", PAIR_SECONDS), f"{where}.pair_seconds"),
        cpus=_placement(v, t.get("cpus", CPUS), f"{where}.cpus", adapter),
        processes=v.integer(t.get("processes", PROCESSES), f"{where}.processes", 1),
        pool=_pool(v, t.get("pool", POOL), f"{where}.pool"),
        min_pairs=v.integer(t["min_pairs"], f"{where}.min_pairs", 1) if "min_pairs" in t else None,
        cpu_time=tuple(
            v.string({"g": g}, "g", f"{where}.cpu_time[{i}]")
            for i, g in enumerate(v.array(t.get("cpu_time", []), f"{where}.cpu_time"))
        ),
        companion=b.companion,
        one_run=v.boolean(t, "one_run", where) if "one_run" in t else False,
        build_once=v.boolean(t, "build_once", where) if "build_once" in t else True,
    )
    if suite.one_run and (series != COUNTED or suite.rounds is None):
        expected = 'left out: only a counted suite (series "instructions") with `rounds` takes it'
        raise BadInput(source, f"{where}.one_run", expected, suite.one_run)
    if suite.processes > 1 and adapter != "lockstep":
        expected = "left out: only a lockstep suite runs several processes a round"
        raise BadInput(source, f"{where}.processes", expected, suite.processes)
    if "pool" in t and suite.processes == 1:
        expected = "left out: it says how several processes make a round's value (processes > 1)"
        raise BadInput(source, f"{where}.pool", expected, suite.pool)
    if suite.min_pairs is not None and adapter != "lockstep":
        expected = "left out: only a lockstep suite takes pairs"
        raise BadInput(source, f"{where}.min_pairs", expected, suite.min_pairs)
    if suite.processes == 1 and (suite.min_pairs or 2) < 2:
        # One process pair's value must hold both orders (AB then BA); with several, the
        # processes alternate which side starts.
        expected = "at least 2 with one process (its pairs in both orders)"
        raise BadInput(source, f"{where}.min_pairs", expected, suite.min_pairs)
    if suite.cpu_time and (adapter != "lockstep" or series != "time"):
        expected = 'left out: only a lockstep suite of series "time" takes "cpu_time"'
        raise BadInput(source, f"{where}.cpu_time", expected, suite.cpu_time)
    allowed = tuple(STEP_CLOCKS) if adapter == "lockstep" else ("time", COUNTED)
    if series not in allowed:
        why = (
            "a lockstep suite times steps" if adapter == "lockstep" else "CPU time is a step clock"
        )
        expected = f"{' or '.join(repr(a) for a in allowed)} ({why})"
        raise BadInput(source, f"{where}.series", expected, series)
    return suite


def _placement(v: Checker, x: Any, where: str, adapter: str) -> str:
    """`cpus`: where a lockstep suite's workers take turns: "all" the job's CPUs, "one", or
    "auto", one for each benchmark that keeps no more than one busy (gate/placement.py)."""
    if x not in PLACEMENTS:
        expected = (
            '"all" (every CPU of the job), "one" (one CPU) or "auto" (one CPU for each '
            "benchmark that keeps no more than one busy)"
        )
        raise v.fail(where, expected, x)
    if adapter != "lockstep" and x != CPUS:
        raise v.fail(where, 'left out: only a lockstep suite takes "cpus"', x)
    return x


def _pool(v: Checker, x: Any, where: str) -> str:
    """`pool`: how a round's processes make its value (Suite.pool)."""
    if x not in POOLS:
        expected = '"processes" (the mean of each one\'s value) or "pairs" (all pairs\' median)'
        raise v.fail(where, expected, x)
    return x


def _pair_seconds(v: Checker, x: Any, where: str) -> dict[str, Any]:
    """`pair_seconds`: a number, or a table of globs on benchmark names (the longest match
    wins; "*" the default) to numbers."""
    if not isinstance(x, dict):
        return {"pair_seconds": v.number(x, where, 0.01, 600)}
    by = {str(k): v.number(s, f"{where}.{k!r}", 0.01, 600) for k, s in x.items()}
    return {"pair_seconds": by.pop("*", PAIR_SECONDS), "pair_seconds_by": by}
