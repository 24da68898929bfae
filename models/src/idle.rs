// SPDX-License-Identifier: GPL-2.0
//! The host CPU's idle states, for the wake-up cost the simulated board charges a thread
//! that a completion interrupt wakes: MT8195's states as its device tree describes them,
//! and the rule by which an idle state's exit latency is paid only when the idle governor
//! could have chosen that state for the gap the CPU was idle.
//!
//! A CPU that waits for an interrupt enters the deepest idle state whose target residency
//! (`min-residency-us`: the shortest stay for which entering the state saves energy) fits
//! the idle time the governor predicts, and pays that state's exit latency on the
//! interrupt that ends the wait. The model assumes a governor that predicts the gap
//! exactly (the cpuidle `menu` and `teo` governors predict a steady gap from its recent
//! history) and no latency limit (PM QoS's default). A gap shorter than a state's
//! residency leaves the CPU in a shallower state: on MT8195, `WFI`, whose exit (1 µs in
//! `cpuidle-psci.c`) the model does not charge.

/// An idle state of an Arm CPU as `arm,idle-state` device tree nodes describe it
/// (`Documentation/devicetree/bindings/cpu/idle-states.yaml`), in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleState {
    /// The node's name.
    pub name: &'static str,
    /// `entry-latency-us`: the worst-case time to enter the state.
    pub entry_latency_ns: u64,
    /// `exit-latency-us`: the worst-case time to leave it, once entered: what an interrupt
    /// that ends the wait pays before the CPU runs again.
    pub exit_latency_ns: u64,
    /// `min-residency-us`: the shortest stay, entry included, that makes the state worth
    /// entering (the kernel's `target_residency`).
    pub min_residency_ns: u64,
}

const US: u64 = 1_000;

impl IdleState {
    /// MT8195's Cortex-A55 retention state, `cpu-retention-l` in Linux 7.3's
    /// `arch/arm64/boot/dts/mediatek/mt8195.dtsi` (entry 50 µs, exit 95 µs, residency
    /// 580 µs): the shallowest state below WFI of the little cores (cpu0–cpu3).
    pub const MT8195_RETENTION_L: IdleState = IdleState {
        name: "cpu-retention-l",
        entry_latency_ns: 50 * US,
        exit_latency_ns: 95 * US,
        min_residency_ns: 580 * US,
    };

    /// MT8195's Cortex-A78 retention state, `cpu-retention-b` (45, 140, 740 µs; cpu4–cpu7).
    pub const MT8195_RETENTION_B: IdleState = IdleState {
        name: "cpu-retention-b",
        entry_latency_ns: 45 * US,
        exit_latency_ns: 140 * US,
        min_residency_ns: 740 * US,
    };

    /// MT8195's Cortex-A55 power-down state, `cpu-off-l` (55, 155, 840 µs).
    pub const MT8195_OFF_L: IdleState = IdleState {
        name: "cpu-off-l",
        entry_latency_ns: 55 * US,
        exit_latency_ns: 155 * US,
        min_residency_ns: 840 * US,
    };

    /// MT8195's Cortex-A78 power-down state, `cpu-off-b` (50, 200, 1000 µs).
    pub const MT8195_OFF_B: IdleState = IdleState {
        name: "cpu-off-b",
        entry_latency_ns: 50 * US,
        exit_latency_ns: 200 * US,
        min_residency_ns: 1_000 * US,
    };

    /// Every idle state of `mt8195.dtsi` (`idle-states`), each cluster's shallowest first.
    pub const MT8195: [IdleState; 4] = [
        Self::MT8195_RETENTION_L,
        Self::MT8195_OFF_L,
        Self::MT8195_RETENTION_B,
        Self::MT8195_OFF_B,
    ];

    /// The target residency MT8195's device tree gives its states: four times the entry
    /// and exit latencies together, for each of its four states (580 = 4 × (50 + 95),
    /// 740 = 4 × (45 + 140), 840 = 4 × (55 + 155), 1000 = 4 × (50 + 200)).
    pub const fn mt8195_residency_ns(entry_latency_ns: u64, exit_latency_ns: u64) -> u64 {
        4 * (entry_latency_ns + exit_latency_ns)
    }
}

/// The wake-up cost of one idle state: its exit latency, charged for a gap the CPU was
/// idle only when the gap is at least the state's target residency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WakeUp {
    /// What a wake-up from the state costs, ns.
    pub exit_latency_ns: u64,
    /// The shortest gap for which the governor enters the state, ns.
    pub min_residency_ns: u64,
}

impl WakeUp {
    /// The simulated board's default: MT8195's `cpu-retention-l`, the state of the little
    /// cores that run the MMC core's threads between I/Os.
    pub const DEFAULT: WakeUp = WakeUp::of(&IdleState::MT8195_RETENTION_L);

    /// Nothing charged, whatever the gap.
    pub const NONE: WakeUp = WakeUp {
        exit_latency_ns: 0,
        min_residency_ns: 0,
    };

    /// The wake-up cost of `state`.
    pub const fn of(state: &IdleState) -> WakeUp {
        WakeUp {
            exit_latency_ns: state.exit_latency_ns,
            min_residency_ns: state.min_residency_ns,
        }
    }

    /// A state of MT8195's little cores that exits in `exit_latency_ns`: its entry latency
    /// that of `cpu-retention-l` (50 µs) and its residency by the device tree's rule
    /// ([`IdleState::mt8195_residency_ns`]). For an exit latency the device tree does not
    /// list (the sensitivity runs' 20 µs gives 280 µs) this extrapolates the rule: a fit to
    /// the device tree's four states, not a state MT8195 has. 0 is [`WakeUp::NONE`].
    pub const fn mt8195_little(exit_latency_ns: u64) -> WakeUp {
        if exit_latency_ns == 0 {
            return WakeUp::NONE;
        }
        WakeUp {
            exit_latency_ns,
            min_residency_ns: IdleState::mt8195_residency_ns(
                IdleState::MT8195_RETENTION_L.entry_latency_ns,
                exit_latency_ns,
            ),
        }
    }

    /// What a CPU that was idle for `gap_ns` pays to wake: the exit latency if the gap let
    /// the governor choose the state, else nothing.
    pub const fn charge_ns(&self, gap_ns: u64) -> u64 {
        if gap_ns >= self.min_residency_ns {
            self.exit_latency_ns
        } else {
            0
        }
    }
}
