"""A PR's `diagnosis` entries read back as untrusted data (gate_comment.load), for the comment.

The PR's code wrote its gate.json: each row's `diagnosis` is checked against the shape
`run.entry` writes (a known status and kinds, finite numbers, bounded lists, names as strings of
bounded length) and rebuilt from the checked fields only; the comment renders it with
`text.line`, every string as inert code. Anything else is BadInput naming the field (exit 2).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.gate.diagnose.classify import KINDS, SYSCALL_TOP
from benchtrack.gate.diagnose.text import FAILED, NOT_RUN, OK

MAX_TEXT = 1000
MAX_FUNCTIONS = 3
NUMBERS = ("share", "base_threads", "head_threads", "off_cpu", "voluntary", "system", "cpu",
           "instructions", "peak", "peak_growth", "faults", "kept", "asleep")  # fmt: skip
COUNTS = ("base_busy", "head_busy")
REQUIRED = {"parallelism": ("base_threads", "head_threads"), "waiting": ("off_cpu", "voluntary")}
MAX_TOP = 3  # a profile's top frames (profile_diff.TOP)
# a profile's files, relative to gate.json: its directory and a slug (profile_diff.slug)
PROFILE_FILE = re.compile(r"^wall-profiles/[A-Za-z0-9_.-]{1,150}\.(txt|json)$")


class _Check:
    def __init__(self, path: Path, field: str) -> None:
        self.path, self.field = path, field

    def that(self, ok: bool, where: str, expected: str, got: object = None) -> None:
        if not ok:
            raise BadInput(self.path, f"{self.field}.{where}", expected, _short(got))

    def number(self, value: object, where: str) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        self.that(ok and math.isfinite(value), where, "a finite number", value)  # type: ignore[arg-type]
        return float(value)  # type: ignore[arg-type]

    def text(self, value: object, where: str) -> str:
        ok = isinstance(value, str) and len(value) <= MAX_TEXT
        self.that(ok, where, f"a string of at most {MAX_TEXT} characters", value)
        return value  # type: ignore[return-value]

    def items(self, value: object, where: str, most: int) -> list[dict[str, Any]]:
        ok = (
            isinstance(value, list)
            and len(value) <= most
            and all(isinstance(x, dict) for x in value)
        )
        self.that(ok, where, f"a list of at most {most} objects", value)
        return value  # type: ignore[return-value]


def _short(value: object) -> object:
    return value if isinstance(value, int | float | None) else repr(value)[:80]


def entry(value: object, path: Path, field: str) -> dict[str, Any]:
    """One row's diagnosis, checked and rebuilt."""
    c = _Check(path, field)
    c.that(isinstance(value, dict), "", "an object")
    assert isinstance(value, dict)
    status = value.get("status")
    c.that(status in (OK, FAILED, NOT_RUN), "status", f"one of {OK}, {FAILED}, {NOT_RUN}", status)
    if status != OK:
        return {"status": status, "reason": c.text(value.get("reason", ""), "reason")}
    out: dict[str, Any] = {"status": OK, "kinds": []}
    if value.get("profile") is not None:
        out["profile"] = _profile(c, value["profile"])
    if value.get("loss") is not None:
        out["loss"] = c.number(value["loss"], "loss")
    for k, kind in enumerate(c.items(value.get("kinds", []), "kinds", len(KINDS))):
        where = f"kinds[{k}]"
        c.that(kind.get("kind") in KINDS, f"{where}.kind", f"one of {', '.join(KINDS)}")
        got: dict[str, Any] = {"kind": kind["kind"]}
        for key in NUMBERS:
            if kind.get(key) is not None:
                got[key] = c.number(kind[key], f"{where}.{key}")
        for key in COUNTS:
            if kind.get(key) is not None:
                n = kind[key]
                ok = isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 100_000
                c.that(ok, f"{where}.{key}", "a thread count", n)
                got[key] = n
        if "syscalls" in kind:
            calls = c.items(kind["syscalls"], f"{where}.syscalls", SYSCALL_TOP)
            got["syscalls"] = [
                {"name": c.text(s.get("name"), f"{where}.syscalls[{i}].name"),
                 **{x: c.number(s.get(x), f"{where}.syscalls[{i}].{x}") for x in ("base", "head")}}
                for i, s in enumerate(calls)
            ]  # fmt: skip
        if "functions" in kind:
            fns = c.items(kind["functions"], f"{where}.functions", MAX_FUNCTIONS)
            got["functions"] = [
                {"function": c.text(f.get("function"), f"{where}.functions[{i}].function"),
                 "share": c.number(f.get("share"), f"{where}.functions[{i}].share")}
                for i, f in enumerate(fns)
            ]  # fmt: skip
        for key in REQUIRED.get(got["kind"], ()):  # what the kind's line always shows
            c.that(key in got, f"{where}.{key}", "a finite number")
        out["kinds"].append(got)
    return out


def _profile(c: _Check, value: object) -> dict[str, Any]:
    """The `profile` of a diagnosis (profile_diff): its status, files and top frames, or why
    there is none."""
    c.that(isinstance(value, dict), "profile", "an object")
    assert isinstance(value, dict)
    status = value.get("status")
    c.that(status in (OK, FAILED, NOT_RUN), "profile.status",
           f"one of {OK}, {FAILED}, {NOT_RUN}", status)  # fmt: skip
    if status != OK:
        return {"status": status, "reason": c.text(value.get("reason", ""), "profile.reason")}
    out: dict[str, Any] = {"status": OK}
    for key in ("file", "data"):
        path = value.get(key)
        ok = isinstance(path, str) and PROFILE_FILE.fullmatch(path) is not None
        c.that(ok, f"profile.{key}", "wall-profiles/<name>.txt or .json", path)
        out[key] = path
    if value.get("seconds") is not None:
        out["seconds"] = c.number(value["seconds"], "profile.seconds")
    top = c.items(value.get("top", []), "profile.top", MAX_TOP)
    out["top"] = [
        {"thread": c.text(t.get("thread"), f"profile.top[{i}].thread"),
         "frame": c.text(t.get("frame"), f"profile.top[{i}].frame"),
         **{x: c.number(t.get(x), f"profile.top[{i}].{x}") for x in ("wall", "cpu")}}
        for i, t in enumerate(top)
    ]  # fmt: skip
    return out


def rows(raw: list[Any], names: list[str], path: Path) -> dict[str, dict[str, Any]]:
    """Row name -> its checked diagnosis, for the rows (gate.json's `benchmarks`, already
    checked into `names`, index for index) that have one."""
    out = {}
    for i, (r, name) in enumerate(zip(raw, names, strict=True)):
        if isinstance(r, dict) and r.get("diagnosis") is not None:
            out[name] = entry(r["diagnosis"], path, f"benchmarks[{i}].diagnosis")
    return out
