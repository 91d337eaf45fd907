"""Untrusted text in Markdown that GitHub renders (the job summary, a PR comment): inline code,
the inside of a fenced block, or a percentage of any size.

`code` is the one way a name (a benchmark's, a function's, a syscall's) or a message enters
Markdown, in a table cell as in a paragraph or a list: inside a code span GitHub renders no
HTML, emphasis or link and notifies no @mention, and what could end the span or the table it sits
in is taken care of without changing what a reader sees: the span's fence is longer than any
run of backticks the text holds, and a `|` stands between spans, escaped (`\\|`: a table does not
split a row there, a paragraph shows `|`). What a reader cannot see is shown as an escape,
`\\u202e`: control characters (C0, C1), format characters (bidi overrides and isolates,
zero-width spaces and joiners, tags) and line or paragraph separators, so a text cannot read
backwards or hide text; past `limit` characters it is cut, saying so (…). A name of the contract
(benchtrack.result.NAME_RULE) is never cut and reads as it is, but for its invisible characters'
escapes.
"""

from __future__ import annotations

import math
import re
import unicodedata

from benchtrack.result import MAX_NAME

# Cc: C0 and C1 controls; Cf: bidi, zero-width, tags, soft hyphen; Zl/Zp: U+2028/U+2029;
# Cs/Co/Cn: surrogates, private use and unassigned code points, which no font shows as they are.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SUSPECT_IN_BLOCK = re.compile(r"[^ -~\n\t]")
_SUSPECT = re.compile(r"[^ -~]")  # printable ASCII passes untouched (fast)
_FENCE = re.compile(r"`{3,}")  # a backtick fence ends only at a run of 3+ backticks
_TICKS = re.compile(r"`+")
KEY_CHARS = MAX_NAME + 20  # a series key: a name and ` (<series>)` (benchtrack.suites.SERIES)


def visible(ch: str) -> str:
    """`ch`, or its escape when a reader would not see it as it is."""
    if unicodedata.category(ch) not in _HIDDEN:
        return ch
    n = ord(ch)
    return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"


def _shown(m: re.Match[str]) -> str:
    return visible(m.group())


def _cut(raw: str, limit: int) -> str:
    """`raw`, each hidden character shown as its escape, at most `limit` characters ("…" where
    cut, between characters: an escape is never split)."""
    raw = raw[: limit + 1]
    flat = _SUSPECT.sub(_shown, raw)
    if len(flat) > limit:
        pieces = [_SUSPECT.sub(_shown, c) for c in raw]
        size = len(flat)
        while size > limit - 1:
            size -= len(pieces.pop())
        flat = "".join(pieces) + "…"
    return flat


def code(text: object, limit: int = KEY_CHARS) -> str:
    """`text` as inline code that reads as `text` wherever it stands (module docstring)."""
    shown = _cut(str(text), limit)
    return "\\|".join(_span(piece) for piece in shown.split("|")) if shown else "` `"


def _span(text: str) -> str:
    """One code span of `text` (no `|` in it): fenced by one backtick more than its longest
    run, padded with a space each side where CommonMark would otherwise eat a backtick or a
    space of it (it drops one space each side when both ends have one)."""
    if not text:
        return ""
    fence = "`" * (max(map(len, _TICKS.findall(text)), default=0) + 1)
    ends = text[0] + text[-1]
    pad = " " if "`" in ends or (ends == "  " and text.strip(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plain(text: object, limit: int = 120) -> str:
    """`text` for a page that sets it as text, not Markdown (the dashboard): no span needed, only
    what a reader cannot see escaped, cut as `code` cuts."""
    return _cut(str(text).strip(), limit)


def block(text: str) -> str:
    """The lines of a ``` fenced code block: no run of backticks that could end the fence, hidden
    characters escaped (line breaks and tabs kept)."""
    shown = _SUSPECT_IN_BLOCK.sub(_shown, text)
    return _FENCE.sub(lambda m: "'" * len(m.group()), shown)


PCT_BOUND = 999  # past ±999% a change is told by its bound: an interval's end can be any number


def pct(x: float) -> str:
    """A change as a signed percentage, at most 7 characters: +4.2%, > +999%, < -999%, ∞, —."""
    if not math.isfinite(x):
        return "—" if math.isnan(x) else "∞" if x > 0 else "−∞"
    if x * 100 > PCT_BOUND:
        return f"> +{PCT_BOUND}%"
    if x * 100 < -PCT_BOUND:
        return f"< -{PCT_BOUND}%"
    return f"{x * 100:+.1f}%"
