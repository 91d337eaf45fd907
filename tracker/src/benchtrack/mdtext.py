"""Untrusted text in Markdown that GitHub renders (a PR comment): always an inline code span.

Inside a code span GitHub renders no HTML, links no URL and notifies no @mention; what could end
the span or the table it sits in (a backtick, `|`, a line break) is replaced, control characters
dropped, and the text cut at `limit` characters."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def code(text: object, limit: int = 120) -> str:
    flat = _CONTROL.sub(" ", str(text)).replace("`", "'").replace("|", "¦").strip()
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return f"`{flat or ' '}`"
