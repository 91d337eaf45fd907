"""The wall-time profile diff of a diagnosed benchmark: which frames gained time a call.

Pure but for `write`: each side's samples (pyspy.Samples: py-spy's of a Python worker,
eu-stack's of a native one, native.py, or a Perl sub sampler's, perlsub.py; seconds a stack
over its sampled steps) divided by the
calls those steps made, then, per process, thread group (a name's digits as N: a pool's threads
together) and frame, head's seconds a call less the base's: wall time (every sample), on-CPU
(the samples of threads on a CPU), off-CPU (their difference). A frame's *self* time is the
samples where it was the innermost frame (py-spy's: the innermost Python frame, so a C call it
made, `time.sleep`, a lock's `acquire`, a socket's `recv`, is its own; eu-stack's: the
innermost native one, often libc's wrapper of the call that waited; perlsub's: the innermost
sub, Perl or XS), its *total* time every
sample it was on the stack. Written as plain text for the reader and as JSON beside it, into
the gate's output directory (gate.json names both, relative to itself: the artifact's layout),
and summarised in the diagnosis entry's `profile` (its top frames), which the comment shows as
inert text.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from benchtrack.fsutil import atomic_write
from benchtrack.gate.diagnose.pyspy import Samples, Stack
from benchtrack.gate.diagnose.text import FAILED, NOT_RUN, OK, duration

DIR = "wall-profiles"  # under the gate's --out, beside gate.json
TOP = 3  # frames in gate.json's entry (the comment's line shows the first)
LISTED = 15  # frames a table of the text file
LOST = 5  # frames that lost the most, listed
KEPT = 60  # frames in the JSON file
LOOP_COVER, LOOP_MOST = 0.97, 0.5  # the step loop's stack (loop_frames)
IDLE = 0.01  # a thread group on a CPU at most this share of its wall time, both sides: idle
SIDES = ("base", "head")
HOW = {  # how each sampler tells on-CPU from off-CPU time, for the text file's header
    "py-spy": "record --nonblocking --threads --subprocesses: one recorder with --idle for wall "
    "time, one without for on-CPU time; off-CPU is their difference",
    "eu-stack": "`eu-stack -q -p PID`: every thread's stack a sample, on-CPU where the thread's "
    "/proc/PID/task/TID/stat said R (running) just before, off-CPU otherwise; the process is "
    "stopped while its stacks are read, and the window (so every figure) holds those stops; "
    "the frames named after the step by eu-addr2line and c++filt; self time is the innermost "
    "native frame's (a libc wrapper names the wait: clock_nanosleep, syscall for a futex, read)",
    "perl": "Perl's sub hook (DB::sub) in a start of its own of each side's worker, the same calls "
    "a step: what ran between two hooks is charged the samples due meanwhile, a blocking XS "
    "call (Time::HiRes::sleep, an event loop's wait) its own; a coro is a thread; on-CPU is "
    "each sample's share of the process's CPU time since the sample before, off-CPU the rest",
}
Key = tuple[str, str, str]  # process, thread group, frame


def _frames(samples: Counter[Stack], self_only: bool) -> Counter[Key]:
    out: Counter[Key] = Counter()
    for stack, seconds in samples.items():
        process, thread, frames = stack[0], stack[1], stack[2:] or ("(no Python frame)",)
        for frame in frames[-1:] if self_only else set(frames):
            out[(process, thread, frame)] += seconds
    return out


def loop_frames(stacks: Counter[Stack]) -> Stack | None:
    """The sampled process's main thread waiting for the gate's next command: the stack where
    its step loop is innermost. Of the stacks through which LOOP_COVER of the main thread's
    samples pass (a read torn by `--nonblocking` may lose a stack's frames: those with none are
    left out of the count), sampled themselves, with samples deeper than them (the calls) and
    at most LOOP_MOST of the thread's time (the waits around the steps: a wait inside the calls
    that most samples pass through is never taken for it), the one sampled most. None where
    none is all that (nothing is left out)."""
    mine = {st: w for st, w in stacks.items() if st[:2] == ("", "MainThread") and len(st) > 2}
    total = sum(mine.values())
    through: Counter[Stack] = Counter()
    for st, w in mine.items():
        for k in range(3, len(st) + 1):
            through[st[:k]] += w
    found = [
        p for p, w in through.items()
        if w >= LOOP_COVER * total and 0 < mine.get(p, 0) <= LOOP_MOST * total and w > mine[p]
    ]  # fmt: skip
    return max(found, key=lambda p: mine[p]) if found else None


def _calls_only(samples: Samples) -> dict[str, Counter[Stack]]:
    """Both recorders' stacks less the step loop's own (`loop_frames`): the calls' time."""
    loop = loop_frames(samples.wall)
    return {
        what: Counter({st: v for st, v in getattr(samples, what).items() if st != loop})
        for what in ("wall", "cpu")
    }


def _per_call(samples: Samples, self_only: bool) -> dict[str, Counter[Key]]:
    n = max(samples.calls, 1)
    stacks = _calls_only(samples)
    return {
        what: Counter({k: v / n for k, v in _frames(stacks[what], self_only).items()})
        for what in ("wall", "cpu")
    }


def _threads(samples: Samples) -> dict[tuple[str, str], dict[str, float]]:
    n = max(samples.calls, 1)
    out: dict[tuple[str, str], dict[str, float]] = {}
    stacks = _calls_only(samples)
    for what in ("wall", "cpu"):
        for stack, seconds in stacks[what].items():
            got = out.setdefault((stack[0], stack[1]), {"wall": 0.0, "cpu": 0.0})
            got[what] += seconds / n
    for group, ids in samples.threads.items():
        out.setdefault(group, {"wall": 0.0, "cpu": 0.0})["count"] = len(ids)
    return out


def _sides(
    a: dict[str, Counter[Key]], b: dict[str, Counter[Key]], grew: float
) -> list[dict[str, Any]]:
    """A row a frame, both sides' seconds a call; `gained` (head's wall less the base's) and
    `beyond` (less the base's grown by `grew`, the ratio of the windows a call: what a frame
    that held the same share of its thread's time would have gained), ranked by `gained`."""
    keys = set(a["wall"]) | set(b["wall"]) | set(a["cpu"]) | set(b["cpu"])
    rows = []
    for k in keys:
        got = {side: {"wall": d["wall"][k], "cpu": d["cpu"][k]}
               for side, d in zip(SIDES, (a, b), strict=True)}  # fmt: skip
        rows.append({"process": k[0], "thread": k[1], "frame": k[2], **got,
                     "gained": got["head"]["wall"] - got["base"]["wall"],
                     "beyond": got["head"]["wall"] - got["base"]["wall"] * grew})  # fmt: skip
    rows.sort(key=lambda r: -r["gained"])
    return rows


def diff(name: str, sides: dict[str, Samples], tool: str) -> dict[str, Any]:
    """The JSON form: each side's sampling, its threads and frames a call, self and total. A
    thread group idle throughout on both sides (there on both, on a CPU under IDLE of its wall
    time each: a helper
    waiting for work that never came, a pool's resource tracker) is listed with the threads but
    its frames are not ranked: its wall time a call is the window's, which grows with any loss.
    Its time on a CPU is the sampler's measured one where it has it (`measured_cpu`), each
    thread row's `measured_cpu` beside its sampled `cpu`."""
    base, head = sides["base"], sides["head"]
    threads = {side: _threads(s) for side, s in sides.items()}
    groups = sorted(set(threads["base"]) | set(threads["head"]))

    def on_cpu(side: str, g: tuple[str, str]) -> float:
        """A group's CPU a call: measured where the sampler measured it (eu-stack: a thread on
        a CPU a tenth of the time can be caught running in none of 25 stacks), else sampled."""
        s = sides[side]
        if s.measured_cpu:
            return s.measured_cpu.get(g, 0.0) / max(s.calls, 1)
        return threads[side].get(g, {}).get("cpu", 0.0)

    # Idle on both sides, so present on both: a group only head has is head's new work, however
    # little CPU it takes (a pool thread that sleeps in a call of its own: test_diagnose_profile).
    idle = {
        g for g in groups
        if all(g in threads[side]
               and on_cpu(side, g) <= IDLE * threads[side][g].get("wall", 0.0)
               for side in SIDES)
    }  # fmt: skip
    zero = {"wall": 0.0, "cpu": 0.0, "count": 0}
    sampled = {
        side: {"calls": s.calls, "window": s.window, "stepped": s.stepped,
               "intervals": s.intervals, "own_cpu": s.own_cpu, "added": s.added,
               "stacks": s.stacks, "stack_seconds": s.stack_seconds,
               "unprofiled": s.unprofiled,
               "loop": s.wall[loop] if (loop := loop_frames(s.wall)) else 0.0}
        for side, s in sides.items()
    }  # fmt: skip
    rows = [
        {"process": g[0], "thread": g[1], "idle": g in idle,
         **{side: {**zero, **threads[side].get(g, {}),
                   **({"measured_cpu": on_cpu(side, g)} if sides[side].measured_cpu else {})}
            for side in SIDES}}
        for g in groups
    ]  # fmt: skip

    windows = [s.window / s.calls if s.calls else 0.0 for s in (base, head)]
    grew = windows[1] / windows[0] if windows[0] > 0 else 1.0

    def ranked(self_only: bool) -> list[dict[str, Any]]:
        rows = _sides(_per_call(base, self_only), _per_call(head, self_only), grew)
        rows = [r for r in rows if (r["process"], r["thread"]) not in idle]
        return rows[:KEPT] + rows[KEPT:][-LOST:]  # the most gained, and the most lost

    return {
        "benchmark": name,
        "tool": tool,
        "sampler": base.sampler,
        "rate": base.rate,
        "sampled": sampled,
        "window_grew": grew,
        "threads": rows,
        "self": ranked(True),
        "total": ranked(False),
    }


def _where(row: dict[str, Any]) -> str:
    process = f"{row['process'][:40]} · " if row["process"] else ""
    return f"{process}{row['thread'] or '?'}"


def _row(row: dict[str, Any], label: str) -> str:
    b, h = row["base"], row["head"]
    on = h["cpu"] - b["cpu"]
    off = (h["wall"] - h["cpu"]) - (b["wall"] - b["cpu"])
    beyond = duration(row["beyond"]) if "beyond" in row else ""
    return (f"  {duration(h['wall'] - b['wall']):>11}  {beyond:>11}  {duration(on):>11}  "
            f"{duration(off):>11}  "
            f"{duration(b['wall']).lstrip('+'):>10} → {duration(h['wall']).lstrip('+'):<10}  "
            f"{_where(row)[:40]:<40}  {label}")  # fmt: skip


def _everywhere(row: dict[str, Any], threads: dict[tuple[str, str], dict[str, Any]]) -> bool:
    """Whether a frame's total time is its thread group's on both sides (a thread's entry
    frames: `main`, `start_thread`), which says no more than the group's row."""
    t = threads.get((row["process"], row["thread"]))
    return t is not None and all(
        math.isclose(row[side]["wall"], t[side]["wall"], rel_tol=1e-9, abs_tol=1e-12)
        for side in SIDES
    )


def _a_call(sampled: dict[str, Any]) -> str:
    return duration(sampled["window"] / sampled["calls"] if sampled["calls"] else 0.0).lstrip("+")


def _stopped(sampled: dict[str, Any]) -> str:
    """eu-stack's cost: the stacks it read and how long each stopped the worker at most."""
    n = sampled.get("stacks", 0)
    if not n:
        return ""
    return (f"; {n:,} stacks read, {sampled['stack_seconds'] / n * 1e3:.1f} ms each on average "
            "(the worker stopped within it)")  # fmt: skip


def text(doc: dict[str, Any]) -> str:
    """The plain-text artifact."""
    s = doc["sampled"]
    out = [
        f"Wall-time profile diff: {doc['benchmark']} (head against base)",
        "",
        f"{doc['tool']}, {doc['rate']} samples a second of each side's worker during its "
        f"untraced steps ({HOW.get(doc.get('sampler', 'py-spy'), '')}).",
    ]
    for side in SIDES:
        x = s[side]
        outside = 1 - x["stepped"] / x["window"] if x["window"] > 0 else 0.0
        cost = (f"the sampler's own CPU {x['own_cpu']:.2f} s; its starts and stops added "
                f"{x['added']:.2f} s" if doc.get("sampler") != "perl" else
                f"in the workers' own time: {_a_call(x)} a call sampled, "
                f"{duration(x.get('unprofiled', 0.0)).lstrip('+')} in the measurement; its start "
                f"of its own took {x['added']:.2f} s of the diagnosis")  # fmt: skip
        out.append(f"{side}: {x['calls']:,} calls; {x['window']:.3f} s sampled "
                   f"({x['intervals']:,} intervals; {outside:.0%} of it outside the steps); "
                   f"{cost}; {x['loop']:.3f} s of the main thread in the step loop "
                   "waiting for the gate, left out" + _stopped(x))  # fmt: skip
    out += [
        "",
        "Every figure is seconds a call. Columns: wall Δ, beyond the window's growth (wall Δ "
        f"less the base's wall × {doc['window_grew']:.3f}, head's window a call over the "
        "base's: what a frame holding the same share of its thread's time gains, which a "
        "helper's wait does with any loss), on-CPU Δ, off-CPU Δ, wall base → head, "
        "process · thread, frame.",
        "",
        "Threads (a group: a name's digits as N)",
    ]
    for t in doc["threads"]:
        row = {"process": t["process"], "thread": t["thread"], "base": t["base"], "head": t["head"]}
        idle = "; idle throughout, its frames not ranked" if t["idle"] else ""
        out.append(_row(row, f"{t['base']['count']} → {t['head']['count']} threads{idle}"))
    whole = {(t["process"], t["thread"]): t for t in doc["threads"]}
    inner = {"eu-stack": "native", "perl": "Perl sub"}.get(doc.get("sampler", ""), "Python")
    for title, rows in ((f"Frames that gained the most (self time: the innermost {inner} frame)",
                         [r for r in doc["self"] if r["gained"] > 0][:LISTED]),
                        ("Frames that lost the most (self time)",
                         [r for r in doc["self"][::-1] if r["gained"] < 0][:LOST]),
                        ("Frames that gained the most (total time: anywhere on the stack; a "
                         "frame on every stack of its thread group, both sides, is the group's "
                         "row above and left out)",
                         [r for r in doc["total"]
                          if r["gained"] > 0 and not _everywhere(r, whole)][:LISTED])):  # fmt: skip
        out += ["", title]
        out += [_row(r, r["frame"]) for r in rows] or ["  (none)"]
    return "\n".join(out) + "\n"


def slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-." else "_" for ch in name)[:150]


def write(name: str, sides: dict[str, Samples], tool: str, out: Path) -> dict[str, Any]:
    """Both files under `out`/DIR; gate.json's `profile` entry (paths relative to `out`;
    `seconds`: what the profile added to the diagnosis, the sampler's starts and stops and this)."""
    t0 = time.monotonic()
    doc = diff(name, sides, tool)
    files = {"file": f"{DIR}/{slug(name)}.txt", "data": f"{DIR}/{slug(name)}.json"}
    atomic_write(out / files["file"], text(doc).encode())
    atomic_write(out / files["data"], orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    top = [{"thread": _where(r), "frame": r["frame"], "wall": r["gained"],
            "cpu": r["head"]["cpu"] - r["base"]["cpu"]}
           for r in doc["self"][:TOP] if r["gained"] > 0]  # fmt: skip
    added = sum(s.added for s in sides.values()) + time.monotonic() - t0
    return {"status": OK, **files, "top": top, "seconds": round(added, 2)}


def failed(reason: str) -> dict[str, Any]:
    return {"status": FAILED, "reason": reason}


def not_run(reason: str) -> dict[str, Any]:
    return {"status": NOT_RUN, "reason": reason}
