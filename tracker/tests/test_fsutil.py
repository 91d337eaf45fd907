"""Atomic writes: pieces copied from an open file land byte for byte, or nothing lands."""

from __future__ import annotations

import os

import pytest

from benchtrack import fsutil


@pytest.mark.parametrize("kernel_copy", [True, False])
def test_ranges_of_a_source_file_are_copied_exactly(tmp_path, monkeypatch, kernel_copy):
    source = tmp_path / "old"
    old = os.urandom(3 << 20)
    source.write_bytes(old)
    if not kernel_copy:  # a filesystem pair copy_file_range refuses: read and write instead

        def refuse(*args, **kwargs):
            raise OSError(18, "Invalid cross-device link")

        monkeypatch.setattr(os, "copy_file_range", refuse)
    target = tmp_path / "new"
    with open(source, "rb") as f:
        pieces = [(0, 1000), b"<new>", (1000, len(old) - 2000), b"<end>", (len(old) - 7, 7)]
        fsutil.atomic_write(target, pieces, source=f.fileno())
    expected = old[:1000] + b"<new>" + old[1000 : len(old) - 1000] + b"<end>" + old[-7:]
    assert target.read_bytes() == expected


def test_a_staged_file_not_renamed_leaves_nothing(tmp_path):
    target = tmp_path / "data.js"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), fsutil.staged(target, b"new") as tmp:
        assert tmp.read_bytes() == b"new"
        raise RuntimeError("a check failed")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["data.js"]


def test_a_source_shorter_than_its_ranges_is_an_error(tmp_path):
    source = tmp_path / "old"
    source.write_bytes(b"short")
    with open(source, "rb") as f, pytest.raises(OSError, match="ended"):
        fsutil.atomic_write(tmp_path / "new", [(0, 100)], source=f.fileno())
    assert not (tmp_path / "new").exists()
