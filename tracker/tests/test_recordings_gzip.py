"""The shipped recordings are gzip (`.json.gz`, tracker/bench/recordings/README.md): every reader
takes one as it is, told by its content, and a broken one is bad input naming the file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.fsutil import read_maybe_gzip

RECORDING = Path(__file__).parent / "fixtures" / "aa" / "perl.json"


def _evaluate(path: Path, capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """The exit code, the report (its file name replaced) and stderr. The report as JSON: the
    terminal's wraps its lines where the file's path ends, and a path is as long as the
    temporary directory it is in."""
    code = main(["evaluate", str(path), "--prs", "50", "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    return code, out.replace(str(path), "RECORDING"), err


def test_a_gzip_recording_evaluates_as_the_json_it_was(tmp_path, capsys) -> None:
    plain, packed = tmp_path / "aaaaa.json", tmp_path / "aa.json.gz"
    plain.write_bytes(RECORDING.read_bytes())
    packed.write_bytes(gzip.compress(RECORDING.read_bytes()))
    assert read_maybe_gzip(packed) == read_maybe_gzip(plain) == RECORDING.read_bytes()
    code, out, _ = _evaluate(plain, capsys)
    assert code == 0 and "false_fail" in out
    assert _evaluate(packed, capsys) == (code, out, "")
    # by content, not by name: gzip bytes under a .json name read the same
    renamed = tmp_path / "bbbbb.json"
    renamed.write_bytes(packed.read_bytes())
    assert _evaluate(renamed, capsys)[:2] == (code, out)


def test_a_truncated_gzip_recording_is_bad_input_naming_the_file(tmp_path, capsys) -> None:
    cut = tmp_path / "cut.json.gz"
    whole = gzip.compress(RECORDING.read_bytes())
    cut.write_bytes(whole[: len(whole) // 2])
    assert main(["evaluate", str(cut), "--prs", "50"]) == 2
    err = capsys.readouterr().err
    assert str(cut) in err and "gzip" in err and "Traceback" not in err
    corrupt = tmp_path / "corrupt.json.gz"
    corrupt.write_bytes(whole[:10] + bytes(len(whole) - 10))
    assert main(["evaluate", str(corrupt), "--prs", "50"]) == 2
    assert str(corrupt) in capsys.readouterr().err
