import pytest

from asyncio_patterns import fileio
from asyncio_patterns.probe import InFlight
from asyncio_patterns.runner import run

DATA = bytes(range(256)) * 1024  # 256 KiB, not all zeros: a short or shifted write shows
FILES = 6


def _paths(directory, tag):
    return [directory / f"{tag}-{i}.bin" for i in range(FILES)]


def _check(paths):
    for path in paths:
        assert path.read_bytes() == DATA


def test_storage_dirs_name_the_default_temp_dir_and_tmpfs():
    dirs = fileio.storage_dirs()
    assert dirs["tmp"].is_dir()
    assert ("shm" in dirs) == fileio.SHM.is_dir()


def test_every_variant_writes_the_same_files(file_dir):
    expected = [len(DATA)] * FILES
    paths = _paths(file_dir, "sync")
    assert fileio.write_files(paths, DATA) == expected
    _check(paths)
    for tag, coro_fn, extra in [
        ("gather", fileio.async_write_files_gather, ()),
        ("to_thread", fileio.async_write_files_to_thread, ()),
        ("bounded", fileio.async_write_files_bounded, (2,)),
    ]:
        paths = _paths(file_dir, tag)
        assert run(coro_fn, paths, DATA, *extra) == expected, tag
        _check(paths)


def test_rewriting_truncates(file_dir):
    path = file_dir / "f.bin"
    fileio.write_file(path, DATA * 2)
    assert run(fileio.async_write_files_gather, [path], DATA) == [len(DATA)]
    assert path.stat().st_size == len(DATA)


@pytest.mark.parametrize("limit", [1, 2])
def test_bounded_never_exceeds_its_limit(file_dir, limit):
    probe = InFlight()
    paths = _paths(file_dir, "b")
    run(fileio.async_write_files_bounded, paths, DATA, limit, probe)
    assert probe.total == FILES
    assert 1 <= probe.peak <= limit
    _check(paths)


def test_bounded_refuses_a_zero_limit(file_dir):
    with pytest.raises(ValueError, match="limit"):
        run(fileio.async_write_files_bounded, _paths(file_dir, "z"), DATA, 0)
