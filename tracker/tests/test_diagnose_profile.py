"""The wall-time profile diff on a real process: py-spy (the locked dependency) samples both
sides of a step worker (fixtures/diagnose/worker.py) during the diagnosis's untraced steps, and
the diff must find the frame head added (gate/diagnose/pyspy.py, profile_diff.py, run.py).

Why it cannot miss (diag/nap): head's call waits for a thread of its own pool ("napper") to sleep
4 ms in `nap`, which the base never calls; every sample of that sleep finds `nap` innermost in
that thread, blocked (py-spy's on-CPU recorder leaves it out). Its self time a call is asserted
at >= 2 ms, half the sleep: a sampler that misses half of a 4 ms block every call is broken, not
noisy (at 250 samples a second, ~1 s of head's steps holds ~200 samples of it). Its off-CPU part
>= half of it: a sleep is on no CPU. The base's is 0: it has no such thread. No figure of speed
is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchtrack.gate.diagnose import measure, profile_diff, pyspy, run

HERE = Path(__file__).parent / "fixtures" / "diagnose"
HANG = 300  # a guard against a hang, never a verdict on speed
PYTHON = f"exec {sys.executable} {HERE / 'worker.py'}"


def launches(tmp_path: Path, name: str, command: str = PYTHON) -> dict[str, measure.Launch]:
    env = {**os.environ, "BENCH_FILTER": f"^{name}$", "DIAG_DIR": str(tmp_path)}
    return {
        side: measure.Launch(
            command, tmp_path, {**env, "DIAG_SIDE": side}, tmp_path / f"{side}.log"
        )
        for side in ("base", "head")
    }


def test_the_diff_of_two_real_profiles_names_the_frame_head_sleeps_in(tmp_path):
    assert pyspy.available(), "py-spy is a locked dependency of the tracker"
    # Beside the suite's heavy tests (load ~7) one side's recorder once took no sample in its
    # window, which the profile reports as failed (the product's honest answer, asserted here):
    # what this test checks is the diff of two profiles, so a window without a sample is
    # measured again, three tries at most.
    for attempt in range(3):
        (tmp_path / str(attempt)).mkdir()
        found = measure.measure(
            launches(tmp_path / str(attempt), "diag/nap"), "diag/nap", timeout=HANG,
            profile_dir=tmp_path / str(attempt) / "s",
        )  # fmt: skip
        out = tmp_path / str(attempt) / "out"
        entry = run.profile("diag/nap", found, out)
        if entry["status"] == "ok" or "took no sample" not in entry.get("reason", ""):
            break
        assert entry["status"] == "failed" and "py-spy" in entry["reason"], entry
    assert entry["status"] == "ok", entry
    assert isinstance(entry["seconds"], float) and entry["seconds"] >= 0, entry  # py-spy's waits
    doc = json.loads((out / entry["data"]).read_text())
    text = (out / entry["file"]).read_text()
    rows = {(r["thread"], r["frame"]): r for r in doc["self"]}
    nap = rows[("napper_N", "nap (worker.py)")]
    assert nap["base"] == {"wall": 0.0, "cpu": 0.0}, nap
    assert nap["head"]["wall"] >= 0.002, nap
    base = found["base"]
    if base.cpu > 0 and base.runnable / base.cpu < 1.5:
        # Off the CPU at least half: the wall and on-CPU recorders sample apart, and on a busy
        # machine (the base's k >= 1.5) a CI run read the on-CPU one above the wall (10.7 ms
        # against 3.1 ms a call); asserted where the machine was quiet.
        assert nap["head"]["wall"] - nap["head"]["cpu"] >= nap["head"]["wall"] / 2, nap
    # The step loop is not what the diff names: on a loaded machine (a CI run beside replays) a
    # sample can land in its own frame between steps, so it may have a row, but never above nap.
    loop = rows.get(("MainThread", "main (worker.py)"))
    if loop is not None:
        gain = lambda r: r["head"]["wall"] - r["base"]["wall"]  # noqa: E731
        assert gain(loop) < gain(nap), (loop, nap)
    threads = {t["thread"]: t for t in doc["threads"]}
    assert threads["napper_N"]["base"]["count"] == 0 and threads["napper_N"]["head"]["count"] == 1
    assert "nap (worker.py)" in text and "napper_N" in text
    for side in ("base", "head"):
        sampled = doc["sampled"][side]
        assert sampled["calls"] == found[side].calls and sampled["intervals"] > 0, sampled
    top = [(t["thread"], t["frame"]) for t in entry["top"]]
    assert ("napper_N", "nap (worker.py)") in top, top


def test_a_profile_that_cannot_be_taken_says_why(tmp_path):
    """py-spy on a process that runs no Python: it never samples, and the recorders say what
    py-spy said instead (the diagnosis then reads "wall-time profile failed: …")."""
    other = subprocess.Popen(["sleep", "30"])
    try:
        rec = pyspy.Recorders(other.pid, tmp_path, pyspy.available() or "py-spy")
        with pytest.raises(pyspy.Failed, match=r"recorder did not start sampling: .+"):
            rec.start()
        assert all(p.poll() is not None for p in rec.procs.values())  # none left running
    finally:
        other.kill()
        other.wait()


def test_py_spys_collapsed_stacks_are_keyed_by_process_thread_group_and_frames():
    raw = "\n".join([
        'process 41:"python -m pytest";thread (0x1A): MainThread;main (w.py);nap (w.py) 7',
        'process 41:"python -m pytest";thread (0x2B): pool_1;_worker (thread.py) 3',
        'process 41:"python -m pytest";thread (0x3C): pool_2;_worker (thread.py) 2',
        'process 41:"python";process 52:"/v/bin/python -c a;b(17)";'
        "thread (0x4D): MainThread;j (j.py) 4",
        "thread (99);f (a.py) 1",
        "garbage without a count",
    ])  # fmt: skip
    stacks, threads, each = pyspy.parse(raw)
    assert stacks == {
        ("", "MainThread", "main (w.py)", "nap (w.py)"): 7,
        ("", "pool_N", "_worker (thread.py)"): 5,
        ("child: python -c a;b(N)", "MainThread", "j (j.py)"): 4,
        ("", "(unnamed)", "f (a.py)"): 1,
    }
    assert len(threads[("", "pool_N")]) == 2 and len(threads[("", "MainThread")]) == 1
    assert max(each.values()) == 7  # the intervals: one thread's samples, not a group's (5)


def test_the_step_loop_waiting_for_the_gate_is_told_apart_from_the_calls():
    loop = ("", "MainThread", "<module> (w.py)", "main (w.py)")
    call = (*loop, "call (w.py)")
    stacks = Counter({loop: 2, call: 3, (*call, "f (w.py)"): 3, ("", "pool_N", "nap (w.py)"): 2})
    assert profile_diff.loop_frames(stacks) == loop  # `call` covers 75%, under LOOP_COVER
    stacks[loop[:2]] = 1  # a torn read: no frame (not counted)
    assert profile_diff.loop_frames(stacks) == loop
    stacks[(*loop[:3], "other (w.py)")] = 1  # the loop's stack covers 8 of 9 samples: not 97%
    assert profile_diff.loop_frames(stacks) is None
    assert profile_diff.loop_frames(Counter({loop: 5, ("", "pool_N", "x"): 1})) is None
    assert profile_diff.loop_frames(Counter({loop: 5, call: 1})) is None  # most of the time


def test_a_thread_only_head_has_is_ranked_however_little_cpu_it_takes():
    """py-spy's samples of head's napper, all off a CPU (it sleeps in `nap`), and a base without
    one: the group is head's new work, not "idle throughout on both sides"; its `nap` is ranked.
    (Before, a napper caught on a CPU in none of its samples was idle and its frame left out:
    the real-profile test above failed one run in about ten.)"""
    stack = ("", "napper_N", "_worker (concurrent/futures/thread.py)", "nap (worker.py)")
    main = ("", "MainThread", "main (worker.py)")

    def side(napping: bool) -> pyspy.Samples:
        s = pyspy.Samples(sampler="py-spy", calls=10, window=0.1)
        s.wall[main] += 0.1
        s.cpu[main] += 0.01
        s.threads = {("", "MainThread"): {"1"}}
        if napping:
            s.wall[stack] += 0.05
            s.threads[("", "napper_N")] = {"2"}
        return s

    doc = profile_diff.diff("diag/nap", {"base": side(False), "head": side(True)}, "py-spy")
    assert [t["idle"] for t in doc["threads"] if t["thread"] == "napper_N"] == [False]
    ranked = {(r["thread"], r["frame"]): r for r in doc["self"]}
    assert ranked[("napper_N", "nap (worker.py)")]["head"]["wall"] == pytest.approx(0.005)
