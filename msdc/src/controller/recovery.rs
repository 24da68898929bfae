// SPDX-License-Identifier: GPL-2.0

//! Error recovery: the controller reset after a failed phase (remembered and retried by the
//! next start when it does not complete), the explicit reset, and the abort of a request
//! whose timer expired.

use super::super::regs::{MsdcBase, MSDC_CFG, MSDC_FIFOCS};
use super::request::Phase;
use super::{writable_cfg, Controller, HwError, POLL, RESET_CLEARS};
use crate::mmc_request::{ErrorKind, RequestResult};
use crate::registers::Io;

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

    /// Resets the controller; a reset that does not complete is remembered, reported through
    /// [`Controller::take_hardware_fault`] and retried by the next start.
    pub(super) fn recover(&mut self, r: &impl Io<MsdcBase>) {
        if let Err(e) = self.reset_controller(r) {
            self.hardware_fault = Some(e);
        }
    }

    pub(super) fn reset_controller(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        self.reset_pending = true;
        reset_hardware(r)?;
        self.reset_pending = false;
        Ok(())
    }
}

/// Resets the controller and clears its FIFO (`msdc_reset_hw`), each wait bounded, then
/// acknowledges every event but card detect and SDIO ([`RESET_CLEARS`]).
pub(crate) fn reset_hardware(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    r.write(writable_cfg(r.read()).with_rst(true));
    r.poll::<MSDC_CFG>(|cfg| !cfg.rst(), POLL)
        .map_err(|_| HwError::ResetTimeout)?;
    r.update::<MSDC_FIFOCS>(|fifo| fifo.with_clr(true));
    r.poll::<MSDC_FIFOCS>(|fifo| !fifo.clr(), POLL)
        .map_err(|_| HwError::FifoClearTimeout)?;
    r.write(RESET_CLEARS.as_acknowledge());
    Ok(())
}
