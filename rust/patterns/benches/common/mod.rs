//! What every bench binary shares: the profile, the thread count and the
//! meta file the tracker reads (docs/conventions.md).

mod group;

use std::fs::File;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, SamplingMode};
#[allow(unused_imports)] // each bench binary uses a part
pub use group::{Counting, Group, Stepping, id};
use patterns::env::{self, Profile};

/// The settings one bench process runs with.
pub struct Setup {
    pub profile: Profile,
    pub threads: usize,
    /// Count mode (`BENCH_COUNT=K`, under `benchtrack callgrind`): no timing.
    pub count: Option<Counting>,
    /// Step mode (`BENCH_STEP=<in>,<out>`, the gate's lockstep runner).
    pub step: Option<Stepping>,
}

impl Setup {
    /// Reads `BENCH_PROFILE`, `BENCH_THREADS` and count mode's `BENCH_COUNT`
    /// (iterations), `BENCH_COUNT_LABELS` (its marker log) and `BENCH_FILTER`;
    /// a malformed value stops the process with exit code 2 (bad input)
    /// before anything is measured.
    pub fn from_env() -> Setup {
        let var = |name| std::env::var(name).ok();
        let parsed = env::parse_profile(var("BENCH_PROFILE").as_deref()).and_then(|profile| {
            let threads =
                env::parse_threads(var("BENCH_THREADS").as_deref(), env::available_cpus())?;
            let count = counting(
                var("BENCH_COUNT"),
                var("BENCH_COUNT_LABELS"),
                var("BENCH_FILTER"),
            )?;
            let step = stepping(var("BENCH_STEP"), var("BENCH_FILTER"))?;
            Ok(Setup {
                profile,
                threads,
                count,
                step,
            })
        });
        parsed.unwrap_or_else(|message| {
            eprintln!("error: {message}");
            std::process::exit(2)
        })
    }

    /// The group `name`: criterion's timed one, or a counted or stepped one.
    pub fn group<'c>(&'c self, c: &'c mut Criterion, name: &str) -> Group<'c> {
        match (&self.count, &self.step) {
            (Some(counting), _) => Group::counted(counting, name),
            (None, Some(stepping)) => Group::stepped(stepping, name),
            (None, None) => Group::timed(c, name, self.sampling()),
        }
    }

    /// A bench binary's main: `bench` registers the group's benchmarks; it
    /// runs once (timed or counted), or in step mode once per benchmark.
    pub fn run(&self, group: &str, unit: &str, mut bench: impl FnMut(&mut Criterion)) {
        self.write_meta(group, unit);
        let mut c = self.criterion();
        match &self.step {
            Some(stepping) if self.count.is_none() => stepping.serve(unit, || bench(&mut c)),
            _ => {
                bench(&mut c);
                c.final_summary();
            }
        }
    }

    /// Criterion configured for the profile, then from the command line.
    /// `BENCH_FILTER` applies when the command line names no filter.
    pub fn criterion(&self) -> Criterion {
        let mut c = Criterion::default().without_plots();
        if self.profile == Profile::Quick {
            // Enough for a stable median on a shared 2-core box, in ~1.5 s per benchmark.
            c = c
                .sample_size(10)
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(1))
                .nresamples(20_000);
        }
        let c = c.configure_from_args();
        match std::env::var("BENCH_FILTER") {
            Ok(filter) if !filter.is_empty() && !has_cli_filter() => c.with_filter(filter),
            _ => c,
        }
    }

    /// Quick: every sample runs the same number of iterations (flat), since
    /// sleep-bound iterations take milliseconds and linear sampling would
    /// overrun the second. Full: criterion's own choice (auto).
    pub fn sampling(&self) -> SamplingMode {
        match self.profile {
            Profile::Quick => SamplingMode::Flat,
            Profile::Full => SamplingMode::Auto,
        }
    }

    /// Writes `<criterion home>/meta/<group>.json`; in count mode, the unit
    /// goes to the marker log instead (a `meta` line, not a marker).
    pub fn write_meta(&self, group: &str, unit: &str) {
        if let Some(counting) = &self.count {
            counting.meta(group, unit);
            return;
        }
        let dir = criterion_home().join("meta");
        let path = dir.join(format!("{group}.json"));
        let json = format!(
            "{{\"group\": \"{group}\", \"unit\": \"{unit}\", \"threads\": {}, \"profile\": \"{}\"}}\n",
            self.threads,
            self.profile.name()
        );
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, json)) {
            panic!("cannot write {}: {e}", path.display());
        }
    }
}

fn filter_regex(filter: Option<String>) -> Result<Option<regex::Regex>, String> {
    match filter.filter(|v| !v.trim().is_empty()) {
        Some(f) => regex::Regex::new(&f)
            .map(Some)
            .map_err(|e| format!("BENCH_FILTER={f:?}: not a regular expression: {e}")),
        None => Ok(None),
    }
}

fn stepping(step: Option<String>, filter: Option<String>) -> Result<Option<Stepping>, String> {
    use std::os::fd::FromRawFd;
    let Some(step) = step.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let fds: Vec<i32> = step.split(',').filter_map(|x| x.parse().ok()).collect();
    let [fd_in, fd_out] = fds[..] else {
        return Err(format!(
            "BENCH_STEP={step:?}: expected two file descriptors, '<in>,<out>'"
        ));
    };
    // SAFETY: the lockstep runner passes these two descriptors open, for this
    // process alone to read and write; nothing else in it owns them.
    let (commands, replies) = unsafe { (File::from_raw_fd(fd_in), File::from_raw_fd(fd_out)) };
    Ok(Some(Stepping::new(
        commands,
        replies,
        filter_regex(filter)?,
    )))
}

fn counting(
    iters: Option<String>,
    labels: Option<String>,
    filter: Option<String>,
) -> Result<Option<Counting>, String> {
    let Some(iters) = iters.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let iters = match iters.parse::<u32>() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(format!(
                "BENCH_COUNT={iters:?}: expected a positive whole number of iterations"
            ));
        }
    };
    let labels = labels.filter(|v| !v.is_empty()).ok_or(
        "BENCH_COUNT needs BENCH_COUNT_LABELS (the marker log benchtrack callgrind reads)",
    )?;
    Ok(Some(Counting {
        iters,
        labels: labels.into(),
        filter: filter_regex(filter)?,
    }))
}

/// Criterion's own choice of home, reproduced: `CRITERION_HOME`, else
/// `CARGO_TARGET_DIR/criterion`, else `target/criterion`.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("criterion")
}

/// Whether the command line carries a positional filter (criterion's FILTER).
/// Options that take a value are skipped with their value.
fn has_cli_filter() -> bool {
    const WITH_VALUE: &[&str] = &[
        "--color",
        "-c",
        "--save-baseline",
        "-s",
        "--baseline",
        "-b",
        "--baseline-lenient",
        "--profile-time",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
        "--output-format",
        "--format",
        "--logfile",
        "--skip",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return true;
        }
    }
    false
}
