"""Build the gh-pages dashboard from a history (`benchtrack site HISTORY --out DIR`): the history
read (dashboard/read.py), its index derived (dashboard/derive.py), the site written here.

The published site is the dashboard shipped inside this package (`benchtrack/dashboard/`: the page,
its scripts and style, and the chart library uPlot vendored under `vendor/`, checked against the
npm tarball `gh-pages/package-lock.json` locks) plus a compact index derived from the history,
written beside `bench/`:

    OUT/index.html                      the dashboard (opens from file:// and from GitHub Pages)
    OUT/dashboard/js/*.js, style.css    its code (classic scripts, loaded in order by index.html)
    OUT/dashboard/vendor/uPlot.*        the chart library (and its licence)
    OUT/dashboard/data/index.js         window.BENCHTRACK_INDEX: runners, commits (deduplicated
                                        across runners), suites/groups/benchmarks, latest and
                                        previous values with their ± half-widths,
                                        change points for the markers and the Regressions list
                                        (from bench/changes.json when present)
    OUT/dashboard/data/g/<group>.js     one per suite/group, loaded lazily when the group scrolls
                                        into view: per benchmark and runner, delta-coded commit
                                        indices, values (6 significant digits) and range half-widths
    OUT/dashboard/data/archive/         only when a runner has a bench/<runner-key>/archive.js:
        index.js                        window.BENCHTRACK_ARCHIVE: the commits of the whole
                                        history (data.js and archive.js), where each commit of
                                        index.js sits among them, and the change points on it
        g/<group>.js                    each group's series over the whole history, loaded only
                                        after "load older history"
    OUT/bench/<runner-key>/data.js      untouched when OUT is the history itself; a byte copy
      (and archive.js)                  otherwise, so the site is whole

The index and data/g/ draw each data.js alone (what retention keeps: the recent history), so the
first screen stays small however long the history; the archived points are separate files that
only the "load older history" control loads (gh-pages/README.md has the contract).

Data files are JavaScript (`window.X = {...}`) because a page opened from file:// cannot fetch()
JSON in Chromium, but it can load a <script>. A `data.js` is never rewritten.

Every file is a function of the history alone (no wall-clock stamp): rebuilding an unchanged
history writes the same bytes, so the publish job has nothing to commit.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from benchtrack.dashboard.archive import ARCHIVE_INDEX, derive_archive
from benchtrack.dashboard.derive import derive
from benchtrack.dashboard.read import SiteHistory
from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.history.archive import ARCHIVE_JS

# What of the source tree is not published: the vendored library's provenance, which a test reads.
_NOT_PUBLISHED = {Path("vendor/uplot.json")}
_REQUIRED = ("index.html", "vendor/uPlot.iife.min.js", "vendor/uPlot.min.css")


def _is_python(rel: Path) -> bool:
    return rel.suffix == ".py" or "__pycache__" in rel.parts


def default_source() -> Path:
    """The dashboard shipped in this package (`benchtrack/dashboard/`), wherever it is installed."""
    return Path(__file__).resolve().parent


def _write(path: Path, data: bytes) -> None:
    """atomic_write, readable by a web server (mkstemp creates 0600)."""
    atomic_write(path, data)
    os.chmod(path, 0o644)


def _js(global_expr: str, obj: Any) -> bytes:
    return global_expr.encode() + orjson.dumps(obj) + b";\n"


@dataclass
class BuildReport:
    out: Path
    runners: int
    benchmarks: int
    commits: int
    index_bytes: int
    group_bytes: int
    overview_bytes: int  # the index is not included
    archive_bytes: int  # data/archive/: loaded only by "load older history"
    data_js_bytes: int
    copied_data_js: int
    changes: int

    def as_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}


def build_site(
    history: SiteHistory, out: Path, source: Path | None = None, order: tuple[str, ...] = ()
) -> BuildReport:
    """Write the dashboard for `history` into `out` (see the module doc for the layout); `order`:
    the suites' order (derive's `suite_order`)."""
    source = source or default_source()
    missing = [rel for rel in _REQUIRED if not (source / rel).is_file()]
    if missing:
        raise BadInput(source / missing[0], None, "a dashboard source tree (benchtrack/dashboard/)")
    site = derive(history, suite_order=order)
    archive = derive_archive(history, site, suite_order=order)
    out.mkdir(parents=True, exist_ok=True)
    dash = out / "dashboard"

    # The source: index.html at the top, everything else (code, style, vendor/) under dashboard/.
    code = set()
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        # the page's assets only: the Python that builds it shares the folder, not the site
        if path.is_dir() or rel in _NOT_PUBLISHED or _is_python(rel):
            continue
        target = out / rel if rel == Path("index.html") else dash / rel
        _write(target, path.read_bytes())
        code.add(target)
    # What an older build wrote that the source no longer has (dashboard/app.js before it was
    # split into js/): dashboard/ is derived, so a build over an old site equals a fresh one. Its
    # data/ is kept in step on its own.
    for path in sorted(dash.rglob("*")):
        if path.is_file() and path.relative_to(dash).parts[0] != "data" and path not in code:
            path.unlink()

    # Group payloads first, the index last: a reader never sees an index naming a missing file.
    sizes = _write_groups(dash / "data" / "g", site.groups)
    group_bytes = sum(sizes.values())
    # what the overview loads: each group's overview file, or its full file when it has none
    overview_bytes = sum(
        sizes[group.get("ofile", group["file"])]
        for suite in site.index["suites"]
        for group in suite["groups"]
    )
    archive_bytes = 0
    adir = dash / "data" / "archive"
    if archive is not None:
        archive_bytes = sum(_write_groups(adir / "g", archive.groups).values())
        blob = _js("window.BENCHTRACK_ARCHIVE=", archive.index)
        _write(dash / ARCHIVE_INDEX, blob)
        archive_bytes += len(blob)
    elif adir.is_dir():  # the history no longer has an archive: neither has the site
        _write_groups(adir / "g", {})
        (dash / ARCHIVE_INDEX).unlink(missing_ok=True)

    # data.js: never rewritten; copied byte for byte when the site is built elsewhere.
    copied = 0
    data_bytes = 0
    same_place = history.root is not None and _same_dir(history.root, out)
    for entry in site.index["runners"]:
        kept = history.data_js(entry["key"], ARCHIVE_JS)
        entry["archive"] = f"bench/{entry['key']}/{ARCHIVE_JS}" if kept else None
        raw = history.data_js(entry["key"])
        if raw is None:
            entry["data"] = None  # not on disk (a git history the reader did not check out)
            continue
        data_bytes += raw.stat().st_size
        if same_place:
            continue
        for name, path in (("data.js", raw), (ARCHIVE_JS, kept)):
            if path is None:
                continue
            target = out / "bench" / entry["key"] / name
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{name}.copy.tmp")
            shutil.copyfile(path, tmp)
            os.replace(tmp, target)
        copied += 1
    if not same_place and history.changes_source:
        _write(out / "bench" / "changes.json", history.changes_source.read_bytes())
    if not same_place and history.checks_source:
        _write(out / "bench" / "confirmations.json", history.checks_source.read_bytes())

    index_blob = _js("window.BENCHTRACK_INDEX=", site.index)
    _write(dash / "data" / "index.js", index_blob)
    return BuildReport(
        out=out,
        runners=len(site.index["runners"]),
        benchmarks=site.index["benchmarks"],
        commits=len(site.index["commits"]["id"]),
        index_bytes=len(index_blob),
        group_bytes=group_bytes,
        overview_bytes=overview_bytes,
        archive_bytes=archive_bytes,
        data_js_bytes=data_bytes,
        copied_data_js=copied,
        changes=len(site.index["changes"]),
    )


def _write_groups(gdir: Path, groups: dict[str, tuple[str, str]]) -> dict[str, int]:
    """Each group payload as `gdir/<file>` (file -> its size); files of older builds removed."""
    sizes: dict[str, int] = {}
    for file, (key, text) in groups.items():
        blob = (
            "(window.BENCHTRACK_DATA=window.BENCHTRACK_DATA||{})["
            f"{orjson.dumps(key).decode()}]={text};\n"
        ).encode()
        _write(gdir / file, blob)
        sizes[file] = len(blob)
    for stale in gdir.glob("*.js"):
        if stale.name not in groups:
            stale.unlink()
    return sizes


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
