import asyncio

from asyncio_patterns.runner import make_sync, new_runner, run


async def _loop_and_executor_size():
    loop = asyncio.get_running_loop()
    return loop, loop._default_executor._max_workers


def test_each_runner_has_its_own_loop_and_closes_it():
    with new_runner(threads=1) as first:
        loop1, workers1 = first.run(_loop_and_executor_size())
        # the same runner keeps its loop from one call to the next
        assert first.run(_loop_and_executor_size())[0] is loop1
    with new_runner(threads=2) as second:
        loop2, workers2 = second.run(_loop_and_executor_size())
    assert loop1 is not loop2
    assert loop1.is_closed() and loop2.is_closed()
    assert (workers1, workers2) == (5, 6)


def test_default_executor_follows_bench_threads(monkeypatch):
    monkeypatch.setenv("BENCH_THREADS", "1")
    assert run(_loop_and_executor_size)[1] == 5


def test_make_sync_runs_a_fresh_coroutine_each_call():
    calls = []

    async def record(x):
        calls.append(x)
        return x * 2

    with new_runner() as runner:
        call = make_sync(runner, record, 21)
        assert call() == 42
        assert call() == 42
    assert calls == [21, 21]
