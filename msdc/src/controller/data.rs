// SPDX-License-Identifier: GPL-2.0

//! The data phase of a request: the descriptor DMA started once the command has its
//! response, stopped (bounded) on the data event, the transfer's outcome, and the stop
//! command after it, which waits for a card still programming from process context.

use super::super::dma::{self, ChainStart};
use super::super::errors::data_outcome;
use super::super::regs::{InterruptSet, MsdcBase, MSDC_DMA_CFG, MSDC_DMA_CTRL};
use super::issue::bus_busy;
use super::request::{InFlight, Phase, Step};
use super::{Controller, HwError, Progress, POLL};
use crate::mmc_request::{DataResult, ErrorKind};
use crate::registers::Io;

impl<R> Controller<R> {
    pub(super) fn on_data(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        events: InterruptSet,
    ) -> Step {
        let Some(outcome) = data_outcome(events) else {
            return Step::Continue(flight);
        };
        self.stop_dma(r);
        self.enable_phase_interrupts(r, None);
        let bytes_xfered = match (outcome, flight.data) {
            (Ok(()), Some(data)) => data.blocks.saturating_mul(data.block_size),
            _ => 0,
        };
        flight.result.data = Some(DataResult {
            bytes_xfered,
            error: outcome.err(),
        });
        if outcome.is_err() {
            self.recover(r);
        }
        if flight.stop.is_some() && (!flight.has_sbc || outcome.is_err()) {
            return self.issue_stop(r, flight);
        }
        Step::Finished(flight.result)
    }

    /// Issues the stop after the data phase if the bus is idle. A card still programming
    /// the write holds DAT0 low past the transfer's end (the controller raises XFER_COMPL
    /// before the card releases it) for as long as its programming takes, milliseconds and
    /// more: the stop is not waited for here (the data interrupt) but parked, with the
    /// request interrupts masked, for [`Controller::retry_stop`] from process context.
    fn issue_stop(&mut self, r: &impl Io<MsdcBase>, mut flight: InFlight) -> Step {
        let needs_idle_controller = flight.stop.is_some_and(|stop| stop.needs_idle_controller());
        if bus_busy(r.read(), needs_idle_controller) {
            flight.phase = Phase::Stop;
            flight.awaits_bus = true;
            return Step::Continue(flight);
        }
        self.issue(r, flight, Phase::Stop)
    }

    /// Whether the request in flight has a stop command waiting for the bus to go idle
    /// (`SDC_STS.SDCBUSY`, a card programming): the glue calls [`Controller::retry_stop`]
    /// from process context, sleeping between calls, until this is false.
    pub fn awaits_bus(&self) -> bool {
        self.request
            .as_ref()
            .is_some_and(|(flight, _)| flight.awaits_bus)
    }

    /// The longest a stop waits for the bus ([`Controller::retry_stop`]'s `give_up`): the
    /// request's data timeout (`mmc_data.timeout_ns` and `timeout_clks` at the bus clock),
    /// which bounds the card's programming of the write.
    pub fn stop_wait_limit_ns(&self) -> u64 {
        let clocks_ns = match u64::from(self.clock.bus_hz()) {
            0 => 0,
            hz => self.data_timeout.clocks.saturating_mul(1_000_000_000) / hz,
        };
        self.data_timeout.ns.saturating_add(clocks_ns)
    }

    /// One look at the bus for the stop that waits for it ([`Controller::awaits_bus`]), in
    /// process context: an idle bus issues the stop, and the request goes on with its
    /// interrupt; a busy one leaves it waiting, or with `give_up` (the glue waited
    /// [`Controller::stop_wait_limit_ns`]) fails the stop with a time-out, resets the
    /// controller and hands the request back. [`Progress::Pending`] when nothing waits.
    pub fn retry_stop(&mut self, r: &impl Io<MsdcBase>, give_up: bool) -> Progress<R> {
        let Some((mut flight, token)) = self.request.take() else {
            return Progress::Pending;
        };
        if !flight.awaits_bus || self.is_suspended() {
            self.request = Some((flight, token));
            return Progress::Pending;
        }
        let needs_idle_controller = flight.stop.is_some_and(|stop| stop.needs_idle_controller());
        if !bus_busy(r.read(), needs_idle_controller) {
            flight.awaits_bus = false;
            return match self.issue(r, flight, Phase::Stop) {
                Step::Continue(flight) => {
                    self.request = Some((flight, token));
                    Progress::Pending
                }
                Step::Finished(result) => Progress::Done(token, result),
            };
        }
        if !give_up {
            self.request = Some((flight, token));
            return Progress::Pending;
        }
        flight.awaits_bus = false;
        flight.fail(Phase::Stop, ErrorKind::TimedOut);
        self.end_with_error(r);
        Progress::Done(token, flight.result)
    }

    /// Points the DMA at the chain, enables the data interrupts and starts it.
    pub(super) fn start_dma(&mut self, r: &impl Io<MsdcBase>, chain: ChainStart) {
        r.update::<MSDC_DMA_CFG>(dma::checksum_checking);
        let ctrl = dma::descriptor_mode(dma_ctrl_settings(r.read()));
        r.write(ctrl);
        if let Some(high) = chain.start_high {
            r.write(high);
        }
        r.write(chain.start_low);
        self.enable_phase_interrupts(r, Some(Phase::Data));
        r.write(ctrl.with_start(true));
    }

    /// Stops the DMA and waits for it to go idle; a DMA that does not is reset.
    pub(super) fn stop_dma(&mut self, r: &impl Io<MsdcBase>) {
        if let Err(e) = halt_dma(r) {
            self.hardware_fault = Some(e);
            self.recover(r);
        }
    }
}

/// `MSDC_DMA_CTRL` as read, without the action bits (start, stop, resume) that would act
/// again if written back.
fn dma_ctrl_settings(ctrl: MSDC_DMA_CTRL) -> MSDC_DMA_CTRL {
    ctrl.with_start(false).with_stop(false).with_resume(false)
}

/// Stops the DMA (`MSDC_DMA_CTRL.STOP`) and waits, bounded, for the stop to take effect and
/// for `MSDC_DMA_CFG.STS` to report the engine idle.
pub(crate) fn halt_dma(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    let ctrl = dma_ctrl_settings(r.read());
    r.write(ctrl.with_stop(true));
    let stopped = r.poll::<MSDC_DMA_CTRL>(|ctrl| !ctrl.stop(), POLL).is_ok()
        && r.poll::<MSDC_DMA_CFG>(|cfg| !cfg.sts(), POLL).is_ok();
    if stopped {
        Ok(())
    } else {
        Err(HwError::DmaStopTimeout)
    }
}
