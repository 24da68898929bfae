// SPDX-License-Identifier: GPL-2.0
//! Runs the shared engine-against-model scenarios of `src/scenarios.rs` under `cargo test`,
//! one test each, as the KUnit suite `mtk_sd_rust_cqhci` runs them in the kernel.
//!
//! The scenarios drive the engine against the `models` crate's model, and `models` depends on this crate, so
//! the library cannot hold them on the host. They are compiled here instead, where both crates
//! are reachable under the paths the kernel gives them: the engine's modules as `super::…`,
//! the models as `crate::models` and the register layer as `crate::registers`.

use cqhci::{completion, desc, engine, host, regs};
#[expect(
    clippy::single_component_path_imports,
    reason = "the scenarios name the crates `crate::registers` and `crate::models`, as in the kernel"
)]
use {models, registers};

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

crate::cqhci_scenarios!(host_tests!());

#[test]
fn rig_fits_a_kernel_stack_frame() {
    let size = scenarios::rig_size();
    println!("scenario rig: {size} bytes");
    assert!(size < 7 * 1024, "{size}");
}
