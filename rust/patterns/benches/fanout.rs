//! rust/fanout/<variant>[/<param>]: items per second through generator →
//! workers → printer (seed 003).
//!
//! The sleep workloads use the seed's 20 items and 5 workers, with sleeps
//! scaled from 0.5 s / 3 s down to 2 ms / 12 ms: sleeping workers use no CPU,
//! so W stays 5 on every runner size and the ratios keep the seed's meaning.
//! The CPU workload (quoting lines) uses BENCH_THREADS workers.

mod common;

use std::time::Duration;

use criterion::{Criterion, Throughput};
use patterns::fanout::{bulks, chanchan, quote_bulk, sample_lines, sleep_work, unordered};

const ITEMS: u64 = 20;
const W: usize = 5;
const SLEEP: Duration = Duration::from_millis(2);
const SLOW_SLEEP: Duration = Duration::from_millis(12);
/// Generator→printer capacities; the last is W, named `capW` so the name
/// does not change with W.
const CAPACITIES: [(usize, &str); 4] = [(0, "cap0"), (1, "cap1"), (3, "cap3"), (W, "capW")];
/// Lines per iteration of the CPU workload.
const LINES: usize = 2_000;

fn bench(c: &mut Criterion, setup: &common::Setup) {
    let threads = setup.threads;
    let input: Vec<u64> = (0..ITEMS).collect();
    let mut group = setup.group(c, "fanout");
    group.throughput(Throughput::Elements(ITEMS));

    for (workload, slow) in [("uniform", None), ("mixed", Some(SLOW_SLEEP))] {
        // Mixed: every even item is slow, as in the seed's second run.
        let work = sleep_work(SLEEP, slow.unwrap_or(SLEEP), |i| i % 2 == 0);
        group.bench_function(format!("unordered_{workload}"), |b| {
            b.iter(|| assert_eq!(unordered(input.clone(), W, &work).len(), input.len()))
        });
        for (capacity, param) in CAPACITIES {
            group.bench_function(common::id(format!("chanchan_{workload}"), param), |b| {
                b.iter(|| {
                    assert_eq!(
                        chanchan(input.clone(), W, capacity, &work).len(),
                        input.len()
                    )
                })
            });
        }
    }

    let lines = sample_lines(LINES);
    let quoted_len = quote_bulk(&lines).len();
    let quote = |r: std::ops::Range<usize>| quote_bulk(&lines[r]);
    let total = |parts: Vec<String>| parts.iter().map(String::len).sum::<usize>();
    group.throughput(Throughput::Elements(LINES as u64));
    for bulk in [1, 100] {
        let param = format!("bulk{bulk}");
        group.bench_function(common::id("unordered_quote", &param), |b| {
            b.iter(|| {
                assert_eq!(
                    total(unordered(bulks(LINES, bulk), threads, quote)),
                    quoted_len
                )
            })
        });
        group.bench_function(common::id("chanchan_quote", &param), |b| {
            b.iter(|| {
                assert_eq!(
                    total(chanchan(bulks(LINES, bulk), threads, threads, quote)),
                    quoted_len
                )
            })
        });
    }
    group.finish();
}

fn main() {
    let setup = common::Setup::from_env();
    setup.run("fanout", "items/s", |c| bench(c, &setup));
}
