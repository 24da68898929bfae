// SPDX-License-Identifier: GPL-2.0
//! Power and clocks, which the board controls and no register does: the SoC power domain
//! (whose loss returns every register to its reset value), the register clock (`hclk`) and
//! the source clock, and what register access and engine work they allow.

use super::super::super::cqhci::CqhciModel;
use super::{MsdcModel, Phase, Violation, CLOCK_SETTLE_NS};

/// A clock of the controller, as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelClock {
    /// `hclk`: the register interface.
    Register,
    /// `source` (with its gate): feeds the card clock divider.
    Source,
}

impl MsdcModel {
    /// The power domain goes off: every register of the controller and of its CQHCI block
    /// returns to its reset value, work in progress is dropped (a command, data phase, DMA
    /// or CQHCI task in progress then is a violation: [`Violation::PowerOffWhileBusy`]),
    /// pending interrupts vanish.
    pub fn power_off(&mut self) {
        if !self.powered {
            return;
        }
        if self.work_in_progress() {
            self.violation(Violation::PowerOffWhileBusy);
        }
        self.abandon_data();
        self.reset_registers();
        self.powered = false;
        self.power_offs = self.power_offs.saturating_add(1);
    }

    /// The power domain comes back (registers at reset values; clocks as they were set).
    pub fn power_on(&mut self) {
        // The registers were reset when the power went and nothing could reach them since.
        self.powered = true;
    }

    /// Whether the power domain is on.
    pub fn is_powered(&self) -> bool {
        self.powered
    }

    /// Gates (`running == false`) or ungates a clock. Gating the source clock while a
    /// command/data phase/DMA/CQHCI task is in progress is a violation
    /// ([`Violation::ClockGatedWhileBusy`]). Once the source clock runs again, `CKSTB`
    /// comes back [`CLOCK_SETTLE_NS`] later on the model clock, as after a divider change
    /// (upstream's `msdc_ungate_clock` polls it).
    pub fn set_clock(&mut self, clock: ModelClock, running: bool) {
        match clock {
            ModelClock::Register => {
                if self.register_clock && !running {
                    self.register_clock_gatings = self.register_clock_gatings.saturating_add(1);
                }
                self.register_clock = running;
            }
            ModelClock::Source => {
                if self.source_clock == running {
                    return;
                }
                if !running && self.work_in_progress() {
                    self.violation(Violation::ClockGatedWhileBusy(clock));
                }
                if running {
                    self.clock_changed();
                }
                self.source_clock = running;
            }
        }
    }

    /// Whether `clock` runs.
    pub fn clock_running(&self, clock: ModelClock) -> bool {
        match clock {
            ModelClock::Register => self.register_clock,
            ModelClock::Source => self.source_clock,
        }
    }

    /// How many times the power went off (for the board's debugfs).
    pub fn power_offs(&self) -> u32 {
        self.power_offs
    }

    /// How many times `hclk` stopped (for the board's debugfs): a driver's runtime
    /// suspend gates it, so this counts them whatever the driver, where power stays on.
    pub fn register_clock_gatings(&self) -> u32 {
        self.register_clock_gatings
    }

    /// Whether anything would be lost if the controller stopped now: a command or data
    /// phase, a started DMA, or a task in the CQHCI block's slots.
    fn work_in_progress(&self) -> bool {
        self.phase != Phase::Idle
            || self.dma_armed
            || self
                .cqhci
                .as_ref()
                .is_some_and(CqhciModel::tasks_in_progress)
    }

    /// Every register (and the CQHCI block) back to its power-on value. What is no
    /// register stays: the record of the run (violations, commands, simulated time), the
    /// fault a test injected for the next command, and the power and clock state.
    fn reset_registers(&mut self) {
        let cqhci = self.cqhci.take().map(|mut c| {
            c.reset();
            c
        });
        let fresh = Self::build(self.config, cqhci);
        let before = core::mem::replace(self, fresh);
        self.fault = before.fault;
        self.slow_stop = before.slow_stop;
        self.slow_stops = before.slow_stops;
        self.stale = before.stale.after_reset();
        self.commands = before.commands;
        self.block_transfers = before.block_transfers;
        self.elapsed_ns = before.elapsed_ns;
        self.split = before.split;
        // Time goes on, and the card (whose supply is separate) keeps its queue and units.
        self.clock_ns = before.clock_ns;
        self.task_timer = before.task_timer;
        self.violation_count = before.violation_count;
        self.violations = before.violations;
        self.last_violation = before.last_violation;
        self.powered = before.powered;
        self.register_clock = before.register_clock;
        self.source_clock = before.source_clock;
        self.power_offs = before.power_offs;
        self.register_clock_gatings = before.register_clock_gatings;
        // What the card was told and drives is no register either.
        self.sampling_errors = before.sampling_errors;
        self.tuning_commands = before.tuning_commands;
        self.card_clock = before.card_clock;
        self.hardware_reset = before.hardware_reset;
        self.lines = before.lines;
        // The card's supply is separate: a card stuck busy stays so, and one sending a
        // block goes on.
        self.busy_until = before.busy_until;
        self.drain_pending = before.drain_pending;
    }

    /// Whether a register access at `offset` reaches the registers; records the violation
    /// if not (power off, or `hclk` gated).
    pub(super) fn accessible(&mut self, offset: usize, write: bool) -> bool {
        if !self.powered {
            self.violation(Violation::UnpoweredAccess { offset, write });
            false
        } else if !self.register_clock {
            self.violation(Violation::GatedAccess { offset, write });
            false
        } else {
            true
        }
    }

    /// Whether the controller's engine can run: powered, with its source clock running
    /// (the card clock is derived from it).
    pub(super) fn clocked(&self) -> bool {
        self.powered && self.source_clock
    }

    /// The card clock changed (divider, mode, or the source clock ungated): it is stable
    /// again [`CLOCK_SETTLE_NS`] from now.
    pub(super) fn clock_changed(&mut self) {
        self.clock_stable_at_ns = self.now_ns().saturating_add(CLOCK_SETTLE_NS);
    }

    /// Whether the card clock runs and has settled since its last change (`CKSTB`).
    pub(super) fn clock_stable(&self) -> bool {
        self.source_clock && self.now_ns() >= self.clock_stable_at_ns
    }
}
