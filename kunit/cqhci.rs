// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the CQHCI engine passes every shared engine-against-model scenario of
//! `cqhci/src/scenarios.rs`, the same functions `cargo test` runs (`cqhci/tests/scenarios.rs`).

#[kernel::prelude::kunit_tests(mtk_sd_rust_cqhci)]
mod tests {
    use crate::cqhci::scenarios;

    #[test]
    fn one_task() {
        assert_eq!(scenarios::one_task(), Ok(()));
    }

    #[test]
    fn all_slots() {
        assert_eq!(scenarios::all_slots(), Ok(()));
    }

    #[test]
    fn dcmd_among_data() {
        assert_eq!(scenarios::dcmd_among_data(), Ok(()));
    }

    #[test]
    fn dma32_segments() {
        assert_eq!(scenarios::dma32_segments(), Ok(()));
    }

    #[test]
    fn fault_response_error() {
        assert_eq!(scenarios::fault_response_error(), Ok(()));
    }

    #[test]
    fn fault_queueing_error() {
        assert_eq!(scenarios::fault_queueing_error(), Ok(()));
    }

    #[test]
    fn fault_data_crc() {
        assert_eq!(scenarios::fault_data_crc(), Ok(()));
    }

    #[test]
    fn fault_timeout() {
        assert_eq!(scenarios::fault_timeout(), Ok(()));
    }

    #[test]
    fn fault_descriptor_error() {
        assert_eq!(scenarios::fault_descriptor_error(), Ok(()));
    }

    #[test]
    fn spurious_completion() {
        assert_eq!(scenarios::spurious_completion(), Ok(()));
    }

    #[test]
    fn software_timeout() {
        assert_eq!(scenarios::software_timeout(), Ok(()));
    }

    #[test]
    fn suspend_resume() {
        assert_eq!(scenarios::suspend_resume(), Ok(()));
    }

    #[test]
    fn coalescing() {
        assert_eq!(scenarios::coalescing(), Ok(()));
    }

    #[test]
    fn stuck_controller() {
        assert_eq!(scenarios::stuck_controller(), Ok(()));
    }

    #[test]
    fn rig_fits_the_stack() {
        assert!(scenarios::rig_size() < 7 * 1024);
    }

    #[test]
    fn every_scenario_has_a_test() {
        assert_eq!(scenarios::ALL.len(), 14);
    }
}
