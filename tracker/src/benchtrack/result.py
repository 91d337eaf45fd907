"""The result document `benchtrack.result/1` (docs/architecture.md): one suite, one run.

This module is the single place that knows the schema. Everything that reads or writes a result
document goes through `ResultDocument.from_dict` / `load` (which validate every field and raise
`BadInput` naming the file, the field and what was expected) and `to_dict` / `dump`.

Adapters build a `ResultDocument` from harness output and call `validated(source)`, so a document
that leaves this module has passed the same checks as one read from disk.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write

SCHEMA = "benchtrack.result/1"
MIN_SAMPLES = 5
# No benchmark of these suites comes near 1e15 per second (or 1e15 KB); such a value is a unit or
# conversion bug (e.g. ns read as s), not a measurement.
MAX_VALUE = 1e15
DIRECTIONS = ("bigger", "smaller")
# Units a smaller-is-better metric may carry (sizes and durations); throughputs are `<thing>/s`.
SMALLER_UNITS = frozenset({"B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "ns", "us", "ms", "s"})
# Instruction counts per unit of work (benchtrack.gate.callgrind), e.g. "instructions/item".
COUNT_UNIT_RE = re.compile(r"^instructions/[A-Za-z][A-Za-z0-9_ \-]*$")

# A benchmark name: the one contract for every command that reads or writes one (result
# documents, the gate's lockstep workers, gate-merge and gate-comment; docs/architecture.md,
# "Names kept verbatim"). `<suite>/<the name as the harness wrote it>`: the harness's part verbatim
# (spaces, brackets, slashes, `|`, `*`, `#`, `@`, backticks, unicode: `python/test_x[10-async]`,
# `googlebenchmark/BM_Foo/8/real_time`, `criterion/sort/Vec<u64> (sorted)`), at most MAX_NAME
# characters, without what would break a one-line report or make a name read otherwise than it
# is written: control characters (C0, C1), line and paragraph separators, and Unicode's
# Bidi_Control characters (U+061C, U+200E-200F, U+202A-202E, U+2066-2069: overrides, embeddings,
# isolates and marks reorder the text around them). Other invisible characters (a zero-width
# space) are allowed and shown as escapes wherever a name is shown (benchtrack/mdtext.py). Every
# Markdown the gate writes shows any such name safely as code (mdtext.code). The suite prefix
# keeps two suites' equal names apart in one data.js and is how the history and the dashboard
# tell a series' suite. No name becomes a path as it is: the dashboard's files are a slug and a
# hash of their group's name (derive._group_file).
MAX_NAME = 256  # 4 bytes a character at most in UTF-8: 1 KB, well inside gate.json's ROW_BYTES
_REFUSED = "\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
NAME_RE = re.compile(rf"^([a-z0-9][a-z0-9_\-]*)/([^{_REFUSED}]+)\Z")
NAME_CHARS = (
    f"of at most {MAX_NAME} characters, without control characters, line breaks or bidi controls"
)
NAME_RULE = f"'<suite>/<name as the harness wrote it>' {NAME_CHARS}"
# An error names a benchmark or a whole group (`rust/walk`, a bench binary that died early).
ERROR_NAME_RE = NAME_RE
# A companion series of a benchmark, stored beside it: `<name> (instructions)`, its instruction
# count (benchtrack.history.companion). Its document's suite is `<suite>-instructions`.
COMPANION_SERIES = ("instructions",)
COMPANION_RE = re.compile(rf"^(.*) \(({'|'.join(COMPANION_SERIES)})\)$")
THROUGHPUT_UNIT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_ \-]*/s$")
CONTROL_RE = re.compile(f"[{_REFUSED}]")  # what a name, a unit or an id may not hold
COMMIT_ID_RE = re.compile(r"^[0-9a-f]{40}$")
SUITE_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")


def is_name(text: object, shaped: bool = True) -> bool:
    """`text` keeps the name contract (NAME_RE, MAX_NAME); not `shaped`: its characters and
    length only (what failed may be a suite, or gate-merge's shard that gave no verdict)."""
    if not isinstance(text, str) or not 0 < len(text) <= MAX_NAME:
        return False
    return NAME_RE.match(text) is not None if shaped else CONTROL_RE.search(text) is None


def smaller_unit(unit: str) -> bool:
    """A unit that is smaller-is-better whatever the harness says: a size, a time, a count."""
    return unit in SMALLER_UNITS or bool(COUNT_UNIT_RE.match(unit))


def direction_of_unit(unit: str) -> str:
    """The direction we read into a unit when a format does not say: throughputs `<thing>/s`
    bigger, everything else (times, sizes, `allocs/op`, counts) smaller."""
    return "bigger" if THROUGHPUT_UNIT_RE.match(unit) else "smaller"


def slug(text: str) -> str:
    """Lowercase `text`, turn every run of characters outside [a-z0-9._] into one `-`.

    >>> slug("Ubuntu Latest (x86)-16cpu")
    'ubuntu-latest-x86-16cpu'
    """
    return re.sub(r"[^a-z0-9._]+", "-", text.lower()).strip("-")


@dataclass(frozen=True)
class Benchmark:
    name: str
    unit: str
    value: float
    ci: tuple[float, float]
    samples: tuple[float, ...]
    direction: str = "bigger"
    params: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def suite(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def bigger_is_better(self) -> bool:
        return self.direction == "bigger"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "unit": self.unit,
            "value": self.value,
            "ci": [self.ci[0], self.ci[1]],
            "samples": list(self.samples),
        }
        if self.direction != "bigger":  # absent means bigger-is-better
            out["direction"] = self.direction
        if self.params:
            out["params"] = dict(self.params)
        return out


@dataclass(frozen=True)
class Commit:
    id: str
    message: str
    timestamp: str
    author_name: str
    author_email: str
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "message": self.message,
            "timestamp": self.timestamp,
            "author": {"name": self.author_name, "email": self.author_email},
            "url": self.url,
        }


def runner_key(label: str, cpus: int) -> str:
    """The runner size `<label>-<cpus>cpu`, slugged: results compare only within one key."""
    return slug(f"{label}-{cpus}cpu")


@dataclass(frozen=True)
class Runner:
    label: str
    cpus: int
    cpu_model: str
    os: str
    arch: str

    @property
    def key(self) -> str:
        return runner_key(self.label, self.cpus)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "cpus": self.cpus,
            "cpu_model": self.cpu_model,
            "os": self.os,
            "arch": self.arch,
        }


@dataclass(frozen=True)
class BenchError:
    name: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "message": self.message}


@dataclass(frozen=True)
class ResultDocument:
    suite: str
    created: str
    commit: Commit
    runner: Runner
    benchmarks: tuple[Benchmark, ...]
    errors: tuple[BenchError, ...] = ()

    def by_name(self) -> dict[str, Benchmark]:
        return {b.name: b for b in self.benchmarks}

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "suite": self.suite,
            "created": self.created,
            "commit": self.commit.to_dict(),
            "runner": self.runner.to_dict(),
            "benchmarks": [b.to_dict() for b in self.benchmarks],
            "errors": [e.to_dict() for e in self.errors],
        }

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2) + b"\n"

    def dump(self, path: str | Path) -> None:
        """Write atomically: readers see the previous document or this one, never half of it."""
        atomic_write(path, self.to_json())

    def validated(self, source: str | Path) -> ResultDocument:
        """This document after the checks of `from_dict`; raises BadInput blaming `source`."""
        return ResultDocument.from_dict(self.to_dict(), source)

    @staticmethod
    def load(path: str | Path) -> ResultDocument:
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise BadInput(path, None, "a result document (file not found)") from None
        except OSError as e:
            raise BadInput(path, None, f"a readable result document ({e.strerror})") from None
        return ResultDocument.from_dict(parse_json(raw, path), path)

    @staticmethod
    def from_dict(data: Any, source: str | Path) -> ResultDocument:
        return _Validator(source).document(data)


def check_benchmark(data: dict[str, Any], suite: str, source: str | Path, where: str) -> Benchmark:
    """One benchmark entry, checked like `from_dict` would; adapters call this per harness file
    so a complaint names the raw file the bad value came from."""
    return _Validator(source).benchmark(data, where, suite)


def parse_json(raw: bytes, source: str | Path) -> Any:
    """Parse JSON bytes; an empty, truncated or non-JSON file is BadInput naming `source`."""
    if not raw.strip():
        raise BadInput(source, None, "a JSON document, the file is empty")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        error = e
    # Python's and Perl's JSON writers can emit NaN/Infinity; read them so the complaint names
    # the field holding one, rather than calling the whole file broken.
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadInput(source, None, f"valid JSON (truncated or not JSON: {error})") from None


def is_iso8601(text: Any) -> bool:
    if not isinstance(text, str) or len(text) < 10:
        return False
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


class _Validator:
    """Walks a decoded document; every complaint names the field path, e.g. benchmarks[3].value."""

    def __init__(self, source: str | Path) -> None:
        self.source = source

    def fail(self, where: str, expected: str, got: object = None) -> BadInput:
        return BadInput(self.source, where, expected, got)

    def obj(self, data: Any, where: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(where or "document", "a JSON object", type(data).__name__)
        return data

    def get(self, data: dict[str, Any], key: str, where: str) -> Any:
        if key not in data:
            raise self.fail(_join(where, key), "this field (missing)")
        return data[key]

    def text(self, data: dict[str, Any], key: str, where: str, *, empty: bool = False) -> str:
        value = self.get(data, key, where)
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(_join(where, key), "a non-empty string", value)
        return value

    def number(self, value: Any, where: str, *, limit: float = MAX_VALUE) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(where, "a number", value)
        value = float(value)
        if not math.isfinite(value) or value <= 0:
            raise self.fail(where, "a positive finite number", value)
        if value > limit:
            raise self.fail(where, f"a plausible value (<= {limit:.0e}); check the unit", value)
        return value

    def document(self, data: Any) -> ResultDocument:
        data = self.obj(data, "")
        schema = self.get(data, "schema", "")
        if schema != SCHEMA:
            raise self.fail("schema", f'"{SCHEMA}"', schema)
        suite = self.text(data, "suite", "")
        if not SUITE_RE.match(suite):
            raise self.fail("suite", "a lowercase suite name like 'rust'", suite)
        created = self.get(data, "created", "")
        if not is_iso8601(created):
            raise self.fail("created", "an ISO 8601 timestamp", created)
        commit = self.commit(self.get(data, "commit", ""))
        runner = self.runner(self.get(data, "runner", ""))
        raw_benchmarks = self.get(data, "benchmarks", "")
        if not isinstance(raw_benchmarks, list):
            raise self.fail("benchmarks", "a list", type(raw_benchmarks).__name__)
        raw_errors = data.get("errors", [])
        if not isinstance(raw_errors, list):
            raise self.fail("errors", "a list", type(raw_errors).__name__)
        benchmarks = tuple(
            self.benchmark(b, f"benchmarks[{i}]", suite) for i, b in enumerate(raw_benchmarks)
        )
        seen: dict[str, int] = {}
        for i, b in enumerate(benchmarks):
            if b.name in seen:
                raise self.fail(
                    f"benchmarks[{i}].name",
                    f"a name unique in the document (also benchmarks[{seen[b.name]}])",
                    b.name,
                )
            seen[b.name] = i
        errors = tuple(self.error(e, f"errors[{i}]", suite) for i, e in enumerate(raw_errors))
        if not benchmarks and not errors:
            raise self.fail(
                "benchmarks", "at least one benchmark (or an error saying why none ran)", []
            )
        return ResultDocument(suite, created, commit, runner, benchmarks, errors)

    def commit(self, data: Any) -> Commit:
        data = self.obj(data, "commit")
        cid = self.text(data, "id", "commit")
        if not COMMIT_ID_RE.match(cid):
            raise self.fail("commit.id", "40 lowercase hex digits (a full git commit id)", cid)
        message = self.text(data, "message", "commit", empty=True)
        timestamp = self.get(data, "timestamp", "commit")
        if not is_iso8601(timestamp):
            raise self.fail("commit.timestamp", "an ISO 8601 timestamp", timestamp)
        author = self.obj(self.get(data, "author", "commit"), "commit.author")
        name = self.text(author, "name", "commit.author", empty=True)
        email = self.text(author, "email", "commit.author", empty=True)
        url = data.get("url")
        if url is not None and not (
            isinstance(url, str) and url.startswith(("http://", "https://"))
        ):
            raise self.fail("commit.url", "null or an http(s) URL", url)
        return Commit(cid, message, timestamp, name, email, url)

    def runner(self, data: Any) -> Runner:
        data = self.obj(data, "runner")
        label = self.text(data, "label", "runner")
        if not slug(label):
            raise self.fail("runner.label", "a label with letters or digits", label)
        cpus = self.get(data, "cpus", "runner")
        if isinstance(cpus, bool) or not isinstance(cpus, int) or not 1 <= cpus <= 4096:
            raise self.fail("runner.cpus", "a whole number of CPUs, 1..4096", cpus)
        cpu_model = self.text(data, "cpu_model", "runner", empty=True)
        os_name = self.text(data, "os", "runner", empty=True)
        arch = self.text(data, "arch", "runner", empty=True)
        return Runner(label, cpus, cpu_model, os_name, arch)

    def name(self, data: dict[str, Any], where: str, suite: str, *, error: bool = False) -> str:
        name = self.text(data, "name", where)
        companion = COMPANION_RE.match(name)
        base = companion.group(1) if companion else name
        match = (ERROR_NAME_RE if error else NAME_RE).match(base)
        if not match or not is_name(base):
            raise self.fail(f"{where}.name", f"a name {NAME_RULE}, or it + ' (instructions)'", name)
        # `<name> (<series>)` belongs in the document of suite `<suite>-<series>`, and only there.
        owner = f"{match.group(1)}-{companion.group(2)}" if companion else match.group(1)
        if owner != suite:
            raise self.fail(f"{where}.name", _names_of(suite), name)
        return name

    def benchmark(self, data: Any, where: str, suite: str) -> Benchmark:
        data = self.obj(data, where)
        name = self.name(data, where, suite)
        direction = data.get("direction", "bigger")
        if direction not in DIRECTIONS:
            raise self.fail(f"{where}.direction", '"bigger" or "smaller"', direction)
        unit = self.text(data, "unit", where)
        if CONTROL_RE.search(unit):
            raise self.fail(
                f"{where}.unit", "a unit without control characters or bidi controls", unit
            )
        # A unit whose direction is known must have it (a size read as a throughput is a bug);
        # any other unit (`allocs`, a custom tool's `Percent`) takes the direction declared.
        if direction == "bigger" and smaller_unit(unit):
            raise self.fail(
                f"{where}.unit",
                "a throughput unit '<thing>/s' or another unit (sizes, times and instruction "
                "counts like this one need direction smaller)",
                unit,
            )
        if direction == "smaller" and THROUGHPUT_UNIT_RE.match(unit):
            raise self.fail(
                f"{where}.unit",
                f"one of {', '.join(sorted(SMALLER_UNITS))}, instructions/<thing> or another "
                "unit that is not a throughput '<thing>/s' (throughputs need direction bigger)",
                unit,
            )
        if COMPANION_RE.match(name) and not COUNT_UNIT_RE.match(unit):
            raise self.fail(f"{where}.unit", "instructions/<thing> (an instructions series)", unit)
        value = self.number(self.get(data, "value", where), f"{where}.value")
        raw_samples = self.get(data, "samples", where)
        # Instruction counts repeat run to run: their spread is judged across rounds, not samples.
        # Otherwise at least MIN_SAMPLES, or exactly 1: a harness that reports one summary figure
        # (libtest, BMF, a single `go test` run); 2-4 is a sampling run cut short.
        counts = bool(COUNT_UNIT_RE.match(unit))
        n = len(raw_samples) if isinstance(raw_samples, list) else 0
        if not isinstance(raw_samples, list) or not n or (not counts and 1 < n < MIN_SAMPLES):
            got = n if isinstance(raw_samples, list) else raw_samples
            least = "at least 1 sample" if counts else f"at least {MIN_SAMPLES} samples"
            single = "" if counts else " (or 1: a harness's single summary figure)"
            raise self.fail(f"{where}.samples", f"a list of {least}{single}", got)
        samples = tuple(self.number(s, f"{where}.samples[{i}]") for i, s in enumerate(raw_samples))
        raw_ci = self.get(data, "ci", where)
        if not isinstance(raw_ci, list) or len(raw_ci) != 2:
            raise self.fail(f"{where}.ci", "a list [lo, hi]", raw_ci)
        lo = self.number(raw_ci[0], f"{where}.ci[0]")
        hi = self.number(raw_ci[1], f"{where}.ci[1]")
        slack = 1e-9 * value  # float rounding of conversions, not a real gap
        if not lo - slack <= value <= hi + slack:
            raise self.fail(f"{where}.ci", f"an interval lo <= value ({value}) <= hi", raw_ci)
        params = data.get("params", {})
        if not isinstance(params, dict) or not all(
            isinstance(v, str | int | float | bool) or v is None for v in params.values()
        ):
            raise self.fail(f"{where}.params", "an object of scalar values", params)
        return Benchmark(name, unit, value, (lo, hi), samples, direction, dict(params))

    def error(self, data: Any, where: str, suite: str) -> BenchError:
        data = self.obj(data, where)
        name = self.name(data, where, suite, error=True)
        message = self.text(data, "message", where)
        return BenchError(name, message)


def _names_of(suite: str) -> str:
    """The benchmark names a document of `suite` holds, for a complaint."""
    base, _, series = suite.rpartition("-")
    if base and series in COMPANION_SERIES:
        return f"a name '{base}/<name> ({series})' (suite '{suite}')"
    return f"a name starting with the suite '{suite}/'"


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key
