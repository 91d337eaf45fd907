"""Every path a command writes is checked before it does any work: a directory where a file goes
(or a file where a directory goes) is exit 2 naming the flag, at once, with nothing written.
`record-aa --out DIR` once measured for minutes and then died with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.errors import EXIT_BAD_INPUT
from benchtrack.fsutil import output_dir, output_file

ROOT = Path(__file__).resolve().parents[2]


def _argvs(d: Path, f: Path) -> list[tuple[str, list[str]]]:
    """(flag, argv) for each command, with `d` an existing directory and `f` an existing file."""
    rec = str(ROOT / "tracker" / "bench" / "recordings" / "aa-walk-lockstep-q1.json.gz")
    return [
        ("--out", ["record-aa", "--out", str(d), "--rounds", "3"]),
        ("--out", ["callgrind", "--out", str(d), "--", "true"]),
        ("--markdown", ["evaluate", rec, "--markdown", str(d)]),
        ("--out", ["ingest", "perl", str(f), "--out", str(d)]),
        ("--out", ["gate-comment", "--out", str(d)]),
        ("--out", ["detect", str(d), "--out", str(d)]),
        ("--summary", ["detect", str(d), "--summary", str(d)]),
        ("--summary", ["gate-selftest", "--summary", str(d)]),
        ("--out", ["gate-selftest", "--out", str(f)]),
        ("--out", ["gate", "--base", "HEAD", "--out", str(f)]),
    ]


def test_a_wrong_kind_of_path_is_refused_before_any_work(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(ROOT)
    d, f = tmp_path / "a-dir", tmp_path / "a-file"
    d.mkdir()
    f.write_text("x")
    for flag, argv in _argvs(d, f):
        assert main(argv) == EXIT_BAD_INPUT, argv
        err = capsys.readouterr().err
        assert flag in err and "expected" in err, (argv, err)
        assert list(d.iterdir()) == [] and f.read_text() == "x", argv  # nothing written
    # record-aa refused before it made its worktrees
    assert not any((ROOT / "target" / "gate" / "worktrees").glob("aa-walk*"))


def test_output_file_accepts_a_new_path_and_refuses_a_file_parent(tmp_path) -> None:
    assert output_file("--out", tmp_path / "new" / "deeper" / "x.json") is not None
    assert output_file("--out", None) is None
    (tmp_path / "plain").write_text("")
    with pytest.raises(Exception, match="--out: expected a path whose parent"):
        output_file("--out", tmp_path / "plain" / "x.json")


def test_output_dir_accepts_new_and_existing_dirs(tmp_path) -> None:
    assert output_dir("--out", tmp_path) == tmp_path
    assert output_dir("--out", tmp_path / "new") == tmp_path / "new"
    assert not (tmp_path / "new").exists()  # checked, not made
