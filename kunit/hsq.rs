// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the host software queue passes every shared scenario of `hsq/src/scenarios.rs`,
//! the same functions `cargo test` runs (`hsq/tests/scenarios.rs`).

crate::hsq_scenarios!(scenario_suite!(mtk_sd_rust_hsq, crate::hsq::scenarios, {
    #[test]
    fn every_listed_scenario_passes() {
        assert_eq!(scenarios::ALL.len(), 14);
        for (_name, scenario) in scenarios::ALL {
            assert_eq!(scenario(), Ok(()));
        }
    }
};));
