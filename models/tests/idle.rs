// SPDX-License-Identifier: GPL-2.0
//! The wake-up rule: an idle state's exit latency is paid only for a gap at least its
//! target residency; MT8195's states as its device tree gives them.

use models::idle::{IdleState, WakeUp};

const US: u64 = 1_000;

#[test]
fn a_gap_shorter_than_the_residency_pays_no_wake_up() {
    let wake = WakeUp::DEFAULT;
    assert_eq!(wake.exit_latency_ns, 95 * US);
    assert_eq!(wake.min_residency_ns, 580 * US);
    // A MicroSD card's 4 KiB read keeps the CPU idle about 460 µs, an eMMC's about 200.
    assert_eq!(wake.charge_ns(0), 0);
    assert_eq!(wake.charge_ns(200 * US), 0);
    assert_eq!(wake.charge_ns(460 * US), 0);
    assert_eq!(
        wake.charge_ns(580 * US - 1),
        0,
        "one ns short of the residency"
    );
    assert_eq!(
        wake.charge_ns(580 * US),
        95 * US,
        "the residency itself fits"
    );
    assert_eq!(wake.charge_ns(5_000 * US), 95 * US);
}

#[test]
fn no_wake_up_charges_nothing() {
    assert_eq!(WakeUp::NONE.charge_ns(0), 0);
    assert_eq!(WakeUp::NONE.charge_ns(u64::MAX), 0);
    assert_eq!(WakeUp::mt8195_little(0), WakeUp::NONE);
}

#[test]
fn mt8195_device_tree_states() {
    // Linux 7.3, arch/arm64/boot/dts/mediatek/mt8195.dtsi, idle-states (µs):
    // name, entry-latency-us, exit-latency-us, min-residency-us.
    let dtsi = [
        ("cpu-retention-l", 50, 95, 580),
        ("cpu-off-l", 55, 155, 840),
        ("cpu-retention-b", 45, 140, 740),
        ("cpu-off-b", 50, 200, 1000),
    ];
    assert_eq!(IdleState::MT8195.len(), dtsi.len());
    for (state, (name, entry, exit, residency)) in IdleState::MT8195.iter().zip(dtsi) {
        assert_eq!(state.name, name);
        assert_eq!(state.entry_latency_ns, entry * US, "{name}");
        assert_eq!(state.exit_latency_ns, exit * US, "{name}");
        assert_eq!(state.min_residency_ns, residency * US, "{name}");
        // The residency rule holds for every state the device tree lists.
        assert_eq!(
            IdleState::mt8195_residency_ns(state.entry_latency_ns, state.exit_latency_ns),
            state.min_residency_ns,
            "{name}"
        );
    }
}

#[test]
fn a_little_core_state_by_its_exit_latency() {
    // The device tree's own state comes back.
    assert_eq!(
        WakeUp::mt8195_little(95 * US),
        WakeUp::of(&IdleState::MT8195_RETENTION_L)
    );
    assert_eq!(WakeUp::mt8195_little(95 * US), WakeUp::DEFAULT);
    // The sensitivity runs' 20 µs: 4 × (50 + 20) µs of residency, an extrapolation.
    let shallow = WakeUp::mt8195_little(20 * US);
    assert_eq!(shallow.min_residency_ns, 280 * US);
    assert_eq!(shallow.charge_ns(279 * US), 0);
    assert_eq!(shallow.charge_ns(460 * US), 20 * US);
}
