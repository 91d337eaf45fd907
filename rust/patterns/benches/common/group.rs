//! One registration API, two ways to run it: criterion's timed samples, or
//! count mode (`BENCH_COUNT=K`), where each benchmark runs once to warm up and
//! then K times, each closed by a marker, so that a run under
//! `benchtrack callgrind` (valgrind's callgrind, dumping its counters at every
//! marker) yields the instructions each benchmark executes per element.
//!
//! Instruction counts do not move with a shared runner's load or its CPUs'
//! speed, where wall time spreads tens of % (tracker/GATE.md): the gate and
//! the history use them for the CPU-bound benchmarks. The bench files keep
//! criterion's shape (`group.bench_function(id, |b| b.iter(..))`) on all.
//!
//! A third way, step mode (`BENCH_STEP=<in>,<out>`), serves the gate's
//! lockstep runner: each benchmark, warmed up, is offered on `<out>` and timed
//! in the steps the runner asks for on `<in>`, while the other side's process
//! takes turns on the same CPU (tracker/src/benchtrack/gate/lockstep.py).

// Each bench binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::cell::RefCell;
use std::fs::File;
use std::future::Future;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

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

/// Step mode's state: the channel to the lockstep runner, and which
/// benchmark the current pass serves (none: the pass only lists the names).
pub struct Stepping {
    pub filter: Option<regex::Regex>,
    commands: RefCell<BufReader<File>>,
    replies: RefCell<File>,
    unit: RefCell<String>,
    only: RefCell<Option<String>>,
    names: RefCell<Vec<String>>,
}

impl Stepping {
    pub fn new(commands: File, replies: File, filter: Option<regex::Regex>) -> Stepping {
        Stepping {
            filter,
            commands: RefCell::new(BufReader::new(commands)),
            replies: RefCell::new(replies),
            unit: RefCell::new(String::new()),
            only: RefCell::new(None),
            names: RefCell::new(Vec::new()),
        }
    }

    /// Runs `pass` (which registers the binary's benchmarks) once to list
    /// the names, then once per name in sorted order, serving that one: the
    /// runner pairs two processes' benchmarks by merging sorted names.
    pub fn serve(&self, unit: &str, mut pass: impl FnMut()) {
        *self.unit.borrow_mut() = unit.to_owned();
        pass();
        let mut names = self.names.take();
        names.sort();
        names.dedup();
        for name in names {
            *self.only.borrow_mut() = Some(name);
            pass();
        }
    }

    fn reply(&self, line: &str) {
        let mut out = self.replies.borrow_mut();
        writeln!(out, "{line}").expect("write to the lockstep runner");
        out.flush().expect("write to the lockstep runner");
    }
}

/// A benchmark group: criterion's, a counted or a stepped one.
pub struct Group<'c> {
    name: String,
    elements: u64,
    inner: Inner<'c>,
}

enum Inner<'c> {
    Timed(BenchmarkGroup<'c, WallTime>),
    Counted(&'c Counting),
    Stepped(&'c Stepping),
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

    pub fn stepped(stepping: &'c Stepping, name: &str) -> Group<'c> {
        Group {
            name: name.to_owned(),
            elements: 1,
            inner: Inner::Stepped(stepping),
        }
    }

    /// `rust/<group>/<function>[/<param>]`, as the tracker names it.
    fn full_name(&self, id: Id) -> String {
        match id.param {
            Some(p) => format!("rust/{}/{}/{}", self.name, id.function, p),
            None => format!("rust/{}/{}", self.name, id.function),
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
                let counting = *counting;
                let name = self.full_name(id);
                if !selected(counting.filter.as_ref(), &name) {
                    return;
                }
                let mut counter = Counter {
                    counting,
                    name,
                    elements: self.elements,
                };
                f(&mut Bencher::Counted(&mut counter));
            }
            Inner::Stepped(stepping) => {
                let stepping = *stepping;
                let name = self.full_name(id);
                if !selected(stepping.filter.as_ref(), &name) {
                    return;
                }
                let serving = stepping.only.borrow().clone();
                match serving {
                    None => stepping.names.borrow_mut().push(name),
                    Some(only) if only == name => {
                        let mut stepper = Stepper {
                            stepping,
                            name,
                            elements: self.elements,
                        };
                        f(&mut Bencher::Stepped(&mut stepper));
                    }
                    Some(_) => {}
                }
            }
        }
    }

    pub fn finish(self) {
        if let Inner::Timed(g) = self.inner {
            g.finish();
        }
    }
}

/// Whether `BENCH_FILTER` selects `name`: matched without the `rust/` prefix,
/// as criterion matches its ids.
fn selected(filter: Option<&regex::Regex>, name: &str) -> bool {
    filter.is_none_or(|re| re.is_match(name.strip_prefix("rust/").unwrap_or(name)))
}

/// What a bench closure gets: `b.iter(..)` or `b.to_async(&rt).iter(..)`.
pub enum Bencher<'a, 'b> {
    Timed(&'a mut criterion::Bencher<'b>),
    Counted(&'a mut Counter<'b>),
    Stepped(&'a mut Stepper<'b>),
}

impl<'a, 'b> Bencher<'a, 'b> {
    pub fn iter<O>(&mut self, mut routine: impl FnMut() -> O) {
        match self {
            Bencher::Timed(b) => b.iter(routine),
            Bencher::Counted(c) => c.count(|| {
                black_box(routine());
            }),
            Bencher::Stepped(s) => s.serve(|| {
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
            Bencher::Stepped(s) => s.serve(|| {
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

pub struct Stepper<'a> {
    stepping: &'a Stepping,
    name: String,
    elements: u64,
}

impl Stepper<'_> {
    /// One warm-up run, then `ready`, then the runner's steps until `next`.
    /// A panic is the benchmark's error, reported to the runner; the process
    /// goes on to the next benchmark.
    fn serve(&mut self, mut run: impl FnMut()) {
        let s = self.stepping;
        if let Err(e) = catch_unwind(AssertUnwindSafe(&mut run)) {
            s.reply(&format!("error {}\t{}", self.name, panic_text(&e)));
            return;
        }
        let unit = s.unit.borrow().clone();
        s.reply(&format!("ready {}\t{unit}\t{}", self.name, self.elements));
        let mut line = String::new();
        loop {
            line.clear();
            let read = s.commands.borrow_mut().read_line(&mut line);
            if read.map_or(true, |n| n == 0) {
                std::process::exit(3); // the runner went away
            }
            let command = line.trim();
            if command == "next" {
                return;
            }
            let Some(n) = command
                .strip_prefix("run ")
                .and_then(|n| n.parse::<u64>().ok())
            else {
                panic!("step mode: expected 'run N' or 'next', got {command:?}");
            };
            let t0 = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                for _ in 0..n {
                    run();
                }
            }));
            let ns = t0.elapsed().as_nanos();
            match outcome {
                Ok(()) => s.reply(&format!("ns {ns}")),
                Err(e) => s.reply(&format!("error {}", panic_text(&e))),
            }
        }
    }
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    let text = e
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panicked".to_owned());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
