"""The Regressions list's events: change points grouped one event a change (detect/events.py),
each with what the lockstep checks (bench/confirmations.json) make of it; derive.py puts them in
the index."""

from __future__ import annotations

from pathlib import Path

from benchtrack.confirm import status as confirm_status
from benchtrack.confirm import store as confirm_store
from benchtrack.dashboard.read import SiteHistory
from benchtrack.detect import events


def change_events_of(
    history: SiteHistory, position: dict[str, int], changes: list[dict]
) -> list[dict]:
    """One event per change (detect/events.py) over the change points the index lists, each
    with what the lockstep checks (bench/confirmations.json) make of it: `status` confirmed,
    noise (checked, never counted) or candidate; its checks' figures; the commit a bisect named.
    `parts` are indices into `changes` (the index's list), each part's figures kept there."""
    listed = {(c["series"], c["runner"], c["commit"]): k for k, c in enumerate(changes)}
    known = [c for c in history.changes if (c["series"], c["runner"], c["commit"]) in listed]
    checks = confirm_store.latest(history.checks)
    out = []
    for e in events.group(known, position):
        told = confirm_status.of(e, checks)
        culprit = told["culprit"]
        parts = [listed[(p["series"], p["runner"], p["commit"])] for p in e["parts"]]  # indices
        out.append(
            {
                "id": e["id"],
                "benchmark": e["benchmark"],
                "regression": e["regression"],
                "commit": e["commit"],
                "i": position[e["commit"]],
                "runners": e["runners"],
                "change": e["change"],
                "new": any(changes[k]["new"] for k in parts),
                # in a series' newest runs only (detect/tip.py): confirmed the night it lands
                **({"tip": True} if all(changes[k].get("tip") for k in parts) else {}),
                "parts": parts,
                "status": told["status"],
                "checks": [
                    {
                        "runner": c["runner"],
                        "outcome": c["outcome"],
                        "confirmed": c["confirmed"],
                        "rows": [
                            {k: r.get(k) for k in ("series", "verdict", "change", "lo", "hi")}
                            for r in c.get("rows", [])
                        ],
                        "run": c.get("run"),
                        "checked": c["checked"],
                        "why": confirm_status.why(c, history.checks_source or Path()),
                    }
                    for c in told["checks"]
                ],
                "culprit": None
                if culprit is None
                else {
                    "commit": culprit["commit"],
                    "i": position.get(culprit["commit"]),
                    "pr": culprit.get("pr"),
                    "subject": culprit.get("subject", ""),
                },
            }
        )
    return out
