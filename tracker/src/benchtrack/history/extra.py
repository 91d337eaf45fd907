"""The `extra` string of a bench and its `range`, as docs/conventions.md fixes them.

`extra` is `runner=<label>; cpus=<n>; samples=<n>; ci=<lo>..<hi>; suite=<suite>`: readable in the
action's own tooltip, and enough to recover the runner size and each point's uncertainty.
`range` is `± <half the ci width>`, the action's own spelling for a spread.
"""

from __future__ import annotations

import re

import numpy as np

from benchtrack.history.format import js_number

SEP = "; "
# The exact shape `format_extra` writes: parsed for a whole runner at once (see parse_many).
_OURS = re.compile(
    r"^runner=([^;\n]*); cpus=(\d+); samples=(\d+); ci=([^;\n]*)\.\.([^;\n]*); suite=([^;\n]*)$",
    re.MULTILINE,
)


def format_extra(label: str, cpus: int, samples: int, ci: tuple[float, float], suite: str) -> str:
    lo, hi = ci
    return (
        f"runner={label}{SEP}cpus={cpus}{SEP}samples={samples}{SEP}"
        f"ci={js_number(lo)}..{js_number(hi)}{SEP}suite={suite}"
    )


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
    """`parse_range` of many; a vectorised conversion when all are `± <number>`."""
    try:
        return np.array([r.removeprefix("± ") for r in ranges]).astype(np.float64)
    except ValueError:
        return np.array([parse_range(r) for r in ranges], dtype=np.float64)


class Extras:
    """Parsed `extra` fields of many points, as arrays (NaN / -1 where a point lacks one)."""

    __slots__ = ("ci_hi", "ci_lo", "cpus", "labels", "samples", "suites")

    def __init__(self, n: int) -> None:
        self.ci_lo = np.full(n, np.nan)
        self.ci_hi = np.full(n, np.nan)
        self.samples = np.full(n, -1, dtype=np.int32)
        self.cpus = np.full(n, -1, dtype=np.int32)
        self.labels: list[str] = [""] * n
        self.suites: list[str] = [""] * n


def parse_many(extras: list[str]) -> Extras:
    """Parse every `extra` of a runner; one regex pass in C when all are in our own format."""
    out = Extras(len(extras))
    joined = "\n".join(extras)
    # One line per extra, or a multi-line extra of another tool could shift the rows.
    found = _OURS.findall(joined) if joined.count("\n") == len(extras) - 1 else []
    if len(found) == len(extras) and extras:
        table = np.array(found, dtype=object)
        out.labels = list(table[:, 0])
        out.cpus = table[:, 1].astype(np.int32)
        out.samples = table[:, 2].astype(np.int32)
        out.ci_lo = _floats(table[:, 3])
        out.ci_hi = _floats(table[:, 4])
        out.suites = list(table[:, 5])
        return out
    for i, extra in enumerate(extras):  # someone else's format, or a mix: one by one
        fields = parse_extra(extra)
        out.labels[i] = fields.get("runner", "")
        out.suites[i] = fields.get("suite", "")
        out.cpus[i] = _int(fields.get("cpus"))
        out.samples[i] = _int(fields.get("samples"))
        lo, _, hi = fields.get("ci", "").partition("..")
        out.ci_lo[i], out.ci_hi[i] = _float(lo), _float(hi)
    return out


def _floats(column: np.ndarray) -> np.ndarray:
    try:
        return column.astype(np.float64)
    except ValueError:
        return np.array([_float(v) for v in column])


def _float(text: str | None) -> float:
    try:
        return float(text) if text else float("nan")
    except ValueError:
        return float("nan")


def _int(text: str | None) -> int:
    return int(text) if text and text.isdigit() else -1
