//! One registration API, two ways to run it: criterion's timed samples, or
//! count mode (`BENCH_COUNT=K`), where each benchmark runs once to warm up and
//! then K times, each closed by a marker, so that a run under
//! `benchtrack callgrind` (valgrind's callgrind, dumping its counters at every
//! marker) yields the instructions each benchmark executes per element.
//!
//! Instruction counts do not move with a shared runner's load or its CPUs'
//! speed, where wall time spreads tens of % (tracker/GATE.md): the gate and
//! the history use them for the CPU-bound benchmarks. The bench files keep
//! criterion's shape (`group.bench_function(id, |b| b.iter(..))`) on both.

// Each bench binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::future::Future;
use std::hint::black_box;
use std::io::Write;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use tokio::runtime::Runtime;

/// A benchmark id as criterion names it: `function` or `function/param`.
pub struct Id {
    function: String,
    param: Option<String>,
}

/// `function/param`, criterion's `BenchmarkId::new(function, param)`.
pub fn id(function: impl Into<String>, param: impl Into<String>) -> Id {
    Id {
        function: function.into(),
        param: Some(param.into()),
    }
}

impl From<&str> for Id {
    fn from(function: &str) -> Id {
        Id {
            function: function.to_owned(),
            param: None,
        }
    }
}

impl From<String> for Id {
    fn from(function: String) -> Id {
        Id {
            function,
            param: None,
        }
    }
}

/// Count mode's settings: iterations per benchmark, where markers are logged,
/// and the name filter.
pub struct Counting {
    pub iters: u32,
    pub labels: std::path::PathBuf,
    pub filter: Option<regex::Regex>,
}

impl Counting {
    /// The group's unit of throughput (e.g. `items/s`), for the counts' unit.
    pub fn meta(&self, group: &str, unit: &str) {
        append(&self.labels, &format!("meta\trust/{group}\t{unit}"));
    }
}

/// A benchmark group: criterion's, or a counted one.
pub struct Group<'c> {
    name: String,
    elements: u64,
    inner: Inner<'c>,
}

enum Inner<'c> {
    Timed(BenchmarkGroup<'c, WallTime>),
    Counted(&'c Counting),
}

impl<'c> Group<'c> {
    pub fn timed(c: &'c mut Criterion, name: &str, sampling: SamplingMode) -> Group<'c> {
        let mut group = c.benchmark_group(name);
        group.sampling_mode(sampling);
        Group {
            name: name.to_owned(),
            elements: 1,
            inner: Inner::Timed(group),
        }
    }

    pub fn counted(counting: &'c Counting, name: &str) -> Group<'c> {
        Group {
            name: name.to_owned(),
            elements: 1,
            inner: Inner::Counted(counting),
        }
    }

    pub fn throughput(&mut self, throughput: Throughput) {
        if let Throughput::Elements(n) = throughput {
            self.elements = n;
        }
        if let Inner::Timed(g) = &mut self.inner {
            g.throughput(throughput);
        }
    }

    pub fn bench_function(&mut self, id: impl Into<Id>, mut f: impl FnMut(&mut Bencher<'_, '_>)) {
        let id = id.into();
        match &mut self.inner {
            Inner::Timed(g) => {
                let mut run = |b: &mut criterion::Bencher<'_>| f(&mut Bencher::Timed(b));
                match id.param {
                    Some(p) => g.bench_function(BenchmarkId::new(id.function, p), &mut run),
                    None => g.bench_function(id.function, &mut run),
                };
            }
            Inner::Counted(counting) => {
                let name = match id.param {
                    Some(p) => format!("rust/{}/{}/{}", self.name, id.function, p),
                    None => format!("rust/{}/{}", self.name, id.function),
                };
                if counting
                    .filter
                    .as_ref()
                    .is_some_and(|re| !re.is_match(&name[5..]))
                {
                    return;
                }
                let mut counter = Counter {
                    counting,
                    name,
                    elements: self.elements,
                };
                f(&mut Bencher::Counted(&mut counter));
            }
        }
    }

    pub fn finish(self) {
        if let Inner::Timed(g) = self.inner {
            g.finish();
        }
    }
}

/// What a bench closure gets: `b.iter(..)` or `b.to_async(&rt).iter(..)`.
pub enum Bencher<'a, 'b> {
    Timed(&'a mut criterion::Bencher<'b>),
    Counted(&'a mut Counter<'b>),
}

impl<'a, 'b> Bencher<'a, 'b> {
    pub fn iter<O>(&mut self, mut routine: impl FnMut() -> O) {
        match self {
            Bencher::Timed(b) => b.iter(routine),
            Bencher::Counted(c) => c.count(|| {
                black_box(routine());
            }),
        }
    }

    // criterion's name and receiver: the bench files call `b.to_async(&rt)` in both modes
    #[allow(clippy::wrong_self_convention)]
    pub fn to_async<'r>(&'r mut self, rt: &'r Runtime) -> AsyncBencher<'r, 'a, 'b> {
        AsyncBencher { bencher: self, rt }
    }
}

pub struct AsyncBencher<'r, 'a, 'b> {
    bencher: &'r mut Bencher<'a, 'b>,
    rt: &'r Runtime,
}

impl AsyncBencher<'_, '_, '_> {
    pub fn iter<O, F: Future<Output = O>>(&mut self, mut routine: impl FnMut() -> F) {
        let rt = self.rt;
        match &mut self.bencher {
            Bencher::Timed(b) => b.to_async(rt).iter(routine),
            Bencher::Counted(c) => c.count(|| {
                black_box(rt.block_on(routine()));
            }),
        }
    }
}

pub struct Counter<'a> {
    counting: &'a Counting,
    name: String,
    elements: u64,
}

impl Counter<'_> {
    /// One warm-up run (lazy statics, first allocations, thread start-up),
    /// then each counted iteration in a segment of its own: one sample each.
    fn count(&mut self, mut run: impl FnMut()) {
        run();
        self.label(&format!("start\t{}", self.name));
        marker();
        for _ in 0..self.counting.iters {
            run();
            marker();
            // Labelled after the marker, so the segment holds the run only.
            self.label(&format!("sample\t{}\t{}", self.name, self.elements));
        }
    }

    fn label(&self, label: &str) {
        append(&self.counting.labels, label);
    }
}

/// One line of the marker log: `start`/`sample` lines in marker order (the
/// n-th names the n-th dump), `meta` lines beside them.
fn append(path: &std::path::Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    writeln!(file, "{line}").expect("write a count label");
}

/// getppid(2), which nothing else in these benchmarks calls: callgrind runs with
/// `--dump-before=getppid`, so each call closes one counted segment.
fn marker() {
    black_box(std::os::unix::process::parent_id());
}
