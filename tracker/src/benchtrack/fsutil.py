"""Filesystem helpers shared by every writer: nothing is ever half-written."""

from __future__ import annotations

import gzip
import mmap
import os
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from benchtrack.errors import BadInput

Piece = bytes | bytearray | memoryview | tuple[int, int]  # a tuple: (offset, length) of `source`
GZIP_MAGIC = b"\x1f\x8b"


def read_maybe_gzip(path: Path | str) -> bytes:
    """A file's bytes, decompressed when they are gzip (told by content, not by name): the shipped
    recordings are `.json.gz` (tracker/bench/recordings/README.md), and every reader of a
    recording takes one as it is. A truncated or corrupt gzip file is BadInput naming it (exit 2);
    a missing file raises FileNotFoundError, as reading it would."""
    raw = Path(path).read_bytes()
    if not raw.startswith(GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, zlib.error) as e:  # EOFError: truncated; OSError: BadGzipFile
        raise BadInput(path, None, f"a complete gzip file (truncated or corrupt: {e})") from None


def output_file(flag: str, path: Path | str | None) -> Path | None:
    """`path` if a file can be written there, checked before a command does any work: an
    existing directory, or a parent that is a file or not writable, is bad input (exit 2)
    naming `flag`, rather than a traceback after minutes of measuring. None passes through."""
    if path is None:
        return None
    path = Path(path)
    if path.is_dir():
        raise BadInput(flag, None, "a file path, not a directory", str(path))
    parent = next((p for p in [path.parent, *path.parent.parents] if p.exists()), Path("."))
    if not parent.is_dir():
        raise BadInput(flag, None, f"a path whose parent {parent} is a directory", str(path))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise BadInput(
            flag, None, f"a path under a writable directory ({parent} is not)", str(path)
        )
    return path


def output_dir(flag: str, path: Path | str) -> Path:
    """`path` if it is, or can be made, a directory: checked before any work (see output_file)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise BadInput(flag, None, "a directory, not a file", str(path))
    if not path.exists():
        output_file(flag, path)
    elif not os.access(path, os.W_OK | os.X_OK):
        raise BadInput(flag, None, "a writable directory", str(path))
    return path


def atomic_write(
    path: str | Path, data: bytes | str | Iterable[Piece], *, source: int | None = None
) -> None:
    """Write `data` to `path` via a temp file in the same directory and a rename.

    Readers see the old file or the new one, never a truncated mix; a crash leaves the old one.
    `data` may be pieces, written in order, so a 100 MB file need not be joined in memory first.
    """
    with staged(path, data, source=source) as tmp:
        os.replace(tmp, path)


@contextmanager
def staged(
    path: str | Path, data: bytes | str | Iterable[Piece], *, source: int | None = None
) -> Iterator[Path]:
    """A temp file next to `path` holding `data`, flushed to disk, for the caller to check and
    rename onto `path`; removed on leaving if it was not renamed.

    A piece `(offset, length)` is that range of the open file `source`, copied inside the kernel
    (copy_file_range): appending to a 100 MB file copies its old bytes without passing them
    through this process, ten times faster here than writing them.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    pieces = [data] if isinstance(data, bytes | bytearray | memoryview) else data
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            for piece in pieces:
                if isinstance(piece, tuple):
                    f.flush()
                    _copy_range(source, f.fileno(), *piece)
                else:
                    f.write(piece)
            f.flush()
            os.fsync(f.fileno())
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)


def _copy_range(source: int | None, target: int, offset: int, length: int) -> None:
    if source is None:
        raise ValueError("a (offset, length) piece needs a source file")
    while length > 0:
        try:
            done = os.copy_file_range(source, target, length, offset_src=offset)
        except (AttributeError, OSError):  # not Linux, or a filesystem pair that cannot
            done = os.write(target, os.pread(source, min(length, 1 << 24), offset))
        if done <= 0:
            raise OSError(f"the source file ended {length} bytes early")
        offset, length = offset + done, length - done


def append_line(path: str | Path, line: str) -> None:
    """Append one line to a file GitHub Actions reads ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(line.rstrip("\n") + "\n")


@contextmanager
def mapped(fd: int) -> Iterator[bytes | mmap.mmap]:
    """The open file's bytes mapped read-only: no copy of a 100 MB file, and unmapped after
    use, so the pages touched leave this process's memory."""
    if os.fstat(fd).st_size == 0:
        yield b""  # mmap refuses empty files
        return
    view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    try:
        yield view
    finally:
        with suppress(BufferError):  # a traceback still holds a slice: the GC unmaps it later
            view.close()
