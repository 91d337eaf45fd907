"""CI's publish job as plain functions, so a local test runs exactly what the workflow runs.

The job works inside the checked-out repository, whose `origin` carries the push credentials that
actions/checkout configured (a clone of our own would not have them):

1. `plan` over every runner size: fetch gh-pages into a local branch (creating it on the remote
   when it does not exist, since github-action-benchmark cannot), mend what a publish that went
   wrong left (`mend_branch`, below), refuse a history with any unreadable data.js (the action
   would silently start over from an empty one), export each size's result documents as the
   action's input, and name the sizes to store (a JSON list: the store job's matrix, so there is
   no limit on their number) and those that produced nothing. The tip it validated is kept in
   the checkout (`refs/benchtrack/validated`).
2. per size to store, one after another (each push moves gh-pages): `plan` again for that size
   alone, on the tip the previous size pushed, then the action once per direction (or
   `benchtrack append` locally), then `plan` once more: the action appends without looking, so
   this mends what it did (a commit recorded twice by two overlapping publishes; entries lost
   when it replaced a data.js that did not read with an empty one) against the tip validated
   before it, and validates the result.
3. `publish_site`: on a fresh checkout of gh-pages, move the entries the retention no longer
   keeps from each data.js to its archive.js (benchtrack.history.archive; only when
   `[history.retention]` is configured), write the change points and the dashboard beside the
   history files (never over them), commit, push; a rejected push starts over from the new tip,
   since the prune is a function of the files and everything else is derived.

So a second publish of a commit is a no-op (already recorded), or a repair: never a history
every later publish refuses.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path, PurePosixPath

import orjson

from benchtrack import git
from benchtrack.errors import BadInput, BenchtrackError
from benchtrack.history import DirStore, NewEntry, new_entries, open_store
from benchtrack.history.archive import ARCHIVE_JS
from benchtrack.history.export import check_one_run, merged_benchmarks
from benchtrack.history.mend import mend, outline_of
from benchtrack.history.retention import Retention
from benchtrack.result import ResultDocument

BRANCH = "gh-pages"
# The gh-pages tip the checkout's last plan validated: the next plan in the same checkout (the
# store job's, after the action) puts back any entry lost since.
VALIDATED = "refs/benchtrack/validated"


class PublishError(BenchtrackError):
    """git refused something the publish job needs (exit 2, nothing of ours pushed)."""


@dataclass
class Plan:
    sizes: list[str] = field(default_factory=list)  # keys to store, in matrix order
    missing: list[str] = field(default_factory=list)  # expected keys without results
    recorded: list[str] = field(default_factory=list)  # keys whose commit is already there
    repaired: list[str] = field(default_factory=list)  # what mend_branch changed, one line each

    def outputs(self) -> dict[str, str]:
        """Step outputs: `sizes` a compact JSON list (`fromJSON` in a matrix), `missing` words."""
        return {"sizes": orjson.dumps(self.sizes).decode(), "missing": " ".join(self.missing)}


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        return git.run(repo, *args, check=check)
    except git.GitError as e:  # the publish job's own error (exit 2, nothing of ours pushed)
        raise PublishError(str(e)) from None


def fetch_branch(repo: Path, remote: str = "origin", branch: str = BRANCH) -> None:
    """Make the local `branch` equal the remote's, creating the remote branch when it is new."""
    if not _git(repo, "ls-remote", "--heads", remote, branch).stdout.strip():
        empty_tree = _git(repo, "hash-object", "-t", "tree", "-w", "--stdin").stdout.strip()
        root = _git(repo, "commit-tree", empty_tree, "-m", "Create gh-pages for benchtrack")
        # Racing publishers: whoever pushes second is rejected and fetches the winner's branch.
        _git(repo, "push", remote, f"{root.stdout.strip()}:refs/heads/{branch}", check=False)
    _git(repo, "fetch", "--no-tags", remote, f"+refs/heads/{branch}:refs/heads/{branch}")


def snapshot(repo: Path, branch: str, dest: Path) -> Path:
    """The branch's files in `dest`, read-only use: the action must be able to switch to it."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if not _git(repo, "ls-tree", "--name-only", branch).stdout.strip():
        return dest  # a new, empty branch: git archive writes nothing tarfile can read
    archive = git.raw(repo, "archive", "--format=tar", branch)
    if archive.returncode != 0:
        raise PublishError(f"git archive {branch} failed in {repo}: {archive.stderr.decode()}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def plan(
    repo: Path, artifacts: Path, export_dir: Path, expected: list[str], snapshot_dir: Path
) -> Plan:
    fetch_branch(repo)
    found = results(artifacts, expected)
    result = Plan()
    tip, result.repaired = mend_branch(repo, snapshot_dir.with_name("gh-pages-mend"), found)
    history = snapshot(repo, tip, snapshot_dir)
    store = open_store(history)
    problems = store.validate()
    if problems:
        details = "; ".join(str(p) for p in problems[:5])
        raise BadInput(
            f"{BRANCH} branch", None, "every data.js readable (not publishing over it)", details
        )
    _git(repo, "update-ref", VALIDATED, tip)
    export_dir.mkdir(parents=True, exist_ok=True)
    runners = store.read().runners
    for key in expected:
        docs = found[key]
        if not docs:
            result.missing.append(key)
            continue
        # A re-run workflow must not reach the action: it would append the commit a second time.
        commit = docs[0][1].commit.id
        if key in runners and any(c.id == commit for c in runners[key].commits):
            result.recorded.append(key)
            continue
        for direction in ("bigger", "smaller"):
            records = merged_benchmarks(docs, direction)
            target = export_dir / f"{key}.{direction}.json"
            target.unlink(missing_ok=True)
            if records:  # the action refuses an empty list; the workflow skips a missing file
                target.write_bytes(orjson.dumps(records, option=orjson.OPT_INDENT_2))
        result.sizes.append(key)
    return result


Docs = list[tuple[str, ResultDocument]]


def results(artifacts: Path, expected: list[str]) -> dict[str, Docs]:
    """Each expected runner size's result documents with benchmarks (one run's), checked.

    download-artifact writes each artifact to `results-<key>/`, but a lone one's files straight
    into the directory: those are taken by the runner key they name."""
    loose: dict[str, list[Path]] = {}
    for path in sorted(artifacts.glob("*.json")):
        loose.setdefault(ResultDocument.load(path).runner.key, []).append(path)
    found: dict[str, Docs] = {}
    for key in expected:
        paths = sorted((artifacts / f"results-{key}").glob("*.json")) + loose.get(key, [])
        docs = [(str(p), ResultDocument.load(p)) for p in paths]
        docs = [(p, d) for p, d in docs if d.benchmarks]
        if docs:
            check_one_run(docs)
            if docs[0][1].runner.key != key:
                raise BadInput(docs[0][0], "runner", f"runner size {key}", docs[0][1].runner.key)
        found[key] = docs
    return found


def mend_branch(repo: Path, work: Path, found: dict[str, Docs]) -> tuple[str, list[str]]:
    """Put gh-pages right after a publish that went wrong; the tip it left, and what it did.

    In every data.js, the later copy of a commit recorded twice under one entry name is removed
    (two publishes of one commit whose store jobs overlapped). For the runner sizes of `found`:
    every entry that the tip this checkout validated last (VALIDATED), or a version since, held
    and the tip lost is put back (the action replaced a data.js that did not read with an empty
    one); and a commit of `found` recorded in one direction and not the other (a publish killed
    between its two pushes) gets the other from these results, as `benchtrack append` appends.
    Nothing is pushed when nothing needs it; a lost race does it all again on the new tip. A
    data.js that does not read is left as it is, for validation to refuse."""
    base = _git(repo, "rev-parse", "--verify", "-q", f"{VALIDATED}^{{commit}}", check=False)
    base_sha = base.stdout.strip() if base.returncode == 0 else ""
    tip, notes = "", []

    def attempt(_: int) -> str | None:
        nonlocal tip, notes
        fetch_branch(repo)
        tip = _git(repo, "rev-parse", f"refs/heads/{BRANCH}").stdout.strip()
        files, appends, notes = _mends(repo, tip, base_sha, found)
        if not files and not appends:
            return None
        _git(repo, "worktree", "remove", "--force", str(work), check=False)
        shutil.rmtree(work, ignore_errors=True)
        _git(repo, "worktree", "prune")
        _git(repo, "worktree", "add", "--detach", str(work), tip)
        try:
            for rel, data in files.items():
                (work / rel).write_bytes(data)
            if appends:
                DirStore(work, f"{BRANCH} branch").append(appends)
            _git(work, "add", "-A", "--", "bench")
            message = "benchtrack: repair the history\n\n" + "\n".join(f"- {n}" for n in notes)
            _git(work, "commit", "-q", "-m", message)
            pushed = _git(work, "push", "origin", f"HEAD:refs/heads/{BRANCH}", check=False)
            if pushed.returncode != 0:
                return pushed.stderr
            tip = _git(work, "rev-parse", "HEAD").stdout.strip()
            return None
        finally:
            _git(repo, "worktree", "remove", "--force", str(work), check=False)

    git.push_with_retry(
        attempt,
        lambda stderr, n: PublishError(
            f"push of the repaired history to {BRANCH} rejected {n} times: "
            f"{git.what_the_remote_said(stderr)}"
        ),
    )
    return tip, notes


def _mends(
    repo: Path, tip: str, base: str, found: dict[str, Docs]
) -> tuple[dict[str, bytes], list[NewEntry], list[str]]:
    """(data.js path -> new bytes, entries to append, notes) for the tip `tip`."""
    files: dict[str, bytes] = {}
    appends: list[NewEntry] = []
    notes: list[str] = []
    listed = _git(repo, "ls-tree", "-r", "--name-only", tip, "--", "bench").stdout.split()
    keys = sorted(
        PurePosixPath(p).parts[1] for p in listed if _is_history(p) and p.endswith("/data.js")
    )
    for key in keys:
        rel = f"bench/{key}/data.js"
        raw = _blob(repo, tip, rel)
        if raw is None:
            continue
        archive = _blob(repo, tip, f"bench/{key}/{ARCHIVE_JS}")
        earlier = []
        if base and base != tip and key in found:
            since = _git(repo, "rev-list", "--reverse", f"{base}..{tip}", "--", rel).stdout.split()
            for commit in [base, *since]:
                version = _blob(repo, commit, rel)
                if version is not None:
                    earlier.append((commit, version))
        mended = mend(f"{BRANCH}:{rel}", raw, archive, earlier)
        if mended is not None:
            files[rel] = raw = mended.data
            notes += mended.notes()
        missing = _half_recorded(raw, archive, found.get(key, []))
        appends += missing
        notes += [
            f"{BRANCH}:{rel}: entries.{e.entry_name}: commit {e.commit_id} added from this run's "
            "results (its other direction was recorded: a publish cut short)"
            for e in missing
        ]
    return files, appends, notes


def _half_recorded(raw: bytes, archive: bytes | None, docs: Docs) -> list[NewEntry]:
    """The entries of `docs`' commit that `raw` (with `archive`) lacks while it records the same
    commit under another entry name; none when it records none of them (the action's to add)."""
    shape, archived = outline_of(raw), outline_of(archive) if archive is not None else {}
    if not docs or shape is None or archived is None:
        return []  # a file that does not read: validation names it

    def recorded(entry: NewEntry) -> bool:
        return any(
            entry.commit_id in held.get(entry.entry_name, ([], 0))[0] for held in (shape, archived)
        )

    entries = new_entries(list(docs))
    if not any(recorded(e) for e in entries):
        return []
    return [e for e in entries if not recorded(e)]


def _blob(repo: Path, commit: str, path: str) -> bytes | None:
    done = git.raw(repo, "cat-file", "blob", f"{commit}:{path}")
    return done.stdout if done.returncode == 0 else None


def publish_site(
    repo: Path,
    work: Path,
    build,
    attempts: int = 5,
    docs=(),
    retention: Retention | None = None,
    branch: str = BRANCH,
) -> str:
    """Build derived files on the newest gh-pages with `build(dir)`, commit, push; return status.

    `build` writes change points and the dashboard into the directory it is given. A data.js or
    archive.js it would change is refused: only the action, `benchtrack append` and the prune
    write those. A push that loses a race starts over from the new tip.

    With `docs` (`(path, ResultDocument)` pairs of one run: the composite action's one job),
    they are first appended to that checkout of gh-pages as `benchtrack append` appends to a
    directory (a corrupt data.js refused, a commit already recorded kept), in the same commit.
    A lost race appends again on the new tip. With `retention`, the entries it no longer keeps
    in data.js are then moved to archive.js (benchtrack.history.archive, checked by itself),
    also in the same commit. `branch` is the history's branch (gh-pages unless the adopter's
    workflow names another).
    """
    status = ""

    def attempt(_: int) -> str | None:
        nonlocal status
        fetch_branch(repo, branch=branch)
        _git(repo, "worktree", "remove", "--force", str(work), check=False)
        shutil.rmtree(work, ignore_errors=True)
        _git(repo, "worktree", "prune")
        _git(repo, "worktree", "add", "--detach", str(work), branch)
        try:
            appended = _append(work, docs)
            moves = DirStore(work, branch).prune(retention) if retention else []
            _git(work, "add", "-A")  # the append's and the prune's files: the build's are not
            build(work)
            touched = [  # history files the build changed since they were staged
                line[3:]
                for line in _git(work, "status", "--porcelain", "-uall").stdout.splitlines()
                # the history's files only: the dashboard's own code has a js/data.js too
                if line[1] != " " and _is_history(line[3:])
            ]
            if touched:
                raise PublishError(f"the site build changed {touched[0]}; refusing to publish")
            _git(work, "add", "-A")
            changed = _git(work, "diff", "--cached", "--name-only").stdout.split()
            if not changed:
                status = "dashboard unchanged"
                return None
            archived = sum(len(ids) for m in moves for ids in m.moved.values())
            message = "benchtrack: results, dashboard" if appended else "benchtrack: dashboard"
            message += " and change points"
            if archived:
                message += f"; {archived} entries archived ({retention.describe()})"
            _git(work, "commit", "-q", "-m", message)
            pushed = _git(work, "push", "origin", f"HEAD:refs/heads/{branch}", check=False)
            status = f"dashboard published ({len(changed)} files)"
            if archived:
                status += f", {archived} entries moved to archive.js"
            return None if pushed.returncode == 0 else pushed.stderr
        finally:
            _git(repo, "worktree", "remove", "--force", str(work), check=False)

    git.push_with_retry(
        attempt,
        lambda stderr, n: PublishError(
            f"push to {branch} rejected {n} times: {git.what_the_remote_said(stderr)}"
        ),
        attempts=attempts,
    )
    return status


def _is_history(path: str) -> bool:
    """A runner key's history file, `bench/<key>/data.js` or its archive.js, of a gh-pages
    checkout."""
    parts = PurePosixPath(path).parts
    return len(parts) == 3 and parts[0] == "bench" and parts[2] in ("data.js", ARCHIVE_JS)


def _append(work: Path, docs) -> set[str]:
    """Append `docs` to the checkout `work`; the data.js paths (relative to it) they changed."""
    if not docs:
        return set()
    before = {p: p.read_bytes() for p in work.glob("bench/*/data.js")}
    open_store(work).append(new_entries(list(docs)))
    return {
        str(p.relative_to(work))
        for p in work.glob("bench/*/data.js")
        if before.get(p) != p.read_bytes()
    }
