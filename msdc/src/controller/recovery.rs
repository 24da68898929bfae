// SPDX-License-Identifier: GPL-2.0

//! Error recovery: the controller reset after a failed phase (bounded to microseconds in
//! the interrupt handler, and finished from process context or by the next start when it
//! does not complete then), the explicit reset, and the abort of a request whose timer
//! expired.

use super::super::regs::{MsdcBase, MSDC_CFG, MSDC_FIFOCS};
use super::request::Phase;
use super::{writable_cfg, Controller, HwError, POLL, POLL_INTERVAL_US, RESET_CLEARS};
use crate::mmc_request::{ErrorKind, RequestResult};
use crate::registers::{Io, PollLimit};

impl<R> Controller<R> {
    /// Resets the controller and clears its FIFO (`msdc_reset_hw`) and every pending
    /// request event. Card-detect and SDIO events stay pending for their consumers, and
    /// `MSDC_INTEN` is left alone. A request in flight is not completed: see
    /// [`Controller::abort`]. Refused with [`HwError::Suspended`] while suspended.
    pub fn reset(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        if self.is_suspended() {
            return Err(HwError::Suspended);
        }
        self.reset_controller(r)
    }

    /// Ends the request in flight after the glue's request timer expired: stops the DMA,
    /// masks the request interrupts, resets the controller (bounded) and hands the request's
    /// token back with [`ErrorKind::TimedOut`] on the phase that was running. `None` when
    /// idle.
    ///
    /// No stop command is sent; the block layer's recovery stops the card if needed. Nothing
    /// is in flight while suspended (suspend refuses a busy controller and start refuses a
    /// suspended one), so then this returns `None` without touching the registers.
    pub fn abort(&mut self, r: &impl Io<MsdcBase>) -> Option<(R, RequestResult)> {
        let (mut flight, token) = self.request.take()?;
        self.enable_phase_interrupts(r, None);
        if flight.phase == Phase::Data {
            self.stop_dma(r);
        }
        flight.fail(flight.phase, ErrorKind::TimedOut);
        self.recover(r);
        Some((token, flight.result))
    }

    /// Masks the request interrupts and resets the controller after a failed phase.
    pub(super) fn end_with_error(&mut self, r: &impl Io<MsdcBase>) {
        self.enable_phase_interrupts(r, None);
        self.recover(r);
    }

    /// Resets the controller after a failed phase, in the request paths, which run in the
    /// interrupt handler: its polls are bounded to microseconds ([`RESET_POLL_LIMIT_IRQ`]).
    /// A reset still running then is left pending, and the controller busy for
    /// [`Controller::bus_busy_for`]: [`Controller::finish_reset`] (process context) or the
    /// next start completes it with the full bound.
    pub(super) fn recover(&mut self, r: &impl Io<MsdcBase>) {
        // A reset that did not finish within the short bound is not a fault yet.
        let _ = self.reset_controller_within(r, RESET_POLL_IRQ);
    }

    /// Whether a reset the request paths started has not completed yet.
    pub const fn reset_pending(&self) -> bool {
        self.reset_pending
    }

    /// Completes a pending reset ([`Controller::reset_pending`]) with the full bound, in
    /// process context; a reset that still does not complete is reported through
    /// [`Controller::take_hardware_fault`] and stays pending. Nothing to do without one,
    /// or while suspended.
    pub fn finish_reset(&mut self, r: &impl Io<MsdcBase>) {
        if !self.reset_pending || self.is_suspended() {
            return;
        }
        if let Err(e) = self.reset_controller(r) {
            self.hardware_fault = Some(e);
        }
    }

    pub(super) fn reset_controller(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        self.reset_controller_within(r, POLL)
    }

    fn reset_controller_within(
        &mut self,
        r: &impl Io<MsdcBase>,
        limit: PollLimit,
    ) -> Result<(), HwError> {
        self.reset_pending = true;
        self.activity.resets = self.activity.resets.wrapping_add(1);
        reset_hardware_within(r, limit)?;
        self.reset_pending = false;
        Ok(())
    }
}

/// Reads of `MSDC_CFG.RST` and `MSDC_FIFOCS.CLR` a reset in the interrupt handler makes
/// at most, each, 1 µs apart: about 100 µs. Both clear within a few cycles of the
/// controller's clock (upstream's `msdc_reset_hw` polls them with neither a delay nor a
/// bound); the interrupts-off stretch a reset may add stays in microseconds.
pub const RESET_POLL_LIMIT_IRQ: u32 = 100;

/// The bound of a reset's polls in the interrupt handler.
const RESET_POLL_IRQ: PollLimit = PollLimit {
    attempts: RESET_POLL_LIMIT_IRQ,
    interval_us: POLL_INTERVAL_US,
};

/// Resets the controller and clears its FIFO (`msdc_reset_hw`), each wait bounded, then
/// acknowledges every event but card detect and SDIO ([`RESET_CLEARS`]).
pub(crate) fn reset_hardware(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    reset_hardware_within(r, POLL)
}

/// [`reset_hardware`] with each poll bounded by `limit`.
fn reset_hardware_within(r: &impl Io<MsdcBase>, limit: PollLimit) -> Result<(), HwError> {
    r.write(writable_cfg(r.read()).with_rst(true));
    r.poll::<MSDC_CFG>(|cfg| !cfg.rst(), limit)
        .map_err(|_| HwError::ResetTimeout)?;
    r.update::<MSDC_FIFOCS>(|fifo| fifo.with_clr(true));
    r.poll::<MSDC_FIFOCS>(|fifo| !fifo.clr(), limit)
        .map_err(|_| HwError::FifoClearTimeout)?;
    r.write(RESET_CLEARS.as_acknowledge());
    Ok(())
}
