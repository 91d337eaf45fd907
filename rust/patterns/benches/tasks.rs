//! rust/tasks/<variant>: spawned tasks collected per second (seed 000, part 2).

mod common;

use std::time::Duration;

use criterion::{Criterion, Throughput};
use patterns::tasks::{self, sleep_then_id};

/// The seed's 1000 tasks, each sleeping D; D is 1 ms (tokio's timer tick)
/// instead of 5 s so a sample costs milliseconds.
const N: u64 = 1000;
const D: Duration = Duration::from_millis(1);
/// One-by-one takes N × D, so it gets fewer tasks (the seed stopped at 4).
const N_ONE_BY_ONE: u64 = 20;

fn bench(c: &mut Criterion, setup: &common::Setup) {
    let threads = setup.threads;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let work = |id| sleep_then_id(id, D);
    let check = |n: u64, got: Result<Vec<u64>, tokio::task::JoinError>| {
        let got = got.expect("a task panicked");
        assert_eq!(got.len() as u64, n, "lost tasks");
        got
    };

    let mut group = setup.group(c, "tasks");
    group.throughput(Throughput::Elements(N));
    group.bench_function("join_all", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::join_all(N, work).await) })
    });
    group.bench_function("vec_handles", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::vec_of_handles(N, work).await) })
    });
    group.bench_function("futures_unordered", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::futures_unordered(N, work).await) })
    });
    group.bench_function("joinset", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::joinset(N, work).await) })
    });
    group.bench_function("futures_ordered", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N, tasks::futures_ordered(N, work).await) })
    });
    group.throughput(Throughput::Elements(N_ONE_BY_ONE));
    group.bench_function("one_by_one", |b| {
        b.to_async(&rt)
            .iter(|| async { check(N_ONE_BY_ONE, tasks::one_by_one(N_ONE_BY_ONE, work).await) })
    });
    group.finish();
}

fn main() {
    let setup = common::Setup::from_env();
    setup.run("tasks", "tasks/s", |c| bench(c, &setup));
}
