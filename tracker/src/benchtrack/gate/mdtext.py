"""Untrusted text in Markdown that GitHub renders (a PR comment): an inline code span, the
inside of a fenced block, or a percentage of any size.

Inside a code span GitHub renders no HTML, links no URL and notifies no @mention; what could end
the span or the table it sits in (a backtick, `|`, a line break) is replaced, and the text cut at
`limit` characters. What a reader cannot see is shown as an escape, `\\u202e`: control characters
(C0, C1), format characters (bidi overrides and isolates, zero-width spaces and joiners, tags) and
line or paragraph separators, so a name cannot read backwards or hide text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable

# Cc: C0 and C1 controls; Cf: bidi, zero-width, tags, soft hyphen; Zl/Zp: U+2028/U+2029;
# Cs/Co/Cn: surrogates, private use and unassigned code points, which no font shows as they are.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_SPAN = {"`": "'", "|": "¦"}
_SUSPECT = re.compile(r"[^ -~]|[`|]")  # printable ASCII passes untouched (fast)
_SUSPECT_IN_BLOCK = re.compile(r"[^ -~\n\t]")
_SUSPECT_IN_PLAIN = re.compile(r"[^ -~]")
_FENCE = re.compile(r"`{3,}")  # a backtick fence ends only at a run of 3+ backticks


def visible(ch: str) -> str:
    """`ch`, or its escape when a reader would not see it as it is."""
    if unicodedata.category(ch) not in _HIDDEN:
        return ch
    n = ord(ch)
    return f"\\u{n:04x}" if n <= 0xFFFF else f"\\U{n:08x}"


def _in_span(m: re.Match[str]) -> str:
    return _SPAN.get(m.group()) or visible(m.group())


def _cut(
    text: object, limit: int, suspect: re.Pattern[str], shown: Callable[[re.Match[str]], str]
) -> str:
    """`text` stripped, each `suspect` character `shown`, at most `limit` characters ("…" where
    cut, between characters: an escape is never split)."""
    raw = str(text).strip()[: limit + 1]
    flat = suspect.sub(shown, raw)
    if len(flat) > limit:
        pieces = [suspect.sub(shown, c) for c in raw]
        size = len(flat)
        while size > limit - 1:
            size -= len(pieces.pop())
        flat = "".join(pieces) + "…"
    return flat


def code(text: object, limit: int = 120) -> str:
    return f"`{_cut(text, limit, _SUSPECT, _in_span) or ' '}`"


def plain(text: object, limit: int = 120) -> str:
    """`text` for a page that sets it as text, not Markdown (the dashboard): no span needed, only
    what a reader cannot see escaped, cut as `code` cuts."""
    return _cut(text, limit, _SUSPECT_IN_PLAIN, lambda m: visible(m.group()))


def block(text: str) -> str:
    """The lines of a ``` fenced code block: no run of backticks that could end the fence, hidden
    characters escaped (line breaks and tabs kept)."""
    shown = _SUSPECT_IN_BLOCK.sub(lambda m: visible(m.group()), text)
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
