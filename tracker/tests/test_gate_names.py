"""Every benchmark name the gate writes can be merged, commented and shown (docs/architecture.md,
"Names kept verbatim"): pytest's parametrized ids, criterion's ids with spaces and parentheses, Go's
sub-benchmarks, names holding `|`, `*`, `#`, `@`, backticks, `<`, `[`, `]`. Shards as the gate
writes them go through `gate-merge` and `gate-comment`; their Markdown is parsed as GitHub's kind
(CommonMark with tables, markdown-it-py: test_comment_inert.live): every table keeps its columns,
nothing of a name is live, and every name's visible text is the name. A name off the contract
(control characters, bidi controls, too long, empty, no suite) is refused naming its field, exit 2,
nothing written.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from markdown_it.token import Token
from test_comment_inert import _MD, live

from benchtrack.cli import main
from benchtrack.gate import shards
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.result import MAX_NAME

LONGEST = "custom/" + "𝔸" * (MAX_NAME - len("custom/"))  # 4 bytes a character in UTF-8
NAMES = [
    "python/bench/test_encode[utf-8]",
    "python/bench/test_x[10-True]",
    "rust/fib 20",
    "rust/sort/Vec<u64> (sorted)",
    "go/BenchmarkX/size=1_KiB",
    "go/BenchmarkY/a b",
    "custom/a|b||c|",
    "custom/**bold** _em_ *x* ~~struck~~",
    "custom/#123 @octocat @org/team :tada:",
    "custom/`tick` ``two`` end`",
    "custom/<img src=x onerror=alert(1)>",
    "custom/[x](https://evil.example) ![i](https://evil.example/i.png)",
    "custom/see www.evil.example and https://evil.example/x",
    "custom/back\\slash\\|pipe \\",
    "custom/&amp; &#124; </details>",
    "custom/ends in a space ",
    LONGEST,
]
REGRESSED = set(NAMES[::3])
IMPROVED = set(NAMES[1::3])
COUNTED = f"{NAMES[6]} (instructions)"  # a counted series: its functions in the comment's table
FAILED = [NAMES[9], NAMES[13]]  # step errors, on the head side
ONLY_HEAD = ["custom/new|one", "custom/@new `one`"]
VERDICTS = ("regressed", "improved", "unchanged", "inconclusive")
WAITING = {"status": "ok", "loss": 1.75, "kinds": [{"kind": "waiting", "share": 0.95,
           "off_cpu": 0.0042, "voluntary": 1.0, "syscalls": [{"name": "a|b", "base": 0.0,
           "head": 1.0}]}]}  # fmt: skip


def row(name: str) -> Row:
    verdict = "regressed" if name in REGRESSED else "improved" if name in IMPROVED else "unchanged"
    change = {"regressed": -0.3, "improved": 0.3}.get(verdict, 0.0)
    return Row(name=name, suite=name.split("/")[0], unit="calls/s", direction="bigger",
               base=100.0, head=100.0 * (1 + change), change=change, lo=change - 0.01,
               hi=change + 0.01, verdict=verdict, threshold=0.05, rounds=5)  # fmt: skip


def counted() -> Row:
    return Row(name=COUNTED, suite="custom-instructions", unit="instructions/call",
               direction="smaller", base=100.0, head=130.0, change=-0.3, lo=-0.31, hi=-0.29,
               verdict="regressed", threshold=0.05, rounds=5)  # fmt: skip


def shard_files(tmp_path: Path, names: list[str] = NAMES) -> tuple[Path, list[str]]:
    """Two shards' gate.json files as the gate writes them (Outcome.to_dict), and their plan."""
    plan = tmp_path / "plan.json"
    shards.write_plan(plan, 2, {n: 1.0 for n in names})
    paths = []
    for k in (1, 2):
        mine = names[k - 1 :: 2]
        first = k == 1 and names is NAMES  # the counted series and its functions: shard 1's
        rows = [row(n) for n in mine] + ([counted()] if first else [])
        failed = {"base": {}, "head": {n: "exit 1 `x` |y|" for n in FAILED if n in mine}}
        meta = {"shard": {"index": k, "of": 2}}
        if first:
            fns = [{"function": "operator|(a, b)", "base": 1.0, "head": 2.0, "share": 0.2}]
            meta["functions"] = {COUNTED: {"source": "lines", "functions": fns}}
        outcome = Outcome(rows, [], ONLY_HEAD if k == 2 else [], failed, [], 0.005, [5], meta)
        doc = outcome.to_dict()
        for r in doc["benchmarks"]:
            if r["name"] == NAMES[0]:
                r["diagnosis"] = WAITING
        path = tmp_path / "shards" / str(k) / "gate.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        paths.append(str(path))
    return plan, paths


def visible(token: Token) -> str:
    """What a reader sees of an inline token: its text and code, without HTML."""
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline"))


def tables(body: str) -> list[list[list[str]]]:
    """Each table's rows (header first), each row's cells as visible text."""
    found: list[list[list[str]]] = []
    tokens = _MD.parse(body)
    for i, t in enumerate(tokens):
        if t.type == "table_open":
            found.append([])
        elif t.type == "tr_open":
            found[-1].append([])
        elif t.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            found[-1][-1].append(visible(t))
    return found


def texts(body: str) -> list[str]:
    return [visible(t) for t in _MD.parse(body) if t.type == "inline"]


def check_shown(body: str) -> tuple[set[str], str]:
    """Nothing live; every benchmark table's rows each name a benchmark in its first cell and
    end in a verdict (a `|` of a name splitting a row would shift both); every name shown."""
    found = live(body)
    assert found == [], found
    shown = set()
    for table in tables(body):
        head, *rows = table
        if head[0] != "benchmark":
            continue
        assert all(len(r) == len(head) for r in rows)
        for r in rows:
            assert r[0] in [*NAMES, COUNTED], r[0]
            last = r[-1] if head[-1] == "verdict" else r[head.index("change")]
            assert any(v in last for v in VERDICTS) or last.endswith("%"), r
            shown.add(r[0])
    said = "\n".join(texts(body))
    return shown, said


def test_every_name_is_merged_commented_and_shown_as_it_is(tmp_path: Path) -> None:
    plan, paths = shard_files(tmp_path)
    out = tmp_path / "artifacts" / "gate-x-2cpu"
    assert main(["gate-merge", "--plan", str(plan), "--out", str(out), *paths]) == 3  # step errors
    md = (out / "gate.md").read_text()
    shown, said = check_shown(md)
    assert shown == {*NAMES, COUNTED}  # the table of all benchmarks: each name whole
    for name in [*FAILED, *ONLY_HEAD, NAMES[0]]:  # the failures, one side only, the diagnosis
        assert name in said
    assert "a|b" in said and "operator|(a, b)" not in said  # the diagnosis' syscall as it is
    doc = orjson.loads((out / "gate.json").read_bytes())
    assert {r["name"] for r in doc["benchmarks"]} == {*NAMES, COUNTED}

    comment = tmp_path / "comment.md"
    assert main(["gate-comment", "--artifacts", str(out.parent), "--out", str(comment)]) == 0
    body = comment.read_text()
    shown, said = check_shown(body)
    assert shown == {*NAMES, COUNTED}
    regressed = next(t for t in tables(body) if t[0][-1] == "where the work grew")
    assert {r[0] for r in regressed[1:]} == {*REGRESSED, COUNTED}
    assert "operator|(a, b) +20.0% (Python lines)" in [r[-1] for r in regressed[1:]]
    for name in [*FAILED, NAMES[0], *IMPROVED]:  # one side only: in the job summary alone
        assert name in said


def test_a_hidden_character_is_shown_as_its_escape(tmp_path: Path) -> None:
    """A zero-width or other invisible character the contract allows is shown, not hidden."""
    names = ["custom/zero\u200bwidth", "custom/soft\u00adhyphen"]
    plan, paths = shard_files(tmp_path, names)
    out = tmp_path / "artifacts" / "gate-x-2cpu"
    assert main(["gate-merge", "--plan", str(plan), "--out", str(out), *paths]) == 0
    said = "\n".join(texts((out / "gate.md").read_text()))
    assert "custom/zero\\u200bwidth" in said and "custom/soft\\u00adhyphen" in said


def renamed(value: object, names: dict[str, str]) -> object:
    """`value` with every string and key that is one of `names` replaced."""
    if isinstance(value, dict):
        return {names.get(k, k): renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def test_the_longest_names_fit_in_what_gate_comment_allows(tmp_path: Path) -> None:
    """Every shipped gate.json, each benchmark's name made MAX_NAME characters of 4 bytes in
    every place it stands (rows, rounds, placements, series keys): still within the bytes
    gate-comment allows its benchmarks, so a name of the contract never makes a file too big."""
    from benchtrack.gate import comment
    from benchtrack.gate.config import split_key

    recordings = sorted((Path(__file__).parents[1] / "bench/recordings").glob("*.gate.json"))
    assert len(recordings) >= 20
    for recording in recordings:
        data = orjson.loads(recording.read_bytes())
        names = sorted({split_key(r["name"])[0] for r in data["benchmarks"]})
        longest = {}
        for i, name in enumerate(names):
            suite = name.split("/")[0]
            longest[name] = f"{suite}/{i:05d}" + "𝔸" * (MAX_NAME - len(suite) - 6)
        keys = {**longest, **{f"{n} ({s})": f"{m} ({s})" for n, m in longest.items()
                              for s in ("instructions", "cpu")}}  # fmt: skip
        path = tmp_path / recording.name
        path.write_bytes(orjson.dumps(renamed(data, keys), option=orjson.OPT_INDENT_2))
        loaded = comment.load(path)
        assert {split_key(r.name)[0] for r in loaded.rows} == set(longest.values())


BAD = [
    ("benchmarks.0.name", "python/a\x1bb", "benchmarks[0].name"),
    ("benchmarks.0.name", "python/a\u202eb", "benchmarks[0].name"),
    ("benchmarks.0.name", "python/\u2067isolate", "benchmarks[0].name"),
    ("benchmarks.0.name", "python/" + "x" * MAX_NAME, "benchmarks[0].name"),
    ("benchmarks.0.name", "", "benchmarks[0].name"),
    ("benchmarks.0.name", "no-suite", "benchmarks[0].name"),
    ("only_head", ["python/line\u2028break"], "only_head"),
    ("failed", {"base": {}, "head": {"python/bell\x07": "x"}}, "failed.head"),
]


@pytest.mark.parametrize(("path", "value", "field"), BAD, ids=[b[2] + repr(b[1])[:30] for b in BAD])
def test_a_name_off_the_contract_is_refused_naming_its_field(
    tmp_path: Path, capsys, path: str, value: object, field: str
) -> None:
    plan, paths = shard_files(tmp_path, ["python/a", "python/b"])
    doc = orjson.loads(Path(paths[0]).read_bytes())
    *parents, last = path.split(".")
    target = doc
    for p in parents:
        target = target[int(p)] if isinstance(target, list) else target[p]
    target[last] = value
    Path(paths[0]).write_bytes(orjson.dumps(doc))
    out = tmp_path / "artifacts" / "gate-x-2cpu"
    assert main(["gate-merge", "--plan", str(plan), "--out", str(out), *paths]) == 2
    assert f"{paths[0]}: {field}: expected" in capsys.readouterr().err and not out.exists()
    comment = tmp_path / "comment.md"
    artifacts = Path(paths[0]).parent.parent
    (artifacts / "1").rename(artifacts / "gate-x-1cpu")
    assert main(["gate-comment", "--artifacts", str(artifacts), "--out", str(comment)]) == 2
    assert f": {field}: expected" in capsys.readouterr().err and not comment.exists()


def test_a_step_worker_of_a_suite_no_name_could_start_with_is_bad_input(tmp_path, capsys):
    """`step-worker --suite` starts every name it offers: one result.NAME_RE refuses is refused
    before anything is built or offered."""
    argv = ["step-worker", "gotest", "--suite", "Go", "--dir", str(tmp_path / "c"), "--build"]
    assert main(argv) == 2
    assert "--suite: expected a lowercase suite name" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_the_terminal_shows_every_name_as_text() -> None:
    """rich reads `[...]` as markup: `test_x[/tmp]` raised, `[utf-8]` and `[bold]` vanished."""
    import io

    from rich.console import Console

    from benchtrack.gate import render

    names = ["python/test_x[/tmp]", "python/test_encode[utf-8]", "python/t[bold]x[/]", NAMES[6]]
    failed = {"base": {}, "head": {"python/e[/x]": "[red]boom[/]"}}
    outcome = Outcome([row(n) for n in names], ["python/o[/]"], [], failed, [], 0.01, [5])
    outcome.meta = {"base": {"ref": "main[/]", "sha": ""}, "head": {"ref": "HEAD", "sha": ""}}
    out = io.StringIO()
    render.terminal(outcome, Console(file=out, width=400, color_system=None))
    text = out.getvalue()
    for said in [*names, "python/o[/]", "python/e[/x]: [red]boom[/]", "base main[/]"]:
        assert said in text, said


def test_a_merge_missing_a_shard_is_commented_too(tmp_path: Path) -> None:
    """gate-merge names what a missing shard left unmeasured by its benchmarks and by
    "shard K/N's unplanned benchmarks": gate-comment reads both (it refused the second)."""
    plan, paths = shard_files(tmp_path)
    out = tmp_path / "artifacts" / "gate-x-2cpu"
    assert main(["gate-merge", "--plan", str(plan), "--out", str(out), paths[0]]) == 3
    comment = tmp_path / "comment.md"
    assert main(["gate-comment", "--artifacts", str(out.parent), "--out", str(comment)]) == 0
    said = "\n".join(texts(comment.read_text()))
    assert "shard 2/2's unplanned benchmarks failed on the head side" in said
    assert live(comment.read_text()) == []
