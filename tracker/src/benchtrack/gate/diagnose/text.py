"""The diagnosis line, from gate.json's `diagnosis` entry: every name (a syscall, a function, a
reason a run gave) as inert code (benchtrack/mdtext.py), every number formatted here. `plain=True`:
the same line as plain text, for a page that sets it as text (the dashboard): no code spans, no
bold, names with only what a reader cannot see escaped."""

from __future__ import annotations

import math
from typing import Any

from benchtrack.gate.diagnose.classify import LABELS, MIN_LOSS
from benchtrack.mdtext import code, pct
from benchtrack.mdtext import plain as plain_text

OK, FAILED, NOT_RUN = "ok", "failed", "not run"


def duration(seconds: float) -> str:
    """A signed duration: +310 µs, −1.2 ms, +2.0 s."""
    sign = "+" if seconds >= 0 else "−"
    x = abs(seconds)
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if x >= scale:
            return f"{sign}{x / scale:.3g} {unit}"
    return f"{sign}{x * 1e9:.3g} ns"


def size(nbytes: float) -> str:
    """A signed size in binary units: +5.8 MiB."""
    sign = "+" if nbytes >= 0 else "−"
    x = abs(nbytes)
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if x >= scale:
            return f"{sign}{x / scale:.3g} {unit}"
    return f"{sign}{x:.0f} B"


def count(x: float) -> str:
    """A signed count a call: +1, +98, +1,400, +0.5."""
    return f"{x:+,.0f}" if abs(x) >= 10 else f"{x:+.2g}"


def _name(text: object, limit: int, plain: bool) -> str:
    return plain_text(text, limit) if plain else code(text, limit)


def _syscalls(items: list[dict[str, Any]], plain: bool) -> str:
    return ", ".join(f"{count(s['head'] - s['base'])} {_name(s['name'], 40, plain)}" for s in items)


def phrase(kind: dict[str, Any], plain: bool = False) -> str:
    """One kind and its evidence."""
    k = kind["kind"]
    label = LABELS[k]
    if k == "parallelism":
        text = (f"base ran {kind['base_threads']:.1f} threads at once, head "
                f"{kind['head_threads']:.1f} (busy threads {kind.get('base_busy', 0)} → "
                f"{kind.get('head_busy', 0)})")  # fmt: skip
    elif k == "waiting":
        text = (f"off-CPU time {duration(kind['off_cpu'])} a call, voluntary context switches "
                f"{count(kind['voluntary'])} a call")  # fmt: skip
        if kind.get("asleep"):
            text += f", threads asleep instead of at once {duration(kind['asleep'])} a call"
        if kind.get("syscalls"):
            text += f" ({_syscalls(kind['syscalls'], plain)} a call)"
    elif k == "syscalls":
        text = f"{_syscalls(kind.get('syscalls', []), plain)} a call"
        if kind.get("system") is not None and kind["system"] > 0:
            text += f", system CPU time {duration(kind['system'])} a call"
    elif k == "work":
        parts = []
        if kind.get("cpu") is not None and math.isfinite(kind["cpu"]):
            parts.append(f"CPU time {pct(kind['cpu'])} a call")
        if kind.get("instructions") is not None:
            where = ", ".join(f"{_name(f['function'], 80, plain)} ({pct(f['share'])})"
                              for f in kind.get("functions", []))  # fmt: skip
            where = f", in {where}" if where else ""
            parts.append(f"instructions {pct(kind['instructions'])}{where}")
        text = ", ".join(parts)
    else:
        parts = []
        if kind.get("peak") is not None:
            grew = f" ({pct(kind['peak_growth'])})" if kind.get("peak_growth") is not None else ""
            parts.append(f"peak RSS {size(kind['peak'])}{grew}")
        if kind.get("faults") is not None and abs(kind["faults"]) >= 1:
            parts.append(f"page faults {count(kind['faults'])} a call")
        if kind.get("kept") is not None and kind["kept"] >= 1024:
            parts.append(f"{size(kind['kept'])} kept a call")
        if kind.get("syscalls"):
            parts.append(f"{_syscalls(kind['syscalls'], plain)} a call")
        text = ", ".join(parts)
    return f"{label}: {text}" if text else label


def profile(entry: dict[str, Any]) -> str:
    """The wall-time profile's part of the line (Markdown): its file, in the artifact
    `entry["artifact"]` names where the comment knows it, and the frame that gained the most;
    or why there is none. "" without one."""
    p = entry.get("profile")
    if not isinstance(p, dict):
        return ""
    if p.get("status") == FAILED:
        return f"wall-time profile failed: {code(p.get('reason', ''), 200)}"
    if p.get("status") == NOT_RUN:
        return f"no wall-time profile: {code(p.get('reason', ''), 200)}"
    where = f" in the {code(entry['artifact'], 100)} artifact" if entry.get("artifact") else ""
    text = f"wall-time profile diff: {code(p.get('file', ''), 200)}{where}"
    top = p.get("top") or []
    if top:
        t = top[0]
        off = (t["wall"] - t["cpu"]) / t["wall"] if t["wall"] > 0 else 0.0
        off = min(max(off, 0.0), 1.0)
        text += (f" (most gained: {code(t['frame'], 80)} in {code(t['thread'], 40)}, "
                 f"{duration(t['wall'])} a call, {off:.0%} of it off-CPU)")  # fmt: skip
    return text


def line(entry: dict[str, Any], plain: bool = False) -> str:
    """The whole line: the kinds, the first one's share of the run's loss; or why there is none.
    Markdown (the first kind in bold, names as code), or `plain` text; the Markdown ends with
    the wall-time profile's part, where there is one (`profile`)."""
    said = _line(entry, plain)
    more = "" if plain else profile(entry)
    return f"{said}; {more}" if more else said


def _line(entry: dict[str, Any], plain: bool) -> str:
    status = entry.get("status")
    if status == FAILED:
        return f"diagnosis failed: {_name(entry.get('reason', ''), 200, plain)}"
    if status == NOT_RUN:
        return f"diagnosis not run: {_name(entry.get('reason', ''), 200, plain)}"
    kinds = entry.get("kinds", [])
    loss = entry.get("loss")
    run = f"this run's wall time a call {pct(loss)}" if loss is not None else ""
    if not kinds:
        lost = loss is not None and loss >= MIN_LOSS
        return "nothing stands out" + (
            f" ({run}{'' if lost else ': no loss in this run'})" if run else ""
        )
    said = [phrase(k, plain) for k in kinds]
    first = kinds[0].get("share")
    if first is not None and run:  # a part can exceed the loss where another part is negative
        said[0] += f" ({'all' if first >= 1 else f'{first * 100:.0f}%'} of {run})"
    if not plain:
        label, colon, rest = said[0].partition(":")
        said[0] = f"**{label}**{colon}{rest}"
    return "; ".join(said)


def markdown(entries: dict[str, dict[str, Any]]) -> str:
    """gate.md's section (the job summary): a line a diagnosed row."""
    if not entries:
        return ""
    out = ["#### Why it is slower", "",
           "Per regressed benchmark and smaller loss: one more run of each side, alone, the "
           "kind that explains most of the loss first (tracker/DIAGNOSE.md); a Python, Rust "
           "or Perl benchmark's wall-time profile diff is a file of the gate's output directory, "
           "beside gate.json (in CI, the gate's artifact).",
           ""]  # fmt: skip
    for row, entry in entries.items():
        out.append(f"- {code(row)}: {line(entry)}")
    return "\n".join(out) + "\n"


def comment(found: list[tuple[str, str, dict[str, Any]]], limit: int) -> list[str]:
    """The PR comment's section: (row, runner label, checked entry) a line, at most `limit`."""
    if not found:
        return []
    out = ["### Why it is slower", ""]
    out += [f"- {code(row)} ({label}): {line(e)}" for row, label, e in found[:limit]]
    if len(found) > limit:
        out.append(f"- … and {len(found) - limit} more (the job summary lists every one)")
    return [*out, ""]
