"""The fast reader of a data.js: msgspec decodes it straight into typed, slotted structs.

A 2,000-commit history holds ~300,000 benches per runner file. A dict per bench (orjson) and a
Python pass to check them cost about three times the CPU and memory of decoding into structs
whose types are the checks (format.check's rules); the few rules a type cannot state (non-empty
ids, tools, names and bench lists; finite numbers) are checked on the gathered columns. Any
refusal is explained by format.parse on the same bytes, whose message names the field: the
slow path only ever runs to say why a file is bad.

Two ways in: `scan` decodes a whole file (validate-history, append); `parts` and `decode_range`
decode a file in JSON.stringify's layout a few MB of entries at a time, so that a reader of the
columns (history.reader) holds one range's structs, never a whole file's.
"""

from __future__ import annotations

import gc
import mmap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np

from benchtrack.errors import BadInput
from benchtrack.history import format as fmt

Outline = dict[str, tuple[list[str], int]]  # entry name -> (commit ids in order, points)


class Bench(msgspec.Struct, gc=False):  # gc=False: no cycles are possible; the GC skips them
    name: str
    value: float  # JSON ints too: readers want float64 (writers splice bytes, never these)
    unit: str
    range: str = ""
    extra: str = ""


class Commit(msgspec.Struct, gc=False):
    id: str
    message: str = ""
    timestamp: str = ""
    url: str | None = ""
    author: Any = None  # the action's {name, email, username}; readers take only `name`


class Entry(msgspec.Struct, gc=False):
    commit: Commit
    date: int | float
    tool: str
    benches: list[Bench]


class Document(msgspec.Struct, gc=False):
    lastUpdate: int | float  # the action's field names
    repoUrl: str
    entries: dict[str, list[Entry]]


_DOCUMENT = msgspec.json.Decoder(Document)
_ENTRIES = msgspec.json.Decoder(list[Entry])


@dataclass
class Batch:
    """Consecutive entries of one entry list, checked, with their benches' columns."""

    name: str  # of the entry list
    runs: list[Entry]
    benches: list[Bench]  # of `runs`, in order
    names: list[str]  # of `benches`
    values: np.ndarray  # float64, of `benches`


@dataclass
class Scanned:
    """A checked data.js. `benches[spans[name][i][0]:spans[name][i][1]]` are the benches of
    `doc.entries[name][i]`."""

    source: str
    doc: Document
    benches: list[Bench]
    spans: dict[str, list[tuple[int, int]]]

    @property
    def extras(self) -> list[str]:
        return [b.extra for b in self.benches]

    def outline(self) -> Outline:
        """Entry name -> (commit ids in order, points): what a writer must keep."""
        return {
            name: (
                [run.commit.id for run in self.doc.entries[name]],
                spans[-1][1] - spans[0][0] if spans else 0,
            )
            for name, spans in self.spans.items()
        }


def scan(raw: bytes, source: str) -> Scanned:
    """Decode and check a whole data.js; BadInput naming the file and field if it is broken."""
    doc, checked_lists = _whole(raw, source)
    flat: list[Bench] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    for batch in checked_lists:
        bounds = spans[batch.name] = []
        at = len(flat)
        for entry in batch.runs:
            bounds.append((at, at + len(entry.benches)))
            at += len(entry.benches)
        flat += batch.benches
    return Scanned(source, doc, flat, spans)


def whole_batches(raw: bytes, source: str) -> list[Batch]:
    """A whole-file decode as batches, one per entry list (for a file `parts` cannot cut)."""
    return _whole(raw, source)[1]


def _whole(raw: bytes, source: str) -> tuple[Document, list[Batch]]:
    doc = _decode(_DOCUMENT, fmt.body(raw, source), raw, source)
    _check_number(doc.lastUpdate, raw, source)
    return doc, [checked(name, runs, raw, source) for name, runs in doc.entries.items()]


class OddLayout(Exception):  # a signal, not an error: the file is valid
    """`parts` cut a valid file where JSON.stringify's layout would not: read it whole."""


Part = tuple[str, Batch | tuple[int, int]]  # entry name, a decoded batch or a byte range


def parts(raw: bytes, source: str, size: int = 4 << 20) -> list[Part]:
    """The entry lists of a data.js in file order: small ones decoded and checked, the others
    as byte ranges of about `size` bytes of whole entries each, for `decode_range`.

    JSON.stringify puts each entry list's name on its own line at indent 4 and separates the
    entries of a list with `},` / `{` lines at indent 6; strings hold no raw line break, so these
    lines are found without parsing. The rest of the file (the frame: top-level fields, list
    names) is decoded on its own and must hold exactly those lists, empty; each range must
    decode as a list of entries. Together they are then the whole file, decoded.
    """
    fmt.body(raw, source)  # the prefix, or a clear error
    lists = _lists(raw)
    if not lists:
        raise OddLayout
    pieces, at = [], len(fmt.PREFIX)
    for _, start, end in lists:
        pieces.append(raw[at:start])
        at = end
    pieces.append(raw[at:])
    frame = _decode_part(_DOCUMENT, b"".join(pieces), raw, source)
    _check_number(frame.lastUpdate, raw, source)
    cut = {name: (start, end) for name, start, end in lists}
    if len(cut) != len(lists) or any(frame.entries.get(n, [None]) for n in cut):
        raise OddLayout
    out: list[Part] = []
    for name, runs in frame.entries.items():
        if name in cut:
            out += [(name, span) for span in _chunks(raw, *cut[name], size)]
        else:  # an empty list, `[]` on the name's line
            out.append((name, checked(name, runs, raw, source)))
    return out


def decode_range(raw: bytes, source: str, name: str, lo: int, hi: int) -> Batch:
    """The entries in raw[lo:hi] (of list `name`, a range `parts` gave), checked."""
    runs = _decode_part(_ENTRIES, b"".join((b"[", raw[lo:hi], b"]")), raw, source)
    return checked(name, runs, raw, source)


def _decode_part(decoder: msgspec.json.Decoder, text: bytes, raw: Any, source: str) -> Any:
    try:
        with _gc_paused():
            return decoder.decode(text)
    except msgspec.DecodeError:
        fmt.parse(bytes(raw), source)  # the file's own error, if it has one
        raise OddLayout from None  # else the cuts were not where JSON.stringify puts them


_ENTRIES_HEAD = b'\n  "entries": {\n'
_LIST = b'\n    "'  # an entry list's name line: only `entries` keys sit at indent 4
_LIST_NEXT = b"\n    ],"  # closes a list that another follows
_TAIL = b"\n    ]\n  }\n}"  # closes the last list, `entries`, the document
_SEPARATOR = b"\n      },\n      {\n"  # between two entries of a list


def _lists(raw: Any) -> list[tuple[str, int, int]]:
    """(name, start, end) of the inside of each entry list written as JSON.stringify does;
    empty if the file does not look so.

    The first list's name line follows `"entries": {`; every other one follows the `],` that
    closes the list before it. `]` is rare (one per entry, closing its benches): a search for
    that one byte runs at memchr speed, where one for a longer needle crawls through a 100 MB
    file.
    """
    head = raw.find(_ENTRIES_HEAD, 0, 1 << 16)  # after lastUpdate and repoUrl
    if head < 0 or raw[len(raw) - len(_TAIL) :] != _TAIL:
        return []
    first = head + len(_ENTRIES_HEAD) - 1
    if raw[first : first + len(_LIST)] != _LIST:
        return []
    lines, at = [], len(raw) - len(_TAIL)
    boundary = _LIST_NEXT + _LIST  # `\n    ],\n    "`: a list closes, the next one's name
    offset = _LIST_NEXT.index(b"]")
    while (close := raw.rfind(b"]", first, at)) >= 0:
        if raw[close - offset : close - offset + len(boundary)] == boundary:
            lines.append(close - offset + len(_LIST_NEXT))
        at = close
    lines.append(first)
    lines.reverse()
    out = []
    for i, line in enumerate(lines):
        eol = raw.find(b"\n", line + 1)
        text = raw[line + len(_LIST) - 1 : eol]
        if not text.endswith(b": ["):
            continue  # `"name": []` on one line: left in the frame, which holds it whole
        try:
            name = msgspec.json.decode(text[:-3], type=str)
        except msgspec.DecodeError:
            return []
        end = lines[i + 1] - len(_LIST_NEXT) if i + 1 < len(lines) else len(raw) - len(_TAIL)
        if i + 1 < len(lines) and raw[end : lines[i + 1]] != _LIST_NEXT:
            return []
        out.append((name, eol + 1, end))
    return out


def _chunks(raw: Any, start: int, end: int, size: int) -> Iterator[tuple[int, int]]:
    """[lo, hi) runs of whole entries in raw[start:end], cut after the `}` of an entry."""
    lo = start
    while end - lo > size:
        sep = raw.find(_SEPARATOR, lo + size, end)
        if sep < 0:
            break
        hi = sep + len(b"\n      }")
        yield lo, hi
        lo = hi + 1  # past the comma
    yield lo, end


def _decode(decoder: msgspec.json.Decoder, text: Any, raw: Any, source: str) -> Any:
    try:
        with _gc_paused():
            return decoder.decode(text)
    except msgspec.DecodeError as e:  # malformed JSON or a wrong type (ValidationError)
        _explain(raw, source, str(e))


def checked(name: str, runs: list[Entry], raw: Any, source: str) -> Batch:
    """`runs` of list `name` as a Batch, once the rules the structs' types cannot state hold."""
    benches: list[Bench] = []
    for entry in runs:
        if not (entry.commit.id and entry.tool and entry.benches):
            _explain(raw, source, "a non-empty commit id, tool and bench list")
        _check_number(entry.date, raw, source)
        benches += entry.benches
    names = [b.name for b in benches]
    values = np.array([b.value for b in benches], dtype=np.float64)
    if "" in names or not np.isfinite(values).all():
        _explain(raw, source, "non-empty bench names and finite values")
    return Batch(name, runs, benches, names, values)


def _check_number(value: float, raw: Any, source: str) -> None:
    if not np.isfinite(float(value)):
        _explain(raw, source, "finite numbers")


def _explain(raw: Any, source: str, found: str) -> Any:
    """Raise format.parse's precise message for a refused file (it always has one: its rules
    are the structs' types plus `checked`'s). The fallback line guards against that drifting."""
    fmt.parse(bytes(raw), source)
    raise BadInput(source, None, "a data.js benchtrack can read", found)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Decoding allocates ~1M objects per file, none of them garbage: the cyclic GC, triggered
    by the allocation count, would walk them again and again for nothing (~15% of the time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# The outline of a file (entry name -> commit ids in order, number of benches): what a writer
# checks its new bytes against before they replace a file. Benches are skipped, not built.
class _Bare(msgspec.Struct, gc=False):
    pass


class _Id(msgspec.Struct, gc=False):
    id: str


class _Run(msgspec.Struct, gc=False):
    commit: _Id
    benches: list[_Bare]


class _Outline(msgspec.Struct, gc=False):
    entries: dict[str, list[_Run]]


_OUTLINE = msgspec.json.Decoder(_Outline)


def outline(raw: bytes | mmap.mmap) -> Outline:
    """Entry name -> (commit ids, points) of data.js bytes; msgspec.DecodeError if they are
    not JSON of that shape."""
    with _gc_paused():
        doc = _OUTLINE.decode(memoryview(raw)[len(fmt.PREFIX) :])
    return {
        name: ([r.commit.id for r in runs], sum(len(r.benches) for r in runs))
        for name, runs in doc.entries.items()
    }
