"""benchtrack.names: a benchmark name <-> one safe path segment, both ways, for every name."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from benchtrack.names import MAX_SEGMENT, from_path_segment, to_path_segment

AWKWARD = [
    "a b",
    "test_x[10-async]",
    "BM_Foo/8/real_time",
    "googlebenchmark/BM_Foo/8/real_time",
    "a//b",  # an empty segment
    "/",
    "..",
    ".",
    ".hidden",
    "trailing.",
    "100%",
    "%41",
    "~41",
    "!a",
    "über/ünïcödé 名前 🚀",
    "CON",
    "con.txt",
    "nul",
    "LPT1",
    'a\\b:c*d?e"f<g>h|i',
    "BM_Foo",
    "bm_foo",
    "#frag?q=1&x",
]
# Everything a harness might write: any text without control characters (result.py's rule),
# weighted towards the characters that are special somewhere.
NAMES = st.text(
    alphabet=st.one_of(
        st.sampled_from("/\\.%~! []()#?&=:*\"<>|'`$+,;@^{}-_AZaz09"),
        st.characters(blacklist_categories=("Cc", "Cs")),
    ),
    min_size=1,
    max_size=60,
)
SEGMENT_RE = re.compile(r"^[a-z0-9_.~\-]+$")


@settings(max_examples=2000, deadline=None)
@given(NAMES)
@example("..")
@example("CON")
def test_round_trip_and_safe_everywhere(name):
    try:
        segment = to_path_segment(name)
    except ValueError as error:  # refused, never cut: only when it cannot fit a file name
        assert "longer than 255" in str(error)
        assert len(name.encode()) * 3 > MAX_SEGMENT
        return
    assert from_path_segment(segment) == name
    assert SEGMENT_RE.match(segment)  # no separator, nothing Windows refuses, lowercase only
    assert segment not in (".", "..") and not segment.startswith(".")
    assert not segment.endswith(".")
    assert not re.match(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)", segment)
    assert quote(segment, safe="") == segment == unquote(segment)  # a URL leaves it alone


@given(NAMES, NAMES)
def test_different_names_never_share_a_file_even_ignoring_case(a, b):
    if a != b and max(len(a.encode()), len(b.encode())) <= MAX_SEGMENT // 4:
        assert to_path_segment(a).lower() != to_path_segment(b).lower()


@pytest.mark.parametrize("name", AWKWARD)
def test_awkward_names_are_files_of_their_own(tmp_path, name):
    path = tmp_path / to_path_segment(name)
    path.write_text(name)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # one file, in tmp_path itself
    assert from_path_segment(path.name) == path.read_text() == name


def test_all_awkward_names_are_distinct_files(tmp_path):
    for name in AWKWARD:
        (tmp_path / to_path_segment(name)).write_text(name)
    assert sorted(from_path_segment(p.name) for p in tmp_path.iterdir()) == sorted(AWKWARD)


def test_readable_spelling():
    assert to_path_segment("test_x[10-async]") == "test_x~5b10-async~5d"
    assert to_path_segment("BM_Foo/8") == "~~b~~m_~~foo~2f8"
    assert to_path_segment("!a") == "~21a"
    assert to_path_segment("..") == "~2e~2e"
    assert to_path_segment("con") == "~63on"


@pytest.mark.parametrize(
    "segment",
    ["", "A", "~2", "~zz", "~~1", "~~", "a/b", "~61", "..", ".a", "con", "%41", "~ff", "!a"],
)
def test_only_the_encoders_own_spelling_decodes(segment):
    with pytest.raises(ValueError):
        from_path_segment(segment)


def test_empty_and_overlong_names_are_refused():
    with pytest.raises(ValueError, match="empty"):
        to_path_segment("")
    assert len(to_path_segment("a" * MAX_SEGMENT)) == MAX_SEGMENT
    with pytest.raises(ValueError, match="longer than 255"):
        to_path_segment("/" * 100)


def test_the_module_is_the_one_escaping():
    """No other module of the tracker quotes names for paths on its own."""
    src = Path(__file__).resolve().parents[1] / "src" / "benchtrack"
    offenders = [
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if re.search(r"\burllib\.parse\b|\bquote\(", p.read_text())
    ]
    assert offenders == []


def test_the_shared_vectors():
    """The vectors another implementation (the dashboard's JavaScript) is to pass too."""
    vectors = json.loads((Path(__file__).parent / "fixtures/names/vectors.json").read_text())
    assert [v["name"] for v in vectors] == AWKWARD
    for v in vectors:
        assert to_path_segment(v["name"]) == v["segment"]
        assert from_path_segment(v["segment"]) == v["name"]
