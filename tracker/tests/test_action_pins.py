"""Every `uses:` under .github/ is pinned to a full SHA that docs/action-pins.md lists.

The table is where each pin's SHA was checked against its tag; this keeps the workflows and the
table in step: a `uses:` off the table (or a tag, a short SHA, a missing `# tag` comment) fails,
and so does a row no workflow uses. Local actions (`./...`) are exempt. No YAML parser is locked,
so `uses:` lines are read with a regex, and any line mentioning `uses:` that the regex does not
read fails too, so a pin cannot hide in a form the regex misses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "docs/action-pins.md"

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
# `uses: owner/name[/path]@ref # tag`, as a step (`- uses:`) or a key; quotes allowed.
USES_RE = re.compile(
    r"""^\s*(?:-\s+)?uses:\s*(?P<q>["']?)(?P<target>[^\s"'#]+)(?P=q)"""
    r"""(?:\s+#\s*(?P<tag>\S+)(?:\s.*)?)?\s*$"""
)
# `| `action` | tag | `sha` | how verified |`
ROW_RE = re.compile(
    r"^\|\s*`(?P<action>[^`]+)`\s*\|\s*(?P<tag>[^|\s]+)\s*\|\s*`(?P<sha>[^`]+)`\s*\|"
    r"(?P<how>[^|]*)\|\s*$"
)


@dataclass(frozen=True)
class Use:
    where: str  # file:line
    action: str
    ref: str
    tag: str | None


def workflow_files(root: Path) -> list[Path]:
    github = root / ".github"
    files = [*github.glob("workflows/*.yml"), *github.glob("workflows/*.yaml")]
    files += [*github.glob("actions/*/action.yml"), *github.glob("actions/*/action.yaml")]
    files += [p for p in (root / "action.yml", root / "action.yaml") if p.is_file()]  # adopters
    return sorted(files)


def read_uses(path: Path, root: Path) -> tuple[list[Use], list[str]]:
    """The remote `uses:` of one file, and the lines mentioning `uses:` that could not be read."""
    uses: list[Use] = []
    unread: list[str] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.relative_to(root)}:{number}"
        if line.lstrip().startswith("#") or "uses:" not in line:
            continue
        m = USES_RE.match(line)
        if m is None:
            unread.append(f"{where}: {line.strip()}")
            continue
        target = m["target"]
        if target.startswith("./"):
            continue
        action, at, ref = target.partition("@")
        uses.append(Use(where, action, ref if at else "", m["tag"]))
    return uses, unread


def read_table(path: Path) -> dict[tuple[str, str, str], str]:
    """(action, SHA, tag) -> how it was verified, from the Markdown table."""
    rows: dict[tuple[str, str, str], str] = {}
    for line in path.read_text().splitlines():
        m = ROW_RE.match(line)
        if m:
            rows[(m["action"], m["sha"], m["tag"])] = m["how"].strip()
    return rows


def problems(root: Path, table: Path) -> list[str]:
    """Every way the workflows under `root` and the pin table disagree, one line each."""
    rows = read_table(table)
    out: list[str] = []
    if not rows:
        out.append(f"{table.name}: no pin rows (| `action` | tag | `sha` | how verified |)")
    for key, how in rows.items():
        if not SHA_RE.match(key[1]):
            out.append(f"{table.name}: {key[0]} {key[2]}: SHA {key[1]!r} is not 40 hex digits")
        if not how:
            out.append(f"{table.name}: {key[0]} {key[2]}: no 'how verified'")
    used: set[tuple[str, str, str]] = set()
    for path in workflow_files(root):
        uses, unread = read_uses(path, root)
        out += [f"{u}: a `uses:` line this check cannot read" for u in unread]
        for use in uses:
            if not SHA_RE.match(use.ref):
                out.append(f"{use.where}: {use.action}@{use.ref} is not pinned to a 40-hex SHA")
            elif use.tag is None:
                out.append(f"{use.where}: {use.action}@{use.ref} has no '# <tag>' comment")
            elif (use.action, use.ref, use.tag) not in rows:
                out.append(
                    f"{use.where}: {use.action}@{use.ref} # {use.tag} is not a row of {table.name}"
                )
            else:
                used.add((use.action, use.ref, use.tag))
    for action, sha, tag in sorted(rows.keys() - used):
        out.append(f"{table.name}: row {action} {tag} {sha} is used by no workflow")
    return out


def test_every_uses_is_a_verified_pin_and_every_pin_is_used():
    assert workflow_files(REPO), "no workflows found under .github/"
    assert problems(REPO, TABLE) == []


# --- the check itself, on small .github trees it must refuse

SHA_A = "a" * 40
SHA_B = "b" * 40
ROWS = f"""| action | tag | full SHA | how verified |
|---|---|---|---|
| `o/a` | v1.0.0 | `{SHA_A}` | fetch github:o/a; `git rev-parse v1.0.0^{{commit}}` |
"""


def tree(tmp_path: Path, workflow: str, table: str = ROWS) -> list[str]:
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/w.yml").write_text(workflow)
    (tmp_path / "pins.md").write_text(table)
    return problems(tmp_path, tmp_path / "pins.md")


def steps(*lines: str) -> str:
    return "jobs:\n  j:\n    steps:\n" + "".join(f"      {line}\n" for line in lines)


def test_a_matching_pin_and_a_local_action_pass(tmp_path):
    assert (
        tree(tmp_path, steps(f"- uses: o/a@{SHA_A} # v1.0.0", "- uses: ./.github/actions/x")) == []
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- uses: o/a@v1.0.0 # v1.0.0", "o/a@v1.0.0 is not pinned to a 40-hex SHA"),
        (f"- uses: o/a@{SHA_A[:7]} # v1.0.0", "is not pinned to a 40-hex SHA"),
        ("- uses: o/a", "o/a@ is not pinned"),
        (f"- uses: o/a@{SHA_A}", "has no '# <tag>' comment"),
        (f"- uses: o/a@{SHA_B} # v1.0.0", f"o/a@{SHA_B} # v1.0.0 is not a row of pins.md"),
        (f"- uses: o/a@{SHA_A} # v1.0.1", "# v1.0.1 is not a row of pins.md"),
        (f"- uses: o/b@{SHA_A} # v1.0.0", f"o/b@{SHA_A} # v1.0.0 is not a row"),
        (f"- {{ uses: o/a@{SHA_A} }}", "a `uses:` line this check cannot read"),
    ],
)
def test_a_bad_pin_is_named_with_its_file_and_line(tmp_path, line, expected):
    found = tree(tmp_path, steps(f"- uses: o/a@{SHA_A} # v1.0.0", line))
    assert len(found) == 1, found
    assert found[0].startswith(".github/workflows/w.yml:5: ")
    assert expected in found[0]


def test_an_unused_row_fails(tmp_path):
    extra = ROWS + f"| `o/c` | v2 | `{SHA_B}` | fetch github:o/c |\n"
    assert tree(tmp_path, steps(f"- uses: o/a@{SHA_A} # v1.0.0"), extra) == [
        f"pins.md: row o/c v2 {SHA_B} is used by no workflow"
    ]


def test_a_row_without_a_full_sha_or_its_verification_fails(tmp_path):
    bad = ROWS + "| `o/c` | v2 | `abc123` |  |\n"
    found = tree(tmp_path, steps(f"- uses: o/a@{SHA_A} # v1.0.0", "- uses: o/c@abc123 # v2"), bad)
    assert "pins.md: o/c v2: SHA 'abc123' is not 40 hex digits" in found
    assert "pins.md: o/c v2: no 'how verified'" in found


# --- every pin a Node 24 release, its SHA its tag's: scripts/verify-pins (the repositories are
# needed, so here on a made-up one) and the vendored releases the engine tests run


def test_the_vendored_actions_are_the_pinned_node24_releases(tmp_path):
    """Each row has its release vendored (tracker/tests/engine/actions): a git pack holding the
    pinned commit (git hashes every object it unpacks), whose action.yml runs on node24."""
    from workflow_engine import unpack_actions

    actions = unpack_actions(tmp_path)
    rows = {(action, sha, tag) for action, sha, tag in read_table(TABLE)}
    assert {(a.repo, a.sha, a.tag) for a in actions.values()} == rows
    for a in actions.values():
        meta = (a.path / "action.yml").read_text()
        assert re.search(r"^\s*using:\s*['\"]?node24", meta, re.MULTILINE), a.repo


def pin_repo(mirrors: Path, using: str) -> str:
    repo = mirrors / "o+a/repo"
    repo.mkdir(parents=True)
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b", "PATH": os.environ["PATH"]}  # fmt: skip
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, env=env, check=True,  # noqa: E731
                                    capture_output=True, text=True).stdout.strip()  # fmt: skip
    git("init", "-q")
    (repo / "action.yml").write_text(f"name: a\nruns:\n  using: {using}\n  main: index.js\n")
    git("add", "-A")
    git("commit", "-qm", "release")
    git("tag", "v1.0.0")
    return git("rev-parse", "HEAD")


@pytest.mark.parametrize(
    ("using", "wrong_sha", "expected"),
    [
        ("node24", False, None),
        ("node24", True, "the tag names"),
        ("node20", False, "runs on node20, not node24"),
    ],
)
def test_verify_pins_checks_the_tag_and_the_runtime(tmp_path, using, wrong_sha, expected):
    sha = pin_repo(tmp_path / "mirrors", using)
    pinned = "c" * 40 if wrong_sha else sha
    table = tmp_path / "pins.md"
    table.write_text(f"| `o/a` | v1.0.0 | `{pinned}` | scripts/verify-pins |\n")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts/verify-pins"), "--mirrors", str(tmp_path / "mirrors"),
         "--table", str(table)], capture_output=True, text=True,
    )  # fmt: skip
    if expected is None:
        assert done.returncode == 0, done.stderr
        assert f"ok: o/a v1.0.0 = {sha} (node24)" in done.stdout
    else:
        assert done.returncode == 1 and expected in done.stderr, done.stderr
