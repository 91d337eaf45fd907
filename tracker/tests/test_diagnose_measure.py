"""The diagnosis on real processes: step workers in Python and Perl (fixtures/diagnose/) whose
head adds one known cause to a benchmark, measured by gate/diagnose/measure.py (/proc, strace)
and classified; the kind named first must be the cause's, and kinds whose evidence is a count
(syscalls, page faults, threads at once) must not be named where the cause has none.

Why each cannot flip (the floors are classify.py's: a kind explains >= 25% of a loss of >= 3%):
- work: head runs 2.5x the iterations of the same loop, on one CPU: +150% CPU time a call, all
  of the loss; waiting would need more voluntary switches and off-CPU time (a loop blocks never).
- sleep: head adds a 4 ms sleep to ~1 ms of loop: +400% wall time, all of it off the CPU with one
  voluntary switch and one clock_nanosleep a call; more work would need +1 ms of CPU a call for
  the same loop.
- fsync: head adds an fsync a call to a 4 KiB write into the page cache (a disk-backed file
  system; on tmpfs the test is skipped, fsync there is free): one more fsync a call, counted; the
  write alone takes microseconds, the fsync a journal commit (hundreds of µs or more).
- leak: head keeps 3 MiB a call: 768 more page faults a call (floor 64), and at least 12 MiB
  kept over the run (the floor is 8 MiB) however slow the machine: 4 steps of at least one call;
  no syscall but mmap/brk grows (memory's own). Memory is asserted named, not first: beside a
  loaded neighbour the loop's user CPU time a call moved by more than the faults' kernel time
  (more work +34% named first, once in a full test run at load ~10), which no count bounds.
- longer_sleep: a 1 ms loop and a 4 ms sleep; head sleeps 8 ms: +80% wall time, all of it off
  the CPU, with no more switches and no more sleeps a call (the same sleep, longer): the base
  blocks once a call and is ~80% off the CPU, head's off-CPU time +100% (the floors: 1, 50%, 5%);
  more work would need +1 ms of CPU a call for the same loop, as for `sleep`.
- blocking: four asyncio tasks sleep 2 ms each, together (~2 ms a call); head's `time.sleep`
  blocks the loop, one after another (~8 ms): +300%, all of it off the CPU, 4 clock_nanosleep
  a call more (the base's loop waits in epoll_wait instead, a sleeping syscall too).
- lock_wait: four pool threads sleep 2 ms each, together (~2 ms a call); head holds one lock
  around the sleeps, one after another (~8 ms): +300%, all of it off the CPU; each of the three
  threads that find the lock held blocks on it once more a call (a voluntary switch; the base's
  threads switch ~2 times a call each: the sleep and the wait for the next job); more work may
  follow it (the hand-offs' wake-ups and GIL passes are CPU time), the count-resting kinds not.
- stat (Perl): head checks 200 times a call that a file which is not there exists (a stat each,
  ~1 µs in the kernel, a few perl ops beside it) after a ~0.1 ms loop: 200 more stats a call,
  counted exactly; their kernel time is most of the loss, the perl ops' user time the rest.
- coro_block, coro_mutex (Perl, where Coro is installed): ten coros sleep 1 ms each, together
  (~1 ms a call: one wait on the event loop); head's Time::HiRes::sleep blocks the process
  (10 clock_nanosleep a call more, ~10 ms), or head's mutex makes them sleep one after another
  (each sleep its own wait in epoll_wait, ~10 ms): +900%, off the CPU, ~9 more voluntary switches.
- fadvise: head drops a 64 KiB file's pages from the page cache after each write: one more
  fadvise64 a call, counted exactly (what it costs depends on the disk: no kind is asserted).
- lock, pool: head holds one lock around both pool threads' hashing (hashlib releases the GIL),
  or hashes on a pool of one thread instead of two: the base runs ~2 threads at once, head ~1.
  Lost parallelism needs a second free CPU: the test checks that the base had one (its CPU time
  over wall >= 1.5) and is skipped otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchtrack.gate.diagnose import classify, measure, syscalls
from benchtrack.gate.placement import one_cpu

HERE = Path(__file__).parent / "fixtures" / "diagnose"
COMMANDS = {"python": f"exec {sys.executable} {HERE / 'worker.py'}",
            "perl": f"exec perl {HERE / 'worker.pl'}"}  # fmt: skip
HANG = 300  # a guard against a hang, never a verdict on speed


def fstype(path: Path) -> str:
    """The file system type of the mount holding `path` (/proc/mounts' longest prefix)."""
    best, kind = "", ""
    for line in Path("/proc/mounts").read_text().splitlines():
        _, mount, fs = line.split()[:3]
        if (str(path) + "/").startswith(mount.rstrip("/") + "/") and len(mount) >= len(best):
            best, kind = mount, fs
    return kind


def run(lang: str, name: str, tmp_path: Path, cpu: str | None) -> classify.Diagnosis:
    launches = {
        side: measure.Launch(
            COMMANDS[lang],
            tmp_path,
            {
                **os.environ,
                "DIAG_SIDE": side,
                "BENCH_FILTER": f"^{name}$",
                "DIAG_DIR": str(tmp_path),
            },
            tmp_path / f"{side}.log",
            cpu,
        )
        for side in ("base", "head")
    }
    found = measure.measure(launches, name, timeout=HANG, trace_dir=tmp_path / "traces")
    for side, e in found.items():
        assert e.syscalls is not None or shutil.which("strace") is None, (side, e.note)
        if lang == "python" and e.syscalls is not None:
            steps = traced_steps(tmp_path / f"{side}.log")
            assert steps == [True, True] + [False] * 5, (side, steps)
    run.evidence = found  # type: ignore[attr-defined]
    return classify.classify(found["base"], found["head"])


def traced_steps(log: Path) -> list[bool]:
    """Whether each step the Python worker took was traced (its log's line after each step, read
    before its reply):
    one start, the first two steps (a call timing the traced speed, the counted step) under
    strace, then strace gone: the call sizing the steps and the four steps /proc reads."""
    lines = [line.split() for line in log.read_text().splitlines() if line.startswith("step ")]
    return [words[3] != "0" for words in lines]


CASES = [
    ("python", "diag/work", "work"),
    ("python", "diag/sleep", "waiting"),
    ("python", "diag/longer_sleep", "waiting"),
    ("python", "diag/blocking", "waiting"),
    ("python", "diag/lock_wait", "waiting"),
    ("python", "diag/fsync", "syscalls"),
    ("python", "diag/leak", "memory"),
    ("perl", "diag/work", "work"),
    ("perl", "diag/sleep", "waiting"),
    ("perl", "diag/coro_block", "waiting"),
    ("perl", "diag/coro_mutex", "waiting"),
    ("perl", "diag/fsync", "syscalls"),
    ("perl", "diag/stat", "syscalls"),
    ("perl", "diag/leak", "memory"),
]
SLEEPS = ("clock_nanosleep", "nanosleep")
# the syscall the first kind must name first (spellings of one call by one libc or another)
NAMES = {"diag/sleep": SLEEPS, "diag/blocking": SLEEPS, "diag/coro_block": SLEEPS,
         "diag/coro_mutex": ("epoll_wait", "epoll_pwait"), "diag/fsync": ("fsync",),
         "diag/stat": ("newfstatat", "stat", "statx", "fstatat64")}  # fmt: skip
COUNTED = {"diag/fsync": 1, "diag/stat": 200}  # exactly this many more a call
# kinds that need a count the cause does not change (no process can produce them by noise)
ABSENT = {
    "work": {"parallelism", "syscalls", "memory"},
    "waiting": {"parallelism", "syscalls", "memory", "work"},
    "syscalls": {"parallelism", "memory", "waiting"},
    "memory": {"parallelism", "syscalls"},
    # the lock's hand-offs between threads cost CPU time (wake-ups, the GIL passed on): more
    # work may be named after the waiting; and the base's four threads wake together, so where
    # they queue for the CPUs at once (the base runnable at >= 1.3 threads at once, which a
    # busy machine makes so: a CI run named it second) the lock's taking turns is fewer threads
    # at once as well, as aiofiles' thread pool is in the fourth held-out set: lost parallelism
    # may follow the waiting, never lead it (the waiting first is asserted below)
    "diag/lock_wait": {"syscalls", "memory"},
    # the mutex wakes each coro on its own (ten waits on the event loop a call, not one): CPU
    # time too, so more work may follow the waiting (named second beside the busy loop)
    "diag/coro_mutex": {"parallelism", "syscalls", "memory"},
    # the same for ten blocking sleeps a call, each its own wake-up (a CI run beside the heavy
    # tests named more work second, its CPU time counted k times over: classify.split)
    "diag/coro_block": {"parallelism", "syscalls", "memory"},
}


# k (the base's runnable time over its CPU time) from which the machine counts as busy
BUSY_K = 1.5


@pytest.mark.parametrize(("lang", "name", "kind"), CASES)
def test_the_cause_is_named_first(tmp_path, lang, name, kind):
    if name in COUNTED and shutil.which("strace") is None:
        pytest.skip("syscalls are counted by strace (scripts/setup.sh installs it)")
    if name == "diag/fsync" and fstype(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip(f"{tmp_path} is on {fstype(tmp_path)}: fsync there is free")
    if name.startswith("diag/coro_") and not coro():
        pytest.skip("Coro is not installed (the Perl suite's; scripts/setup.sh installs it)")
    d = run(lang, name, tmp_path, one_cpu(None))
    base = run.evidence["base"]  # type: ignore[attr-defined]
    busy = base.cpu > 0 and base.runnable / base.cpu >= BUSY_K
    if kind == "waiting" and busy and not d.kinds and d.parts["machine"] >= d.parts["waiting"]:
        # The other known limit on a busy machine: head's wait for a CPU beyond k (the
        # neighbours', classify.split) outweighed its longer sleeps, with no more wake-ups to
        # give it to them, so nothing stands out (a CI run beside the suite's heavy tests:
        # diag/longer_sleep, base 13.8 ms a call for its 5). No kind named is no false kind;
        # when quiet the waiting is asserted first.
        return
    if kind == "memory":  # named; first only where the loop's CPU time held still (see above)
        assert kind in d.kinds, (d, run.evidence)  # type: ignore[attr-defined]
    else:
        assert d.kinds and d.kinds[0] == kind, (d, run.evidence)  # type: ignore[attr-defined]
    absent = set(ABSENT.get(name, ABSENT[kind]))
    if name in COUNTED:  # a syscall once a call is two events however slow the traced call was
        assert base.traced_calls >= 2, base
    if kind == "waiting" and busy:
        # The diagnosis's known limit (issue 45, its fourth held-out set): on a busy machine a
        # CPU second counts k times over (classify.split), and a waiting change's wake-ups cost
        # CPU time, so more work can follow the waiting (CI runs beside the suite's heavy tests
        # named it second after diag/blocking and diag/coro_block). Asserted absent when quiet.
        absent.discard("work")
    assert not absent & set(d.kinds), d
    first = d.findings[0].evidence
    if name in NAMES:
        assert first["syscalls"] and first["syscalls"][0]["name"] in NAMES[name], first
    if name in COUNTED:
        grew = first["syscalls"][0]["head"] - first["syscalls"][0]["base"]
        assert grew == pytest.approx(COUNTED[name]), first
    if kind == "memory":  # the memory finding's, first or not
        kept = next(f for f in d.findings if f.kind == "memory").evidence["kept"]
        assert kept >= 0.9 * 3 * 2**20, d


def coro() -> bool:
    return subprocess.run(["perl", "-MCoro", "-e1"], capture_output=True).returncode == 0


def test_a_syscall_a_call_is_counted_whatever_it_costs(tmp_path):
    """posix_fadvise(DONTNEED) after each write: counted exactly, one more a call; what it costs
    (the writeback it starts) depends on the disk, so the kind is not asserted, only that no
    kind resting on a count it does not change is named."""
    if shutil.which("strace") is None:
        pytest.skip("syscalls are counted by strace (scripts/setup.sh installs it)")
    d = run("python", "diag/fadvise", tmp_path, one_cpu(None))
    found = run.evidence  # type: ignore[attr-defined]
    grew = found["head"].syscalls.get("fadvise64", 0) - found["base"].syscalls.get("fadvise64", 0)
    assert grew == pytest.approx(1), found
    assert not {"parallelism", "memory"} & set(d.kinds), d


@pytest.mark.parametrize("name", ["diag/lock", "diag/pool"])
def test_threads_taking_turns_or_a_smaller_pool_lose_parallelism(tmp_path, name):
    d = run("python", name, tmp_path, None)
    base = run.evidence["base"]  # type: ignore[attr-defined]
    if len(os.sched_getaffinity(0)) < 2 or base.cpu / base.wall < 1.5:
        pytest.skip(f"the base's two threads got {base.cpu / base.wall:.2f} CPUs: no second free "
                    "CPU here, so no parallelism to lose")  # fmt: skip
    assert d.kinds and d.kinds[0] == "parallelism", (d, run.evidence)  # type: ignore[attr-defined]
    assert not {"syscalls", "memory"} & set(d.kinds), d


def test_a_benchmark_a_side_does_not_offer_fails_saying_so(tmp_path):
    env = {**os.environ, "BENCH_FILTER": "^diag/none$"}
    launches = {
        side: measure.Launch(COMMANDS["python"], tmp_path, env, tmp_path / f"{side}.log")
        for side in ("base", "head")
    }
    with pytest.raises(measure.Failed, match="the base side's worker did not offer the benchmark"):
        measure.measure(launches, "diag/none", timeout=HANG)


def test_a_worker_that_dies_fails_saying_so(tmp_path):
    launches = {
        side: measure.Launch("echo broken >&2; exit 3", tmp_path, dict(os.environ),
                             tmp_path / f"{side}.log")
        for side in ("base", "head")
    }  # fmt: skip
    with pytest.raises(measure.Failed, match="did not offer the benchmark"):
        measure.measure(launches, "diag/work", timeout=HANG)


def test_a_trace_is_read_step_by_step():
    """Each complete step of a trace: its N and the syscalls between the read of `run N` and the
    reply, a call strace split in two counted once; the step strace let go inside is not one."""
    trace = "\n".join([
        '101 read(3, "run 1\\n", 8192) = 6',
        "101 clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=4000000}, NULL) = 0",
        '101 write(4, "ns 4100000\\n", 11) = 11',
        '101 read(3, "run 3\\n", 8192) = 6',
        "102 futex(0x7f, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>",
        "101 fsync(5) = 0",
        "102 <... futex resumed>) = 0",
        "101 fsync(5) = 0",
        '101 write(4, "ns 9000\\n", 7) = 7',
        '101 read(3, "run 9\\n", 8192) = 6',
        "101 fsync(5 <unfinished ...>",
    ])  # fmt: skip
    assert syscalls.steps(trace) == [
        (1, Counter({"clock_nanosleep": 1})),
        (3, Counter({"futex": 1, "fsync": 2})),
    ]
    with pytest.raises(syscalls.TraceError, match="no read of `run N` was traced"):
        syscalls.steps('101 write(4, "ns 1\\n", 5) = 5')
    with pytest.raises(syscalls.TraceError, match="no complete step"):
        syscalls.steps('101 read(3, "run 2\\n", 8192) = 6\n101 fsync(5) = 0')
