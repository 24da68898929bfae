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

#[test]
fn fifo_dispatch() {
    assert_eq!(scenarios::fifo_dispatch(), Ok(()));
}

#[test]
fn one_in_flight() {
    assert_eq!(scenarios::one_in_flight(), Ok(()));
}

#[test]
fn depth_normal() {
    assert_eq!(scenarios::depth_normal(), Ok(()));
}

#[test]
fn depth_performance() {
    assert_eq!(scenarios::depth_performance(), Ok(()));
}

#[test]
fn disable_enable() {
    assert_eq!(scenarios::disable_enable(), Ok(()));
}

#[test]
fn disable_waits_for_idle() {
    assert_eq!(scenarios::disable_waits_for_idle(), Ok(()));
}

#[test]
fn suspend_resume() {
    assert_eq!(scenarios::suspend_resume(), Ok(()));
}

#[test]
fn recovery_halt_resume() {
    assert_eq!(scenarios::recovery_halt_resume(), Ok(()));
}

#[test]
fn wait_for_idle() {
    assert_eq!(scenarios::wait_for_idle(), Ok(()));
}

#[test]
fn bad_tag_rejected() {
    assert_eq!(scenarios::bad_tag_rejected(), Ok(()));
}

#[test]
fn double_submit_rejected() {
    assert_eq!(scenarios::double_submit_rejected(), Ok(()));
}

#[test]
fn wrong_completion_rejected() {
    assert_eq!(scenarios::wrong_completion_rejected(), Ok(()));
}

#[test]
fn host_busy_retry() {
    assert_eq!(scenarios::host_busy_retry(), Ok(()));
}

#[test]
fn host_failure_does_not_stall() {
    assert_eq!(scenarios::host_failure_does_not_stall(), Ok(()));
}

/// The list the KUnit suite mirrors names every scenario once, and each listed entry passes.
#[test]
fn all_lists_every_scenario_once() {
    let expected: [(&str, scenarios::Scenario); 14] = [
        ("fifo_dispatch", scenarios::fifo_dispatch),
        ("one_in_flight", scenarios::one_in_flight),
        ("depth_normal", scenarios::depth_normal),
        ("depth_performance", scenarios::depth_performance),
        ("disable_enable", scenarios::disable_enable),
        ("disable_waits_for_idle", scenarios::disable_waits_for_idle),
        ("suspend_resume", scenarios::suspend_resume),
        ("recovery_halt_resume", scenarios::recovery_halt_resume),
        ("wait_for_idle", scenarios::wait_for_idle),
        ("bad_tag_rejected", scenarios::bad_tag_rejected),
        ("double_submit_rejected", scenarios::double_submit_rejected),
        (
            "wrong_completion_rejected",
            scenarios::wrong_completion_rejected,
        ),
        ("host_busy_retry", scenarios::host_busy_retry),
        (
            "host_failure_does_not_stall",
            scenarios::host_failure_does_not_stall,
        ),
    ];
    let listed: Vec<&str> = scenarios::ALL.iter().map(|(name, _)| *name).collect();
    let names: Vec<&str> = expected.iter().map(|(name, _)| *name).collect();
    assert_eq!(listed, names);
    for (name, scenario) in scenarios::ALL {
        assert_eq!(scenario(), Ok(()), "scenario {name}");
    }
}

#[test]
fn scenario_errors_compare_by_description() {
    assert_eq!(ScenarioError("x"), ScenarioError("x"));
    assert_ne!(ScenarioError("x"), ScenarioError("y"));
    assert_eq!(format!("{:?}", ScenarioError("x")), "ScenarioError(\"x\")");
}
