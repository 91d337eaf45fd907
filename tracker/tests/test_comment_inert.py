"""A fork's artifacts cannot make the sticky PR comment say anything live (issue 46).

pr-comment.yml posts, with a write token, what `benchtrack gate-comment` renders from artifacts the
PR's own workflow wrote. Each hostile artifact of the corpus below goes through that code
(comment.comment) and GitHub's kind of Markdown (CommonMark with tables, markdown-it-py);
the comment must hold no link but our own, no image, no autolink, no HTML but our own, no
emphasis from an artifact, and no text GitHub would still turn into a link or a notification
(`@user`, a bare URL, `www.`). An artifact it cannot show safely is refused: BadInput (exit 2),
naming the file. The cut of a too-long comment is swept over every position of a code span and of
a fenced block (the PR sizes its tails, so it chooses where a cut lands).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from test_gate_comment import verdict

from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.gate import comment, pr_comment
from benchtrack.gate.render import COMMENT_MARKER
from benchtrack.result import SUITE_RE

RUN_URL = "https://github.com/o/r/actions/runs/1"
LINK = "[click](https://evil.example/a)"
IMAGE = "![x](https://evil.example/x.png)"
HTML = "<img src=x onerror=alert(1)>"
AUTOLINK = "<https://evil.example/auto>"
MENTION = "@octocat @org/team"
EMPHASIS = "**bold** _em_ ~~struck~~"
BARE = "see https://evil.example/bare and www.evil.example"
EVERYTHING = " ".join([LINK, IMAGE, HTML, AUTOLINK, MENTION, EMPHASIS, BARE])
BIDI = "admin\u202etxt.exe\u202c \u2066\u2067\u2068\u2069\u202a\u202b\u202d"
ZERO_WIDTH = "ad\u200dmin\u200b\u200c\u2060\ufeff\u00ad"
CONTROLS = "\x1b[31mred\x07\x00 \x85\x9b\x9f \u2028\u2029 \U000e0041"
BENIGN = "benign log line, nothing to see\n" * 125  # 4,000 characters: a tail's most
PERIOD_SPAN = 255  # > one line of `_failures`' step errors: the span sweep hits every offset
PERIOD_FENCE = 175  # > one suite failure's block of two hostile lines


def failure(tail: str, suite: str = "python") -> dict:
    return {"side": "head", "suite": suite, "what": "run", "tail": tail, "log": "x"}


def regressed_function(name: str) -> dict:
    """A counted regression whose top function is named `name` (function_diff: any text)."""
    data = verdict(
        **{
            "benchmarks.0.unit": "instructions/number",
            "benchmarks.0.direction": "smaller",
            "benchmarks.0.name": "python/cpu/gather (instructions)",
        }
    )
    fns = [{"function": name, "base": 1.0, "head": 2.0, "share": 0.1}]
    data["functions"] = {"python/cpu/gather (instructions)": {"source": "lines", "functions": fns}}
    return data


def profiled(text: str, **profile: object) -> dict:
    """A diagnosis whose wall-time profile's top frame and thread are `text` (py-spy's names
    of the PR's code), its fields changed by `profile`."""
    data = verdict()
    top = [{"thread": text, "frame": text, "wall": 0.004, "cpu": 0.001}]
    entry = {"status": "ok", "file": "wall-profiles/a.txt", "data": "wall-profiles/a.json",
             "top": top, **profile}  # fmt: skip
    data["benchmarks"][0]["diagnosis"] = {"status": "ok", "kinds": [], "profile": entry}
    return data


def step_errors(message: str, n: int = 1) -> dict:
    data = verdict()
    data["failed"] = {"base": {}, "head": {f"python/sleep/b{i:02d}": message for i in range(n)}}
    return data


def tails(*texts: str) -> dict:
    data = verdict()
    data["suite_failures"] = [failure(t) for t in texts]
    return data


def rows(n: int, verdict_: str = "regressed") -> dict:
    data = verdict()
    row = {**data["benchmarks"][0], "verdict": verdict_}
    data["benchmarks"] = [{**row, "name": f"python/g{i // 100}/b{i}"} for i in range(n)]
    return data


def nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def span_sweep(pad: int) -> dict:
    """The cut lands at offset `pad` mod one line of step errors, each a hostile code span."""
    data = step_errors(EVERYTHING, 50)
    data["failed"]["base"] = data["failed"]["head"]
    data["suite_failures"] = [failure("p" * pad)] + [failure(BENIGN)] * 12
    return {"gate-x-2cpu": data}


def fence_sweep(pad: int) -> dict:
    """The cut lands at offset `pad` mod one suite failure's fenced block of hostile lines."""
    hostile = tails(*[f"{LINK} {HTML}\n{MENTION} {EMPHASIS}"] * 20)
    return {"gate-x-1cpu": tails("p" * pad, *[BENIGN] * 14), "gate-x-2cpu": hostile}


def unknown_deep(depth: int) -> dict:
    data = verdict()
    data["extra"] = nested(depth)
    return data


def with_field(path: str, value: object) -> dict:
    return verdict(**{path: value})


Artifacts = dict[str, dict | bytes]


def one(data: dict | bytes) -> Callable[[], Artifacts]:
    return lambda: {"gate-x-2cpu": data}


def fn(name: str) -> Callable[[], Artifacts]:
    return one(regressed_function(name))


SHARE = {"source": "lines", "functions": [{"function": "f", "base": 1, "head": 2, "share": "x"}]}
# id, the artifacts by directory name, and None (renders inert) or the field BadInput names
# ("": the file as a whole)
CORPUS: list[tuple[str, Callable[[], Artifacts], str | None]] = [
    ("function-link", fn(LINK), None),
    ("function-image", fn(IMAGE), None),
    ("function-html", fn(HTML), None),
    ("function-autolink", fn(AUTOLINK), None),
    ("function-mention", fn(MENTION), None),
    ("function-emphasis", fn(EMPHASIS), None),
    ("function-bare-url", fn(BARE), None),
    ("function-backticks", fn(f"`` ` {LINK} ` ``"), None),
    ("function-pipe-newline", fn(f"a|b\n# {LINK}"), None),
    ("function-bidi", fn(BIDI), None),
    ("function-zero-width", fn(ZERO_WIDTH), None),
    ("function-controls", fn(CONTROLS), None),
    ("function-1000-chars", fn((EVERYTHING * 10)[:1000]), None),
    ("profile-frame-everything", one(profiled(EVERYTHING)), None),
    ("profile-frame-hidden", one(profiled(BIDI + ZERO_WIDTH + CONTROLS)), None),
    ("profile-reason-everything", one(profiled("x", status="failed", reason=EVERYTHING)), None),
    ("profile-file-link", one(profiled("x", file=f"wall-profiles/{LINK}.txt")),
     "benchmarks[0].diagnosis.profile.file"),
    ("step-error-everything", one(step_errors(EVERYTHING, 50)), None),
    ("step-error-bidi", one(step_errors(BIDI + ZERO_WIDTH + CONTROLS)), None),
    ("tail-everything", one(tails(EVERYTHING)), None),
    ("tail-fence-breakers", one(tails(f"```\n{LINK}\n````\n~~~\n{HTML}")), None),
    ("tail-cr-fence", one(tails(f"x\r```\r{LINK}\r\n</details>")), None),
    ("tail-bidi-controls", one(tails(BIDI, ZERO_WIDTH, CONTROLS)), None),
    ("tail-a-list", one(tails(["x"])), None),  # type: ignore[list-item]  # shows no tail
    ("twenty-tails-three-sizes",
     lambda: {f"gate-x-{n}cpu": tails(*[EVERYTHING * 50] * 20) for n in (1, 2, 4)}, None),
    ("key-www", lambda: {"gate-www.evil.example": verdict()}, None),
    ("key-markup", lambda: {f"gate-{HTML} @octocat [x](https:evil)": verdict()}, None),
    ("ref-mention", one(with_field("base.ref", "@octocat")), None),
    ("huge-interval", one(with_field("benchmarks.0.hi", 1e150)), None),
    ("10000-rows-over-two", lambda: {"gate-x-1cpu": rows(5000), "gate-x-2cpu": rows(5000)}, None),
    ("10000-rows-in-one", one(rows(10_000)), "benchmarks"),  # past MAX_ROWS
    ("5001-rows", one(with_field("benchmarks", [{}] * 5001)), "benchmarks"),
    ("200-artifacts", lambda: {f"gate-x-{n}cpu": verdict() for n in range(200)}, ""),
    ("deep-unknown-field", one(unknown_deep(500)), ""),
    ("deep-name", one(with_field("benchmarks.0.name", nested(900))), ""),
    ("deeper-than-the-parser", one(b"[" * 100_000 + b"]" * 100_000), ""),
    ("3mb-for-two-benchmarks", one(json.dumps(verdict()).encode() + b" " * 3_000_000), ""),
    ("2mb-of-tails", one(tails(*["y" * 110_000] * 20)), ""),
    ("not-an-object", one(b"[1, 2]"), ""),
    ("benchmarks-an-object", one(with_field("benchmarks", {"a": 1})), "benchmarks"),
    ("name-a-number", one(with_field("benchmarks.0.name", 7)), "benchmarks[0].name"),
    ("name-html", one(with_field("benchmarks.0.name", HTML)), "benchmarks[0].name"),  # no suite
    ("name-everything", one(with_field("benchmarks.0.name", f"python/{EVERYTHING}")), None),
    ("name-zero-width", one(with_field("benchmarks.0.name", f"python/{ZERO_WIDTH}")), None),
    ("name-bidi", one(with_field("benchmarks.0.name", f"python/{BIDI}")), "benchmarks[0].name"),
    ("unit-emphasis", one(with_field("benchmarks.0.unit", "a _b_ c/s")), "benchmarks[0].unit"),
    ("rounds-a-bool", one(with_field("benchmarks.0.rounds", True)), "benchmarks[0].rounds"),
    ("suite-markup", one({**tails("x"), "suite_failures": [failure("x", LINK)]}),
     "suite_failures[0].suite"),
    ("failed-a-list", one(with_field("failed", [EVERYTHING])), "failed"),
    ("share-a-string", one(with_field("functions", {"python/sleep/gather": SHARE})),
     "functions.python/sleep/gather.functions[0].share"),
    ("seconds-huge", one(with_field("seconds", 1e300)), "seconds"),
]  # fmt: skip
CORPUS += [
    (f"cut-span-{p:03d}", lambda p=p: span_sweep(1000 + p), None) for p in range(PERIOD_SPAN)
]
CORPUS += [
    (f"cut-fence-{p:03d}", lambda p=p: fence_sweep(1000 + p), None) for p in range(PERIOD_FENCE)
]

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])  # GitHub: CommonMark + GFM
_OUR_HTML = re.compile(
    rf"{re.escape(COMMENT_MARKER)}\n|</details>\n"
    r"|<details><summary>(\d+ vCPU \()?<code>[a-z0-9._-]+</code>\)?: all \d+ benchmarks</summary>\n"
    r"|<details><summary>All \d+ benchmarks</summary>\n"  # gate.md's (test_gate_names)
)
# What GitHub still turns into a link or a notification in plain text (its autolink extension).
_LINKIFIED = re.compile(r"@\w|https?://|www\.", re.IGNORECASE)


def live(body: str) -> list[str]:
    """Every live element of `body` as GitHub would render it: links but ours, images, HTML
    but ours, emphasis, and text GitHub would still link or notify from."""
    found = []

    def walk(tokens: list[Token], inside: str = "") -> None:
        for i, t in enumerate(tokens):
            if t.type == "link_open" and (t.markup == "autolink" or t.attrs.get("href") != RUN_URL):
                found.append(f"link to {t.attrs.get('href')}")
            elif t.type == "image":
                found.append(f"image {t.attrs.get('src')}")
            elif t.type == "html_inline" or (
                t.type == "html_block" and not _OUR_HTML.fullmatch(t.content)
            ):
                found.append(f"HTML {t.content[:80]!r}")
            elif t.type in ("em_open", "s_open"):
                found.append(f"{t.type} in {tokens[i + 1].content[:40]!r}")
            elif t.type == "strong_open" and not SUITE_RE.fullmatch(tokens[i + 1].content):
                found.append(f"strong {tokens[i + 1].content[:40]!r}")  # ours: **<suite>**
            elif t.type == "text" and _LINKIFIED.search(t.content):
                found.append(f"linkified {t.content[:80]!r}")
            walk(t.children or [])

    walk(_MD.parse(body))
    hidden = {c for c in body if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")}
    return found + [f"hidden character U+{ord(c):04X}" for c in sorted(hidden)]


def lay_out(tmp_path: Path, artifacts: Artifacts) -> Path:
    root = tmp_path / "artifacts"
    for name, content in artifacts.items():
        path = root / name / "gate.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return root


@pytest.mark.parametrize(("build", "refused"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_a_hostile_artifact_renders_inert_or_is_refused(tmp_path, build, refused):
    root = lay_out(tmp_path, build())
    if refused is None:
        body, _ = comment.comment(root, run_url=RUN_URL)
        assert body.startswith(COMMENT_MARKER) and len(body) <= pr_comment.MAX_CHARS
        assert live(body) == []
        return
    with pytest.raises(BadInput) as error:
        comment.comment(root, run_url=RUN_URL)
    assert error.value.source.startswith(str(root)) and (error.value.field or "") == refused


def test_the_corpus_is_checked_by_a_renderer_that_sees_each_kind():
    """The check itself: each hostile text, as plain Markdown, is live in its own way."""
    for text in (LINK, IMAGE, HTML, AUTOLINK, MENTION, EMPHASIS, BARE):
        assert live(f"{COMMENT_MARKER}\n\n{text}\n"), text
    assert live(f"`{BIDI}`") and live(f"`{ZERO_WIDTH}`") and live(f"`{CONTROLS}`")
    ours = f"{COMMENT_MARKER}\n\n**python** failed\n\nsee [the gate run]({RUN_URL})\n"
    assert live(ours) == []


def test_a_refused_artifact_writes_no_comment(tmp_path):
    root = lay_out(tmp_path, {f"gate-x-{n}cpu": verdict() for n in range(200)})
    out = tmp_path / "comment.md"
    assert main(["gate-comment", "--artifacts", str(root), "--out", str(out)]) == 2
    assert not out.exists()


def test_a_cut_comment_closes_its_block_and_says_how_much_was_cut(tmp_path):
    body, _ = comment.comment(lay_out(tmp_path, fence_sweep(1000)), run_url=RUN_URL)
    note = body.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(rf"\(cut: [\d,]+ characters; .* \[the gate run\]\({RUN_URL}\)'s .*\)", note)
    fences = [t for t in _MD.parse(body) if t.type == "fence"]
    assert fences and all(t.markup == "```" for t in fences) and note not in fences[-1].content
