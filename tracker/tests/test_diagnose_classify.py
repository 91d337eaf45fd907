"""The diagnosis's classifier and its line (gate/diagnose/classify.py, text.py) on constructed
evidence: no process, no timing, so every case is exact. Each names the kind a known cause must
give, and that the others are not named."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from benchtrack.gate.diagnose import classify as c
from benchtrack.gate.diagnose import text
from benchtrack.gate.diagnose.evidence import Evidence

MS = 1e-3
MIB = 2**20


def ev(wall=1 * MS, user=1 * MS, system=0.0, queued=0.0, **kw) -> Evidence:
    """One side's evidence a call; by default one thread busy for the whole call."""
    base = dict(calls=1000, voluntary=0.0, involuntary=0.0, minor=0.0, major=0.0,
                rss_growth=0.0, peak=50 * MIB, busy_threads=1, syscalls={})  # fmt: skip
    return Evidence(wall=wall, user=user, system=system, queued=queued, **{**base, **kw})


def kinds(base: Evidence, head: Evidence, counts=None) -> list[str]:
    return c.classify(base, head, counts).kinds


def test_more_cpu_is_more_work():
    d = c.classify(ev(), ev(wall=1.5 * MS, user=1.5 * MS))
    assert d.kinds == ["work"]
    assert d.findings[0].share == pytest.approx(1.0)
    assert d.findings[0].evidence["cpu"] == pytest.approx(0.5)
    assert d.loss == pytest.approx(0.5)


def test_threads_taking_turns_is_lost_parallelism():
    """Base: 2 ms of CPU a call in 1 ms (two threads at once); head: the same CPU in 2 ms."""
    base = ev(wall=1 * MS, user=2 * MS, busy_threads=2)
    head = ev(wall=2 * MS, user=2 * MS, busy_threads=2, voluntary=20.0,
              syscalls={"futex": 20.0})  # fmt: skip
    d = c.classify(base, head)
    assert d.kinds == ["parallelism"]
    assert d.findings[0].share == pytest.approx(1.0)
    assert d.findings[0].evidence["base_threads"] == pytest.approx(2.0)
    assert d.findings[0].evidence["head_threads"] == pytest.approx(1.0)


def test_a_base_that_ran_one_thread_cannot_lose_parallelism():
    base = ev(wall=1 * MS, user=1.2 * MS)  # 1.2 threads at once: under PARALLEL
    head = ev(wall=2 * MS, user=1.2 * MS)
    assert "parallelism" not in kinds(base, head)


def test_a_sleep_is_waiting_with_its_syscall():
    head = ev(wall=5 * MS, voluntary=1.0, syscalls={"clock_nanosleep": 1.0})
    d = c.classify(ev(), head)
    assert d.kinds == ["waiting"]
    w = d.findings[0].evidence
    assert w["off_cpu"] == pytest.approx(4 * MS)
    assert w["voluntary"] == pytest.approx(1.0)
    assert w["syscalls"] == [{"name": "clock_nanosleep", "base": 0.0, "head": 1.0}]


def test_off_cpu_time_without_more_voluntary_switches_is_not_waiting():
    """A thread that blocks gives up its CPU: off-CPU time with no more switches is a reading's
    error (a thread's run-queue wait that ended with it), not a wait."""
    head = ev(wall=2 * MS, voluntary=0.2)
    assert kinds(ev(voluntary=0.2), head) == []
    assert kinds(ev(voluntary=0.2), ev(wall=2 * MS, voluntary=0.3)) == ["waiting"]


def test_threads_that_ended_wait_by_their_sleeping_syscalls():
    """Threads started and ended within a step (a thread a connection, a task): /proc lost their
    voluntary switches, strace counted their syscalls; a sleeping one that grew is the evidence
    that head blocks more often."""
    base = ev(voluntary=3.0, syscalls={"epoll_wait": 4.0, "futex": 10.0})
    head = ev(wall=3 * MS, voluntary=3.0, syscalls={"epoll_wait": 8.0, "futex": 10.0})
    d = c.classify(base, head)
    assert d.kinds == ["waiting"]
    assert d.findings[0].evidence["syscalls"] == [{"name": "epoll_wait", "base": 4.0, "head": 8.0}]
    assert kinds(base, ev(wall=3 * MS, voluntary=3.0, syscalls=base.syscalls)) == []


def test_the_kernel_time_of_sleeping_syscalls_is_the_waits():
    """100 blocking sleeps a call: their entries and wake-ups are system CPU time, the blocking's
    cost, not more work."""
    head = ev(wall=5 * MS, system=1 * MS, voluntary=100.0, syscalls={"clock_nanosleep": 100.0})
    d = c.classify(ev(), head)
    assert d.kinds == ["waiting"]
    assert d.findings[0].share == pytest.approx(1.0)


def test_an_fsync_a_call_is_syscalls_not_waiting():
    """Its off-CPU time goes to the syscall that grew (no waiting syscall grew)."""
    base = ev(syscalls={"write": 1.0, "lseek": 2.0})
    head = ev(wall=4 * MS, system=0.1 * MS, voluntary=2.0,
              syscalls={"write": 1.0, "lseek": 2.0, "fsync": 1.0})  # fmt: skip
    d = c.classify(base, head)
    assert d.kinds == ["syscalls"]
    assert d.findings[0].share == pytest.approx(1.0)
    assert d.findings[0].evidence["syscalls"] == [{"name": "fsync", "base": 0.0, "head": 1.0}]


def test_a_syscall_beside_a_sleep_leaves_the_waiting_to_the_sleep():
    base = ev(syscalls={"write": 1.0})
    head = ev(wall=4 * MS, user=1 * MS, system=1 * MS, voluntary=1.0,
              syscalls={"write": 1.0, "statx": 4.0, "nanosleep": 1.0})  # fmt: skip
    d = c.classify(base, head)
    assert d.kinds == ["waiting", "syscalls"]
    assert d.findings[0].share == pytest.approx(2 / 3)
    assert d.findings[1].share == pytest.approx(1 / 3)


def test_a_syscall_that_grew_a_little_is_not_named():
    base = ev(syscalls={"statx": 1.0})
    head = ev(wall=2 * MS, user=1 * MS, system=1 * MS, syscalls={"statx": 1.4})  # under 0.5 more
    assert kinds(base, head) == ["work"]


def test_the_same_sleep_longer_is_waiting():
    """A base that blocks once a call and is mostly asleep; head sleeps longer, as often: no
    more switches, no sleeping syscall more, the off-CPU time a call +25%."""
    sleeps = {"clock_nanosleep": 1.0}
    base = ev(wall=5 * MS, voluntary=1.0, syscalls=sleeps)
    d = c.classify(base, ev(wall=6 * MS, voluntary=1.0, syscalls=sleeps))
    assert d.kinds == ["waiting"]
    assert d.findings[0].share == pytest.approx(1.0)
    assert d.findings[0].evidence["syscalls"] == []


@pytest.mark.parametrize(
    ("base", "head"),
    [
        # a base mostly on the CPU (off 25% of its wall time): its off-CPU time may be a reading's
        (
            ev(wall=2 * MS, user=1.5 * MS, voluntary=1.0),
            ev(wall=2.5 * MS, user=1.5 * MS, voluntary=1.0),
        ),
        # a base that blocks less than once a call
        (ev(wall=5 * MS, voluntary=0.5), ev(wall=6 * MS, voluntary=0.5)),
        # head blocking far less often than the base: not the same waits
        (ev(wall=5 * MS, voluntary=2.0), ev(wall=6 * MS, voluntary=1.0)),
        # off-CPU time 4% more: under OFF_GROWTH
        (ev(wall=5 * MS, voluntary=1.0), ev(wall=5.16 * MS, voluntary=1.0)),
    ],
)
def test_longer_off_cpu_time_without_its_evidence_is_not_waiting(base, head):
    assert "waiting" not in kinds(base, head)


def test_a_sleeping_syscall_that_grew_less_is_named_where_waiting_is():
    """A pool of one connection (measured: epoll_wait 38 -> 46 a call, +21%): waiting named on
    its switches (+20%), the loop's epoll_wait beside it, under the 50% a syscall needs to be a
    kind's evidence but over SLEEP_NAMED; a syscall that fell (epoll_ctl) is never named."""
    base = ev(wall=28 * MS, user=3.8 * MS, voluntary=8.6,
              syscalls={"epoll_wait": 38.0, "epoll_ctl": 17.7})  # fmt: skip
    head = ev(wall=73 * MS, user=5.2 * MS, voluntary=10.4,
              syscalls={"epoll_wait": 46.0, "epoll_ctl": 6.0})  # fmt: skip
    d = c.classify(base, head)
    assert d.kinds == ["waiting"]
    assert d.findings[0].evidence["syscalls"] == [
        {"name": "epoll_wait", "base": 38.0, "head": 46.0}
    ]


def test_a_sleeping_syscall_that_grew_less_names_no_waiting_by_itself():
    """The same +21% epoll_wait beside a busy loop that grew: more work, no waiting, no syscall."""
    base = ev(syscalls={"epoll_wait": 38.0})
    d = c.classify(base, ev(wall=1.5 * MS, user=1.5 * MS, syscalls={"epoll_wait": 46.0}))
    assert d.kinds == ["work"]
    assert "syscalls" not in d.findings[0].evidence


def leak(kept: float, faults: float) -> tuple[Evidence, Evidence]:
    """A Perl leak as measured (perl/coro/async_pool/trivial, held-out r4): ~61 KiB kept a call,
    15 page faults a call more, the kernel time 0.18 ms a call more, the user time as it was."""
    base = ev(wall=0.86 * MS, user=0.2 * MS, system=0.04 * MS, queued=0.62 * MS, peak=14 * MIB)
    head = ev(wall=1.15 * MS, user=0.2 * MS, system=0.22 * MS, queued=0.73 * MS, minor=faults,
              rss_growth=kept, peak=14 * MIB + kept * 1000, syscalls={"brk": 0.45})  # fmt: skip
    return base, head


def test_a_leak_whose_pages_fault_in_is_memory_first():
    d = c.classify(*leak(kept=60.7 * 1024, faults=15.0))
    assert d.kinds[0] == "memory" and d.findings[0].share is not None
    assert "work" not in d.kinds
    assert d.findings[0].evidence["faults"] == 15.0
    assert d.findings[0].evidence["kept"] == pytest.approx(60.7 * 1024)


@pytest.mark.parametrize(
    ("kept", "faults", "expected"),
    [
        (0.0, 15.0, ["work"]),  # faults under FAULTS_MIN with nothing kept: the kernel's work
        (60.7 * 1024, 4.0, ["work", "memory"]),  # fewer than half the pages kept: a fact after
    ],
)
def test_faults_under_the_floor_are_memory_only_beside_what_is_kept(kept, faults, expected):
    assert kinds(*leak(kept, faults)) == expected


def test_memory_that_faults_in_every_call_is_memory():
    base = ev(minor=0.0, peak=20 * MIB)
    head = ev(wall=2 * MS, system=1 * MS, minor=256.0, rss_growth=MIB, peak=120 * MIB,
              syscalls={"mmap": 1.0})  # fmt: skip
    d = c.classify(ev(minor=0.0, peak=20 * MIB, syscalls={}), head)
    assert d.kinds == ["memory"]
    m = d.findings[0].evidence
    assert m["peak"] == 100 * MIB and m["faults"] == 256.0 and m["kept"] == MIB
    assert m["syscalls"] == [{"name": "mmap", "base": 0.0, "head": 1.0}]
    assert c.classify(base, head).kinds == ["memory"]


def test_a_leak_that_costs_no_time_is_still_named_as_a_fact():
    head = ev(wall=1.01 * MS, rss_growth=64 * 1024, peak=120 * MIB)  # 64 KiB x 1000 calls kept
    d = c.classify(ev(peak=50 * MIB), head)
    assert d.kinds == ["memory"]
    assert d.findings[0].share is None


def test_memory_under_the_floor_is_not_named():
    head = ev(wall=1.01 * MS, rss_growth=1024, peak=52 * MIB)  # +2 MiB, 1 MiB kept
    assert kinds(ev(peak=50 * MIB), head) == []


@pytest.mark.parametrize("loss", [0.0, 0.01, 0.029, -0.2])
def test_a_run_that_did_not_lose_names_no_time(loss):
    """Below MIN_LOSS the parts are the run's noise: nothing is split, whatever they say."""
    head = ev(wall=(1 + loss) * MS, user=(1 + loss) * MS)
    d = c.classify(ev(), head)
    assert d.kinds == []
    assert d.loss == pytest.approx(loss)


def test_a_neighbour_taking_the_cpu_is_the_machine_not_a_kind():
    """Head waited longer for a CPU (a neighbour), same CPU time, no more wake-ups."""
    head = ev(wall=1.5 * MS, queued=0.5 * MS)
    d = c.classify(ev(), head)
    assert d.kinds == []
    assert d.parts["machine"] == pytest.approx(0.5 * MS)


def test_cpu_that_costs_more_on_a_busy_machine_is_still_work():
    """Base: each CPU second waits 2 s for a CPU (k = 3); head does twice the CPU work at the
    same rate: all of its extra wall time is work, none the machine's."""
    base = ev(wall=3 * MS, user=1 * MS, queued=2 * MS)
    head = ev(wall=6 * MS, user=2 * MS, queued=4 * MS)
    d = c.classify(base, head)
    assert d.kinds == ["work"]
    assert d.findings[0].share == pytest.approx(1.0)
    assert d.parts["machine"] == pytest.approx(0.0)


def test_wakeups_on_a_busy_machine_go_to_the_blocking():
    """An fsync whose wake-up waits for a CPU: the extra run-queue wait is the fsync's."""
    base = ev(wall=3 * MS, user=1 * MS, queued=2 * MS, syscalls={"write": 1.0})
    head = ev(wall=8 * MS, user=1 * MS, queued=4 * MS, voluntary=2.0,
              syscalls={"write": 1.0, "fdatasync": 1.0})  # fmt: skip
    d = c.classify(base, head)
    assert d.kinds == ["syscalls"]
    assert d.findings[0].share == pytest.approx(1.0)


def test_a_small_part_is_not_named():
    """Waiting 90% of the loss, CPU work 10%: only waiting."""
    head = ev(wall=2 * MS, user=1.1 * MS, voluntary=1.0)
    d = c.classify(ev(), head)
    assert d.kinds == ["waiting"]


def test_two_kinds_each_a_sizeable_part_largest_first():
    head = ev(wall=2 * MS, user=1.4 * MS, voluntary=1.0)  # work 0.4 ms, waiting 0.6 ms
    assert kinds(ev(), head) == ["waiting", "work"]


def test_counted_instructions_add_their_functions_to_more_work():
    counts = c.Counts(0.125, (("sigma", 0.25),))
    d = c.classify(ev(), ev(wall=1.2 * MS, user=1.2 * MS), counts)
    assert d.kinds == ["work"]
    assert d.findings[0].evidence["instructions"] == 0.125
    assert d.findings[0].evidence["functions"] == [{"function": "sigma", "share": 0.25}]


def test_counted_instructions_are_named_when_the_time_says_waiting():
    counts = c.Counts(0.10, (("f", 0.1),))
    head = ev(wall=5 * MS, voluntary=1.0)
    d = c.classify(ev(), head, counts)
    assert d.kinds == ["waiting", "work"]
    assert d.findings[1].share is None


def test_no_syscall_counts_names_no_syscalls():
    base = ev(syscalls=None)
    head = ev(wall=4 * MS, system=0.1 * MS, voluntary=2.0, syscalls=None)
    assert kinds(base, head) == ["waiting"]


def test_the_parts_add_up_to_the_loss():
    rng = random.Random(7)
    for _ in range(500):
        side = [
            ev(wall=rng.uniform(0.5, 5) * MS, user=rng.uniform(0, 3) * MS,
               system=rng.uniform(0, 1) * MS, queued=rng.uniform(0, 3) * MS,
               voluntary=rng.uniform(0, 3))
            for _ in range(2)
        ]  # fmt: skip
        parts = c.split(*side)
        assert sum(parts.values()) == pytest.approx(side[1].wall - side[0].wall, abs=1e-12)


def test_a_memory_row_is_its_own_evidence():
    d = c.memory_row(10.0, 16.2, "MiB")
    assert d.kinds == ["memory"]
    assert d.findings[0].evidence["peak"] == pytest.approx(6.2 * MIB)
    assert d.findings[0].evidence["peak_growth"] == pytest.approx(0.62)
    assert math.isnan(d.loss)


def entry(d: c.Diagnosis) -> dict:
    return {"status": "ok", "loss": d.loss, "kinds": [f.as_dict() for f in d.findings]}


def test_the_line_names_the_first_kind_with_its_numbers():
    head = ev(wall=5 * MS, voluntary=1.0, syscalls={"clock_nanosleep": 1.0})
    line = text.line(entry(c.classify(ev(), head)))
    assert line.startswith("**waiting**: off-CPU time +4 ms a call, voluntary context switches")
    assert "`clock_nanosleep`" in line
    assert "(all of this run's wall time a call +400.0%)" in line


def test_the_line_gives_the_first_kinds_share_of_the_loss():
    head = ev(wall=2 * MS, user=1.4 * MS, voluntary=1.0)  # waiting 0.6 ms of the 1 ms lost
    assert "**waiting**: off-CPU time +600 µs a call" in text.line(entry(c.classify(ev(), head)))
    assert "(60% of this run's wall time a call +100.0%)" in text.line(
        entry(c.classify(ev(), head))
    )


def test_the_line_of_lost_parallelism_and_memory():
    base = ev(wall=1 * MS, user=2 * MS, busy_threads=2)
    head = ev(wall=2 * MS, user=2 * MS, busy_threads=1, peak=120 * MIB, rss_growth=64 * 1024)
    line = text.line(entry(c.classify(base, head)))
    assert line.startswith("**lost parallelism**: base ran 2.0 threads at once, head 1.0")
    assert "; memory: peak RSS +70 MiB (+140.0%), +64 KiB kept a call" in line


def test_nothing_stands_out_and_failures_say_so():
    none = "nothing stands out (this run's wall time a call +0.0%: no loss in this run)"
    assert text.line(entry(c.classify(ev(), ev()))) == none
    lost = ev(wall=1.5 * MS, queued=0.5 * MS)  # the machine's
    assert text.line(entry(c.classify(ev(), lost))) == (
        "nothing stands out (this run's wall time a call +50.0%)"
    )
    failed = text.line({"status": "failed", "reason": "the head side's worker timed out"})
    assert failed == "diagnosis failed: `the head side's worker timed out`"
    assert text.line({"status": "not run", "reason": "budget"}) == "diagnosis not run: `budget`"


def test_names_from_the_run_are_inert():
    """A function or syscall name (the PR's code chose it) cannot end its code span, link,
    mention anyone or hide text."""
    nasty = "f`|@team <b>[x](http://e)\u202e"
    counts = c.Counts(0.2, ((nasty, 0.2),))
    head = ev(wall=2 * MS, user=1 * MS, system=1 * MS, syscalls={nasty: 3.0})
    line = text.line(entry(c.classify(ev(), head, counts)))
    assert "`` f` ``\\|`@team <b>[x](http://e)\\u202e`" in line
    assert "\u202e" not in line and line.count("|") == line.count("\\|")  # every | escaped
    reason = text.line({"status": "failed", "reason": "x`y\n| z"})
    assert reason == "diagnosis failed: ``x`y\\u000a``\\|` z`"


def test_the_plain_line_is_the_same_without_markdown():
    """The dashboard's line (confirm/status.why): no code spans, no bold; names as the run gave
    them (the page sets the line as text), only what a reader cannot see escaped."""
    nasty = "a**b`c|d\u202e"
    head = ev(wall=2 * MS, user=1 * MS, system=1 * MS, syscalls={nasty: 3.0})
    e = entry(c.classify(ev(), head))
    assert text.line(e, plain=True) == (
        "syscalls: +3 a**b`c|d\\u202e a call, system CPU time +1 ms a call "
        "(all of this run's wall time a call +100.0%)"
    )
    assert text.line(e).startswith("**syscalls**: +3 ``a**b`c``\\|`d\\u202e` a call")
    failed = {"status": "failed", "reason": "x`y\n**z**"}
    assert text.line(failed, plain=True) == "diagnosis failed: x`y\\u000a**z**"


def test_no_thread_counts_more_than_the_span_it_was_read_over():
    """procstat.Usage: a thread absent from the first reading counts from its start, but not for
    longer than the span (one missed in a race with its start would bring its whole life's)."""
    from benchtrack.gate.diagnose.procstat import Snapshot, Thread, Usage

    before = Snapshot(10.0, 0.0, 0.0, 0, 0, 0, 0, {1: Thread(1.0, 1.0, 5, 0)})
    threads = {1: Thread(1.05, 1.02, 6, 0), 2: Thread(30.0, 90.0, 900, 0)}  # 2: its whole life
    u = Usage()
    u.add(before, Snapshot(10.1, 0.15, 0.0, 0, 0, 0, 0, threads))
    assert u.queued == pytest.approx(0.02 + 0.1)
    assert u.thread_cpu == pytest.approx({1: 0.05, 2: 0.1})


RECORDINGS = Path(__file__).resolve().parents[1] / "bench" / "recordings"


def recorded(report: str, benchmark: str) -> tuple[Evidence, Evidence]:
    """A benchmark's two sides as a recorded diagnosis measured them."""
    doc = orjson.loads((RECORDINGS / report).read_bytes())
    (b,) = [b for b in doc["benchmarks"] if b["benchmark"] == benchmark]
    sides = b["diagnosis"]["sides"]
    return Evidence(**sides["base"]), Evidence(**sides["head"])


def test_a_one_off_syscall_in_a_one_call_step_is_not_a_rate():
    """The second held-out set's lock around gathered requests (r1): one thread ended in head's
    traced step of one call (+1 `exit`, `rt_sigprocmask`, `sigaltstack`), which took the off-CPU
    time as "syscalls"; a growth of one event is no rate, so the waiting (switches +53%) is named,
    with its `epoll_wait` (+44%). Two events in the step would be one."""
    base, head = recorded("diagnose-heldout2-r1.json", "python/http_cpu/gather")
    assert head.traced_calls == 1 and head.syscalls["exit"] == 1
    d = c.classify(base, head)
    assert d.kinds == ["waiting"]
    assert [s["name"] for s in d.findings[0].evidence["syscalls"]] == ["epoll_wait"]
    twice = replace(head, syscalls={**head.syscalls, "exit": 2.0, "sigaltstack": 2.0})
    assert c.classify(base, twice).kinds[0] == "syscalls"
    assert c.classify(base, replace(head, traced_calls=2)).kinds[0] == "syscalls"


def test_a_new_timed_sleep_among_threads_is_waiting_not_lost_parallelism():
    """The second held-out set's blocking `time.sleep` after aiofiles writes (r1): the base's
    2.8 threads at once on 2 vCPUs were mostly waiting for a CPU, head's threads sleep instead
    (`clock_nanosleep` 0 → 4 a call): their drop is the sleep's, waiting, not threads taking
    turns. Without the new sleep it stays lost parallelism; a lock's `futex` new in head is not
    a timed sleep (test_threads_taking_turns_is_lost_parallelism)."""
    base, head = recorded("diagnose-heldout2-r1.json", "python/fileio/aiofiles_bounded/shm")
    d = c.classify(base, head)
    assert d.kinds == ["waiting"]
    w = d.findings[0].evidence
    assert w["asleep"] > 0
    assert w["syscalls"] == [{"name": "clock_nanosleep", "base": 0.0, "head": 4.0}]
    assert "threads asleep instead of at once +" in text.line(entry(d))
    awake = {k: v for k, v in head.syscalls.items() if k != "clock_nanosleep"}
    assert c.classify(base, replace(head, syscalls=awake)).kinds[0] == "parallelism"
    # one sleep in a traced step of one call is a one-off, not yet a sleep a call
    once = replace(head, traced_calls=1, syscalls={**awake, "clock_nanosleep": 1.0})
    assert c.classify(base, once).kinds[0] == "parallelism"


def test_fewer_longer_waits_on_fewer_threads_are_waiting():
    """The third held-out set's pool of one aiosqlite connection (r1): off-CPU time 20.8 → 62.4 ms
    a call, but fewer voluntary switches (16.3 → 7.0: one connection thread instead of three,
    whose switches /proc loses as they end) and no sleeping syscall grown: fewer waits, each
    longer, while the CPU time a call fell. Waiting, not "nothing stands out". Had the CPU time a
    call grown (a thread running instead of blocking), or the off-CPU time grown by less than
    half, it is not waiting's evidence."""
    base, head = recorded("diagnose-heldout3-r1.json", "python/db/gather")
    assert head.voluntary < base.voluntary * (1 - c.SWITCHES_GROWTH)
    assert head.off_cpu > 2 * base.off_cpu and head.cpu < base.cpu
    assert c.classify(base, head).kinds == ["waiting"]
    busier = replace(head, user=base.user * 1.2, system=base.system)
    assert "waiting" not in c.classify(base, busier).kinds
    # the same call with an off-CPU time only 40% longer than the base's
    shorter = replace(head, wall=head.wall - (head.off_cpu - 1.4 * base.off_cpu))
    assert c.classify(base, shorter).kinds == []


def test_extra_cpu_that_head_did_not_queue_for_is_not_more_work():
    """The fourth held-out set's blocking `Event.wait` (r2, load 12-14): head's CPU time a call
    +25%, which counts k = 7.9 times over (the base's runnable time over its CPU time), but head's
    runnable time a call did not grow with it (its run-queue wait fell by as much): the k-fold
    count was not paid in wall time, so more work is not named (a false kind before). The
    waiting stays first with its `futex`; had head queued at the base's rate for its extra CPU,
    the same CPU growth would be more work's part and named after it."""
    base, head = recorded("diagnose-heldout4-r2.json", "python/http/gather_shared_session")
    assert head.cpu > 1.2 * base.cpu and head.runnable < base.runnable
    d = c.classify(base, head)
    assert d.kinds == ["waiting"]
    assert [s["name"] for s in d.findings[0].evidence["syscalls"]] == ["futex"]
    assert sum(d.parts.values()) == pytest.approx(head.wall - base.wall)
    k = base.runnable / base.cpu
    paid = replace(head, queued=(k - 1) * head.cpu)  # queued at the base's rate
    assert c.classify(base, paid).kinds == ["waiting", "work"]
    assert c.split(base, paid)["machine"] == pytest.approx(0.0)


def test_extra_cpu_partly_paid_counts_only_what_was_paid():
    """k = 3: head's 1 ms more CPU would count 3 ms, but head queued only 1 ms more (not 2 ms):
    work's part is the 2 ms its runnable time grew, the machine's none; the parts add up."""
    base = ev(wall=3 * MS, user=1 * MS, queued=2 * MS)
    head = ev(wall=5 * MS, user=2 * MS, queued=3 * MS)
    parts = c.split(base, head)
    assert parts["work"] == pytest.approx(2 * MS)
    assert parts["machine"] == pytest.approx(0.0)
    assert c.classify(base, head).kinds == ["work"]
