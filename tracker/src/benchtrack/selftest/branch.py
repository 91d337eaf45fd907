"""The self-test's PR: a clone of the repository at a commit, the patches applied and committed on
a branch, so the gate compares two real commits exactly as it does a PR's."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from benchtrack import git
from benchtrack.gate import worktree
from benchtrack.git import GitError
from benchtrack.selftest.patches import Patch, apply

BRANCH = "gate-selftest"
AUTHOR = ("-c", "user.name=benchtrack gate-selftest", "-c", "user.email=gate-selftest@invalid")


@dataclass(frozen=True)
class Branch:
    path: Path  # the clone
    base: str  # the commit it started from
    head: str  # the patched commit
    files: tuple[str, ...]  # the patched paths


def prepare(root: Path, dest: Path, *, patches: tuple[Patch, ...], ref: str = "HEAD"):
    """Clone `root` at `ref` into `dest` (replacing what is there) and commit `patches` on
    BRANCH. A patch that does not apply removes the clone and raises BadInput (exit 2)."""
    base, _ = worktree.resolve(root, ref, "--ref")
    discard(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        # --no-local: a real copy, so nothing done in the clone reaches the user's repository.
        git.run(root, "clone", "--no-local", "--quiet", "--no-checkout", str(root), str(dest))
        if git.run(dest, "cat-file", "-e", f"{base}^{{commit}}", check=False).returncode != 0:
            raise GitError(f"the clone in {dest} lacks {base} (not reachable from a ref?)")
        git.run(dest, "checkout", "--quiet", "-B", BRANCH, base)
        for patch in patches:
            apply(patch, dest)
        files = tuple(sorted({p.path for p in patches}))
        git.run(dest, "add", "--", *files)
        n = sum(len(p.slows) for p in patches)
        message = f"gate-selftest: {n} benchmarks or groups slowed"
        # No hooks, no signing: the commit is a fixture, made the same way on every machine.
        git.run(
            dest,
            *AUTHOR,
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            message,
        )
        head = git.run(dest, "rev-parse", "HEAD").stdout.strip()
    except BaseException:
        discard(dest)
        raise
    return Branch(dest, base, head, files)


def discard(dest: Path) -> None:
    """Remove a clone (its gate worktrees live inside it, registered in its own .git)."""
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    elif dest.exists():
        shutil.rmtree(dest)


def share(clone: Path, name: str, target: Path) -> None:
    """Point the clone's target/gate/<name> at `target`, which outlives the clone: the gate's
    build caches (one per side; the clone's path is fixed, so cargo's fingerprints stay valid and
    builds stay warm across runs) and its logs (read after the clone is gone)."""
    target.mkdir(parents=True, exist_ok=True)
    link = clone / "target" / "gate" / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target.resolve(), target_is_directory=True)
