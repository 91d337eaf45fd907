"""Git checkouts of base and head in worktrees under <repo>/target/gate/, never the user's tree.

The worktree paths are fixed per side (target/gate/worktrees/{base,head}) so that incremental
builds keyed on paths stay warm across gate runs; per-side caches (target/gate/cache/<side>) hold
what the suites may reuse (CARGO_TARGET_DIR, a uv environment). Worktrees are removed at the end
unless kept; caches stay (target/ is ignored by git).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from benchtrack import git
from benchtrack.errors import BadInput


@dataclass(frozen=True)
class Checkout:
    side: str  # "base" or "head"
    ref: str
    sha: str
    subject: str
    path: Path
    cache: Path


def repo_root(start: Path) -> Path:
    proc = git.run(start, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        raise BadInput(start, None, "a directory inside a git repository")
    return Path(proc.stdout.strip())


def _shallow(repo: Path) -> str:
    """What to add to a missing-commit error in a shallow clone (a CI checkout's default)."""
    proc = git.run(repo, "rev-parse", "--is-shallow-repository", check=False)
    if proc.stdout.strip() != "true":
        return ""
    return (
        "; this is a shallow clone, so the commit may just not be fetched: check out with "
        "fetch-depth: 0 (actions/checkout) or run `git fetch --unshallow`"
    )


def resolve(repo: Path, ref: str, flag: str) -> tuple[str, str]:
    """(sha, subject) of `ref`; an unknown ref is bad input naming the flag."""
    proc = git.run(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        where = "a git ref naming a commit in " + str(repo) + _shallow(repo)
        raise BadInput(flag, None, where, ref)
    sha = proc.stdout.strip()
    subject = git.run(repo, "log", "-1", "--format=%s", sha).stdout.strip()
    return sha, subject


def merge_base(repo: Path, base: str, head: str) -> tuple[str, str]:
    """(sha, subject) of the best common ancestor: what a PR's changes are measured against."""
    proc = git.run(repo, "merge-base", base, head, check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        expected = f"a common ancestor of {base} and {head}{_shallow(repo)}"
        raise BadInput("--merge-base", None, expected, None)
    return resolve(repo, proc.stdout.split()[0], "--merge-base")


def dirty_paths(repo: Path) -> list[str]:
    """Uncommitted changes in the user's tree (they are not measured: the gate compares commits)."""
    out = git.run(repo, "status", "--porcelain", "--untracked-files=no").stdout
    return [line[3:] for line in out.splitlines() if line.strip()]


def registered(repo: Path) -> dict[Path, list[str]]:
    """The worktrees git knows of: path -> its attribute lines (`detached`, `locked ...`, ...)."""
    found: dict[Path, list[str]] = {}
    for block in git.run(repo, "worktree", "list", "--porcelain").stdout.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith("worktree "):
            found[Path(lines[0].removeprefix("worktree "))] = lines[1:]
    return found


def path_for(repo: Path, side: str) -> Path:
    """This side's worktree (fixed per side: incremental builds keyed on paths stay warm)."""
    return repo / "target" / "gate" / "worktrees" / side


def checkout(repo: Path, side: str, ref: str, sha: str, subject: str) -> Checkout:
    """Put `sha` in this side's worktree: reuse it if registered and whole, else (re)create it."""
    path, cache = path_for(repo, side), repo / "target" / "gate" / "cache" / side
    cache.mkdir(parents=True, exist_ok=True)
    git.run(repo, "worktree", "prune")
    attributes = registered(repo).get(path.resolve())
    # A gate killed while git was adding a worktree leaves it locked ("initializing"), which
    # `prune` keeps and `add --force` refuses: such a one is discarded, never reused.
    whole = attributes is not None and not any(a.startswith("locked") for a in attributes)
    if whole and path.is_dir():
        git.run(path, "checkout", "--quiet", "--detach", "--force", sha)
        git.run(path, "clean", "-fdq")  # untracked leftovers; ignored build output (target/) stays
    else:
        discard(repo, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            git.run(repo, "worktree", "add", "--quiet", "--detach", "--force", str(path), sha)
        except BaseException:  # SIGTERM (SystemExit) mid-add included: leave nothing half-made
            discard(repo, path)
            raise
    return Checkout(side, ref, sha, subject, path, cache)


def discard(repo: Path, path: Path) -> None:
    """Remove the worktree at `path` and git's record of it, locked or half-made alike."""
    # --force twice removes a locked worktree too (git-worktree(1)); the directory may be gone.
    git.run(repo, "worktree", "remove", "--force", "--force", str(path), check=False)
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    _forget_half_made(repo, path)
    git.run(repo, "worktree", "prune", check=False)


def _forget_half_made(repo: Path, path: Path) -> None:
    """Drop git's record of a worktree at `path` that git itself was killed while adding.

    Such a record is locked "initializing", may have HEAD 000… and an empty `commondir`: `remove`
    refuses it, `prune` keeps it (locked) and unlocking it makes `git worktree list` fatal. With
    the worktree's directory gone, its admin directory (<common dir>/worktrees/<name>, whose
    `gitdir` points at `path`/.git) is all that is left of it, and only this gate writes there.
    """
    if path.exists():
        return
    proc = git.run(repo, "rev-parse", "--path-format=absolute", "--git-common-dir", check=False)
    admin_root = Path(proc.stdout.strip()) / "worktrees"
    if proc.returncode != 0 or not admin_root.is_dir():
        return
    for admin in admin_root.iterdir():
        try:
            target = (admin / "gitdir").read_text().strip()
        except OSError:
            target = ""
        ours = Path(target).parent == path if target else admin.name == path.name
        locked = (admin / "locked").exists()
        if ours and (locked or not target):
            shutil.rmtree(admin, ignore_errors=True)


def remove(repo: Path, co: Checkout) -> None:
    discard(repo, co.path)
