import os

import pytest

from asyncio_patterns import params


def test_quick_is_the_default(monkeypatch):
    monkeypatch.delenv("BENCH_PROFILE", raising=False)
    assert params.bench_profile() is params.QUICK
    monkeypatch.setenv("BENCH_PROFILE", "full")
    assert params.bench_profile() is params.FULL


def test_unknown_profile_is_refused(monkeypatch):
    monkeypatch.setenv("BENCH_PROFILE", "fast")
    with pytest.raises(ValueError, match="BENCH_PROFILE='fast'"):
        params.bench_profile()


def test_threads_follow_the_affinity_mask_unless_set(monkeypatch):
    monkeypatch.delenv("BENCH_THREADS", raising=False)
    assert params.bench_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("BENCH_THREADS", "3")
    assert params.bench_threads() == 3
    assert params.default_executor_workers() == 7
    assert params.default_executor_workers(64) == 32


@pytest.mark.parametrize("raw", ["0", "-1", "two"])
def test_bad_thread_counts_are_refused(monkeypatch, raw):
    monkeypatch.setenv("BENCH_THREADS", raw)
    with pytest.raises(ValueError, match="BENCH_THREADS"):
        params.bench_threads()


def test_quick_keeps_the_seed_ratios():
    q, f = params.QUICK, params.FULL
    # the mixes sleep 5× the plain sleeps in both profiles (seed: 1 s vs 0.2 s)
    assert q.mix_sleep / q.sleep == pytest.approx(f.mix_sleep / f.sleep)
    assert q.sleeps == f.sleeps == 3
    assert q.rounds is not None and q.rounds >= 5


def test_round_is_a_short_quick_with_the_same_shape():
    q, r = params.QUICK, params.ROUND
    assert r.mix_sleep / r.sleep == pytest.approx(q.mix_sleep / q.sleep)
    assert r.sleeps == q.sleeps and r.rounds is not None and 5 <= r.rounds < q.rounds
    assert r.sleep < q.sleep and r.files * r.file_bytes < q.files * q.file_bytes
