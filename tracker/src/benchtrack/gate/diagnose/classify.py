"""From two sides' evidence to the kinds of a loss, the one that explains most of it first.

A pure function: no timing, no processes. The wall time a call splits exactly into

    wall = runnable / q + off_cpu,   q = max(runnable / wall, 1)

(runnable: CPU time plus run-queue wait, all threads; q: how many threads ran, or could have, at
once; off_cpu: time with not one thread runnable). So head's extra wall time a call is the sum of

- more work: k × (user CPU_head − user CPU_base) / q_base (k: the base's runnable time over its
  CPU time, what a CPU second costs in wall time beside the machine's neighbours), and the
  system CPU likewise unless the kernel time is memory's (page faults grew) or syscalls' (a
  syscall grew); less what head did not queue for it: where head's run-queue wait fell below
  (k − 1) × its CPU time, its extra CPU ran in time it would have waited for a CPU, and only its
  runnable time's growth is paid in wall time (a busy machine's CPU time a call moves with
  wake-ups, caches and which vCPU a side ran on, while the runnable time holds);
- lost parallelism: runnable_head × (1/q_head − 1/q_base): the same runnable time spread over
  fewer threads at once (named only when the base ran at least PARALLEL threads at once; the
  waiting's when head sleeps in a timed sleep the base never made, `_slept_new`);
- waiting: off_cpu_head − off_cpu_base (a sleep, a blocking call, I/O); a syscall's when a
  syscall other than a waiting one (futex, nanosleep, poll, …) grew and no waiting one did; and
  the system CPU when only waiting syscalls grew (their own entries and wake-ups);
- the machine: head's run-queue wait beyond k (not below 0 while more work has a part to give
  back), a neighbour's share of the CPUs: never a kind (it says nothing about the code), except
  that where head woke up more often it is what those wake-ups cost, and goes to lost
  parallelism and waiting (`split`).

A kind is named when its part is at least SHARE of the loss and at least FLOOR of the base's wall
time a call, and its own evidence clears its floor (a syscall at least SYSCALL_MIN more a call and
SYSCALL_GROWTH more than the base's; page faults FAULTS_MIN more a call, or fewer beside a leak
that faults its pages in; waiting, SWITCHES more voluntary context switches a call, since a
thread that blocks gives up its CPU, or a waiting syscall that grew (strace sees the threads that
ended, /proc does not), or the same waits, longer (`_longer`; or fewer, each longer); the CPU
time CPU_GROWTH more for more work; …); the largest part first. Then facts that are not a time:
memory that grew by RSS_MIN (a leak), and a counted series' instructions that grew. When the run
itself lost less than MIN_LOSS of the base's wall time a call, no time is split ("nothing stands
out").

Why these floors cannot name noise: the run's steps are ~1 s a side; its CPU time is read in ns
(schedstat; 10 ms ticks only for threads that ended), a neighbour moves the wall time by a few %
(and that part goes to the machine, through the run-queue wait), and a kind needs a quarter of a
loss of at least 3%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from benchtrack.gate.diagnose.evidence import Evidence

KINDS = ("parallelism", "waiting", "syscalls", "work", "memory")
LABELS = {
    "parallelism": "lost parallelism",
    "waiting": "waiting",
    "syscalls": "syscalls",
    "work": "more work",
    "memory": "memory",
}
MIN_LOSS = 0.03  # the run's own wall time a call must lose this much for time to be split
SHARE = 0.25  # a kind explains at least this share of the loss
FLOOR = 0.02  # and at least this share of the base's wall time a call
PARALLEL = 1.3  # threads at once the base must run for parallelism to be lost
PARALLEL_DROP = 0.3  # and head fewer by at least this many
CPU_GROWTH = 0.05  # more work: the CPU time a call grew by at least this much
SYSCALL_MIN = 0.5  # a syscall grew by at least this many a call
SYSCALL_GROWTH = 0.5  # and by at least this share of the base's count
SYSCALL_TOP = 3
RSS_MIN = 8 * 2**20  # bytes: memory grew by at least this much (peak, or kept over the calls)
RSS_GROWTH = 0.2  # the peak by at least this share of the base's
FAULTS_MIN = 64.0  # page faults a call more (256 KiB of 4 KiB pages)
FAULTS_GROWTH = 0.5
WOKE = 0.5  # voluntary context switches a call more: head blocks more often
# Waiting: a thread that blocks gives up its CPU (a voluntary switch), so head must switch more.
SWITCHES = 0.05  # a call, at least (a block every 20 calls)
SWITCHES_GROWTH = 0.2  # and this share more than the base
# Or the same waits, longer (a sleep stretched, a slower peer): a base that blocks at least BLOCKS
# times a call and spends at least OFF_SHARE of its own time (off the CPU and on it: its wait for
# a CPU is the neighbours', which beside load 20 took 45% of a sleep's wall time) with no thread
# runnable, whose
# off-CPU time a call head grows by at least OFF_GROWTH, blocking about as often (no fewer
# switches than the base's less SWITCHES_GROWTH). A reading's error cannot pass for it: the
# off-CPU time /proc can overstate is that of a thread which ended within a step, a few
# run-queue waits, not a share of a base that is mostly asleep.
BLOCKS = 1.0
OFF_SHARE = 0.5
OFF_GROWTH = 0.05
# Or fewer waits, each longer: head's switches fall (fewer threads block, each for longer), its
# off-CPU time a call grows by at least FEWER_LONGER (a wait's worth, not a reading's error) and
# its CPU time a call does not grow.
FEWER_LONGER = 0.5
# Where waiting is named on its own evidence, the sleeping syscalls it names are those that grew
# by SYSCALL_MIN a call and at least this share (as evidence of waiting they must grow 50%).
SLEEP_NAMED = 0.1
PAGE = 4096
# A leak's page faults: memory kept over the run (RSS_MIN) whose pages fault in as it grows, at
# least LEAK_FAULTS of a page a call for each page kept a call, is memory's evidence under
# FAULTS_MIN (the kernel time of faulting in what is kept is the leak's cost).
LEAK_FAULTS = 0.5
INSTRUCTIONS_MIN = 0.03  # a counted series' growth worth naming as more work
# Syscalls that put a thread to sleep until something happens: their growth is waiting.
WAITS = frozenset({
    "futex", "futex_waitv", "nanosleep", "clock_nanosleep", "poll", "ppoll", "select",
    "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", "wait4", "waitid", "sched_yield",
    "pause", "rt_sigsuspend", "rt_sigtimedwait", "io_getevents", "io_pgetevents",
})  # fmt: skip
# Syscalls that put a thread to sleep for a time it asked for, waiting on no other thread: one
# new in head (none in the base) is a sleep the change added, and the threads asleep in it are
# not the threads taking turns of lost parallelism (`_slept_new`).
TIMED = frozenset({"nanosleep", "clock_nanosleep"})
# A syscall's growth is a rate only over EVENTS or more of them in the traced step: a thread that
# ends in a step of one call (+1 `exit`, `rt_sigprocmask`, `sigaltstack`) is a one-off. Sleeping
# syscalls are exempt (one sleep a call is a rate of one).
EVENTS = 2
# Syscalls that map or unmap memory: their growth is memory's evidence.
MEMORY = frozenset({"mmap", "munmap", "mremap", "brk", "madvise", "mprotect"})


@dataclass(frozen=True)
class Counts:
    """The benchmark's counted series in this gate run (instructions a unit of work)."""

    growth: float  # head over base − 1
    functions: tuple[tuple[str, float], ...] = ()  # the function diff's top: (name, share)


@dataclass(frozen=True)
class Finding:
    kind: str
    share: float | None  # of the run's wall-time loss a call; None: a fact, not a time
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "share": self.share, **self.evidence}


@dataclass(frozen=True)
class Diagnosis:
    findings: tuple[Finding, ...]
    loss: float  # the run's wall time a call, head over base − 1 (> 0: slower)
    parts: dict[str, float]  # seconds a call: each part of the extra wall time

    @property
    def kinds(self) -> list[str]:
        return [f.kind for f in self.findings]


def _grown(
    base: dict[str, float],
    head: dict[str, float],
    growth: float = SYSCALL_GROWTH,
    traced: int | None = None,
) -> list[tuple[str, float, float]]:
    """The syscalls that grew by SYSCALL_MIN a call and `growth` of the base's, largest first;
    a non-sleeping one only where it grew by EVENTS or more over the `traced` calls counted
    (None: the count is not known, every growth counts)."""
    out = []
    for name in sorted(base.keys() | head.keys()):
        b, h = base.get(name, 0.0), head.get(name, 0.0)
        once = traced is not None and name not in WAITS and (h - b) * traced < EVENTS - 1e-9
        if h - b >= SYSCALL_MIN and h >= b * (1 + growth) and not once:
            out.append((name, b, h))
    return sorted(out, key=lambda x: (-(x[2] - x[1]), x[0]))


def _listed(grown: list[tuple[str, float, float]]) -> list[dict[str, Any]]:
    return [{"name": n, "base": b, "head": h} for n, b, h in grown[:SYSCALL_TOP]]


def split(base: Evidence, head: Evidence) -> dict[str, float]:
    """Head's extra wall time a call, in parts (seconds a call) that add up to it exactly.

    A CPU shared with neighbours makes each CPU second cost more wall time: runnable time is CPU
    time times k, the base's (CPU + run-queue wait) over CPU. So more CPU time counts k times
    over, and only head's run-queue wait beyond k ("machine") is the neighbours'. That excess,
    when head also woke up more often (voluntary switches), is what its wake-ups cost on a busy
    machine: it goes to the blocking that caused them (lost parallelism and waiting, in
    proportion to their parts)."""
    qb, qh = max(base.threads_at_once, 1.0), max(head.threads_at_once, 1.0)
    if not (math.isfinite(qb) and math.isfinite(qh)):
        qb = qh = 1.0
    k = base.runnable / base.cpu if base.cpu > 0 else 1.0
    parts = {
        "work": k * (head.user - base.user) / qb,
        "kernel": k * (head.system - base.system) / qb,
        "machine": (head.queued - (k - 1) * head.cpu) / qb,
        "parallelism": head.runnable * (1 / qh - 1 / qb),
        "waiting": head.off_cpu - base.off_cpu,
    }
    if parts["machine"] < 0 and parts["work"] > 0:
        # head queued less for its CPU than k says: its extra CPU ran in time it would have
        # waited for a CPU, and its runnable time grew less than k times the extra CPU. That
        # much of the k-fold count was not paid in wall time: it is not more work's
        unpaid = min(-parts["machine"], parts["work"])
        parts["work"] -= unpaid
        parts["machine"] += unpaid
    woke = head.voluntary - base.voluntary >= WOKE
    if parts["machine"] > 0 and woke:
        blocked = {p: max(parts[p], 0.0) for p in ("parallelism", "waiting")}
        total = sum(blocked.values())
        for p in blocked:
            parts[p] += parts["machine"] * (blocked[p] / total if total > 0 else p == "waiting")
        parts["machine"] = 0.0
    return parts


def classify(base: Evidence, head: Evidence, counts: Counts | None = None) -> Diagnosis:
    """The kinds that explain head's extra wall time a call over base's, ranked."""
    wall_b = base.wall
    dw = head.wall - wall_b
    loss = dw / wall_b if wall_b > 0 else math.nan
    parts = split(base, head)
    counted = base.syscalls is not None and head.syscalls is not None
    traced = head.traced_calls
    grown = _grown(base.syscalls or {}, head.syscalls or {}, traced=traced) if counted else []
    waits = [g for g in grown if g[0] in WAITS]
    slept = waits or [g for g in _grown(base.syscalls or {}, head.syscalls or {}, SLEEP_NAMED)
                      if g[0] in WAITS]  # fmt: skip
    timed = _slept_new(waits, traced)
    mapped = [g for g in grown if g[0] in MEMORY]
    other = [g for g in grown if g[0] not in WAITS and g[0] not in MEMORY]
    faults = head.minor - base.minor
    peak = head.peak - base.peak
    peaked = peak >= RSS_MIN and (base.peak <= 0 or peak >= RSS_GROWTH * base.peak)
    kept = (head.rss_growth - base.rss_growth) * head.calls
    leaked = kept >= RSS_MIN
    leak_faults = faults >= max(1.0, LEAK_FAULTS * kept / max(head.calls, 1) / PAGE)
    faulted = (faults >= FAULTS_MIN or (leaked and leak_faults)) and head.minor >= base.minor * (
        1 + FAULTS_GROWTH
    )
    # who the kernel time and the off-CPU time belong to
    time = {"work": parts["work"], "parallelism": parts["parallelism"], "waiting": 0.0,
            "syscalls": 0.0, "memory": 0.0}  # fmt: skip
    if faulted:
        time["memory"] += parts["kernel"]
    elif other:
        time["syscalls"] += parts["kernel"]
    elif waits:  # the sleeping syscalls' own entries and wake-ups: the blocking's cost
        time["waiting"] += parts["kernel"]
    else:
        time["work"] += parts["kernel"]
    if other and not waits:
        time["syscalls"] += parts["waiting"]
    else:
        time["waiting"] += parts["waiting"]
    asleep = 0.0
    if timed and time["parallelism"] > 0:  # threads asleep in a new sleep, not taking turns
        asleep, time["parallelism"] = time["parallelism"], 0.0
        time["waiting"] += asleep
    cpu_growth = head.cpu / base.cpu - 1 if base.cpu > 0 else math.inf  # inf: not written
    evidence = {
        "parallelism": {"base_threads": base.threads_at_once, "head_threads": head.threads_at_once,
                        "base_busy": base.busy_threads, "head_busy": head.busy_threads},
        "waiting": {"off_cpu": parts["waiting"], "voluntary": head.voluntary - base.voluntary,
                    "syscalls": _listed(slept)} | ({"asleep": asleep} if asleep else {}),
        "syscalls": {"syscalls": _listed(other), "system": head.system - base.system},
        "work": {"cpu": cpu_growth if math.isfinite(cpu_growth) else None},
        "memory": {"peak": peak, "peak_growth": peak / base.peak if base.peak > 0 else None,
                   "faults": faults, "kept": kept / head.calls if head.calls else 0.0,
                   "syscalls": _listed(mapped)},
    }  # fmt: skip
    if counts is not None and counts.growth >= INSTRUCTIONS_MIN:
        evidence["work"]["instructions"] = counts.growth
        evidence["work"]["functions"] = [{"function": f, "share": s} for f, s in counts.functions]
    evidence["work"] = {k: v for k, v in evidence["work"].items() if v is not None}
    evidence["memory"] = {k: v for k, v in evidence["memory"].items() if v is not None}
    own = {
        "parallelism": base.threads_at_once >= PARALLEL
        and base.threads_at_once - head.threads_at_once >= PARALLEL_DROP,
        # a thread that blocks gives up its CPU: more voluntary switches, or (where threads
        # ended within a step, whose switches /proc no longer shows: a thread a connection or
        # a task) a sleeping syscall that grew, which strace counts over every thread
        "waiting": (
            head.voluntary - base.voluntary >= SWITCHES
            and head.voluntary >= base.voluntary * (1 + SWITCHES_GROWTH)
        )
        or bool(waits)
        or _longer(base, head),
        "syscalls": bool(other),
        "work": cpu_growth >= CPU_GROWTH,
        "memory": faulted,
    }
    named: list[Finding] = []
    if math.isfinite(loss) and loss >= MIN_LOSS:
        for kind in sorted(time, key=lambda k: (-time[k], KINDS.index(k))):
            t = time[kind]
            if own[kind] and t >= SHARE * dw and t >= FLOOR * wall_b:
                named.append(Finding(kind, t / dw, evidence[kind]))
    have = {f.kind for f in named}
    if "memory" not in have and (peaked or leaked):
        named.append(Finding("memory", None, evidence["memory"]))
    if "work" not in have and "instructions" in evidence["work"]:
        named.append(Finding("work", None, evidence["work"]))
    return Diagnosis(tuple(named), loss, parts)


def _slept_new(waits: list[tuple[str, float, float]], traced: int | None) -> bool:
    """A timed sleep (TIMED) new in head: none in the base, EVENTS or more in head's traced step
    (a blocking `time.sleep` among a pool's threads: 0 → 4 `clock_nanosleep` a call)."""
    return any(
        name in TIMED and b == 0 and (traced is None or h * traced >= EVENTS)
        for name, b, h in waits
    )


def _longer(base: Evidence, head: Evidence) -> bool:
    """The same waits, longer: a base mostly asleep, blocking at least BLOCKS times a call, whose
    off-CPU time head grows by OFF_GROWTH, blocking about as often; or blocking less often, on
    fewer threads, while its CPU time a call did not grow (`_fewer_longer`)."""
    return (
        base.voluntary >= BLOCKS
        and base.off_cpu >= OFF_SHARE * (base.off_cpu + base.cpu)
        and head.off_cpu >= base.off_cpu * (1 + OFF_GROWTH)
        and (head.voluntary >= base.voluntary * (1 - SWITCHES_GROWTH) or _fewer_longer(base, head))
    )


def _fewer_longer(base: Evidence, head: Evidence) -> bool:
    """Fewer waits, each longer: head switches less (the waits /proc counts were the threads'
    that now do not exist, a connection's or a worker's: a pool of one takes its calls in turn)
    while its off-CPU time a call grew by FEWER_LONGER and its CPU time a call did not grow by
    CPU_GROWTH: a thread that runs instead of blocking would have spent the time on a CPU."""
    return head.off_cpu >= base.off_cpu * (1 + FEWER_LONGER) and head.cpu < base.cpu * (
        1 + CPU_GROWTH
    )


def memory_row(base: float, head: float, unit: str) -> Diagnosis:
    """A regressed memory series (peak RSS, measured by the gate's own rounds): its own figures
    are the evidence, no run of its own needed."""
    scale = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    factor = scale.get(unit, 1)
    grew = (head - base) * factor
    evidence = {"peak": grew} | ({"peak_growth": head / base - 1} if base > 0 else {})
    return Diagnosis((Finding("memory", None, evidence),) if grew > 0 else (), math.nan, {})
