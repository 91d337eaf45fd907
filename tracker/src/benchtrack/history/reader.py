"""Reading runner files into columns: from the cache, else decoded range by range, in parallel.

A cold read of a 2,000-commit history decodes ~270 MB of JSON, about 2.3 s of CPU in one
process. history.scan cuts each file into ranges of whole entries; one worker process per usable
CPU decodes and reduces ranges to columns (history.model.Columns), and this process merges each
file's pieces in file order and caches the result. A worker holds one range's structs at a time.

Each file is opened once, here, before the workers are forked: they map the very file that was
hashed through the inherited descriptor, so a file replaced meanwhile (an append renames a new
one into place) cannot mix two versions or poison the cache.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchtrack.errors import BadInput
from benchtrack.fsutil import mapped
from benchtrack.history import cache, scan
from benchtrack.history import format as fmt
from benchtrack.history.model import Columns, RunnerHistory, finish, merge, reduce_batches
from benchtrack.machine.cpuset import CpuSet

RANGE_BYTES = 4 << 20  # of JSON per range: ~25 ranges per 100 MB file, a few MB of structs each
PARALLEL_BYTES = 32 << 20  # below this much to decode, starting workers costs more than it saves
MAX_WORKERS = 4  # each holds a copy of this process's heap pages it touches


@dataclass
class _File:
    key: str
    show: str  # how errors name it
    fd: int
    sha: str
    size: int


def read_runners(files: list[tuple[str, Path, str]]) -> dict[str, RunnerHistory]:
    """(runner key, path, name for errors) -> that runner's columns, for every file."""
    done: dict[str, RunnerHistory] = {}
    with ExitStack() as stack:
        opened = [
            (key, show, stack.enter_context(fmt.opened(path, show))) for key, path, show in files
        ]
        for _, show, fd in opened:
            if fd is None:
                raise BadInput(show, None, "a readable data.js (it vanished while reading)")
        left = sum(os.fstat(fd).st_size for _, _, fd in opened)  # bytes from this file on
        workers = stack.enter_context(_Workers())
        pending: list[tuple[_File, list[Callable[[], Columns]]]] = []
        for key, show, fd in opened:
            with mapped(fd) as raw:
                f = _File(key, show, fd, cache.digest(raw), len(raw))
                left -= f.size
                runner = cache.load(key, f.sha, f.size)
                if runner is None:
                    try:
                        plan = scan.parts(raw, show, RANGE_BYTES)
                    except scan.OddLayout:  # valid, not JSON.stringify's layout: read it whole
                        runner = _whole(f, raw)
            if runner is not None:
                done[key] = runner
                continue
            worth = f.size + left >= PARALLEL_BYTES  # so much to decode: start workers
            pending.append((f, [_piece(workers, worth, f, part) for part in plan]))
        for f, pieces in pending:  # in file order, while the workers go on with the next
            try:
                columns = merge([piece() for piece in pieces])
            except scan.OddLayout:  # a range was not whole entries after all
                with mapped(f.fd) as raw:
                    done[f.key] = _whole(f, raw)
                continue
            done[f.key] = finish(f.key, columns)
            cache.save(done[f.key], f.sha, f.size)
    return {key: done[key] for key, _, _ in files}


def _whole(f: _File, raw: Any) -> RunnerHistory:
    runner = finish(f.key, reduce_batches(scan.whole_batches(raw, f.show)))
    cache.save(runner, f.sha, f.size)
    return runner


def _piece(workers: _Workers, worth: bool, f: _File, part: scan.Part) -> Callable[[], Columns]:
    """A thunk giving the Columns of one part: decoded by a worker, or here when it is due."""
    name, what = part
    if isinstance(what, scan.Batch):  # a small list the frame held: already decoded
        return lambda: reduce_batches([what])
    future = workers.submit(worth, _decode, f.fd, f.show, name, *what)
    if future is not None:
        return future.result
    return lambda: _decode(f.fd, f.show, name, *what)


def _decode(fd: int, show: str, name: str, lo: int, hi: int) -> Columns:
    with mapped(fd) as raw:
        return reduce_batches([scan.decode_range(raw, show, name, lo, hi)])


class _Workers:
    """A fork-started process pool, started at the first submit that is worth it (much left to
    decode, two or more usable CPUs); until then `submit` gives None: decode here, lazily, one
    range's structs at a time. Forked after every file was opened: they inherit the files."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.count = min(CpuSet.allowed().count, MAX_WORKERS)

    def submit(self, worth: bool, fn: Callable[..., Columns], *args: Any) -> Future | None:
        if self.pool is None:
            if not worth or self.count < 2:
                return None
            self.pool = ProcessPoolExecutor(
                self.count, mp_context=multiprocessing.get_context("fork")
            )
        return self.pool.submit(fn, *args)

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
