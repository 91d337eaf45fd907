//! rust/streams/<variant>: items per second summed through each kind of
//! iterator or stream (seed 001), on a current-thread runtime.

mod common;

use criterion::{Criterion, Throughput};
use patterns::streams;

/// Items per iteration: the seed used 10^8 in one timed run; criterion
/// repeats the run, so 10^6 keeps every sample short.
const N: u64 = 1_000_000;
const SUM: u64 = N * (N + 1) / 2;

fn bench(c: &mut Criterion, setup: &common::Setup) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");

    let mut group = setup.group(c, "streams");
    group.throughput(Throughput::Elements(N));
    group.bench_function("iterator", |b| {
        b.iter(|| assert_eq!(streams::iterator(N), SUM))
    });
    group.bench_function("generator_standin", |b| {
        b.iter(|| assert_eq!(streams::generator_standin(N), SUM))
    });
    macro_rules! async_variant {
        ($name:literal, $f:path) => {
            group.bench_function($name, |b| {
                b.to_async(&rt)
                    .iter(|| async { assert_eq!($f(N).await, SUM) })
            });
        };
    }
    async_variant!("async_next", streams::async_next);
    async_variant!("stream_iter", streams::stream_iter);
    async_variant!("stream_iter_boxed", streams::stream_iter_boxed);
    async_variant!("unfold", streams::unfold);
    async_variant!("unfold_boxed", streams::unfold_boxed);
    async_variant!("async_stream", streams::async_stream);
    async_variant!("async_stream_boxed", streams::async_stream_boxed);
    async_variant!("async_trait", streams::async_trait);
    group.finish();
}

fn main() {
    let setup = common::Setup::from_env();
    setup.run("streams", "items/s", |c| bench(c, &setup));
}
