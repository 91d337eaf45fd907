"""`bench/confirmations.json` (schema `benchtrack.confirmations/1`): every lockstep check of a
change-point event, beside changes.json on gh-pages.

changes.json is derived and rewritten on every publish; this file is not: each check took minutes
of a runner, so it is append-only. `append` reads the file (validated: a damaged one stops the
run, exit 2, and is never overwritten), adds the new checks after the old ones and writes it
atomically; nothing is ever removed or changed. A check is keyed by what it measured: the
benchmark, the runner size, and the two commits of the A/B (`base`, `head`), so an event that
detect later regroups or moves is checked again rather than matched to another's result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write

SCHEMA = "benchtrack.confirmations/1"
FILENAME = "confirmations.json"  # <history>/bench/confirmations.json, beside changes.json
OUTCOMES = ("regression", "improvement", "noise")
STRINGS = ("event", "benchmark", "runner", "base", "head", "expected", "outcome", "checked")


def path_of(history: Path) -> Path:
    return history / "bench" / FILENAME


def key(check: Mapping[str, Any]) -> tuple[str, str, str, str]:
    return (check["benchmark"], check["runner"], check["base"], check["head"])


def _check(path: Path, i: int, item: Any) -> dict[str, Any]:
    where = f"checks[{i}]"
    if not isinstance(item, dict):
        raise BadInput(path, where, "an object", type(item).__name__)
    for name in STRINGS:
        if not isinstance(item.get(name), str) or not item[name]:
            raise BadInput(path, f"{where}.{name}", "a non-empty string", item.get(name))
    if item["outcome"] not in OUTCOMES:
        raise BadInput(path, f"{where}.outcome", " | ".join(OUTCOMES), item["outcome"])
    if item["expected"] not in OUTCOMES[:2]:
        raise BadInput(path, f"{where}.expected", "regression | improvement", item["expected"])
    if not isinstance(item.get("confirmed"), bool):
        raise BadInput(path, f"{where}.confirmed", "true or false", item.get("confirmed"))
    if item["confirmed"] != (item["outcome"] == item["expected"]):
        raise BadInput(path, f"{where}.confirmed", "outcome == expected", item["confirmed"])
    rows = item.get("rows")
    if not isinstance(rows, list) or not all(
        isinstance(r, dict) and isinstance(r.get("series"), str) for r in rows
    ):
        raise BadInput(path, f"{where}.rows", "a list of {series, verdict, change, lo, hi}")
    culprit = item.get("culprit")
    if culprit is not None and not (isinstance(culprit, dict) and culprit.get("commit")):
        raise BadInput(path, f"{where}.culprit", "null or {commit, pr, steps}", culprit)
    return item


def read(path: Path) -> list[dict[str, Any]]:
    """Every check in the file, oldest first; none when there is no file. Bad input: exit 2
    naming the file and the field."""
    if not path.exists():
        return []
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, f"{SCHEMA} JSON", str(error)) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise BadInput(path, "schema", repr(SCHEMA), found)
    checks = doc.get("checks")
    if not isinstance(checks, list):
        raise BadInput(path, "checks", "a list of checks", type(checks).__name__)
    return [_check(path, i, item) for i, item in enumerate(checks)]


def append(path: Path, new: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Add `new` after the file's checks (each validated first: nothing is written when one is
    bad); return the whole list. The file's own checks are read back as they were."""
    old = read(path)
    added = [_check(path, len(old) + i, dict(c)) for i, c in enumerate(new)]
    if not added:
        return old
    checks = old + added
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"schema": SCHEMA, "checks": checks}
    atomic_write(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    return checks


def latest(checks: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str, str], Mapping]:
    """The last check of each (benchmark, runner, base, head): a re-check wins."""
    return {key(c): c for c in checks}
