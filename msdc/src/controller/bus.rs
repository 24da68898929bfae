// SPDX-License-Identifier: GPL-2.0

//! The card bus: the clock divider with its bounded stable wait, the data timeout that
//! follows the clock, the identification clock left after initialisation, and the bus
//! width.

use super::super::clock::{self, ClockError, ClockPlan, Timing};
use super::super::regs::{BusWidth, MsdcBase, MsdcRegs, MSDC_CFG, MSDC_INTEN, SDC_CFG};
use super::super::timeout::{Counter, TimeoutRequest};
use super::{modify_cfg, writable_cfg, Controller, HwError, POLL};
use crate::registers::Io;

/// Card identification clock the controller is prepared for at initialisation.
pub const IDENTIFICATION_CLOCK_HZ: u32 = 400_000;

/// The clock the core asked for last, and got: what [`Controller::set_clock`] compares a new
/// request with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClockRequest {
    pub(super) hz: u32,
    pub(super) timing: Timing,
}

impl<R> Controller<R> {
    /// Sets the card clock to at most `hz` for `timing` (`msdc_set_mclk`), or gates it for
    /// 0, and returns the rate now running (`mmc->actual_clock`). Waits, bounded, for
    /// `CKSTB`, and reprograms the data timeout for the new clock.
    ///
    /// The same `hz` and `timing` as the last request that took effect change nothing (the
    /// core calls `set_ios` for every bus change, most of which leave the clock alone). A
    /// clock that did not settle is forgotten, so the next request programs it again; an
    /// unreachable one changes nothing. Refused with [`HwError::Suspended`] while suspended
    /// (the clock cannot settle then).
    ///
    /// Once a running clock settled, the sample points follow it as upstream's: at or below
    /// [`TUNED_ABOVE_HZ`](super::super::tuning::TUNED_ABOVE_HZ) the default parameters (a tuning
    /// at 200 MHz does not suit the high-speed step between HS200 and HS400), above it the
    /// tuned ones ([`Controller::finish_tuning`]); in HS400 on `hs400_tune` SoCs the
    /// board's internal command delay; on SoCs with the new transmit path the loop clock
    /// for the timing (`LOOP_TEST_CONTROL`). The legacy timing also forgets the HS400
    /// target ([`Controller::prepare_hs400_tuning`]): the card is being initialised again.
    pub fn set_clock(
        &mut self,
        r: &impl MsdcRegs,
        hz: u32,
        timing: Timing,
    ) -> Result<u32, HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.tuner.timing_requested(timing);
        let request = ClockRequest { hz, timing };
        if self.clock_request == Some(request) {
            return Ok(self.clock.bus_hz());
        }
        let plan = clock::plan(
            self.setup.source_hz,
            hz,
            timing,
            self.setup.soc.clock_divider,
        )
        .map_err(HwError::UnreachableClock)?;
        let ClockPlan::Running(setting) = plan else {
            modify_cfg(r, |cfg| cfg.with_ckpdn(false));
            self.clock = ClockPlan::Gated;
            self.clock_request = Some(request);
            return Ok(0);
        };
        let enabled = r.read::<MSDC_INTEN>();
        r.write(MSDC_INTEN::zeroed());
        let stable = self.program_divider(r, setting);
        if stable.is_ok() {
            modify_cfg(r, |cfg| cfg.with_ckpdn(true));
            self.clock = plan;
            self.clock_request = Some(request);
            self.program_data_timeout(r, self.data_timeout);
        } else {
            // The divider changed but the clock never settled: nothing is known to run.
            self.clock = ClockPlan::Gated;
            self.clock_request = None;
        }
        r.write(enabled);
        stable?;
        self.tuner
            .after_clock_change(r, self.setup.soc, plan.bus_hz(), timing)
            .map_err(HwError::BoardValue)?;
        Ok(plan.bus_hz())
    }

    /// Sets the data bus width to 1, 4 or 8 lines; any other value selects one line. While
    /// suspended, sets it in the saved `SDC_CFG`, for resume to program.
    pub fn set_bus_width(&mut self, r: &impl Io<MsdcBase>, lines: u8) {
        let width = match lines {
            4 => BusWidth::Four,
            8 => BusWidth::Eight,
            _ => BusWidth::One,
        };
        self.configure(r, |_, r| {
            r.update::<SDC_CFG>(|cfg| cfg.with_buswidth(width));
        });
    }

    pub(super) fn program_data_timeout(&self, r: &impl Io<MsdcBase>, request: TimeoutRequest) {
        let clock = self.clock.timeout_clock();
        r.update::<SDC_CFG>(|cfg| Counter::Data.program(cfg, clock, request));
    }

    /// Writes a clock setting with the clock gated and waits for `CKSTB`.
    fn program_divider(
        &self,
        r: &impl Io<MsdcBase>,
        setting: clock::ClockSetting,
    ) -> Result<(), HwError> {
        let width = self.setup.soc.clock_divider;
        let gated = writable_cfg(r.read()).with_ckpdn(false);
        // A divider the field cannot hold asks for less than the slowest clock; `plan`
        // never returns one for this width.
        let cfg = setting.apply(gated, width).map_err(|_| {
            HwError::UnreachableClock(ClockError::BelowMinimum {
                minimum_hz: width.minimum_clock_hz(self.setup.source_hz),
            })
        })?;
        r.write(cfg);
        r.poll::<MSDC_CFG>(MSDC_CFG::ckstb, POLL)
            .map(|_| ())
            .map_err(|_| HwError::ClockTimeout)
    }

    /// Leaves a stable divider of at most [`IDENTIFICATION_CLOCK_HZ`] (or the slowest the
    /// divider reaches) with the clock gated, so the first `set_clock` finds a card-safe rate.
    pub(super) fn program_identification_clock(
        &mut self,
        r: &impl Io<MsdcBase>,
    ) -> Result<(), HwError> {
        let source = self.setup.source_hz;
        let width = self.setup.soc.clock_divider;
        let plan = match clock::plan(source, IDENTIFICATION_CLOCK_HZ, Timing::Legacy, width) {
            Err(ClockError::BelowMinimum { minimum_hz }) => {
                clock::plan(source, minimum_hz, Timing::Legacy, width)
            }
            other => other,
        }
        .map_err(HwError::UnreachableClock)?;
        if let ClockPlan::Running(setting) = plan {
            self.program_divider(r, setting)?;
        }
        self.clock = ClockPlan::Gated;
        Ok(())
    }
}
