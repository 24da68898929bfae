// SPDX-License-Identifier: GPL-2.0

//! KUnit suite: the host software queue passes every shared scenario of `hsq/src/scenarios.rs`,
//! the same functions `cargo test` runs (`hsq/tests/scenarios.rs`).

#[kernel::prelude::kunit_tests(mtk_sd_rust_hsq)]
mod tests {
    use crate::hsq::scenarios;

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

    #[test]
    fn every_listed_scenario_passes() {
        assert_eq!(scenarios::ALL.len(), 14);
        for (_name, scenario) in scenarios::ALL {
            assert_eq!(scenario(), Ok(()));
        }
    }
}
