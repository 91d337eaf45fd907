"""`data.js` as github-action-benchmark reads and writes it, byte for byte.

The action loads `script.slice(PREFIX.length)` with JSON.parse and stores
`PREFIX + JSON.stringify(data, null, 2)` (no trailing newline). We parse with orjson, check every
field the action and our readers rely on, and serialise with orjson's 2-space indent, which equals
JSON.stringify's layout and string escaping; only numbers differ (orjson writes `1.0`, `1e16`,
`1e-6`), so floats whose JS spelling differs are replaced by their exact JS text first.

A file that does not parse or has the wrong shape raises BadInput naming the file and the field:
the action would silently start over from an empty history, and so must we never.
"""

from __future__ import annotations

import math
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from benchtrack.errors import BadInput

PREFIX = b"window.BENCHMARK_DATA = "
BIGGER_TOOL = "customBiggerIsBetter"
SMALLER_TOOL = "customSmallerIsBetter"
SMALLER_SUFFIX = " (smaller is better)"
_MAX_SAFE_INT = 2**53


def js_number(value: float) -> str:
    """`value` spelled as JavaScript's Number::toString (hence JSON.stringify) spells it.

    Python's repr and JS both emit the shortest round-tripping digits; only the layout differs.

    >>> [js_number(v) for v in (1.0, 0.5, 1e21, 1e-7, 0.000001, 123e18, -2.5e-9)]
    ['1', '0.5', '1e+21', '1e-7', '0.000001', '123000000000000000000', '-2.5e-9']
    """
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    # n: where the decimal point sits relative to the first significant digit (ECMA-262's n).
    if whole != "0":
        point = len(whole) + int(exp or 0)
    else:
        point = int(exp or 0) - (len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= point <= 21:
        out = digits + "0" * (point - k)
    elif 0 < point <= 21:
        out = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        out = "0." + "0" * -point + digits
    else:
        e = point - 1
        out = f"{digits[0]}{'.' + digits[1:] if k > 1 else ''}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


def js_value(value: Any) -> Any:
    """A number orjson will print exactly as JSON.stringify does (int, float or raw Fragment)."""
    if isinstance(value, float):
        if value.is_integer():
            return int(value) if abs(value) < _MAX_SAFE_INT else orjson.Fragment(js_number(value))
        # orjson switches to exponents below 1e-5 where JS still writes 0.00000x.
        return value if abs(value) >= 1e-4 else orjson.Fragment(js_number(value))
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_SAFE_INT:
        return orjson.Fragment(js_number(float(value)))  # JSON.parse would round it so
    return value


def _js_tree(value: Any) -> Any:
    """`js_value` applied to every number inside a small object (commits, unknown fields)."""
    if isinstance(value, dict):
        return {k: _js_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_tree(v) for v in value]
    return js_value(value)


def dumps(data: dict[str, Any]) -> bytes:
    """The bytes the action would write for `data` (which `parse` or `new_entry` produced)."""
    return PREFIX + orjson.dumps(data, option=orjson.OPT_INDENT_2)


def splice(
    raw: bytes,
    names: list[str],
    scalars: dict[str, Any],
    added: dict[str, list[dict[str, Any]]],
) -> list[bytes | tuple[int, int]] | None:
    """The pieces of the file `raw` with `added` (entry name -> the entries appended to its
    list) and the new top-level `scalars` (lastUpdate, repoUrl); `names` are the entry names
    of `raw` in its order.

    Appending only adds an entry's text before the `]` that closes its list and rewrites the
    top-level scalars: JSON.stringify lays out each depth on its own indentation (strings hold
    no raw newline), so the line closing a list in `entries` can be found without parsing. The
    bytes elsewhere are kept as they are: the action's output stays the action's output, as
    (offset, length) ranges of `raw` between the new pieces. None if the file's layout is not
    JSON.stringify's at those places, or a list is new: the caller then serialises the whole
    document.
    """
    head = raw.find(b'\n  "entries": {\n')
    tail = b"\n    ]\n  }\n}"  # the last list closes, then `entries`, then the document
    if head < 0 or raw[len(raw) - len(tail) :] != tail:
        return None
    edits: list[tuple[int, int, bytes]] = []  # (start, end, new bytes), in file order
    for key in ("lastUpdate", "repoUrl"):  # top-level scalars: one line each, at indent 2
        start = raw.find(b'\n  "%s": ' % key.encode(), 0, head)
        if start < 0:
            return None
        start += len(key) + 7
        end = raw.find(b"\n", start)
        if end < 0:
            return None
        end -= raw[end - 1 : end] == b","
        edits.append((start, end, orjson.dumps(js_value(scalars[key]))))
    position = {name: i for i, name in enumerate(names)}
    for name, runs in added.items():
        # The list's closing line: before the next list's name, or the file's tail. Searched
        # from the end, so only the (short) lists after this one are scanned.
        i = position.get(name, -1)
        if i < 0:
            return None
        if i + 1 < len(names):
            closing = raw.rfind(b"\n    ],\n    " + orjson.dumps(names[i + 1]) + b": [\n")
        else:
            closing = len(raw) - len(tail)
        if not runs or closing < head or raw[closing - 8 : closing] != b"\n      }":
            return None  # not JSON.stringify's layout, a new or an empty list
        text = b"".join(
            b",\n      " + _entry_bytes(run).replace(b"\n", b"\n      ") for run in runs
        )
        edits.append((closing, closing, text))
    edits.sort(key=lambda edit: edit[0])
    pieces: list[bytes | tuple[int, int]] = []
    at = 0
    for start, end, text in edits:
        if start < at:
            return None
        pieces += [(at, start - at), text]
        at = end
    pieces.append((at, len(raw) - at))
    return pieces


def _entry_bytes(entry: dict[str, Any]) -> bytes:
    return orjson.dumps(_js_tree(entry), option=orjson.OPT_INDENT_2)


def empty() -> dict[str, Any]:
    return {"lastUpdate": 0, "repoUrl": "", "entries": {}}


@dataclass
class DataJs:
    """A checked data.js as the action's object: the reference check, and the tree a full
    rewrite serialises (readers and appends decode through history.scan).

    `benches[spans[name][i][0]:spans[name][i][1]]` are the benches of `data["entries"][name][i]`.
    """

    source: str
    data: dict[str, Any]
    benches: list[dict[str, Any]]
    spans: dict[str, list[tuple[int, int]]]
    values: list[int | float]  # of `benches`, gathered once by the check


def parse(raw: bytes, source: str, *, for_write: bool = False) -> DataJs:
    """Check a data.js; BadInput naming the file and field if github-action-benchmark's format
    is broken. `for_write` also normalises numbers so that `dumps` reproduces JSON.stringify.
    """
    return check(decode(raw, source), source, for_write=for_write)


@contextmanager
def opened(path: Path, source: str) -> Iterator[int | None]:
    """The data.js at `path` open for reading (a descriptor; None if there is none)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        yield None
        return
    except OSError as e:
        raise BadInput(source, None, f"a readable data.js ({e.strerror})") from None
    try:
        yield fd
    finally:
        os.close(fd)


def body(raw: bytes | mmap.mmap, source: str) -> memoryview:
    """The JSON after the prefix, without copying a 100 MB file (bytes or a mapping of it)."""
    if raw[: len(PREFIX)] != PREFIX:
        if not bytes(raw).strip():
            raise BadInput(source, None, "a data.js, the file is empty")
        got = raw[: len(PREFIX)].decode("utf-8", "replace")
        raise BadInput(source, None, f"a file starting with '{PREFIX.decode()}'", got)
    return memoryview(raw)[len(PREFIX) :]


def decode(raw: bytes, source: str) -> Any:
    view = body(raw, source)
    try:
        return orjson.loads(view)
    except orjson.JSONDecodeError as e:
        raise BadInput(
            source, None, f"valid JSON after the prefix (truncated or broken: {e})"
        ) from None


def check(data: Any, source: str, *, for_write: bool = False) -> DataJs:
    """Raise BadInput at the first field the action or our readers would trip on."""

    def fail(where: str, expected: str, got: object = None) -> BadInput:
        return BadInput(source, where, expected, got)

    if not isinstance(data, dict):
        raise fail("", "a JSON object {lastUpdate, repoUrl, entries}", type(data).__name__)
    for key, kind in (("lastUpdate", "a number"), ("repoUrl", "a string"), ("entries", "object")):
        if key not in data:
            raise fail(key, f"{kind} (missing)")
    if not _is_number(data["lastUpdate"]):
        raise fail("lastUpdate", "a number (ms since the epoch)", data["lastUpdate"])
    if not isinstance(data["repoUrl"], str):
        raise fail("repoUrl", "a string", data["repoUrl"])
    entries = data["entries"]
    if not isinstance(entries, dict):
        raise fail("entries", "an object of entry name -> list", type(entries).__name__)
    flat: list[dict[str, Any]] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    for name, runs in entries.items():
        if not isinstance(runs, list):
            raise fail(f"entries.{name}", "a list of entries", type(runs).__name__)
        bounds = spans[name] = []
        for i, entry in enumerate(runs):
            benches = _check_entry(entry, f"entries.{name}[{i}]", fail)
            bounds.append((len(flat), len(flat) + len(benches)))
            flat.extend(benches)
    values = _columns(flat)
    if values is None:
        _find_bad_bench(spans, flat, fail)  # raises with the exact field
        raise fail("entries", "well-formed benches")  # unreachable: _columns disagrees
    parsed = DataJs(source, data, flat, spans, values)
    if for_write:
        normalise(parsed)
    return parsed


def normalise(parsed: DataJs) -> None:
    """Respell the numbers orjson would write unlike JSON.stringify, so that `dumps` of
    `parsed.data` (with entries appended since) is the action's bytes."""
    for runs in parsed.data["entries"].values():
        for entry in runs:
            for key, value in entry.items():
                if key != "benches":
                    entry[key] = _js_tree(value)
    _normalise_values(parsed.benches, parsed.values)


def _check_entry(entry: Any, where: str, fail: Any) -> list[dict[str, Any]]:
    if not isinstance(entry, dict):
        raise fail(where, "an object {commit, date, tool, benches}", type(entry).__name__)
    commit = entry.get("commit")
    if not isinstance(commit, dict):
        raise fail(f"{where}.commit", "an object", commit)
    cid = commit.get("id")
    if not isinstance(cid, str) or not cid:
        raise fail(f"{where}.commit.id", "a commit id string", cid)
    for key in ("message", "timestamp"):
        if not isinstance(commit.get(key, ""), str):
            raise fail(f"{where}.commit.{key}", "a string", commit[key])
    url = commit.get("url", "")
    if url is not None and not isinstance(url, str):
        raise fail(f"{where}.commit.url", "a string", url)
    date = entry.get("date")
    if not _is_number(date):
        raise fail(f"{where}.date", "a number (ms since the epoch)", date)
    tool = entry.get("tool")
    if not isinstance(tool, str) or not tool:
        raise fail(f"{where}.tool", "a tool name string", tool)
    benches = entry.get("benches")
    if not isinstance(benches, list) or not benches:
        raise fail(f"{where}.benches", "a non-empty list", benches)
    return benches


_BENCH_KEYS = frozenset({"name", "value", "unit", "range", "extra"})


def _columns(flat: list[Any]) -> list[int | float] | None:
    """The values of well-formed benches, every field checked column by column at C speed
    (per-bench Python checks cost seconds on a 2,000-commit history); None if any is bad."""
    if not flat:
        return []
    if set(map(type, flat)) != {dict}:
        return None
    try:
        names = [b["name"] for b in flat]
        values = [b["value"] for b in flat]
        units = [b["unit"] for b in flat]
    except KeyError:
        return None
    extras, ranges = _optional(flat, "extra"), _optional(flat, "range")
    if set(map(type, names)) != {str} or "" in names or set(map(type, units)) != {str}:
        return None
    if set(map(type, extras)) != {str} or set(map(type, ranges)) != {str}:
        return None
    if not set(map(type, values)) <= {int, float}:
        return None
    try:
        finite = bool(np.isfinite(np.array(values, dtype=np.float64)).all())
    except OverflowError:  # an int beyond any float: a number all the same
        finite = all(math.isfinite(v) for v in values if type(v) is float)
    return values if finite else None


def _optional(flat: list[dict[str, Any]], key: str) -> list[Any]:
    """Column `key`, "" where absent; subscripting is twice as fast as .get when all have it."""
    try:
        return [b[key] for b in flat]
    except KeyError:
        return [b.get(key, "") for b in flat]


def _find_bad_bench(spans: dict[str, list[tuple[int, int]]], flat: list[Any], fail: Any) -> None:
    for name, bounds in spans.items():
        for i, (lo, hi) in enumerate(bounds):
            for j, bench in enumerate(flat[lo:hi]):
                where = f"entries.{name}[{i}].benches[{j}]"
                if not isinstance(bench, dict):
                    raise fail(where, "an object {name, value, unit}", bench)
                name_ = bench.get("name")
                if not isinstance(name_, str) or not name_:
                    raise fail(f"{where}.name", "a non-empty string", name_)
                value = bench.get("value")
                if not _is_number(value):  # quote strings: "31" is not 31
                    raise fail(f"{where}.value", "a number", repr(value))
                if not isinstance(bench.get("unit"), str):
                    raise fail(f"{where}.unit", "a string", bench.get("unit"))
                for key in ("range", "extra"):
                    if key in bench and not isinstance(bench[key], str):
                        raise fail(f"{where}.{key}", "a string", bench[key])


def _normalise_values(flat: list[dict[str, Any]], values: list[int | float]) -> None:
    """Make the few numbers orjson would spell unlike JS (integral or tiny floats, huge ints)."""
    column = np.array(values, dtype=np.float64)
    suspects = (column == np.trunc(column)) | (np.abs(column) < 1e-4)
    for i in np.flatnonzero(suspects):
        flat[i]["value"] = js_value(values[i])
    if not set().union(*flat) <= _BENCH_KEYS:  # other tools' fields: keep, spelled as JS would
        for bench in flat:
            for key, other in bench.items():
                if key not in _BENCH_KEYS:
                    bench[key] = _js_tree(other)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)
