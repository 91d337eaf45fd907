"""Both sides' builds made once and carried to other jobs (the shards of one runner size).

`gate --build-only FILE` checks out base and head, builds each suite on both sides (those of
`build_once = false` are left to each job) and writes FILE: one tar of the per-side caches
(target/gate/cache/{base,head}, where every suite's build puts what it makes: ${GATE_CACHE})
and a manifest, build.json, naming each side's sha, the config's digest, the suites built and
those that failed, and each side's digest of its cache.
`gate --prebuilt FILE` checks the manifest against its own base, head, suites and config before
anything is written (bad input, exit 2, naming the field), restores the caches, checks their
digests (another content: exit 3) and measures without running a build command.

Make and cargo judge a build fresh by comparing its sources' mtimes with its products': a fresh
checkout in another job has new mtimes, so the build job sets every tracked file of both
worktrees to one time, a second before its builds start, written in the manifest; the job that
restores sets its worktrees' files to the same time, and the tar keeps the products' own
(later) mtimes. Content-addressed caches (Go's) need none of it. docs/gate-builds.md has what
each toolchain gets.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import stat
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchtrack import git
from benchtrack.errors import BadInput, BenchmarkFailed
from benchtrack.fsutil import staged
from benchtrack.gate.model import SuiteFailure
from benchtrack.gate.worktree import Checkout

SCHEMA = "benchtrack.gate-builds/1"
MANIFEST = "build.json"
SIDES = ("base", "head")


class BuildMismatch(BenchmarkFailed):
    """The restored builds are not the ones the manifest describes: exit 3, nothing measured."""


@dataclass
class Prebuilt:
    """A builds file's manifest, and what gate.json's `prebuilt` says of it."""

    path: Path
    manifest: dict
    meta: dict = field(default_factory=dict)

    @property
    def failures(self) -> list[SuiteFailure]:
        """The suites that failed to build in the build job, as that job's gate recorded them."""
        return [
            SuiteFailure(f["side"], f["suite"], "build", f["tail"], Path(f["log"]))
            for f in self.manifest.get("failed", [])
        ]


def stamp(co: Checkout, when: int) -> None:
    """Every tracked file of `co`'s worktree given mtime `when` (links themselves, not targets)."""
    listed = git.raw(co.path, "ls-files", "-z").stdout.decode("utf-8", "surrogateescape")
    for name in filter(None, listed.split("\0")):
        path = co.path / name
        if path.is_symlink() or path.exists():
            os.utime(path, (when, when), follow_symlinks=False)


def sources_time(sides: tuple[Checkout, Checkout]) -> int:
    """Stamp both worktrees a second before now: the builds that follow are all newer."""
    when = int(time.time()) - 1
    for co in sides:
        stamp(co, when)
    return when


def digest(cache: Path) -> str:
    """sha256 over every entry under `cache`: its path, kind, owner-exec bit and content."""
    h = hashlib.sha256()
    if not cache.is_dir():
        return h.hexdigest()
    for path in sorted(cache.rglob("*")):
        st = path.lstat()
        name = path.relative_to(cache).as_posix()
        if stat.S_ISLNK(st.st_mode):
            h.update(f"L {name} -> {os.readlink(path)}\0".encode())
        elif stat.S_ISREG(st.st_mode):
            h.update(f"F {name} {st.st_size} {st.st_mode & 0o100:o}\0".encode())
            with path.open("rb") as f:
                while chunk := f.read(1 << 20):
                    h.update(chunk)
        elif stat.S_ISDIR(st.st_mode):
            h.update(f"D {name}\0".encode())
    return h.hexdigest()


def config_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pack(
    out: Path,
    shas: dict[str, str],
    sides: tuple[Checkout, ...],
    when: int,
    built: list[str],
    failures: list[SuiteFailure],
    config: str,
    seconds: float,
    each: list[str] = (),
) -> dict:
    """`out`: the manifest first, then each side's cache under cache/<side>/, written whole or
    not at all (a temp file renamed). No sides: nothing was built (a PR the gate skips)."""
    manifest = {
        "schema": SCHEMA,
        "sources_mtime": when,
        "config_sha256": config,
        "suites": built,
        "built_by_each_job": list(each),  # build_once = false: not carried
        "failed": [
            {"side": f.side, "suite": f.suite, "tail": f.tail, "log": str(f.log)} for f in failures
        ],
        "build_seconds": round(seconds, 1),
        **{side: {"sha": sha} for side, sha in shas.items()},
    }
    for co in sides:
        manifest[co.side]["cache_sha256"] = digest(co.cache)
    with staged(out, b"") as tmp:
        with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
            data = json.dumps(manifest, indent=2).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime = len(data), time.time()
            tar.addfile(info, io.BytesIO(data))
            for co in sides:
                if co.cache.is_dir():
                    tar.add(co.cache, arcname=f"cache/{co.side}")
        os.replace(tmp, out)
    return manifest


def read(path: Path) -> Prebuilt:
    """The manifest of builds file `path` (bad input if it is not one)."""
    try:
        with tarfile.open(path) as tar:
            member = tar.next()
            if member is None or member.name != MANIFEST or not member.isfile():
                expected = f"a builds file (`gate --build-only`) opening with {MANIFEST}"
                raise BadInput(path, None, expected)
            manifest = json.load(tar.extractfile(member))
    except (OSError, tarfile.TarError, ValueError) as e:
        raise BadInput(path, None, f"a builds file written by `gate --build-only` ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA:
        got = manifest.get("schema") if isinstance(manifest, dict) else manifest
        raise BadInput(path, f"{MANIFEST}: schema", SCHEMA, got)
    meta = {"file": path.name, "build_seconds": manifest.get("build_seconds")}
    return Prebuilt(path, manifest, meta)


def check(pre: Prebuilt, shas: dict[str, str], suites: list[str], config: str) -> None:
    """The builds are this gate's: each side's sha, the config, and every suite it runs; and
    the manifest holds what restoring them reads."""
    m, where = pre.manifest, f"{pre.path}: {MANIFEST}"
    for side in SIDES:
        doc = m.get(side) if isinstance(m.get(side), dict) else {}
        if doc.get("sha") != shas[side]:
            raise BadInput(
                where, f"{side}.sha", f"{shas[side]} (this gate's {side})", doc.get("sha")
            )
        if not isinstance(doc.get("cache_sha256"), str):
            raise BadInput(where, f"{side}.cache_sha256", "the digest of the side's cache", None)
    if m.get("config_sha256") != config:
        expected = f"{config} (this gate's benchtrack.toml)"
        raise BadInput(where, "config_sha256", expected, m.get("config_sha256"))
    if not isinstance(m.get("sources_mtime"), int):
        raise BadInput(
            where, "sources_mtime", "the sources' time, an integer", m.get("sources_mtime")
        )
    seconds = m.get("build_seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
        raise BadInput(where, "build_seconds", "the build job's seconds, >= 0", seconds)
    names = [*_strings(m, "suites", where), *_strings(m, "built_by_each_job", where)]
    failed = m.get("failed", [])
    keys = ("side", "suite", "tail", "log")
    if not isinstance(failed, list) or not all(
        isinstance(f, dict) and all(isinstance(f.get(k), str) for k in keys) for f in failed
    ):
        raise BadInput(where, "failed", "a list of {side, suite, tail, log}", failed)
    made = set(names) | {f["suite"] for f in failed}
    missing = [s for s in suites if s not in made]
    if missing:
        expected = f"every suite this gate runs ({', '.join(missing)} not built)"
        raise BadInput(where, "suites", expected, sorted(made))


def _strings(m: dict, key: str, where: str) -> list[str]:
    got = m.get(key, [])
    if not isinstance(got, list) or not all(isinstance(x, str) for x in got):
        raise BadInput(where, key, "a list of suite names", got)
    return got


def restore(pre: Prebuilt, sides: tuple[Checkout, Checkout]) -> None:
    """Each side's cache as the build job left it (what was there is replaced), and its
    worktree's files at the manifest's time; a cache whose digest is not the manifest's, or
    that cannot be restored, is removed and refused (exit 3)."""
    m = pre.manifest
    try:
        with tarfile.open(pre.path) as tar:
            members = _members(tar, pre.path)
            for co in sides:
                stamp(co, m["sources_mtime"])
                shutil.rmtree(co.cache, ignore_errors=True)
            tar.extractall(sides[0].cache.parent.parent, members=members, filter="tar")
    except (OSError, tarfile.TarError) as e:
        _refuse(sides, f"{pre.path}: the builds could not be restored ({e}); nothing measured")
    for co in sides:
        co.cache.mkdir(parents=True, exist_ok=True)
        got, want = digest(co.cache), m[co.side]["cache_sha256"]
        if got != want:
            _refuse(
                sides,
                f"{pre.path}: the {co.side} cache restored has digest {got}, its manifest says "
                f"{want}: not the build of {co.sha[:12]}; nothing measured",
            )


def _members(tar: tarfile.TarFile, path: Path) -> list[tarfile.TarInfo]:
    """The caches' members, read before any cache is touched: bad input unless each is under
    cache/<side>/ and the archive runs to its end-of-archive blocks (a cut file, an upload that
    stopped, lists what it still holds and ends early)."""
    try:
        members = [x for x in tar if x.name != MANIFEST]
        tar.fileobj.seek(tar.offset)
        end = tar.fileobj.read(2 * tarfile.BLOCKSIZE)
    except (OSError, tarfile.TarError) as e:
        raise BadInput(path, None, f"a whole builds file (truncated? {e})") from None
    if len(end) < 2 * tarfile.BLOCKSIZE or end.strip(b"\0"):
        raise BadInput(path, None, "a whole builds file (this one ends early: truncated)")
    for x in members:
        parts = x.name.split("/")
        if parts[0] != "cache" or len(parts) < 2 or parts[1] not in SIDES:
            raise BadInput(path, x.name, "cache/base/… or cache/head/… only")
    return members


def _refuse(sides: tuple[Checkout, Checkout], message: str) -> None:
    for co in sides:
        shutil.rmtree(co.cache, ignore_errors=True)
    raise BuildMismatch(message)
