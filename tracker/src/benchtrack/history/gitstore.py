"""A history on a branch of a git remote (`git:<remote-url>#<branch>`, e.g. gh-pages).

Every operation works in a private temporary clone (shallow: one commit of the branch). Appending
fetches the tip, applies the append with the directory store's logic, commits and pushes; a push
that loses a race (non-fast-forward) is retried on the new tip after an exponential backoff with
full jitter, so N concurrent publishers lose nothing and duplicate nothing (a retried append of a
commit that a rival already recorded becomes "already recorded"). A branch the remote lacks is
created as an orphan. A remote that refuses the push outright (a hook, protection, permissions)
ends at once with PublishFailed; so does running out of attempts. The inputs are never touched.
Pruning (history.archive) works the same way: archive.js and data.js change in one commit.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchtrack import git
from benchtrack.errors import BadInput, BenchtrackError
from benchtrack.history.append import APPENDED, NewEntry, Outcome
from benchtrack.history.archive import Move, prune_message
from benchtrack.history.dirstore import DirStore
from benchtrack.history.model import History
from benchtrack.history.retention import Retention


class PublishFailed(BenchtrackError):
    """The remote did not take the append (exit 2); nothing was lost, it can be re-run."""


class GitStore:
    def __init__(
        self,
        url: str,
        branch: str,
        *,
        attempts: int = 10,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
    ) -> None:
        self.url, self.branch = url, branch
        self.spec = f"git:{url}#{branch}"
        self.attempts, self.backoff, self.max_backoff = max(1, attempts), backoff, max_backoff
        self.retries = 0  # pushes lost to a rival in the last append (for reports and tests)

    # -- reading ---------------------------------------------------------------------------------
    def read(self, *, archive: bool = True) -> History:
        with self._checkout() as (work, exists):
            if not exists:
                return History(self.spec, {})
            return DirStore(work, self.spec).read(archive=archive)

    def validate(self) -> list[str]:
        with self._checkout() as (work, exists):
            return DirStore(work, self.spec).validate() if exists else []

    def exists(self) -> bool:
        return self._remote_has_branch(Path.cwd())

    @contextmanager
    def checkout(self) -> Iterator[Path | None]:
        """A read-only working copy of the branch tip (a temporary directory, removed when the
        context ends), for reading the files beside the history (the site copies each data.js and
        bench/changes.json from it); None when the remote has no such branch."""
        with self._checkout() as (work, exists):
            yield work if exists else None

    @contextmanager
    def _checkout(self) -> Iterator[tuple[Path, bool]]:
        with _tempdir() as work:
            git.out(work, "init", "-q")
            exists = self._fetch(work)
            if exists:
                git.out(work, "checkout", "-q", "-f", "--detach", "FETCH_HEAD")
            yield work, exists

    # -- writing ---------------------------------------------------------------------------------
    def append(self, entries: list[NewEntry], now_ms: int | None = None) -> list[Outcome]:
        outcomes: list[Outcome] = []

        def change(store: DirStore) -> tuple[list[str], str]:
            nonlocal outcomes
            outcomes = store.append(entries, now_ms)
            written = {store.relpath(o.runner_key) for o in outcomes if o.status == APPENDED}
            return sorted(written), _message(outcomes)

        self._update(change, create=True)
        return outcomes

    def prune(self, retention: Retention, *, dry_run: bool = False) -> list[Move]:
        """The directory store's prune on the branch tip, committed and pushed as one commit
        (archive.js and data.js land together); a lost race prunes the new tip again."""
        moves: list[Move] = []
        if dry_run:
            with self._checkout() as (work, exists):
                return DirStore(work, self.spec).prune(retention, dry_run=True) if exists else []

        def change(store: DirStore) -> tuple[list[str], str]:
            nonlocal moves
            moves = store.prune(retention)
            files = [f(m.key) for m in moves for f in (store.archive_relpath, store.relpath)]
            return files, prune_message(moves, retention)

        self._update(change, create=False)
        return moves

    def _update(self, change: Callable[[DirStore], tuple[list[str], str]], *, create: bool) -> None:
        """Apply `change` (it returns the files it wrote and a commit message) to a fresh
        checkout of the tip, commit and push; retried on the new tip when a rival wins."""
        with _tempdir() as work:
            git.out(work, "init", "-q")

            def attempt(i: int) -> str | None:
                if self._fetch(work):
                    git.out(work, "checkout", "-q", "-f", "--detach", "FETCH_HEAD")
                elif create:  # first publish: an orphan branch with only the history in it
                    git.out(work, "checkout", "-q", "-f", "--orphan", f"benchtrack-{i}")
                    git.out(work, "read-tree", "--empty")
                else:
                    return None  # no branch: nothing to change
                git.out(work, "clean", "-q", "-f", "-d", "-x")
                written, message = change(DirStore(work, self.spec))
                if not written:
                    return None  # nothing changed: nothing to push
                git.out(work, "add", "--", *written)
                git.out(work, "commit", "-q", "-m", message)
                done = git.run(
                    work, "push", "-q", self.url, f"HEAD:refs/heads/{self.branch}", check=False
                )
                return None if done.returncode == 0 else done.stderr

            self.retries = git.push_with_retry(
                attempt,
                lambda stderr, n: PublishFailed(self._refused(stderr, n)),
                attempts=self.attempts,
                backoff=self.backoff,
                max_backoff=self.max_backoff,
            )

    def _refused(self, stderr: str, attempts: int) -> str:
        return (
            f"{self.spec}: the remote did not accept the history after {attempts} attempt(s): "
            f"{git.what_the_remote_said(stderr)}; nothing was lost (the result documents are "
            "unchanged, re-run the append)"
        )

    # -- plumbing --------------------------------------------------------------------------------
    def _remote_has_branch(self, work: Path) -> bool:
        done = git.run(
            work, "ls-remote", "--heads", self.url, f"refs/heads/{self.branch}", check=False
        )
        if done.returncode != 0:
            raise BadInput(self.spec, None, "a reachable git remote", done.stderr.strip())
        return bool(done.stdout.strip())

    def _fetch(self, work: Path) -> bool:
        """Fetch the branch tip into FETCH_HEAD; False if the remote has no such branch."""
        if not self._remote_has_branch(work):
            return False
        done = git.run(
            work, "fetch", "-q", "--depth", "1", self.url, f"refs/heads/{self.branch}", check=False
        )
        if done.returncode != 0:
            if "couldn't find remote ref" in done.stderr:
                return False  # deleted between ls-remote and fetch
            raise BadInput(self.spec, None, "a fetchable branch", done.stderr.strip())
        return True


def parse_spec(spec: str) -> tuple[str, str]:
    """`git:<url>#<branch>` -> (url, branch); the branch defaults to gh-pages."""
    body = spec.removeprefix("git:")
    url, sep, branch = body.rpartition("#")
    if not sep:
        url, branch = body, "gh-pages"
    if not url or not branch:
        raise BadInput(spec, None, "git:<remote-url>#<branch>, e.g. git:../repo.git#gh-pages")
    return url, branch


def _message(outcomes: list[Outcome]) -> str:
    done = [o for o in outcomes if o.status == APPENDED]
    commits = sorted({o.commit_id[:12] for o in done})
    keys = sorted({o.runner_key for o in done})
    return f"benchtrack: add results of {', '.join(commits)} on {', '.join(keys)}"


@contextmanager
def _tempdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="benchtrack-git-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
