//! rust/walk/<variant>: directories found per second on a generated tree (seed 000).

mod common;

use criterion::{Criterion, Throughput};
use patterns::tree::{Tree, TreeSpec};
use patterns::walk;

/// 156 directories (15 more as symlinks) and 156 files: on a loaded 2-core
/// box the slowest variants take ~50-100 ms per walk, the fastest a few ms,
/// so every variant completes its samples within the quick profile's second.
const SPEC: TreeSpec = TreeSpec {
    depth: 3,
    fanout: 5,
    files: 1,
    symlink_every: 10,
};

fn bench(c: &mut Criterion, setup: &common::Setup, tree: &Tree) {
    let threads = setup.threads;
    let root = tree.root();
    let count = tree.expected().len();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    // Guard: a variant that lost directories would be measured as fast.
    let check = |name: &str, got: std::io::Result<Vec<String>>| {
        let got = got.unwrap_or_else(|e| panic!("walk {name}: {e}"));
        assert_eq!(got.len(), count, "walk {name} found a different listing");
        got
    };

    let mut group = setup.group(c, "walk");
    group.throughput(Throughput::Elements(count as u64));
    group.bench_function("std_sync", |b| {
        b.iter(|| check("std_sync", walk::std_sync(root)))
    });
    group.bench_function("tokio_serial", |b| {
        b.to_async(&rt)
            .iter(|| async { check("tokio_serial", walk::tokio_serial(root).await) })
    });
    group.bench_function("tokio_spawn_each", |b| {
        b.to_async(&rt)
            .iter(|| async { check("tokio_spawn_each", walk::tokio_spawn_each(root).await) })
    });
    group.bench_function("tokio_join", |b| {
        b.to_async(&rt)
            .iter(|| async { check("tokio_join", walk::tokio_join(root).await) })
    });
    group.bench_function("tokio_joinset", |b| {
        b.to_async(&rt)
            .iter(|| async { check("tokio_joinset", walk::tokio_joinset(root).await) })
    });
    group.bench_function("rayon", |b| {
        b.iter(|| pool.install(|| check("rayon", walk::rayon(root))))
    });
    group.finish();
}

fn main() {
    let setup = common::Setup::from_env();
    // Created once per process; removed when `tree` drops.
    let tree = Tree::create(SPEC).expect("create the walk tree");
    setup.run("walk", "directories/s", |c| bench(c, &setup, &tree));
    drop(tree);
}
