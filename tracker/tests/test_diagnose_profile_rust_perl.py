"""The wall-time profile diff of Rust and Perl workers on real processes: eu-stack (elfutils,
which setup installs) samples both sides of a Rust step worker (fixtures/diagnose/worker.rs,
built here by rustc: std only, a couple of CPU-seconds) during the diagnosis's untraced steps,
and the tracker's Perl sub sampler (perl -d:BenchtrackSample) both sides of the Perl one
(fixtures/diagnose/worker.pl) in a start of their own; each diff must name the frame head added
(gate/diagnose/native.py, perlsub.py, profile_diff.py, run.py).

Rust, why it cannot miss (diag/nap): after a 1 ms busy loop head's call waits for its "napper"
thread to run `nap` (a 1 ms busy loop, then an 8 ms sleep), so most of each call is that sleep;
the base's napper never runs `nap`. At 25 stacks a second, head's ~1 s of steps holds ~25
stacks, of which ~3 in 4 find the napper asleep in `nap`; the time a call of `nap` (total) and
of the sleep's libc frame (self) is asserted at >= 4 ms, half the sleep (a sampler missing half
of a wait that is most of every call is broken, not noisy). Its off-CPU part, half of it at
least, is asserted where the machine was quiet (the base's k < 1.5), as for py-spy. The
napper's CPU time is measured (schedstat), not read from the stacks' thread states: with ~2-6
of head's stacks finding it running, now and then none did, the group read as idle on both
sides and its frames went unranked (the miss of about one run in four that the test once
retried; test_a_thread_no_stack_caught_on_a_cpu_...). No figure of speed is asserted.
Perl: the test's own docstring.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchtrack.gate.diagnose import measure, native, perlsub, profile_diff, pyspy, run

HERE = Path(__file__).parent / "fixtures" / "diagnose"
HANG = 300  # a guard against a hang, never a verdict on speed


def launches(tmp_path: Path, name: str, command: str) -> dict[str, measure.Launch]:
    env = {**os.environ, "BENCH_FILTER": f"^{name}$", "DIAG_DIR": str(tmp_path)}
    return {
        side: measure.Launch(
            command, tmp_path, {**env, "DIAG_SIDE": side}, tmp_path / f"{side}.log"
        )
        for side in ("base", "head")
    }


def added_off_cpu(row: dict, found: dict, least: float) -> None:
    """A frame only head has: none of it in the base, at least `least` seconds a call in head,
    and off the CPU at least half where the machine was quiet (the base's k < 1.5: on a busy
    one a thread waiting for a CPU is runnable, read as on it)."""
    assert row["base"] == {"wall": 0.0, "cpu": 0.0}, row
    assert row["head"]["wall"] >= least, row
    base = found["base"]
    if base.cpu > 0 and base.runnable / base.cpu < 1.5:
        assert row["head"]["wall"] - row["head"]["cpu"] >= row["head"]["wall"] / 2, row


@pytest.mark.skipif(shutil.which("rustc") is None, reason="needs rustc")
def test_the_diff_of_two_native_profiles_names_the_frame_head_sleeps_in(tmp_path):
    assert native.available(), "setup installs elfutils (eu-stack) with the Rust part"
    exe = tmp_path / "worker"
    subprocess.run(["rustc", "-O", "--edition", "2021", "-o", str(exe), str(HERE / "worker.rs")],
                   check=True, capture_output=True, timeout=HANG)  # fmt: skip
    found = measure.measure(
        launches(tmp_path, "diag/nap", f"exec {exe}"), "diag/nap", timeout=HANG,
        profile_dir=tmp_path / "s",
    )  # fmt: skip
    out = tmp_path / "out"
    entry = run.profile("diag/nap", found, out)
    assert entry["status"] == "ok", entry
    doc = json.loads((out / entry["data"]).read_text())
    text = (out / entry["file"]).read_text()
    assert doc["sampler"] == "eu-stack" and doc["tool"].startswith("eu-stack"), doc["tool"]
    total = {(r["thread"], r["frame"]): r for r in doc["total"]}
    added_off_cpu(total[("napper", "worker::nap")], found, 0.004)  # demangled, its hash gone
    own = {(r["thread"], r["frame"]): r for r in doc["self"]}
    # the innermost frame: libc's, which names the wait
    added_off_cpu(own[("napper", "clock_nanosleep")], found, 0.004)
    top = {(t["thread"], t["frame"]) for t in entry["top"]}
    base = found["base"]
    if base.cpu > 0 and base.runnable / base.cpu < 1.5:  # quiet: it leads the ranking
        assert ("napper", "clock_nanosleep") in top, top
    else:  # busy: main's wait for the napper can outrank it (a CI run beside the busy loop)
        assert "napper" in {thread for thread, _ in top}, top
    threads = {t["thread"]: t for t in doc["threads"]}
    assert threads["napper"]["head"]["count"] == 1 and threads["main"]["base"]["count"] == 1
    # head's napper spins in every call, measured (schedstat), however few stacks caught it on
    # a CPU; the base's never runs (only the sampler's stops wake it): idle there, not in head
    napper = threads["napper"]
    assert not napper["idle"] and napper["head"]["measured_cpu"] > 0.01 * napper["head"]["wall"]
    assert napper["base"]["measured_cpu"] <= 0.01 * napper["base"]["wall"], napper
    for side in ("base", "head"):
        sampled = doc["sampled"][side]
        assert sampled["calls"] == found[side].calls and sampled["intervals"] > 0, sampled
        assert sampled["stacks"] >= sampled["intervals"] and sampled["stack_seconds"] > 0
    assert "worker::nap" in text and "stacks read" in text
    assert not any(f["frame"].startswith(("_ZN", "_RNv")) for f in doc["total"])


@pytest.mark.skipif(
    subprocess.run(["perl", "-MCoro", "-e1"], capture_output=True).returncode != 0,
    reason="needs Coro (setup installs libcoro-perl with the Perl part)",
)
def test_a_thread_no_stack_caught_on_a_cpu_is_not_idle_where_its_cpu_time_was_measured():
    """The native sampler's miss of the nap's frame (about one run in four before): head's
    napper, on a CPU ~1 ms of each ~10, read as running (state R) in none of a run's ~25 stacks
    now and then; with the base's napper idle too it was "idle throughout" and its frames left
    out of the ranking. Its CPU time is now measured (schedstat, the Recorder's window): the
    same stacks, all off-CPU, rank `worker::nap` once the measured time is there."""
    stack = ("", "napper", "std::thread::start", "worker::nap", "clock_nanosleep")
    waiting = ("", "napper", "std::thread::start", "std::sync::mpsc::Receiver::recv")

    def side(napping: bool, measured: float | None) -> pyspy.Samples:
        s = pyspy.Samples(sampler="eu-stack", calls=10, window=0.1)
        s.wall[stack if napping else waiting] += 0.09  # 0.1 s window, nine tenths napping
        s.wall[("", native.MAIN, "main")] += 0.1
        s.cpu[("", native.MAIN, "main")] += 0.01
        s.threads = {("", "napper"): {"2"}, ("", native.MAIN): {"1"}}
        if measured is not None:
            s.measured_cpu[("", "napper")] = measured
            s.measured_cpu[("", native.MAIN)] = 0.01
        return s

    sampled = profile_diff.diff("diag/nap", {"base": side(False, None), "head": side(True, None)},
                                "eu-stack")  # fmt: skip
    assert [t["idle"] for t in sampled["threads"] if t["thread"] == "napper"] == [True]
    assert ("napper", "worker::nap") not in {(r["thread"], r["frame"]) for r in sampled["total"]}
    measured = profile_diff.diff(
        "diag/nap", {"base": side(False, 0.00001), "head": side(True, 0.01)}, "eu-stack"
    )
    napper = next(t for t in measured["threads"] if t["thread"] == "napper")
    assert not napper["idle"] and napper["head"]["measured_cpu"] == pytest.approx(0.001)
    total = {(r["thread"], r["frame"]): r for r in measured["total"]}
    assert total[("napper", "worker::nap")]["head"]["wall"] == pytest.approx(0.009)


def test_the_diff_of_two_perl_profiles_names_the_sub_a_coro_blocks_in(tmp_path):
    """diag/coro_block: ten coros a call each sleep 1 ms; head's with Time::HiRes::sleep, which
    blocks the process (~10 ms a call, one after another), the base's on Coro's timer (the
    event loop waits). Head's blocking sub, in the coros' thread, is asserted at >= 5 ms a call
    (half its sleeps) and at 0 in the base; off the CPU at least half where the machine was
    quiet."""
    name = "diag/coro_block"
    found = measure.measure(
        launches(tmp_path, name, f"exec perl {HERE / 'worker.pl'}"), name, timeout=HANG,
        profile_dir=tmp_path / "s", seconds=0.6, steps=2,
    )  # fmt: skip
    out = tmp_path / "out"
    entry = run.profile(name, found, out)
    assert entry["status"] == "ok", entry
    doc = json.loads((out / entry["data"]).read_text())
    assert doc["sampler"] == "perl" and "BenchtrackSample" in doc["tool"], doc["tool"]
    own = {(r["thread"], r["frame"]): r for r in doc["self"]}
    added_off_cpu(own[("coro", "Time::HiRes::sleep")], found, 0.005)
    assert ("coro", "Time::HiRes::sleep") in {(t["thread"], t["frame"]) for t in entry["top"]}
    total = {(r["thread"], r["frame"]) for r in doc["total"]}
    assert ("coro", "main::__ANON__[worker.pl:61]") in total  # the sub that called it, by line
    for side in ("base", "head"):
        sampled = doc["sampled"][side]
        assert sampled["calls"] > 0 and sampled["intervals"] > 0 and sampled["unprofiled"] > 0
    assert "Time::HiRes::sleep" in (out / entry["file"]).read_text()


def test_a_perl_sampler_that_wrote_nothing_fails_and_samples_are_kept_within_the_steps(tmp_path):
    with pytest.raises(pyspy.Failed, match="wrote no samples"):
        perlsub.add(pyspy.Samples(), tmp_path / "none", [(0.0, 1.0, 1)])
    lines = "\n".join([
        "10.000500 1 1.000 main\tmain::a;main::b",  # before the step: left out
        "11.002000 40 0.000 coro: [EV idle thread]\tCoro::EV::_loop_oneshot",  # 3 in the step
        "11.500000 2 0.500 main\t",  # no sub: the top level
        "12.500000 1 1.000 main\tmain::c",  # after it
    ])  # fmt: skip
    wall, cpu, threads = perlsub.read(lines, [(11.0, 12.0)])
    assert wall == {("", "coro: [EV idle thread]", "Coro::EV::_loop_oneshot"): 3,
                    ("", "main", perlsub.TOP): 2}  # fmt: skip
    assert cpu[("", "main", perlsub.TOP)] == 1.0 and threads == {"coro: [EV idle thread]", "main"}
    assert perlsub.frame("main::__ANON__[/a/b/worker.pl:61]") == "main::__ANON__[worker.pl:61]"


def test_a_process_eu_stack_cannot_read_fails_with_what_it_said(tmp_path):
    """A process gone before its first stack: the sampler stops and says why (the diagnosis
    then reads "wall-time profile failed: …")."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    rec = native.Recorder(gone.pid, native.available() or "eu-stack")
    rec.start()
    with pytest.raises(pyspy.Failed, match=r"eu-stack read no stack: .+"):
        rec.stop(pyspy.Samples(sampler="eu-stack"), 1, 0.01)


def test_eu_stacks_addresses_are_read_outermost_first_callers_inside_their_call():
    raw = "\n".join([
        "PID 41 - process",
        "TID 41:",
        "#0  0x00007f94cdad7829",
        "#1  0x0000556cbbd47376",
        "#2  0x0000556cbbd24ca3",
        "TID 42:",
        "#0  0x00007f94cdaa5545",
        "#1  0x0000556cbbd4f6a7 - 1",
    ])  # fmt: skip
    assert native.parse(raw) == {
        "41": (0x556CBBD24CA2, 0x556CBBD47375, 0x7F94CDAD7829),
        "42": (0x556CBBD4F6A6, 0x7F94CDAA5545),
    }


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="needs binutils' c++filt")
def test_rust_symbols_are_demangled_without_hashes_or_crate_ids():
    names = native.demangle({
        "_RNvNtNtCsjrHSEGnQ3l9_3std6thread9functions5sleep",
        "_ZN6worker3nap17h3c1a0b9e4a5f6d7cE",
        "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h13ea0b109127b56fE.llvm.1146855",
        "clock_nanosleep@GLIBC_2.2.5",
    })  # fmt: skip
    assert sorted(names.values()) == [
        "clock_nanosleep", "std::rt::lang_start::{{closure}}", "std::thread::functions::sleep",
        "worker::nap",
    ]  # fmt: skip
