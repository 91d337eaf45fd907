"""Every relative link in every Markdown file of the repository resolves inside the repository.

A link `[text](path)`, `[text](path#fragment)`, an image, or a reference definition `[id]: path`
must name a file or directory git tracks (or would track: new, not ignored), relative to the
Markdown file (`/path` from the repository root, as GitHub reads it), without leaving the
repository: a link to `../shared/…` works on one machine and nowhere else. A `#fragment` pointing
into a Markdown file (or a bare `#fragment`) must be one of that file's heading anchors as GitHub
makes them. Links with a scheme (`https:`, `mailto:`) are not followed; code is not prose, so
fenced blocks and code spans are skipped.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

REPO = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"  # [text], one level of nested brackets
    r"\(\s*(<[^>]*>|[^)\s]*)"  # (destination
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"  # optional "title")
)
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def repo_paths(root: Path) -> tuple[set[str], set[str]]:
    """(files, directories) git tracks or would track under `root`, as repo-relative posix paths."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    files = {f for f in listed.split("\0") if f and (root / f).exists()}
    dirs = {str(parent) for f in files for parent in Path(f).parents}
    return files, dirs | {"."}


def prose_lines(text: str, *, code_spans: bool = False) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks; code spans removed unless
    `code_spans` (a heading's anchor includes their text)."""
    out: list[tuple[int, str]] = []
    fence = ""
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        out.append((number, line if code_spans else CODE_SPAN.sub("", line)))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lowercased, punctuation dropped, spaces to `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a Markdown file offers: headings (repeats get -1, -2, …) and <a name/id>."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(text, code_spans=True):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    out.update(HTML_ANCHOR.findall(text))
    return out


def targets(text: str) -> list[tuple[int, str]]:
    """(line number, destination) of every link and reference definition in the prose."""
    found: list[tuple[int, str]] = []
    for number, line in prose_lines(text):
        found += [(number, m.group(1)) for m in INLINE.finditer(line)]
        reference = REFERENCE.match(line)
        if reference:
            found.append((number, reference.group(1)))
    return [(n, t[1:-1] if t.startswith("<") else t) for n, t in found]


def broken_links(root: Path) -> list[str]:
    """One line per link that does not resolve, `file:line: target: why`."""
    files, dirs = repo_paths(root)
    problems: list[str] = []
    texts: dict[str, str] = {}

    def text_of(rel: str) -> str:
        if rel not in texts:
            texts[rel] = (root / rel).read_text(encoding="utf-8")
        return texts[rel]

    for md in sorted(f for f in files if f.endswith(".md")):
        for number, target in targets(text_of(md)):
            if not target or SCHEME.match(target):
                continue
            where = f"{md}:{number}: {target}"
            path, _, fragment = target.partition("#")
            path = unquote(path.partition("?")[0])
            if not path:
                rel = md
            elif path.startswith("/"):
                rel = posixpath.normpath(path.lstrip("/") or ".")
            else:
                rel = posixpath.normpath(posixpath.join(posixpath.dirname(md), path))
            if rel == ".." or rel.startswith("../"):
                problems.append(f"{where}: leaves the repository")
                continue
            if rel not in files and rel not in dirs:
                problems.append(f"{where}: no such file or directory in the repository")
                continue
            markdown = rel.endswith(".md") and rel in files
            if fragment and markdown and unquote(fragment) not in anchors(text_of(rel)):
                problems.append(f"{where}: {rel} has no heading with anchor #{fragment}")
    return problems


def test_every_relative_link_resolves_inside_the_repository() -> None:
    problems = broken_links(REPO)
    assert not problems, "broken Markdown links:\n" + "\n".join(problems)


def test_broken_links_are_found(tmp_path: Path) -> None:
    """The checker itself, on a small real git repository: each kind of breakage is reported,
    and what is not a link (code, URLs) or resolves is not."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/good.md").write_text("# Good\n\n## The `result` document\n\n## Good\n")
    (tmp_path / "README.md").write_text(
        "\n".join(
            [
                "# Top",
                "[outside](../shared/ARCHITECTURE.md)",  # 2
                "[missing](docs/missing.md) and [ok](docs/good.md)",  # 3
                "[heading](docs/good.md#the-result-document) [repeat](docs/good.md#good-1)",  # 4
                "[no such heading](docs/good.md#contract-1)",  # 5
                "[here](#top) [not here](#bottom) [dir](docs/) ![img](docs/x.png)",  # 6
                "`[code span](nowhere.md)` [web](https://example.org/x.md) <https://a.b>",  # 7
                "```",
                "[fenced](nowhere.md)",
                "```",
                "[ref]: docs/gone.md",  # 11
                "[root](/docs/good.md) [ignored](target/out.md)",  # 12
            ]
        )
        + "\n"
    )
    (tmp_path / ".gitignore").write_text("target/\n")
    (tmp_path / "target").mkdir()
    (tmp_path / "target/out.md").write_text("built\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "docs/good.md"], cwd=tmp_path, check=True)

    assert broken_links(tmp_path) == [
        "README.md:2: ../shared/ARCHITECTURE.md: leaves the repository",
        "README.md:3: docs/missing.md: no such file or directory in the repository",
        "README.md:5: docs/good.md#contract-1: docs/good.md has no heading with anchor #contract-1",
        "README.md:6: #bottom: README.md has no heading with anchor #bottom",
        "README.md:6: docs/x.png: no such file or directory in the repository",
        "README.md:11: docs/gone.md: no such file or directory in the repository",
        "README.md:12: target/out.md: no such file or directory in the repository",
    ]
