"""The dashboard's code stays split (no browser): every file of benchtrack/dashboard/js/ is a
classic script that index.html loads once, deferred, in dependency order, each under MAX_LINES
lines. A file takes what it uses from the namespace (`const { ... } = app;`) and adds what later
files use (`Object.assign(app, { ... });`); a name taken before the file that adds it has run
would be undefined, and a name used but not taken throws when that code runs."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from dashboard_fixture import REPO

SRC = REPO / "tracker/src/benchtrack/dashboard"
MAX_LINES = 400
NAMESPACE = "window.BenchtrackDashboard = window.BenchtrackDashboard || {}"


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs))


def _loaded() -> list[dict[str, str | None]]:
    parser = _Scripts()
    parser.feed((SRC / "index.html").read_text())
    return parser.scripts


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _imports(js: str) -> list[str]:
    found = re.findall(r"^  const \{([^}]*)\} = app;$", js, re.M)
    assert len(found) <= 1
    return _names(found[0]) if found else []


def _exports(js: str) -> list[str]:
    found = re.findall(r"^  Object\.assign\(app, \{([^}]*)\}\);$", js, re.M)
    assert len(found) <= 1
    return _names(found[0]) if found else []


_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", ""}


def _tokens(src: str) -> list[str]:
    """JavaScript tokens without comments, string text or regular expressions (a template
    literal's ${...} code is kept): enough to see which names a file uses."""
    out: list[str] = []
    opened: list[int] = []  # brace depth at each open ${ of a template literal
    depth, i, n = 0, 0, len(src)

    def template_text(i: int) -> int:  # from inside a template literal to its end or next ${
        while not src.startswith(("`", "${"), i):
            i += 2 if src[i] == "\\" else 1
        if src[i] == "`":
            return i + 1
        opened.append(depth)
        return i + 2

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif c in "'\"":
            i += 1
            while src[i] != c:
                i += 2 if src[i] == "\\" else 1
            i += 1
            out.append("''")
        elif c == "`":
            out.append("''")
            i = template_text(i + 1)
        elif c == "/" and (out[-1] if out else "") in _REGEX_AFTER:
            m = re.compile(r"/(?:\\.|\[(?:\\.|[^\]])*\]|[^/\\\[])*/[a-z]*").match(src, i)
            assert m, src[i : i + 40]
            i = m.end()
            out.append("/re/")
        elif c.isspace():
            i += 1
        elif m := re.compile(r"[\w$]+").match(src, i):
            out.append(m.group())
            i = m.end()
        elif c == "}" and opened and opened[-1] == depth:
            opened.pop()
            i = template_text(i + 1)
        else:
            depth += {"{": 1, "}": -1}.get(c, 0)
            out.append(c)
            i += 1
    return out


def _used(js: str) -> set[str]:
    """The names a script reads as variables: not properties (a.x), keys ({x: 1}), strings."""
    toks = _tokens(js)
    used = set()
    for k, t in enumerate(toks):
        before, after = toks[k - 1] if k else "", toks[k + 1] if k + 1 < len(toks) else ""
        if before == "." and toks[k - 2 : k] != [".", "."]:  # a property, not a spread
            continue
        if after == ":" and before in ("{", ","):
            continue
        used.add(t)
    return used


def test_every_js_file_is_loaded_once_deferred_in_dependency_order() -> None:
    scripts = _loaded()
    assert all(s.get("type") in (None, "text/javascript") for s in scripts)  # no module scripts
    assert all("defer" in s for s in scripts)  # in document order, after the page is parsed
    srcs = [s["src"] or "" for s in scripts]
    # the data and the chart library before the code that reads them
    assert srcs[:2] == ["dashboard/vendor/uPlot.iife.min.js", "dashboard/data/index.js"]
    order = [s.removeprefix("dashboard/js/") for s in srcs[2:]]
    assert all(s.startswith("dashboard/js/") for s in srcs[2:]), srcs
    assert sorted(order) == sorted(p.name for p in (SRC / "js").glob("*.js"))
    assert len(set(order)) == len(order)
    assert not (SRC / "app.js").exists()

    added: dict[str, str] = {}  # name -> the file that adds it to the namespace
    for name in order:
        js = (SRC / "js" / name).read_text()
        lines = js.count("\n")
        assert lines <= MAX_LINES, f"js/{name} has {lines} lines: split it by concern"
        iife = "\n(function (app) {\n  'use strict';\n" in js
        iife = iife and js.endswith(f"\n}})({NAMESPACE});\n")
        assert iife, f"js/{name} is not a strict IIFE on the namespace"
        for n in _imports(js):
            assert n in added, f"js/{name} takes {n} from no file loaded before it"
        for n in _exports(js):
            assert n not in added, f"js/{name} adds {n}, already added by js/{added[n]}"
            added[n] = name

    for name in order:
        js = (SRC / "js" / name).read_text()
        own = set(_exports(js)) | set(re.findall(r"\b(?:const|let|var|function)\s+(\w+)", js))
        missing = {n for n in _used(js) & added.keys() if n not in own and n not in _imports(js)}
        assert not missing, f"js/{name} uses {sorted(missing)} without taking them from app"
