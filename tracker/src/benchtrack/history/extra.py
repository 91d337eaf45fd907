"""The `extra` string of a bench and its `range`, as docs/architecture.md fixes them.

`extra` is `runner=<label>; cpus=<n>; samples=<n>; ci=<lo>..<hi>; suite=<suite>`, then
`; cpu=<model>; os=<os>` when the runner's machine is known: readable in the action's own tooltip,
and enough to recover the runner size, each point's uncertainty and the machine it ran on (a CPU
change on hosted runners is a classic false step, which the dashboard marks).
`range` is `± <half the ci width>`, the action's own spelling for a spread.
"""

from __future__ import annotations

import itertools
import operator
import re
import warnings

import numpy as np
import orjson

from benchtrack.history.format import js_number

SEP = "; "
# The machine's fields, last (the fast parses below read the first five and drop these).
_MACHINE = re.compile(r"; cpu=[^;]*; os=[^;]*")
_UNSAFE = re.compile(r"[;=\x00-\x1f]+")


def format_extra(
    label: str,
    cpus: int,
    samples: int,
    ci: tuple[float, float],
    suite: str,
    cpu_model: str = "",
    os: str = "",
) -> str:
    lo, hi = ci
    text = (
        f"runner={label}{SEP}cpus={cpus}{SEP}samples={samples}{SEP}"
        f"ci={js_number(lo)}..{js_number(hi)}{SEP}suite={suite}"
    )
    if cpu_model or os:  # `;` and `=` would split the field: a machine's name has neither
        cpu, system = (_UNSAFE.sub(" ", x).strip() for x in (cpu_model, os))
        text += f"{SEP}cpu={cpu}{SEP}os={system}"
    return text


def machine(extra: str) -> tuple[str, str] | None:
    """(cpu model, os) of an `extra` that names its machine, else None."""
    found = _MACHINE.search(extra)
    if found is None:
        return None
    cpu, _, os = found.group(0).removeprefix("; cpu=").partition("; os=")
    return cpu, os


def format_range(ci: tuple[float, float]) -> str:
    """`± x`, x half the interval's width to 4 significant digits (a tooltip, not the data)."""
    half = (ci[1] - ci[0]) / 2
    return f"± {js_number(float(f'{half:.4g}'))}"


def parse_extra(extra: str) -> dict[str, str]:
    """`key=value; key=value` -> dict; pieces without `=` (other tools' notes) are skipped."""
    out: dict[str, str] = {}
    for piece in extra.replace("\n", SEP).split(";"):
        key, eq, value = piece.strip().partition("=")
        if eq and key:
            out[key] = value.strip()
    return out


def parse_range(text: str) -> float:
    """The spread of `± x` / `±x%`-free forms as a number; NaN when it is not one."""
    try:
        return float(text.replace("±", "").replace("+-", "").strip())
    except ValueError:
        return float("nan")


def parse_ranges(ranges: list[str]) -> np.ndarray:
    """`parse_range` of many; one C-speed conversion when all are `± <number>`."""
    fast = _numbers(" ".join(ranges).replace("± ", ""), len(ranges))
    if fast is not None:
        return fast
    return np.array([parse_range(r) for r in ranges], dtype=np.float64)


def _numbers(text: str, count: int) -> np.ndarray | None:
    """`count` whitespace-separated numbers in `text` (strtod in C), or None if it is not that."""
    if not count:
        return np.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "could not be read to its end": we check the count
        try:
            out = np.fromstring(text, dtype=np.float64, sep=" ")
        except ValueError:
            return None
    return out if len(out) == count else None


class Extras:
    """Parsed `extra` fields of many points, as arrays (NaN / -1 where a point lacks one).

    Only the first point's runner label is kept (one per runner); a point's suite is the first
    segment of its name (result documents guarantee it), so neither is kept per point.
    """

    __slots__ = ("ci_hi", "ci_lo", "cpus", "label", "samples")

    def __init__(self, n: int) -> None:
        self.ci_lo = np.full(n, np.nan)
        self.ci_hi = np.full(n, np.nan)
        self.samples = np.full(n, -1, dtype=np.int32)
        self.cpus = np.full(n, -1, dtype=np.int32)
        self.label = ""


CHUNK = 16384  # extras per fast pass: bounds the temporary strings of a split to a few MB


def parse_many(extras: list[str]) -> Extras:
    """Parse every `extra` of a runner: C-speed passes when all are in our own format."""
    fast = _parse_uniform(extras)
    if fast is not None:
        return fast
    chunks = [_parse_ours(extras[i : i + CHUNK]) for i in range(0, len(extras), CHUNK)]
    if chunks and all(c is not None for c in chunks):
        return _concat([c for c in chunks if c is not None])
    out = Extras(len(extras))
    for i, extra in enumerate(extras):  # someone else's format, or a mix: one by one
        fields = parse_extra(extra)
        if i == 0:
            out.label = fields.get("runner", "")
        out.cpus[i] = _int(fields.get("cpus"))
        out.samples[i] = _int(fields.get("samples"))
        lo, _, hi = fields.get("ci", "").partition("..")
        out.ci_lo[i], out.ci_hi[i] = _float(lo), _float(hi)
    return out


def _parse_uniform(extras: list[str]) -> Extras | None:
    """Our format with one runner label, vCPU count and sample count for all (a runner's usual
    case): every extra starts like the first, the ci bounds are read by one JSON parse."""
    n = len(extras)
    if not n or not extras[0].startswith("runner=") or "; ci=" not in extras[0]:
        return None
    head = extras[0][: extras[0].index("; ci=") + len("; ci=")]  # runner=…; cpus=…; samples=…; ci=
    fields = parse_extra(head)
    if list(fields) != ["runner", "cpus", "samples", "ci"]:
        return None
    if not all(map(str.startswith, extras, itertools.repeat(head))):
        return None
    at = len(head)  # every extra starts with `head`, which ends in `; ci=`: the ci comes next
    cis = [extra[at:].partition(";")[0] for extra in extras]
    if not all(map(operator.contains, cis, itertools.repeat(".."))):
        return None
    try:
        bounds = orjson.loads("[" + ",".join(cis).replace("..", ",") + "]")
    except orjson.JSONDecodeError:
        return None
    if len(bounds) != 2 * n or not set(map(type, bounds)) <= {int, float, type(None)}:
        return None  # `null` is how JSON.stringify spells a non-finite bound: NaN
    ci = np.array(bounds, dtype=np.float64)
    out = Extras(0)
    out.label = fields["runner"]
    out.cpus = np.full(n, _int(fields["cpus"]), dtype=np.int32)
    out.samples = np.full(n, _int(fields["samples"]), dtype=np.int32)
    out.ci_lo, out.ci_hi = ci[0::2].copy(), ci[1::2].copy()
    return out


def _parse_ours(extras: list[str]) -> Extras | None:
    """`runner=L; cpus=N; samples=N; ci=LO..HI; suite=S` for all: split once, convert in C."""
    n = len(extras)
    joined = SEP.join(extras)
    parts = (_MACHINE.sub("", joined) if "; cpu=" in joined else joined).split(SEP)
    if not n or len(parts) != 5 * n:
        return None
    heads = ("runner=", "cpus=", "samples=", "ci=", "suite=")
    for k, head in enumerate(heads):  # the layout holds at both ends and in the counts below
        if not (parts[k].startswith(head) and parts[-5 + k].startswith(head)):
            return None
    cpus = _column(parts[1::5], "cpus=", n)
    samples = _column(parts[2::5], "samples=", n)
    ci = _numbers(" ".join(parts[3::5]).replace("ci=", "").replace("..", " "), 2 * n)
    if cpus is None or samples is None or ci is None:
        return None
    out = Extras(0)
    out.label = parts[0].removeprefix("runner=")
    out.cpus, out.samples = cpus.astype(np.int32), samples.astype(np.int32)
    out.ci_lo, out.ci_hi = ci[0::2].copy(), ci[1::2].copy()
    return out


def _concat(chunks: list[Extras]) -> Extras:
    out = Extras(0)
    out.ci_lo = np.concatenate([c.ci_lo for c in chunks])
    out.ci_hi = np.concatenate([c.ci_hi for c in chunks])
    out.samples = np.concatenate([c.samples for c in chunks])
    out.cpus = np.concatenate([c.cpus for c in chunks])
    out.label = chunks[0].label
    return out


def _column(parts: list[str], head: str, n: int) -> np.ndarray | None:
    """`head<number>` x n; usually one distinct value (cpus, sample count): converted once."""
    distinct = set(parts)
    if len(distinct) == 1:
        value = _numbers(distinct.pop().removeprefix(head), 1)
        return None if value is None else np.full(n, value[0])
    return _numbers(" ".join(parts).replace(head, ""), n)


def _float(text: str | None) -> float:
    try:
        return float(text) if text else float("nan")
    except ValueError:
        return float("nan")


def _int(text: str | None) -> int:
    return int(text) if text and text.isdigit() else -1
