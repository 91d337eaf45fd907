//! What every bench binary shares: the profile, the thread count and the
//! meta file the tracker reads (docs/conventions.md).

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, SamplingMode};
use patterns::env::{self, Profile};

/// The settings one bench process runs with.
pub struct Setup {
    pub profile: Profile,
    pub threads: usize,
}

impl Setup {
    /// Reads `BENCH_PROFILE` and `BENCH_THREADS`; a malformed value stops the
    /// process with exit code 2 (bad input) before anything is measured.
    pub fn from_env() -> Setup {
        let var = |name| std::env::var(name).ok();
        let parsed = env::parse_profile(var("BENCH_PROFILE").as_deref()).and_then(|profile| {
            env::parse_threads(var("BENCH_THREADS").as_deref(), env::available_cpus())
                .map(|threads| Setup { profile, threads })
        });
        parsed.unwrap_or_else(|message| {
            eprintln!("error: {message}");
            std::process::exit(2)
        })
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

    /// Writes `<criterion home>/meta/<group>.json`.
    pub fn write_meta(&self, group: &str, unit: &str) {
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
