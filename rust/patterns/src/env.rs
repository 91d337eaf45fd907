//! The environment every suite honours (docs/conventions.md): `BENCH_THREADS`
//! sizes the pools, `BENCH_PROFILE` picks quick or full measurement.

use std::num::NonZeroUsize;

/// The measurement profile chosen by `BENCH_PROFILE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Short warm-up and measurement: the whole suite in about a minute.
    Quick,
    /// Criterion's own defaults.
    Full,
}

impl Profile {
    /// The name recorded in the meta file.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Quick => "quick",
            Profile::Full => "full",
        }
    }
}

/// Parses a `BENCH_PROFILE` value; unset or empty means quick.
pub fn parse_profile(value: Option<&str>) -> Result<Profile, String> {
    match value.map(str::trim) {
        None | Some("") | Some("quick") => Ok(Profile::Quick),
        Some("full") => Ok(Profile::Full),
        Some(other) => Err(format!(
            "BENCH_PROFILE: expected `quick` or `full`, got `{other}`"
        )),
    }
}

/// Parses a `BENCH_THREADS` value; unset or empty means `default`
/// (the CPUs the process may use).
pub fn parse_threads(value: Option<&str>, default: usize) -> Result<usize, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(default),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "BENCH_THREADS: expected a whole number of at least 1, got `{text}`"
            )),
        },
    }
}

/// The CPUs this process may run on. `available_parallelism` reads the
/// affinity mask, so `taskset -c 0` yields 1: that is how a runner size is simulated.
pub fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_default_to_the_cpus_and_accept_an_override() {
        assert_eq!(parse_threads(None, 3), Ok(3));
        assert_eq!(parse_threads(Some(""), 3), Ok(3));
        assert_eq!(parse_threads(Some("8"), 3), Ok(8));
        assert!(parse_threads(Some("0"), 3).is_err());
        assert!(parse_threads(Some("two"), 3).is_err());
    }

    #[test]
    fn profile_defaults_to_quick() {
        assert_eq!(parse_profile(None), Ok(Profile::Quick));
        assert_eq!(parse_profile(Some("full")), Ok(Profile::Full));
        assert!(parse_profile(Some("slow")).is_err());
    }

    #[test]
    fn available_cpus_is_at_least_one() {
        assert!(available_cpus() >= 1);
    }
}
