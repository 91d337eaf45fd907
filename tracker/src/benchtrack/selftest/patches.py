"""The self-test's slowdowns: real code changes, each making chosen benchmarks do more work than
the elements they declare, so their throughput drops by a known fraction.

A loss d is 1/k more work per declared element, k = 1/d - 1 (19, 9, 4 for 5%, 10%, 20%): the
patch texts write k as the token `@D<percent>@`, replaced from the loss their `slows` declare, so
the table and the code cannot disagree. Where the work comes in whole units (tasks, waves) the
extra is rounded up: the loss is *at least* d. How exact each kind is:
- counted (instructions per element): more items, additions or tasks per call; a call's fixed
  cost is not scaled, small beside the loops' work, least so in the Coro batches of 100 tasks;
- sleeps under `time.sleep`/`thread::sleep` (nanosleep: not rounded to whole ms): each sleep 1/k
  longer; the threads' start-up and the channels are not stretched, so the loss is a little
  under d;
- sleeps on an event loop's timer are rounded up to whole ms (libev's epoll backend for Coro,
  `selectors.EpollSelector` for asyncio): measured here, a 1.1 ms Coro sleep took as long as a
  2 ms one, so Coro sleep bodies get whole extra waves of sleeps instead; asyncio sleeps stretch
  to whole ms (a quarter more of 20 ms is exact, 1/19 more becomes 2 ms more).

A patch whose `old` text is not found exactly once in the checkout is an error (exit 2) naming
the file and the text: a change to the benchmarks shows here rather than as a self-test of
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from benchtrack.errors import BadInput

LOSSES = (0.05, 0.10, 0.20)
TOKEN_RE = re.compile(r"@D(\d+)@")


@dataclass(frozen=True)
class Slow:
    glob: str  # benchmark names as the gate reports them (fnmatch)
    loss: float  # designed throughput loss: at least this fraction
    # The other kind (WAIT_PATCHES): what the change does, where it adds no instructions to
    # speak of; "" for more work per element (PATCHES), which the counts see too.
    wait: str = ""
    # where the extra work runs: text one of the top functions of a counted benchmark that
    # regressed must contain (the gate's function diff names the place to look)
    where: tuple[str, ...] = ()


@dataclass(frozen=True)
class Patch:
    path: str  # relative to the repository root
    hunks: tuple[tuple[str, str], ...]  # (old, new): `old` must occur exactly once
    slows: tuple[Slow, ...]
    where: tuple[str, ...] = ()  # the functions doing the extra work (see Slow.where)

    def tokens(self) -> set[int]:
        """The losses (in %) the patch's new texts refer to."""
        return {int(t) for _, new in self.hunks for t in TOKEN_RE.findall(new)}


def divisor(loss: float) -> int:
    """k for a loss d: 1/k more work per element loses exactly d of the throughput."""
    k = 1 / loss - 1
    if loss not in LOSSES or abs(k - round(k)) > 1e-9:
        raise ValueError(f"a loss of {loss} is not one of {LOSSES}")
    return round(k)


def render(text: str) -> str:
    """`@D10@` -> 9: the divisor for that loss."""
    return TOKEN_RE.sub(lambda m: str(divisor(int(m.group(1)) / 100)), text)


def apply(patch: Patch, root: Path) -> None:
    """Apply `patch` to the checkout at `root`, or BadInput naming the file and the text."""
    path = root / patch.path
    try:
        text = path.read_bytes().decode("utf-8")  # bytes: line endings kept as they are
    except FileNotFoundError:
        raise BadInput(patch.path, None, "a file the gate-selftest patches (not found)") from None
    for old, new in patch.hunks:
        found = text.count(old)
        if found != 1:
            first = next(line for line in old.splitlines() if line.strip()).strip()
            raise BadInput(
                patch.path, None, f"the patch's text exactly once (found {found} times)", first
            )
        text = text.replace(old, render(new))
    path.write_bytes(text.encode("utf-8"))


def slows(patches: tuple[Patch, ...]) -> list[Slow]:
    return [replace(s, where=p.where) for p in patches for s in p.slows]


# The patch texts, at their files' own indentation; a `gate-selftest:` comment marks each change.
STREAMS = (
    (
        """\
        b.iter(|| assert_eq!(streams::iterator(N), SUM))
""",
        """\
        // gate-selftest: ceil(N / @D10@) more items than the N declared (-10%)
        let n = N + N.div_ceil(@D10@);
        b.iter(|| assert_eq!(streams::iterator(n), n * (n + 1) / 2))
""",
    ),
    (
        """\
        b.iter(|| assert_eq!(streams::generator_standin(N), SUM))
""",
        """\
        // gate-selftest: ceil(N / @D5@) more items than the N declared (-5%)
        let n = N + N.div_ceil(@D5@);
        b.iter(|| assert_eq!(streams::generator_standin(n), n * (n + 1) / 2))
""",
    ),
    (
        """\
    async_variant!("async_next", streams::async_next);
""",
        """\
    // gate-selftest: ceil(N / @D20@) more items than the N declared (-20%)
    let m = N + N.div_ceil(@D20@);
    group.bench_function("async_next", |b| {
        b.to_async(&rt)
            .iter(|| async { assert_eq!(streams::async_next(m).await, m * (m + 1) / 2) })
    });
""",
    ),
)

FANOUT = (
    (
        """\
        let work = sleep_work(SLEEP, slow.unwrap_or(SLEEP), |i| i % 2 == 0);
""",
        """\
        // gate-selftest: every sleep 1/k longer, k = @D10@ in the mixed workload (-10%) and
        // @D5@ in the uniform one (-5%)
        let k: u32 = if slow.is_some() { @D10@ } else { @D5@ };
        let stretch = |d: Duration| d + d / k;
        let work = sleep_work(stretch(SLEEP), stretch(slow.unwrap_or(SLEEP)), |i| i % 2 == 0);
""",
    ),
)

TASKS = (
    (
        """\
            .iter(|| async { check(N_ONE_BY_ONE, tasks::one_by_one(N_ONE_BY_ONE, work).await) })
""",
        """\
            // gate-selftest: ceil(n / @D20@) more tasks than the n declared (-20%)
            .iter(|| async {
                let n = N_ONE_BY_ONE + N_ONE_BY_ONE.div_ceil(@D20@);
                check(n, tasks::one_by_one(n, work).await)
            })
""",
    ),
)

CPU = (
    (
        '''\
    """The same loop in a coroutine: it never awaits, so it never lets another task run."""
    v = 0
    for i in range(n + 1):
        v += i
    return v
''',
        '''\
    """The same loop in a coroutine: it never awaits, so it never lets another task run."""
    # gate-selftest: ceil((n + 1) / @D10@) more additions than declared (-10%)
    e = -(-(n + 1) // @D10@)
    v = 0
    for i in range(n + 1 + e):
        v += i
    return v - e * (2 * n + e + 1) // 2
''',
    ),
    (
        """\
    return [sigma(n) for n in nums]
""",
        """\
    # gate-selftest: ceil((n + 1) / @D20@) more additions than declared (-20%)
    extra = [-(-(n + 1) // @D20@) for n in nums]
    return [sigma(n + e) - e * (2 * n + e + 1) // 2 for n, e in zip(nums, extra)]
""",
    ),
    (
        """\
    return list(await asyncio.gather(*(asyncio.to_thread(sigma, n) for n in nums)))
""",
        """\
    # gate-selftest: ceil((n + 1) / @D5@) more additions than declared (-5%)
    extra = [-(-(n + 1) // @D5@) for n in nums]
    sums = await asyncio.gather(*(asyncio.to_thread(sigma, n + e) for n, e in zip(nums, extra)))
    return [s - e * (2 * n + e + 1) // 2 for s, n, e in zip(sums, nums, extra)]
""",
    ),
)

SLEEP = (
    (
        """\
        time.sleep(period)
""",
        """\
        time.sleep(period + period / @D10@)  # gate-selftest: 1/@D10@ longer (-10%)
""",
    ),
    (
        """\
    for period in periods:
        await asyncio.sleep(period)
""",
        """\
    for period in periods:
        # gate-selftest: 1/@D20@ longer (-20%; a quarter of a whole-ms sleep is whole ms too)
        await asyncio.sleep(period + period / @D20@)
""",
    ),
    (
        """\
async def _sleep(period: float) -> float:
    await asyncio.sleep(period)
""",
        """\
async def _sleep(period: float) -> float:
    # gate-selftest: 1/@D5@ longer (-5%; epoll rounds the wait up to whole ms)
    await asyncio.sleep(period + period / @D5@)
""",
    ),
)

SUITE_PM = (
    (
        """\
# benchmarks(tasks => 100, sleep => 0.001, rss_tasks => 10000): the full list, in run order.
""",
        """\
# gate-selftest: tasks run beyond the `tasks` a benchmark declares, so that it loses at least
# 1/(k+1) of its throughput (k = @D5@, @D10@, @D20@: 5%, 10%, 20%). A trivial body runs
# ceil(tasks/k) more tasks. A sleep body sleeps in waves of `width` tasks at once and the event
# loop rounds a sleep up to whole ms, so a sleep cannot be stretched by a fraction: it runs
# ceil(waves/k) more waves instead.
sub selftest_extra {
    my ($v, $case, $tasks) = @_;
    my %k = (
        trivial => { async => @D5@, async_pool => @D10@, pool_chan => @D20@ },
        sleep   => { async_pool_sem => @D10@, pool_chan => @D20@ },
    );
    my $k = $k{$case}{ $v->{variant} } or return 0;
    return int(($tasks + $k - 1) / $k) if $case eq 'trivial';
    my $width = $v->{params}{limit} // $v->{params}{workers};
    my $waves = int(($tasks + $width - 1) / $width);
    return $width * int(($waves + $k - 1) / $k);
}

# benchmarks(tasks => 100, sleep => 0.001, rss_tasks => 10000): the full list, in run order.
""",
    ),
    (
        """\
                    return sub { $batch->(tasks => $tasks, body => $body) };
""",
        """\
                    my $run = $tasks + selftest_extra($v, $case, $tasks);
                    return sub { $batch->(tasks => $run, body => $body) };
""",
    ),
)

PATCHES: tuple[Patch, ...] = (
    # Rust, counted: items summed beyond the N of Throughput::Elements(N)
    Patch(
        "rust/patterns/benches/streams.rs",
        STREAMS,
        (
            Slow("rust/streams/generator_standin", 0.05),
            Slow("rust/streams/iterator", 0.10),
            Slow("rust/streams/async_next", 0.20),
        ),
        # the benchmark's closure (the library function inlined into it) or the function itself
        where=("streams::bench::", "patterns::streams::"),
    ),
    # Rust, wall time: longer thread::sleep per item; more tasks one after another
    Patch(
        "rust/patterns/benches/fanout.rs",
        FANOUT,
        (
            Slow("rust/fanout/unordered_uniform", 0.05),
            Slow("rust/fanout/chanchan_uniform/*", 0.05),
            Slow("rust/fanout/unordered_mixed", 0.10),
            Slow("rust/fanout/chanchan_mixed/*", 0.10),
        ),
    ),
    Patch("rust/patterns/benches/tasks.rs", TASKS, (Slow("rust/tasks/one_by_one", 0.20),)),
    # Python, counted: additions beyond the n + 1 a sum declares (the results corrected)
    Patch(
        "python/src/asyncio_patterns/cpu.py",
        CPU,
        (
            Slow("python/cpu/to_thread_gather", 0.05),
            Slow("python/cpu/gather", 0.10),
            Slow("python/cpu/sequential", 0.20),
            # fileio_cpu runs the same two coroutines beside its file writes, which are not
            # stretched: its loss is a little under (the first self-test measured 9.6%, 20.0%).
            Slow("python/fileio_cpu/gather", 0.10),
            Slow("python/fileio_cpu/sequential", 0.20),
        ),
        where=("sigma (python/src/asyncio_patterns/cpu.py)",),  # sigma, async_sigma
    ),
    # Python, wall time: longer sleeps
    Patch(
        "python/src/asyncio_patterns/sleep.py",
        SLEEP,
        (
            Slow("python/sleep/gather", 0.05),
            Slow("python/sleep/sequential", 0.10),
            Slow("python/sleep/awaited", 0.20),
        ),
    ),
    # Perl: trivial bodies counted, sleep bodies timed; more tasks than declared
    Patch(
        "perl/lib/CoroBench/Suite.pm",
        SUITE_PM,
        (
            Slow("perl/coro/async/trivial", 0.05),
            Slow("perl/coro/async_pool/trivial", 0.10),
            Slow("perl/coro/pool_chan/trivial", 0.20),
            Slow("perl/coro/async_pool_sem/sleep", 0.10),
            Slow("perl/coro/pool_chan/sleep", 0.20),
        ),
        where=("CoroPatterns::",),  # the per-task code the batches run more often
    ),
)


# --- The other kind: slowdowns that add no instructions (or hardly any) -------------------------
# What users lose most often in concurrent code, and what instruction counts cannot see: a
# blocking call in async code, a syscall per call, an fsync per write, a contended lock, lost
# parallelism, a cache-hostile access order over a large buffer. Each is a real, realistic
# change; its size is not designed, only its kind, so each is declared at least 10% (`WAIT_LOSS`:
# the loss the gate must catch) and the self-test prints the wall-time and instruction changes
# the gate measured.
WAIT_LOSS = 0.10

TASKS_BLOCKING = (
    (
        """\
    group.bench_function("joinset", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::joinset(N, work).await) })
    });
""",
        """\
    // gate-selftest: each task blocks its worker thread (std::thread::sleep in async code)
    // instead of awaiting tokio's timer: fewer instructions, a starved executor
    let blocking = |id| async move {
        std::thread::sleep(D);
        id
    };
    group.bench_function("joinset", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::joinset(N, blocking).await) })
    });
""",
    ),
    (
        """\
    group.bench_function("vec_handles", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::vec_of_handles(N, work).await) })
    });
""",
        """\
    // gate-selftest: one task in 100 holds a shared lock across its sleep (a lock held over
    // an await point): those ten wait for each other, their sleeps one after another
    let lock = std::sync::Arc::new(tokio::sync::Mutex::new(()));
    let contended = move |id: u64| {
        let lock = lock.clone();
        async move {
            let _held = if id % 100 == 0 { Some(lock.lock().await) } else { None };
            sleep_then_id(id, D).await
        }
    };
    group.bench_function("vec_handles", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::vec_of_handles(N, &contended).await) })
    });
""",
    ),
)

WALK_SYSCALL = (
    (
        """\
        // file_type() comes from the directory entry itself and does not follow symlinks.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            out.push(path.display().to_string());
            std_dir(&path, out)?;""",
        """\
        // gate-selftest: an lstat syscall per entry where the directory entry already says
        // what it is (kernel time, a few instructions)
        let kind = std::fs::symlink_metadata(&path)?.file_type();
        if kind.is_dir() {
            out.push(path.display().to_string());
            std_dir(&path, out)?;""",
    ),
)

WALK_POOL_OF_ONE = (
    (
        """\
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
""",
        """\
    // gate-selftest: a pool of one thread: the parallel walk runs serially (lost parallelism)
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
""",
    ),
)

STREAMS_CACHE_HOSTILE = (
    (
        """\
    async_variant!("stream_iter", streams::stream_iter);
""",
        """\
    // gate-selftest: the items come from a table, one to a 64-byte line (64 MiB, twice this
    // machine's L3), read in a shuffled order: a few more instructions per item, each item a
    // cache and TLB miss (a cache-hostile access order over a large buffer). Built once, when
    // this benchmark first runs (the others in this binary never pay for it).
    static TABLE: std::sync::OnceLock<(Vec<[u64; 8]>, Vec<usize>)> = std::sync::OnceLock::new();
    let shuffled = || {
        let table: Vec<[u64; 8]> = (1..=N).map(|x| [x; 8]).collect();
        let mut order: Vec<usize> = (0..N as usize).collect();
        let mut state = 0x9E37_79B9_7F4A_7C15_u64; // xorshift: a fixed shuffle, no new crate
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        (table, order)
    };
    group.bench_function("stream_iter", |b| {
        let (table, order) = TABLE.get_or_init(shuffled);
        b.to_async(&rt).iter(|| async {
            use futures::StreamExt as _;
            let mut items = futures::stream::iter(order.iter().map(|&i| table[i][0]));
            let mut sum = 0;
            while let Some(x) = items.next().await {
                sum += x;
                std::hint::black_box(x);
            }
            assert_eq!(sum, SUM)
        })
    });
""",
    ),
)

FILEIO_FSYNC = (
    (
        """\
import functools
""",
        """\
import functools
import os
""",
    ),
    (
        """\
VARIANTS = {
    "sequential": fileio.write_files,
""",
        """\
def _write_files_synced(paths, data):
    \"\"\"gate-selftest: an fsync after each write (disk and kernel time, no more instructions
    to count; a no-op on tmpfs, so only the disk-backed `tmp` is slowed).\"\"\"
    written = []
    for path in paths:
        with path.open("wb") as f:
            written.append(f.write(data))
            f.flush()
            os.fsync(f.fileno())
    return written


VARIANTS = {
    "sequential": _write_files_synced,
""",
    ),
)

WAIT_PATCHES: tuple[Patch, ...] = (
    Patch(
        "rust/patterns/benches/tasks.rs",
        TASKS_BLOCKING,
        (
            Slow("rust/tasks/joinset", WAIT_LOSS, "a blocking call in async code"),
            Slow("rust/tasks/vec_handles", WAIT_LOSS, "a contended lock"),
        ),
    ),
    Patch(
        "rust/patterns/src/walk.rs",
        WALK_SYSCALL,
        (Slow("rust/walk/std_sync", WAIT_LOSS, "a syscall per entry"),),
    ),
    Patch(
        "rust/patterns/benches/walk.rs",
        WALK_POOL_OF_ONE,
        (Slow("rust/walk/rayon", WAIT_LOSS, "lost parallelism: a pool of one"),),
    ),
    Patch(
        "rust/patterns/benches/streams.rs",
        STREAMS_CACHE_HOSTILE,
        (Slow("rust/streams/stream_iter", WAIT_LOSS, "a cache-hostile access order"),),
    ),
    Patch(
        "python/benchmarks/bench_fileio.py",
        FILEIO_FSYNC,
        (Slow("python/fileio/sequential/tmp", WAIT_LOSS, "an fsync per write"),),
    ),
)

KINDS = {"work": PATCHES, "wait": WAIT_PATCHES}
