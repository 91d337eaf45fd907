"""The self-test's slowdowns: real code changes, each making chosen benchmarks do more work than
the elements they declare (or wait longer), so their throughput drops by a known fraction.

The changes are data of the repository being tested, not of benchtrack: the file its
benchtrack.toml names in `[gate.selftest] patches` (this repository's is
tracker/bench/selftest-patches.toml, which says how exact each of its slowdowns is). It holds one
array of tables per kind (`KINDS`):

    [[work]]                                  # more work per declared element: counts see it
    path = "src/lib.rs"                       # relative to the repository root
    where = ["mylib::hot"]                    # optional: a top function of the counted change
    slows = [{ glob = "rust/x/*", loss = 0.10 }]   # what it slows (fnmatch), and how much
    [[work.hunk]]                             # each `old` text must occur exactly once
    old = '''
    let n = N;
    '''
    new = '''
    let n = N + N.div_ceil(@D10@);           // @D<percent>@: k for that loss
    '''

    [[wait]]                                  # adds no instructions to speak of: a `wait`
    path = "src/io.rs"                        # saying what the change does, for each slow
    slows = [{ glob = "rust/io/read", loss = 0.10, wait = "a syscall per read" }]

A loss d is 1/k more work per declared element, k = 1/d - 1 (19, 9, 4 for 5%, 10%, 20%): the
patch texts write k as the token `@D<percent>@`, replaced from the loss their `slows` declare, so
the table and the code cannot disagree.

A patch whose `old` text is not found exactly once in the checkout is an error (exit 2) naming
the file and the text: a change to the benchmarks shows here rather than as a self-test of
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from benchtrack.errors import BadInput
from benchtrack.tomlcheck import Checker, read_toml

LOSSES = (0.05, 0.10, 0.20)
TOKEN_RE = re.compile(r"@D(\d+)@")


@dataclass(frozen=True)
class Slow:
    glob: str  # benchmark names as the gate reports them (fnmatch)
    loss: float  # designed throughput loss: at least this fraction
    # The other kind ("wait"): what the change does, where it adds no instructions to speak
    # of; "" for more work per element ("work"), which the counts see too.
    wait: str = ""
    # where the extra work runs: text one of the top functions of a counted benchmark that
    # regressed must contain (the gate's function diff names the place to look)
    where: tuple[str, ...] = ()
    # the kind the gate's diagnosis must name first (gate/diagnose/classify.KINDS), if given
    diagnosis: str = ""
    # a syscall or function the diagnosis must name, any one of these (spellings of one call)
    names: tuple[str, ...] = ()
    # other kinds the change really causes, which the diagnosis may name after the first
    also: tuple[str, ...] = ()


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


# The kinds, each an array of tables in the patches file: more work per declared element (the
# counts see it too), and changes that add no instructions to speak of (`Slow.wait` says what).
KINDS = ("work", "wait")
DIAGNOSES = ("parallelism", "waiting", "syscalls", "work", "memory")  # gate/diagnose's kinds
PATCH_KEYS = {"path", "where", "slows", "hunk"}


def load(path: Path) -> dict[str, tuple[Patch, ...]]:
    """The patches file at `path`, by kind: BadInput naming the file and field of any mistake."""
    data = read_toml(path, "the file of gate-selftest's slowdowns ([gate.selftest] patches)")
    v = Checker(str(path))
    for key in sorted(set(data) - set(KINDS)):
        raise v.fail(key, f"only the arrays of tables {', '.join(f'[[{k}]]' for k in KINDS)}", key)
    out = {}
    for kind in KINDS:
        items = enumerate(v.array(data.get(kind, []), kind))
        out[kind] = tuple(
            _patch(v, v.table(x, f"{kind}[{i}]"), f"{kind}[{i}]", kind) for i, x in items
        )
    if not any(out.values()):
        raise BadInput(path, None, f"at least one [[{KINDS[0]}]] or [[{KINDS[1]}]] patch")
    return out


def _patch(v: Checker, t: dict[str, object], where: str, kind: str) -> Patch:
    v.known(t, where, PATCH_KEYS)
    hunks = []
    for i, x in enumerate(v.array(t.get("hunk", []), f"{where}.hunk")):
        h = v.table(x, f"{where}.hunk[{i}]")
        v.known(h, f"{where}.hunk[{i}]", {"old", "new"})
        hunks.append((v.string(h, "old", f"{where}.hunk[{i}]"), _text(v, h, f"{where}.hunk[{i}]")))
    if not hunks:
        raise v.fail(f"{where}.hunk", "at least one [[...hunk]] with `old` and `new`", [])
    slows = tuple(
        _slow(v, v.table(s, f"{where}.slows[{i}]"), f"{where}.slows[{i}]", kind)
        for i, s in enumerate(v.array(t.get("slows", []), f"{where}.slows"))
    )
    places = tuple(
        v.string({"w": w}, "w", f"{where}.where[{i}]")
        for i, w in enumerate(v.array(t.get("where", []), f"{where}.where"))
    )
    return Patch(v.string(t, "path", where), tuple(hunks), slows, places)


def _text(v: Checker, t: dict[str, object], where: str) -> str:
    """A hunk's `new` text: a string, which may be empty (the change removes `old`)."""
    x = t.get("new")
    if not isinstance(x, str):
        raise v.fail(f"{where}.new", "a string", x)
    return x


def _slow(v: Checker, t: dict[str, object], where: str, kind: str) -> Slow:
    v.known(t, where, {"glob", "loss", "wait", "diagnosis", "names", "also"})
    loss = v.fraction(t.get("loss"), f"{where}.loss")
    named = v.string(t, "diagnosis", where) if "diagnosis" in t else ""
    if named and named not in DIAGNOSES:
        raise v.fail(f"{where}.diagnosis", f"one of {', '.join(DIAGNOSES)}", named)
    names, also = _strings(v, t, where, "names"), _strings(v, t, where, "also")
    if (names or also) and not named:
        raise v.fail(f"{where}.diagnosis", "given where `names` or `also` is", "")
    for i, k in enumerate(also):
        if k not in DIAGNOSES or k == named:
            raise v.fail(f"{where}.also[{i}]", f"one of {', '.join(DIAGNOSES)}, not `diagnosis`", k)
    checks = {"diagnosis": named, "names": names, "also": also}
    if kind == KINDS[0]:
        if "wait" in t:
            raise v.fail(f"{where}.wait", f"left out in a [[{kind}]] patch", t["wait"])
        try:
            divisor(loss)
        except ValueError:
            raise v.fail(f"{where}.loss", f"one of {LOSSES}", loss) from None
        return Slow(v.string(t, "glob", where), loss, **checks)
    return Slow(v.string(t, "glob", where), loss, v.string(t, "wait", where), **checks)


def _strings(v: Checker, t: dict[str, object], where: str, key: str) -> tuple[str, ...]:
    """An optional array of non-empty strings."""
    items = v.array(t.get(key, []), f"{where}.{key}")
    for i, s in enumerate(items):
        if not isinstance(s, str) or not s.strip():
            raise v.fail(f"{where}.{key}[{i}]", "a non-empty string", s)
    return tuple(items)
