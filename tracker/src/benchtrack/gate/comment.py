"""The PR comment from the gate's artifacts: untrusted data, read as data.

pr-comment.yml runs in the trusted context (a write token) on artifacts that a PR's code
produced. So nothing of an artifact is executed or passed on as text: only each `gate.json` is
read, at most MAX_SIZES of them, each a regular file of at most the bytes its benchmarks and
rounds can fill (FIXED_BYTES and more a benchmark and a round; MAX_BYTES whatever the file says)
nested at most MAX_DEPTH deep (past any limit: BadInput, exit 2, no comment: which artifacts to
drop would be the PR's choice, and the check's mark never depends on the comment); every field
is checked against the shape the gate writes (names as result documents allow them, finite
numbers, verdicts from the known set, refs and shas of safe characters, messages cut short and
shown only inside code); the verdict is re-derived from the rows; and the Markdown is rendered
here, by the default branch's renderer (benchtrack.gate.pr_comment), every string of an artifact
as inert code.
The check's ✅/❌ is the gate jobs' own conclusion as GitHub reports it (`--jobs`, the run's job
list), never the artifact's exit code.
"""

from __future__ import annotations

import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.gate import function_diff, pr_comment, render
from benchtrack.gate.config import split_key
from benchtrack.gate.diagnose import check as diagnosis
from benchtrack.gate.model import SuiteFailure
from benchtrack.gate.outcome import SCHEMA, Outcome, Row
from benchtrack.result import (
    COUNT_UNIT_RE,
    DIRECTIONS,
    NAME_CHARS,
    NAME_RULE,
    SMALLER_UNITS,
    SUITE_RE,
    THROUGHPUT_UNIT_RE,
    is_name,
    slug,
)
from benchtrack.stats import IMPROVED, INCONCLUSIVE, REGRESSED, UNCHANGED

MAX_ROWS = 5_000
# What a gate.json may weigh grows with what it holds: every round of every benchmark is kept
# (outcome.to_dict), and one bound of 2,000,000 bytes for every file refused a shard of ~1,400
# benchmarks (tracker/LAB.md, "A 1,000-benchmark suite through the engine": 0.72 MB for 500).
# The shipped gate.json files (tracker/bench/recordings/*.gate.json, written indented) hold at
# most 5,766 bytes a row (a regressed row with its diagnosis) and 90 bytes a benchmark a round
# (its base and head values and its seconds, in either stage; test_gate_comment's shard of
# 1,400 benchmarks at 21 rounds, 2,508 bytes a benchmark). So a file is allowed FIXED_BYTES
# (refs, suite failures' tails, step errors: the old bound, so nothing it accepted is refused)
# and, for each benchmark it names, ROW_BYTES and ROUND_BYTES a round: ~3 times those. That
# bound is the file's own word, so MAX_BYTES, what MAX_ROWS benchmarks of CAP_ROUNDS rounds may
# weigh, holds whatever it says, before a byte is read: the trusted job's memory stays bounded.
FIXED_BYTES = 2_000_000
ROW_BYTES = 16_000
ROUND_BYTES = 256
CAP_ROUNDS = 64  # both stages' rounds: 5 and 16 shipped, 16 and 16 at [gate] rounds' default
MAX_BYTES = FIXED_BYTES + MAX_ROWS * (ROW_BYTES + CAP_ROUNDS * ROUND_BYTES)
MAX_SHARDS = 256  # gate --shard K/N
MAX_SIZES = 16  # gate-* artifacts: one a runner size of .github/bench-runners.toml (5 today)
MAX_DEPTH = 20  # a gate.json nests 5 deep; deeper is refused before a check (or repr) recurses
REF_RE = re.compile(r"^[A-Za-z0-9._/@^~+-]{0,100}$")
SHA_RE = re.compile(r"^[0-9a-f]{0,40}$")
RUNNER_RE = re.compile(r"^[a-z0-9._-]{0,100}$")  # a runner key, slugged (result.slug)
VERDICTS = {REGRESSED, IMPROVED, UNCHANGED, INCONCLUSIVE}
# A name is any the gate writes: result.NAME_RULE (`<suite>/<the name as the harness wrote
# it>`, spaces, brackets, `|`, `@`, backticks and all, at most result.MAX_NAME characters, no
# control or bidi characters), checked by result.is_name, the one place of that contract; the
# Markdown shows it as code (mdtext.code), whatever it holds. What failed may also be a suite
# (a run that named no benchmark) or gate-merge's shard that gave no verdict: its characters and
# length are checked, not its shape.
# A unit is shown as text in the tables: an underscore not inside a word could start emphasis.
_LOOSE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def load(path: Path) -> Outcome:
    """One runner size's gate.json as an Outcome, or BadInput naming what is off."""
    # a link (to /dev/zero, to a runner's file) is not followed, nor a linked gate-* directory
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        raise BadInput(path, None, "a gate.json file", "no such file") from None
    if path.parent.is_symlink() or not stat.S_ISREG(mode):
        raise BadInput(path, None, "a regular file")
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        raw = file.read(MAX_BYTES + 1) if size <= MAX_BYTES else b""
    if max(size, len(raw)) > MAX_BYTES:
        raise BadInput(path, None, f"at most {MAX_BYTES:,} bytes", f"{max(size, len(raw)):,}")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, "JSON", str(error)) from None
    if _depth(data) > MAX_DEPTH:
        raise BadInput(path, None, f"JSON nested at most {MAX_DEPTH} deep")
    check = _Checker(path)
    check.that(isinstance(data, dict), "", "an object")
    named, rounds = _held(data)
    most = FIXED_BYTES + named * (ROW_BYTES + rounds * ROUND_BYTES)
    if len(raw) > most:
        raise BadInput(path, None, f"at most {most:,} bytes: {FIXED_BYTES:,}, {ROW_BYTES:,} for "
                       f"each of the {named:,} benchmarks it names (benchmarks, only_base, "
                       f"only_head, failed) and {ROUND_BYTES} for each a round of its {rounds} "
                       "(rounds, confirm.rounds)", f"{len(raw):,}")  # fmt: skip
    check.that(data.get("schema") == SCHEMA, "schema", SCHEMA)
    rows = check.list(data, "benchmarks", MAX_ROWS)
    outcome = Outcome(
        rows=[check.row(r, f"benchmarks[{i}]") for i, r in enumerate(rows)],
        only_base=[check.name(n, "only_base") for n in check.list(data, "only_base", MAX_ROWS)],
        only_head=[check.name(n, "only_head") for n in check.list(data, "only_head", MAX_ROWS)],
        failed=check.failed(data.get("failed", {})),
        suite_failures=[
            check.suite_failure(f, f"suite_failures[{i}]")
            for i, f in enumerate(check.list(data, "suite_failures", 20))
        ],
        alpha=check.fraction(data.get("alpha"), "alpha"),
        looks=[],
        meta=check.meta(data),
        skipped=check.skipped(data.get("skipped")),
    )
    outcome.meta["functions"] = check.functions(
        data.get("functions"), {r.name for r in outcome.rows}
    )
    outcome.meta["diagnosis"] = diagnosis.rows(rows, [r.name for r in outcome.rows], path)
    return outcome


def comment(
    artifacts: Path, run_url: str = "", jobs: Any = None, run_conclusion: str | None = None
) -> tuple[str, int]:
    """The sticky comment for every runner size's verdict under `artifacts`, and how many.
    `jobs`: GitHub's job list of the gate run ([{name, conclusion}]); `run_conclusion`: the whole
    run's, used when the jobs are not known."""
    every = sorted(artifacts.glob("gate-*"))
    if len(every) > MAX_SIZES:
        names = ", ".join(p.name for p in every[:3])
        raise BadInput(artifacts, None, f"at most {MAX_SIZES} gate-* artifacts (one per runner "
                       "size)", f"{len(every)}: {names}, …")  # fmt: skip
    found = sorted(artifacts.glob("gate-*/gate.json"))
    keys = [slug(path.parent.name.removeprefix("gate-")) for path in found]
    outcomes = [load(path) for path in found]
    if not found and (artifacts / "gate.json").is_file():
        # download-artifact writes a lone artifact's files straight into the directory: its
        # runner size is the one its gate.json names (the gate's $BENCHTRACK_RUNNER_* in CI)
        found, outcomes = [artifacts / "gate.json"], [load(artifacts / "gate.json")]
        keys = [outcomes[0].meta.get("runner") or "runner"]
    if not found:
        text = "No runner size produced a verdict (see the gate run's logs)."
        return "\n".join(
            [render.COMMENT_MARKER, "## benchtrack: performance gate", "", text]
        ) + "\n", 0
    known = pr_comment.conclusions(jobs, keys)
    sizes = [pr_comment.Size(k, o, known.get(k)) for k, o in zip(keys, outcomes, strict=True)]
    url = _safe_url(run_url) if run_url.startswith("https://") else ""
    return pr_comment.body(sizes, run_conclusion, url), len(found)


def _held(data: dict[str, Any]) -> tuple[int, int]:
    """(the benchmarks a gate.json names: rows, one-sided and failed ones; both stages' rounds),
    as it says them, before any field is checked: what its size is allowed by."""

    def count(value: object) -> int:
        return len(value) if isinstance(value, list | dict) else 0

    def rounds(value: object) -> int:
        value = value.get("orders") if isinstance(value, dict) else value  # the rounds kept
        n = count(value) if isinstance(value, list) else value
        return n if type(n) is int and 0 <= n <= 10_000 else 0

    failed = data.get("failed")
    named = sum(count(data.get(k)) for k in ("benchmarks", "only_base", "only_head")) + sum(
        count(failed.get(side)) for side in ("base", "head") if isinstance(failed, dict)
    )
    second = data.get("confirm")
    return named, rounds(data.get("rounds")) + rounds(
        second.get("rounds") if isinstance(second, dict) else 0
    )


def _depth(data: object) -> int:
    """How deep `data` nests (a scalar: 0), without recursion."""
    deepest, todo = 0, [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                break
            todo += [(v, depth + 1) for v in (value.values() if isinstance(value, dict) else value)]
    return deepest


def _safe_url(url: str) -> str:
    return re.sub(r"[^A-Za-z0-9:/._~%?=&#-]", "", url)


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def that(self, ok: bool, field: str, expected: str, got: object = None) -> None:
        if not ok:
            raise BadInput(self.path, field or None, expected, got)

    def list(self, data: dict[str, Any], field: str, limit: int) -> list[Any]:
        value = data.get(field, [])
        self.that(isinstance(value, list) and len(value) <= limit, field, f"a list (≤ {limit})")
        return value

    def text(self, value: object, field: str, pattern: re.Pattern[str]) -> str:
        ok = isinstance(value, str) and pattern.fullmatch(value) is not None
        self.that(ok, field, f"text matching {pattern.pattern}", value)
        return value  # type: ignore[return-value]

    def name(self, value: object, field: str, shaped: bool = True) -> str:
        """A benchmark name, or a series key `<name> (<series>)` (benchtrack.gate.config); not
        `shaped`: what failed (a benchmark, a suite, a shard), its characters and length only."""
        name, _ = split_key(value) if isinstance(value, str) else (value, "")
        expected = f"a name {NAME_RULE if shaped else NAME_CHARS}"
        self.that(is_name(name, shaped), field, expected, value)
        return value  # type: ignore[return-value]

    def duration(self, value: object, where: str, nan: bool = False) -> float:
        """A number of seconds, 0 to 10,000,000 (NaN too where `nan`: not measured)."""
        v = self.number(value, where)
        ok = (nan and math.isnan(v)) or 0 <= v <= 10_000_000
        self.that(ok, where, "a duration in seconds (0 to 10,000,000)", value)
        return v

    def vcpus(self, value: object) -> dict[str, float | int]:
        """machine/vcpus.py's summary: spreads from 1 to 1,000 (x), rounds a count."""
        self.that(isinstance(value, dict), "vcpus", "an object")
        assert isinstance(value, dict)
        out: dict[str, float | int] = {}
        for key in ("wall_apart", "cpu_apart", "wall_apart_max"):
            x = self.number(value.get(key), f"vcpus.{key}")
            self.that(1 <= x <= 1000, f"vcpus.{key}", "a ratio from 1 to 1,000", value.get(key))
            out[key] = x
        n = value.get("rounds")
        ok = type(n) is int and 1 <= n <= 10_000
        self.that(ok, "vcpus.rounds", "a count from 1 to 10,000", n)
        out["rounds"] = n  # type: ignore[assignment]
        return out

    def number(self, value: object, field: str) -> float:
        if value is None:  # the gate writes a non-finite number as null
            return math.nan
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        self.that(ok and math.isfinite(value), field, "a finite number or null", value)
        return float(value)  # type: ignore[arg-type]

    def fraction(self, value: object, field: str) -> float:
        number = self.number(value, field)
        self.that(0 < number < 1, field, "a fraction between 0 and 1", value)
        return number

    def row(self, r: object, field: str) -> Row:
        self.that(isinstance(r, dict), field, "an object")
        assert isinstance(r, dict)
        unit = r.get("unit")
        direction = r.get("direction")
        self.that(direction in DIRECTIONS, f"{field}.direction", f"one of {DIRECTIONS}", direction)
        unit_ok = isinstance(unit, str) and (
            THROUGHPUT_UNIT_RE.fullmatch(unit) is not None
            or (direction == "smaller" and unit in SMALLER_UNITS)
            or (direction == "smaller" and COUNT_UNIT_RE.fullmatch(unit) is not None)
        )
        self.that(unit_ok, f"{field}.unit", "a throughput unit or a smaller-is-better unit", unit)
        loose = _LOOSE_UNDERSCORE.search(unit) is not None  # type: ignore[arg-type]
        self.that(not loose, f"{field}.unit", "a unit whose underscores are inside words", unit)
        self.that(r.get("verdict") in VERDICTS, f"{field}.verdict", "a known verdict")
        rounds = r.get("rounds")
        ok = isinstance(rounds, int) and not isinstance(rounds, bool) and 0 <= rounds <= 10_000
        self.that(ok, f"{field}.rounds", "a round count", rounds)
        return Row(
            name=self.name(r.get("name"), f"{field}.name"),
            suite=self.text(r.get("suite"), f"{field}.suite", SUITE_RE),
            unit=unit,  # type: ignore[arg-type]
            direction=direction,  # type: ignore[arg-type]
            **{k: self.number(r.get(k), f"{field}.{k}") for k in ("base", "head", "change")},
            **{k: self.number(r.get(k), f"{field}.{k}") for k in ("lo", "hi")},
            verdict=r["verdict"],
            threshold=self.fraction(r.get("threshold"), f"{field}.threshold"),
            rounds=rounds,  # type: ignore[arg-type]
            gates=r.get("gates", True) is not False,
            primary=r.get("primary", True) is not False,
            disagrees=r.get("disagrees", False) is True,
            stage=2 if r.get("stage") == 2 else 1,
            equivalence=r.get("equivalence", False) is True,
            pooled=r.get("pooled", False) is True,
        )

    def failed(self, value: object) -> dict[str, dict[str, str]]:
        self.that(isinstance(value, dict), "failed", "an object")
        assert isinstance(value, dict)
        out: dict[str, dict[str, str]] = {}
        for side in ("base", "head"):
            entries = value.get(side, {})
            self.that(isinstance(entries, dict), f"failed.{side}", "an object")
            out[side] = {
                self.name(n, f"failed.{side}", shaped=False): _message(m)
                for n, m in list(entries.items())[:50]
            }
        return out

    def suite_failure(self, f: object, field: str) -> SuiteFailure:
        self.that(isinstance(f, dict), field, "an object")
        assert isinstance(f, dict)
        self.that(f.get("side") in ("base", "head"), f"{field}.side", "base or head")
        self.that(f.get("what") in ("build", "run"), f"{field}.what", "build or run")
        return SuiteFailure(
            side=f["side"],
            suite=self.text(f.get("suite"), f"{field}.suite", SUITE_RE),
            what=f["what"],
            tail=_message(f.get("tail"), 4000),
            log=Path("log"),  # a path on the PR's runner means nothing here
        )

    def meta(self, data: dict[str, Any]) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for side in ("base", "head"):
            ref = data.get(side, {})
            self.that(isinstance(ref, dict), side, "an object")
            meta[side] = {
                "ref": self.text(ref.get("ref", ""), f"{side}.ref", REF_RE),
                "sha": self.text(ref.get("sha", ""), f"{side}.sha", SHA_RE),
            }
        for key in ("rounds", "n_looks"):
            value = data.get(key, 0)
            if key == "rounds" and isinstance(value, dict):  # the saved rounds themselves
                orders = value.get("orders")
                value = len(orders) if isinstance(orders, list) else -1
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000
            self.that(ok, key, "a count", value)
            meta[key] = value
        meta["seconds"] = self.duration(data.get("seconds", 0), "seconds", nan=True)  # shown whole
        for key in ("gate_seconds", "build_seconds", "diagnosis_seconds"):  # what the PR waited
            if data.get(key) is not None:  # for (render.took); a gate.json from before: none
                meta[key] = self.duration(data[key], key)
        if data.get("vcpus") is not None:  # a gate.json from before, or one CPU: none
            meta["vcpus"] = self.vcpus(data["vcpus"])
        meta["threshold"] = self.fraction(data.get("threshold", 0.05), "threshold")
        meta["runner"] = self.text(data.get("runner", ""), "runner", RUNNER_RE)
        if "shard" in data:  # a shard's verdict (gate --shard K/N): gate-merge checks K against N
            shard = data["shard"]
            ok = isinstance(shard, dict) and all(
                type(shard.get(k)) is int and 1 <= shard[k] <= MAX_SHARDS for k in ("index", "of")
            )
            self.that(ok, "shard", f"{{index, of}}: counts 1..{MAX_SHARDS}", shard)
            meta["shard"] = {"index": shard["index"], "of": shard["of"]}
        return meta

    def functions(self, value: object, rows: set[str]) -> dict[str, dict[str, Any]]:
        """The top functions of regressed counted benchmarks (function_diff): names checked
        against the rows, numbers finite; a function's name is any text, shown only as code."""
        if value is None:
            return {}
        self.that(isinstance(value, dict) and len(value) <= MAX_ROWS, "functions", "an object")
        assert isinstance(value, dict)
        out: dict[str, dict[str, Any]] = {}
        for row, entry in value.items():
            field = f"functions.{row}" if isinstance(row, str) and len(row) < 300 else "functions"
            self.that(row in rows, field, "a benchmark of this gate.json")
            self.that(isinstance(entry, dict), field, "an object")
            source = entry.get("source")
            self.that(source in function_diff.UNITS, f"{field}.source", "a known source", source)
            items = entry.get("functions")
            ok = isinstance(items, list) and 0 < len(items) <= function_diff.TOP
            self.that(ok, f"{field}.functions", f"a list of 1 to {function_diff.TOP}")
            fns = []
            for k, f in enumerate(items):
                where = f"{field}.functions[{k}]"
                name = f.get("function") if isinstance(f, dict) else None
                self.that(isinstance(name, str) and 0 < len(name) <= 1000, where, "a name")
                numbers = {
                    key: self.number(f.get(key), f"{where}.{key}")
                    for key in ("base", "head", "share")
                }
                fns.append({"function": name, **numbers})
            out[row] = {"source": source, "unit": function_diff.UNITS[source], "functions": fns}
        return out

    def skipped(self, value: object) -> int:
        """A skipped gate's file count (its reason is our own text, never the artifact's)."""
        if value is None:
            return 0
        files = value.get("files") if isinstance(value, dict) else None
        ok = isinstance(files, int) and not isinstance(files, bool) and 0 < files <= 10_000_000
        self.that(ok, "skipped.files", "a count of changed files", files)
        return files  # type: ignore[return-value]


def _message(value: object, limit: int = 200) -> str:
    """A failure message, for a code span or a fenced block (mdtext): text only, cut short."""
    text = value if isinstance(value, str) else ""
    return text[:limit]
