// SPDX-License-Identifier: GPL-2.0

//! Runs the shared scenarios of `src/scenarios.rs` on the host, one test each, as the KUnit
//! suite `mtk_sd_rust_hsq` runs them in the kernel.
//!
//! The library does not hold the scenarios (they are test code); they are compiled here with
//! the paths the kernel gives them: the queue's modules as `super::…`.

use hsq::{actions, depth, error, queue};
use scenarios::ScenarioError;

#[path = "../src/scenarios.rs"]
pub mod scenarios;

/// One host test per scenario, made from the scenario list itself (a name listed twice
/// would not compile; the KUnit suite also runs the whole of `ALL`).
macro_rules! host_tests {
    ($($name:ident,)*) => {$(
        #[test]
        fn $name() { assert_eq!(scenarios::$name(), Ok(())); }
    )*};
}

crate::hsq_scenarios!(host_tests!());

#[test]
fn scenario_errors_compare_by_description() {
    assert_eq!(ScenarioError("x"), ScenarioError("x"));
    assert_ne!(ScenarioError("x"), ScenarioError("y"));
    assert_eq!(format!("{:?}", ScenarioError("x")), "ScenarioError(\"x\")");
}
