// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the CQHCI engine passes every shared engine-against-model scenario of
//! `cqhci/src/scenarios.rs`, the same functions `cargo test` runs (`cqhci/tests/scenarios.rs`).

crate::cqhci_scenarios!(
    scenario_suite!(mtk_sd_rust_cqhci, crate::cqhci::scenarios, {
    #[test]
    fn rig_fits_the_stack() {
        assert!(scenarios::rig_size() < 7 * 1024);
    }

    #[test]
    fn every_scenario_has_a_test() {
        assert_eq!(scenarios::ALL.len(), 15);
    }
};)
);
