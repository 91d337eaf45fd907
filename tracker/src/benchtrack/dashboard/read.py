"""Reading a history for the dashboard: every runner's data.js (through benchtrack.history, the
history store's reader), archive.js when there is one, and bench/changes.json."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchtrack.confirm import store as confirm_store
from benchtrack.errors import BadInput
from benchtrack.history.archive import ARCHIVE_JS


@dataclass
class SiteHistory:
    model: Any  # benchtrack.history.model.History of the data.js files: what the page draws first
    root: Path | None  # the history directory on disk (None for a history that is not)
    changes: list[dict[str, Any]] = field(default_factory=list)
    changes_source: Path | None = None
    changes_generated: str | None = None  # changes.json's `generated`: when detect last wrote it
    # changes.json's runs needed per series (2 x config.min_segment) and series too short to judge
    changes_meta: dict[str, int] = field(default_factory=dict)
    whole: Any = None  # with each archive.js read in (None: no runner has an archive)
    # bench/confirmations.json's checks (benchtrack.confirm.store), oldest first
    checks: list[dict[str, Any]] = field(default_factory=list)
    checks_source: Path | None = None

    def data_js(self, key: str, name: str = "data.js") -> Path | None:
        path = self.root / "bench" / key / name if self.root else None
        return path if path is not None and path.is_file() else None


@contextmanager
def open_history(spec: str) -> Iterator[SiteHistory]:
    """Read every runner's data.js (and bench/changes.json) of a history directory or git branch.

    A git history is read from a temporary checkout (the store's own), which lives as long as the
    context: the site copies its data.js and changes.json from there.
    """
    from benchtrack import history as history_mod

    store = history_mod.open_store(spec)
    if isinstance(store, history_mod.GitStore):
        with store.checkout() as work:
            if work is None:
                raise BadInput(spec, None, "an existing branch with bench/<runner-key>/data.js")
            yield _site_history(history_mod.open_store(str(work)), work, spec)
        return
    yield _site_history(store, Path(spec), spec)


def _site_history(store: Any, root: Path, spec: str) -> SiteHistory:
    model = store.read(archive=False)
    if not model.runners:
        raise BadInput(root / "bench", None, "at least one bench/<runner-key>/data.js")
    archived = any((root / "bench" / key / ARCHIVE_JS).is_file() for key in model.runners)
    changes, source, generated, meta = _read_changes(root)
    checks_path = confirm_store.path_of(root)
    return SiteHistory(
        checks=confirm_store.read(checks_path),  # a damaged file: exit 2, naming the field
        checks_source=checks_path if checks_path.is_file() else None,
        model=model,
        root=root,
        changes=changes,
        changes_source=source,
        changes_generated=generated,
        changes_meta=meta,
        whole=store.read() if archived else None,
    )


def _finite(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else None


def _read_changes(
    root: Path,
) -> tuple[list[dict[str, Any]], Path | None, str | None, dict[str, int]]:
    """Change points flagged by `detect` (bench/changes.json, schema benchtrack.changes/1): a list
    of {series, runner, commit, change, direction, regression, before, after, first_seen} (only
    series, runner and commit are required), the file, its `generated` time, and the runs detect
    needs per series and how many series it skipped as too short; no changes when the file is
    absent."""
    path = root / "bench" / "changes.json"
    if not path.is_file():
        return [], None, None, {}
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, "valid JSON", str(error)) from None
    items = doc.get("changes", []) if isinstance(doc, dict) else doc
    # detect/tip.py's candidates in a series' newest runs, listed as change points marked `tip`
    tips = doc.get("tip", []) if isinstance(doc, dict) else []
    generated = doc.get("generated") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise BadInput(path, "changes", "a list of change points", type(items).__name__)
    if not isinstance(tips, list):
        raise BadInput(path, "tip", "a list of candidates at the tip", type(tips).__name__)
    out = []
    for field_name, i, item in [
        *(("changes", i, x) for i, x in enumerate(items)),
        *(("tip", i, x) for i, x in enumerate(tips)),
    ]:
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("series", "runner", "commit")
        ):
            raise BadInput(
                path, f"{field_name}[{i}]", "an object with series, runner and commit strings"
            )
        regression = item.get("regression")
        first_seen = item.get("first_seen")
        out.append(
            {
                "series": item["series"],
                "runner": item["runner"],
                "commit": item["commit"],
                "change": _finite(item.get("change")),
                "direction": str(item.get("direction") or ""),
                "regression": regression if isinstance(regression, bool) else None,
                "before": _finite(item.get("before")),
                "after": _finite(item.get("after")),
                "first_seen": first_seen if isinstance(first_seen, str) else None,
                "base": item["base"] if isinstance(item.get("base"), str) else "",
                "unit": str(item.get("unit") or ""),
                "tip": field_name == "tip",
            }
        )
    config = doc.get("config") if isinstance(doc, dict) else None
    segment = config.get("min_segment") if isinstance(config, dict) else None
    skipped = doc.get("skipped") if isinstance(doc, dict) else None
    meta = {
        "min_points": 2 * segment if isinstance(segment, int) and segment > 0 else 8,
        "skipped": len(skipped) if isinstance(skipped, list) else 0,
    }
    return out, path, generated if isinstance(generated, str) else None, meta
