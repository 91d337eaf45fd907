"""Filesystem helpers shared by every writer: nothing is ever half-written."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def atomic_write(path: str | Path, data: bytes | str | Iterable[bytes | memoryview]) -> None:
    """Write `data` to `path` via a temp file in the same directory and a rename.

    Readers see the old file or the new one, never a truncated mix; a crash leaves the old one.
    `data` may be pieces, written in order, so a 100 MB file need not be joined in memory first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    pieces = [data] if isinstance(data, bytes | bytearray | memoryview) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(pieces)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_line(path: str | Path, line: str) -> None:
    """Append one line to a file GitHub Actions reads ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(line.rstrip("\n") + "\n")
