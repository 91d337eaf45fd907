from asyncio_patterns import cpu, db, mixed, server
from asyncio_patterns.runner import run

NUMS = [2000, 2000, 2000]
EXPECTED = [cpu.expected_sigma(n) for n in NUMS]
PERIODS = [0.02, 0.02, 0.02]
DATA = b"\x5a" * 100_000


def test_file_and_cpu(file_dir):
    paths = [file_dir / f"{i}.bin" for i in range(4)]
    assert mixed.mix_file_cpu(paths, DATA, NUMS) == EXPECTED
    for path in paths:
        path.unlink()
    assert run(mixed.async_mix_file_cpu, paths, DATA, NUMS) == EXPECTED
    assert all(path.read_bytes() == DATA for path in paths)


def test_http_and_cpu(http_server):
    url = http_server.url
    server.reset_stats(url)
    assert mixed.mix_http_cpu(url, PERIODS, NUMS) == EXPECTED
    assert server.stats(url) == {"peak": 1, "total": 3}
    server.reset_stats(url)
    # 1 s sleeps: a busy machine cannot thin their overlap at the server (test_http.GATHERED)
    assert run(mixed.async_mix_http_cpu, url, [1.0] * 3, NUMS) == EXPECTED
    assert server.stats(url) == {"peak": 3, "total": 3}


def test_db_and_cpu(queries_meet):
    db.SLEEPS.reset()
    assert mixed.mix_db_cpu(PERIODS, NUMS) == EXPECTED
    assert (db.SLEEPS.peak, db.SLEEPS.total) == (1, 3)
    meet = queries_meet(len(PERIODS))  # gathered: every query in its function at once
    db.SLEEPS.reset()
    assert run(mixed.async_mix_db_cpu, PERIODS, NUMS) == EXPECTED
    assert db.SLEEPS.total == 3 and not meet.broken
