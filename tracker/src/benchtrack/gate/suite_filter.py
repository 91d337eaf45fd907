"""The gate suites a name filter leaves something to measure, known before anything is built.

A gate run with `--filter` (or BENCH_FILTER) applies the filter on top of each suite's own
harness filter, so a filter naming one benchmark would still build every selected suite, start
its workers each round and warm its benchmarks up, for nothing. When the filter is a list of
exact names (`^(?:a|b)$` of escaped names, what `benchtrack confirm` and the gate's own second
stage write: gate/confirm.names_filter), a suite whose own BENCH_FILTER finds none of those names
(searched in the full name or in the name without its first segment, the two ways a harness
names its benchmarks: gate/confirm.names_filter) cannot measure any of them, and is left out
before the builds.

What cannot be told from the configuration alone keeps the suite, as before: a filter that is
not a list of exact names, a suite without a filter of its own, one whose filter Python cannot
read. And when no suite would be left, all are kept: the harnesses then say what they hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchtrack.suites import Suite

_LITERAL = re.compile(r"(?:\\.|[^\\.^$*+?{}\[\]|()])+")  # escaped characters, or plain ones


def exact_names(pattern: str) -> list[str] | None:
    """The names a filter of exact names selects (`^(?:a|b)$` or `^a$`, each name escaped as
    re.escape does), or None for any other regular expression."""
    if pattern.startswith("^(?:") and pattern.endswith(")$"):
        parts = _split(pattern[4:-2])
    elif pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$"):
        parts = [pattern[1:-1]]  # one name: a `|` in it is not a literal, and fails below
    else:
        return None
    names = []
    for part in parts:
        if not part or _LITERAL.fullmatch(part) is None:
            return None
        names.append(re.sub(r"\\(.)", r"\1", part))
    return names


def _split(body: str) -> list[str]:
    """`body` split at its unescaped `|`."""
    parts, current, i = [], "", 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            current += body[i : i + 2]
            i += 2
            continue
        if body[i] == "|":
            parts.append(current)
            current = ""
        else:
            current += body[i]
        i += 1
    return [*parts, current]


def can_hold(suite: Suite, names: Sequence[str]) -> bool:
    """Whether `suite` may measure one of `names`: True unless its own BENCH_FILTER finds none
    of them, in either form a harness names a benchmark."""
    own = suite.env.get("BENCH_FILTER", "").strip()
    if not own:
        return True
    try:
        harness = re.compile(own)
    except re.error:
        return True  # another engine's syntax (Perl's, Rust's): the harness decides
    return any(harness.search(form) for n in names for form in (n, n.split("/", 1)[-1]))


def narrow(suites: Sequence[Suite], name_filter: str | None) -> tuple[list[Suite], list[str]]:
    """(the suites to build and measure, the names of those left out: the filter leaves them
    nothing)."""
    names = exact_names(name_filter) if name_filter else None
    if not names:
        return list(suites), []
    kept = [s for s in suites if can_hold(s, names)]
    if not kept:
        return list(suites), []
    left = {s.name for s in kept}
    return kept, [s.name for s in suites if s.name not in left]
