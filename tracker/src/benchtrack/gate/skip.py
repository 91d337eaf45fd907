"""Whether a PR can be left unmeasured: every file it changes matches `[gate].skip_paths`.

The globs are gitignore-style (pathspec's GitIgnoreSpec, git's own wildmatch rules): `*.md`
matches at any depth, `docs/**` everything under docs/, a leading `/` anchors at the root and
`!pattern` takes a path back out. The changed files are those between the merge base of base and
head and head, renames counted as a deletion and an addition, so a file moved out of src/ into
docs/ is still a change to src/. No change at all (an A/A run) is never skipped: that is a
measurement someone asked for.
"""

from __future__ import annotations

from pathlib import Path

from pathspec import GitIgnoreSpec

from benchtrack import git
from benchtrack.errors import BadInput

# Documentation only: what no build or benchmark reads in a typical repository. A repository
# adds its own (this one: the dashboard's source) in benchtrack.toml.
DEFAULT = ("*.md", "*.rst", "docs/**", "LICENSE", "LICENSE.*", "LICENSE-*")
REASON = "only paths that cannot affect performance changed"


def check_glob(source: str, field: str, glob: object) -> str:
    """One `skip_paths` entry, checked: a gitignore-style glob that matches something."""
    expected = "a gitignore-style glob such as *.md or docs/** (not blank, not a # comment)"
    if not isinstance(glob, str) or "\n" in glob or glob != glob.strip():
        raise BadInput(source, field, expected, glob)
    try:
        spec = GitIgnoreSpec.from_lines([glob])
    except ValueError as e:  # pathspec's GitIgnorePatternError: one git's wildmatch rejects
        raise BadInput(source, field, f"{expected} ({e})", glob) from None
    # Blank, a comment, or one git ignores (an unclosed "[" or a bare "/"): it would match nothing.
    if not any(p.include is not None for p in spec.patterns):
        raise BadInput(source, field, expected, glob)
    return glob


def changed_files(repo: Path, base: str, head: str) -> list[str]:
    """The paths head changes since its merge base with base (renames as delete + add)."""
    merge_base = git.out(repo, "merge-base", base, head).strip()
    done = git.raw(repo, "diff", "--name-only", "--no-renames", "-z", merge_base, head)
    if done.returncode != 0:
        raise git.GitError(f"git diff {merge_base} {head} failed in {repo}: {done.stderr!r}")
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [n for n in names if n]


def unaffected(repo: Path, base: str, head: str, globs: tuple[str, ...]) -> int:
    """How many files head changes when every one matches `globs`, else 0 (measure it)."""
    files = changed_files(repo, base, head)
    spec = GitIgnoreSpec.from_lines(globs)
    if files and globs and all(spec.match_file(f) for f in files):
        return len(files)
    return 0


def line(files: int) -> str:
    """The verdict's one line, for the job summary and the PR comment."""
    return f"skipped: {REASON} ({files} file{'s' * (files != 1)})"
