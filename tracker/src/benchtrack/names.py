"""The one escaping of a benchmark name into a path segment, file name or URL fragment.

Result documents keep names as the harness wrote them (`python/test_x[10-async]`,
`googlebenchmark/BM_Foo/8/real_time`, spaces, unicode). Wherever a name becomes one path
segment, a file name or a URL fragment it goes through `to_path_segment`, and back through
`from_path_segment`; the pair is a bijection (every name has one segment, and every segment this
module accepts decodes to the name that gives it).

The segment is safe everywhere it may land:
- only `a-z 0-9 _ - . ~` (RFC 3986's unreserved characters, lowercase): no separator (`/`,
  `\\`), nothing Windows refuses (`<>:"|?*`), nothing a URL or `encodeURIComponent` would
  change, so a browser, a static web server and a file system all see the same string. `%` is
  not the escape: a server decodes `%41` in a requested path before it looks the file up, so a
  file holding one would not be found.
- lowercase only, an uppercase letter written `~~x`: names differing in case (`BM_Foo`,
  `bm_foo`) stay different files on case-insensitive file systems (macOS, Windows).
- every other byte of the UTF-8 name as `~hh` (lowercase hex): spaces, slashes, unicode.
- a leading or trailing `.` escaped: never `.`, `..`, a hidden file, or a name Windows would
  silently strip a trailing dot from.
- a Windows device name (`con`, `nul`, `com1`, ... also before an extension) gets its first
  letter escaped.
- at most 255 bytes (the common file-name limit): a longer one is refused, not cut, since a cut
  name could not be decoded. A caller that must store any name should hash beside it.
"""

from __future__ import annotations

import re

MAX_SEGMENT = 255
_LITERAL = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_-.")
_UPPER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Windows reserves these names, with any extension, in every directory.
_DEVICE_RE = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)")
_SEGMENT_RE = re.compile(r"^(?:[a-z0-9_.\-]|~~[a-z]|~[0-9a-f]{2})+$")


def to_path_segment(name: str) -> str:
    """`name` as one safe path segment / file name / URL fragment (see the module docstring).

    >>> to_path_segment("BM_Foo/8/real_time")
    '~~b~~m_~~foo~2f8~2freal_time'
    >>> to_path_segment("test_x[10-async]")
    'test_x~5b10-async~5d'
    """
    if not name:
        raise ValueError("an empty name has no path segment")
    data = name.encode("utf-8")  # a lone surrogate cannot be a harness's name: let it raise
    out = []
    last = len(data) - 1
    for i, byte in enumerate(data):
        if byte in _UPPER:
            out.append("~~" + chr(byte).lower())
        elif byte in _LITERAL and not (byte == 0x2E and i in (0, last)):
            out.append(chr(byte))
        else:
            out.append(f"~{byte:02x}")
    segment = "".join(out)
    if _DEVICE_RE.match(segment):
        segment = f"~{ord(segment[0]):02x}{segment[1:]}"
    if len(segment) > MAX_SEGMENT:
        raise ValueError(f"{name[:40]!r}…: its path segment is longer than {MAX_SEGMENT} bytes")
    return segment


def from_path_segment(segment: str) -> str:
    """The name `to_path_segment` turned into `segment`; ValueError for any other string."""
    if not _SEGMENT_RE.match(segment):
        raise ValueError(f"{segment!r} is not a benchmark name's path segment")
    data = bytearray()
    i = 0
    while i < len(segment):
        char = segment[i]
        if segment.startswith("~~", i):
            data.append(ord(segment[i + 2].upper()))
            i += 3
        elif char == "~":
            data.append(int(segment[i + 1 : i + 3], 16))
            i += 3
        else:
            data.append(ord(char))
            i += 1
    try:
        name = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{segment!r} does not decode to UTF-8 text") from None
    # Only the one spelling the encoder writes is accepted (`~61` for `a` is not), so two
    # different files can never stand for one name.
    if to_path_segment(name) != segment:
        raise ValueError(f"{segment!r} is not how benchtrack spells {name!r}")
    return name
