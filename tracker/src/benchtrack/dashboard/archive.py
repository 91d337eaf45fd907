"""The archived history's own files: what "load older history" loads (dashboard/data/archive/),
derived from the whole history (data.js and archive.js) by dashboard/derive.py."""

from __future__ import annotations

from benchtrack.dashboard.derive import SCHEMA, SiteData, derive
from benchtrack.dashboard.read import SiteHistory

ARCHIVE_INDEX = "data/archive/index.js"
ARCHIVE_KEY = "#archive"  # a payload's key in window.BENCHTRACK_DATA: `<group key>[#o]#archive`


def derive_archive(
    history: SiteHistory, recent: SiteData, suite_order: tuple[str, ...] = ()
) -> SiteData | None:
    """The files "load older history" loads, for a history with archived entries (None if it has
    none): the commit table of the whole history, each of `recent`'s commits' place in it (so the
    page keeps every index it holds valid), the change points on it, and each group's series over
    it. Fills in `recent.index["archive"]`, which tells the page there is more."""
    if history.whole is None:
        return None
    whole = derive(
        SiteHistory(
            history.whole,
            history.root,
            history.changes,
            changes_meta=history.changes_meta,
            checks=history.checks,
        ),
        suite_order,
    )
    commits = whole.index["commits"]
    at = {c: i for i, c in enumerate(commits["id"])}
    points = sum(r["points"] for r in whole.index["runners"]) - sum(
        r["points"] for r in recent.index["runners"]
    )
    recent_ids = set(recent.index["commits"]["id"])
    recent.index["archive"] = {
        "index": ARCHIVE_INDEX,
        "commits": len(commits["id"]) - len(recent_ids),
        "points": points,
        "first": commits["t"][0] if commits["t"] else None,
        # the change points only the archive holds: the Regressions list says how many
        "changes": sum(c["commit"] not in recent_ids for c in whole.index["changes"]),
    }
    index = {
        "schema": SCHEMA,
        "commits": commits,
        "recent": [at[c] for c in recent.index["commits"]["id"]],
        "changes": whole.index["changes"],
        "events": whole.index["events"],
        "runners": [{k: r[k] for k in ("key", "points", "runs")} for r in whole.index["runners"]],
        "groups": {
            g["key"]: {k: g[k] for k in ("file", "ofile") if k in g}
            for suite in whole.index["suites"]
            for g in suite["groups"]
        },
    }
    groups = {file: (key + ARCHIVE_KEY, text) for file, (key, text) in whole.groups.items()}
    return SiteData(index=index, groups=groups)
