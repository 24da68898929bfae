// SPDX-License-Identifier: GPL-2.0
//! Runs the shared engine-against-model scenarios (also run by KUnit) under `cargo test`.

// The scenario file reaches the crates as `super::cqhci` and `super::sim`, as in the kernel.
#[expect(
    clippy::single_component_path_imports,
    reason = "the scenarios resolve `super::cqhci`, which needs an item in this module"
)]
use cqhci;
#[expect(
    clippy::single_component_path_imports,
    reason = "the scenarios resolve `super::sim`, which needs an item in this module"
)]
use sim;

#[path = "../../kunit/cqhci_scenarios.rs"]
mod scenarios;

macro_rules! scenario_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                assert_eq!(scenarios::$name(), Ok(()));
            }
        )*

        #[test]
        fn all_listed() {
            let names: &[&str] = &[$(stringify!($name)),*];
            assert_eq!(scenarios::ALL.len(), names.len());
            for (name, run) in scenarios::ALL {
                assert!(names.contains(name), "{name} has no test");
                assert_eq!(run(), Ok(()), "{name}");
            }
        }
    };
}

scenario_tests!(
    one_task,
    all_slots,
    dcmd_among_data,
    dma32_segments,
    fault_response_error,
    fault_queueing_error,
    fault_data_crc,
    fault_timeout,
    fault_descriptor_error,
    spurious_completion,
    software_timeout,
    suspend_resume,
    coalescing,
    stuck_controller,
);

#[test]
fn rig_fits_a_kernel_stack_frame() {
    let size = scenarios::rig_size();
    println!("scenario rig: {size} bytes");
    assert!(size < 7 * 1024, "{size}");
}
