// SPDX-License-Identifier: GPL-2.0

//! The budget of a fuzz target: how long it runs, from which seed, how many events it
//! executed, and the summary line that `scripts/fuzz.sh` reads.
//!
//! Shared by the `hsq`, `cqhci` and `msdc` fuzz targets (the first two include this file
//! with `#[path]`). A target is a proptest strategy of event sequences and a check that
//! replays one sequence and counts its events. The run is a series of proptest batches,
//! each with its own seed derived from the run's seed, until the case or time budget is
//! spent:
//!
//! * `FUZZ_SECONDS`: stop after this many seconds (checked between batches);
//! * `FUZZ_CASES`: stop after this many cases;
//! * neither: the target's small default case count, so `cargo test` stays quick;
//! * `FUZZ_SEED`: the run's seed (default: from the clock); a failure prints it, and the
//!   same seed with the same budget replays the same cases.
//!
//! A failing case is shrunk by proptest and printed with the seed, then the test fails.

use std::cell::Cell;
use std::fmt::Debug;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseResult, TestRng, TestRunner};

/// Cases per proptest batch: small, so a time budget is overrun by little.
const BATCH: u64 = 16;

/// Events executed so far, counted by the target's check (shrinking replays count too).
#[derive(Debug, Default)]
pub(crate) struct Events(Cell<u64>);

impl Events {
    /// Counts one executed event.
    pub(crate) fn tick(&self) {
        self.0.set(self.0.get() + 1);
    }

    fn total(&self) -> u64 {
        self.0.get()
    }
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse() {
        Ok(parsed) => Some(parsed),
        Err(_) => panic!("{name}={value:?} is not a number"),
    }
}

/// Runs `check` on sequences from `strategy` within the budget and prints
/// `fuzz: <target> events=N cases=M failures=F seconds=S seed=X`.
pub(crate) fn fuzz<S>(
    target: &str,
    default_cases: u64,
    strategy: S,
    check: impl Fn(S::Value, &Events) -> TestCaseResult,
) where
    S: Strategy,
    S::Value: Debug,
{
    let seconds: Option<f64> = env("FUZZ_SECONDS");
    let cases: Option<u64> = env("FUZZ_CASES").or(match seconds {
        Some(_) => None,
        None => Some(default_cases),
    });
    let seed: u64 = env("FUZZ_SEED").unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |t| t.as_nanos() as u64)
    });
    let events = Events::default();
    let started = Instant::now();
    let mut done = 0u64;
    for batch in 0u64.. {
        let left = cases.map_or(BATCH, |cap| cap.saturating_sub(done).min(BATCH));
        let out_of_time = seconds.is_some_and(|s| started.elapsed().as_secs_f64() >= s);
        if left == 0 || out_of_time {
            break;
        }
        let config = Config {
            cases: left as u32,
            failure_persistence: None,
            ..Config::default()
        };
        let mut rng_seed = [0u8; 16];
        rng_seed[..8].copy_from_slice(&seed.to_le_bytes());
        rng_seed[8..].copy_from_slice(&batch.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::XorShift, &rng_seed);
        let mut runner = TestRunner::new_with_rng(config, rng);
        if let Err(failure) = runner.run(&strategy, |case| check(case, &events)) {
            println!(
                "fuzz: {target} events={} cases={done} failures=1 seconds={:.1} seed={seed} batch={batch}",
                events.total(),
                started.elapsed().as_secs_f64(),
            );
            panic!("{target}: {failure}\nreplay with FUZZ_SEED={seed}");
        }
        done += left;
    }
    println!(
        "fuzz: {target} events={} cases={done} failures=0 seconds={:.1} seed={seed}",
        events.total(),
        started.elapsed().as_secs_f64(),
    );
}

/// The answer of a target's check: a failure says what went wrong.
pub(crate) type Check = Result<(), proptest::test_runner::TestCaseError>;

/// A failed check.
pub(crate) fn fail(what: String) -> Check {
    Err(proptest::test_runner::TestCaseError::fail(what))
}

/// Fails the check with the formatted message unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return budget::fail(format!($($msg)+));
        }
    };
}
