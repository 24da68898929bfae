// SPDX-License-Identifier: GPL-2.0

//! The data phase of a request: the descriptor DMA started once the command has its
//! response, stopped on the data event (polled for microseconds in the interrupt handler,
//! waited for from process context when it clears late), the transfer's outcome, and the
//! stop command after it, which waits for a card still programming from process context.

use super::super::dma::{self, ChainStart};
use super::super::errors::data_outcome;
use super::super::regs::{InterruptSet, MsdcBase, MSDC_DMA_CFG, MSDC_DMA_CTRL};
use super::issue::bus_busy;
use super::request::{Await, InFlight, Phase, Step};
use super::{Controller, HwError, Progress, POLL, POLL_INTERVAL_US};
use crate::mmc_request::{DataResult, ErrorKind};
use crate::registers::{Io, PollLimit};

/// Reads of `MSDC_DMA_CTRL.STOP`, and then of `MSDC_DMA_CFG.STS`, the interrupt handler
/// makes at most after it stopped the DMA, each 1 µs apart: about 10 µs each. A stop
/// still in progress then (under heavy bus load the engine first finishes its outstanding
/// bus transactions: upstream's "mmc: mediatek: wait dma stop bit reset to 0", which polls
/// up to 20 ms in the interrupt) is waited for from process context
/// ([`Controller::awaits_dma_stop`]).
pub const DMA_STOP_POLL_LIMIT_IRQ: u32 = 10;

/// The bound of the DMA stop's polls in the interrupt handler.
const DMA_STOP_POLL_IRQ: PollLimit = PollLimit {
    attempts: DMA_STOP_POLL_LIMIT_IRQ,
    interval_us: POLL_INTERVAL_US,
};

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
        let stopped = self.stop_dma_within(r, DMA_STOP_POLL_IRQ);
        self.enable_phase_interrupts(r, None);
        let bytes_xfered = match (outcome, flight.data) {
            (Ok(()), Some(data)) => data.blocks.saturating_mul(data.block_size),
            _ => 0,
        };
        flight.result.data = Some(DataResult {
            bytes_xfered,
            error: outcome.err(),
        });
        if !stopped {
            // Not waited for here: the busy retry (process context) looks again, and
            // nothing starts a DMA meanwhile (the request stays on the controller).
            flight.awaits = Some(Await::DmaStop);
            return Step::Continue(flight);
        }
        self.after_data(r, flight)
    }

    /// The rest of the data phase once the DMA stopped: the reset after a failed transfer,
    /// then the stop command of an open-ended transfer or of a failed one.
    fn after_data(&mut self, r: &impl Io<MsdcBase>, flight: InFlight) -> Step {
        let failed = flight.result.data.is_some_and(|data| data.error.is_some());
        if failed {
            self.recover(r);
        }
        if flight.stop.is_some() && (!flight.has_sbc || failed) {
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
            flight.awaits = Some(Await::Bus);
            return Step::Continue(flight);
        }
        self.issue(r, flight, Phase::Stop)
    }

    /// Whether the request in flight has a stop command waiting for the bus to go idle
    /// (`SDC_STS.SDCBUSY`, a card programming): the glue calls [`Controller::retry_stop`]
    /// from process context, sleeping between calls, until this is false.
    pub fn awaits_bus(&self) -> bool {
        self.awaits(Await::Bus)
    }

    /// Whether the request in flight waits for its DMA stop to take effect
    /// (`MSDC_DMA_CTRL.STOP` still set, or `MSDC_DMA_CFG.STS` still active, after the
    /// interrupt handler's [`DMA_STOP_POLL_LIMIT_IRQ`] reads): the glue calls
    /// [`Controller::retry_stop`] from process context, sleeping between calls, until this
    /// is false. The request is not completed meanwhile, so nothing starts a DMA.
    pub fn awaits_dma_stop(&self) -> bool {
        self.awaits(Await::DmaStop)
    }

    /// Whether the request in flight waits for process context for either stop
    /// ([`Controller::awaits_bus`], [`Controller::awaits_dma_stop`]).
    pub fn stop_waits(&self) -> bool {
        self.request
            .as_ref()
            .is_some_and(|(flight, _)| flight.awaits.is_some())
    }

    fn awaits(&self, what: Await) -> bool {
        self.request
            .as_ref()
            .is_some_and(|(flight, _)| flight.awaits == Some(what))
    }

    /// The longest a stop waits ([`Controller::retry_stop`]'s `give_up`), the stop command
    /// for the bus and the DMA stop alike: the request's data timeout
    /// (`mmc_data.timeout_ns` and `timeout_clks` at the bus clock), which bounds the card's
    /// programming of the write, and far exceeds any DMA stop upstream waits for (20 ms).
    pub fn stop_wait_limit_ns(&self) -> u64 {
        let clocks_ns = match u64::from(self.clock.bus_hz()) {
            0 => 0,
            hz => self.data_timeout.clocks.saturating_mul(1_000_000_000) / hz,
        };
        self.data_timeout.ns.saturating_add(clocks_ns)
    }

    /// One look, in process context, for the stop the request in flight waits for
    /// ([`Controller::stop_waits`]); [`Progress::Pending`] when nothing waits.
    ///
    /// * A stop command waiting for the bus ([`Controller::awaits_bus`]): an idle bus
    ///   issues it, and the request goes on with its interrupt; a busy one leaves it
    ///   waiting, or with `give_up` (the glue waited [`Controller::stop_wait_limit_ns`])
    ///   fails the stop with a time-out, resets the controller and hands the request back.
    /// * A DMA stop still in progress ([`Controller::awaits_dma_stop`]): one read of
    ///   `MSDC_DMA_CTRL` and `MSDC_DMA_CFG`, no wait. Once stopped, the data phase ends as
    ///   the interrupt would have ended it (the reset after a failed transfer, the stop
    ///   command, which may wait for the bus in turn, or the request handed back). Still
    ///   running with `give_up`: the fault is recorded ([`HwError::DmaStopTimeout`]), the
    ///   data phase fails ([`ErrorKind::DmaFault`]: what the DMA wrote is not known to be
    ///   complete), the controller is reset, and the request ends as after any failed data
    ///   phase. The controller stays busy for a data request until the stop clears
    ///   ([`Controller::bus_busy_for`], [`Controller::start`]).
    pub fn retry_stop(&mut self, r: &impl Io<MsdcBase>, give_up: bool) -> Progress<R> {
        let Some((flight, token)) = self.request.take() else {
            return Progress::Pending;
        };
        let awaits = match flight.awaits {
            Some(awaits) if !self.is_suspended() => awaits,
            _ => {
                self.request = Some((flight, token));
                return Progress::Pending;
            }
        };
        let step = match awaits {
            Await::Bus => self.retry_bus(r, flight, give_up),
            Await::DmaStop => self.retry_dma_stop(r, flight, give_up),
        };
        match step {
            Step::Continue(flight) => {
                self.request = Some((flight, token));
                Progress::Pending
            }
            Step::Finished(result) => Progress::Done(token, result),
        }
    }

    /// [`Controller::retry_stop`] for a stop command waiting for the bus.
    fn retry_bus(&mut self, r: &impl Io<MsdcBase>, mut flight: InFlight, give_up: bool) -> Step {
        let needs_idle_controller = flight.stop.is_some_and(|stop| stop.needs_idle_controller());
        if !bus_busy(r.read(), needs_idle_controller) {
            flight.awaits = None;
            return self.issue(r, flight, Phase::Stop);
        }
        if !give_up {
            return Step::Continue(flight);
        }
        flight.awaits = None;
        flight.fail(Phase::Stop, ErrorKind::TimedOut);
        self.end_with_error(r);
        Step::Finished(flight.result)
    }

    /// [`Controller::retry_stop`] for a DMA stop still in progress.
    fn retry_dma_stop(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        give_up: bool,
    ) -> Step {
        if self.dma_stop_cleared(r) {
            flight.awaits = None;
            return self.after_data(r, flight);
        }
        if !give_up {
            return Step::Continue(flight);
        }
        flight.awaits = None;
        self.hardware_fault = Some(HwError::DmaStopTimeout);
        flight.fail(Phase::Data, ErrorKind::DmaFault);
        self.after_data(r, flight)
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

    /// Stops the DMA and waits for it to go idle with the full bound (process context: the
    /// watchdog's abort); a DMA that does not is recorded as a fault and reset.
    pub(super) fn stop_dma(&mut self, r: &impl Io<MsdcBase>) {
        if !self.stop_dma_within(r, POLL) {
            self.hardware_fault = Some(HwError::DmaStopTimeout);
            self.recover(r);
        }
    }

    /// Requests the DMA stop and polls, within `limit`, for it to take effect; whether it
    /// did. One that did not is left pending ([`Controller::dma_stop_pending`]).
    fn stop_dma_within(&mut self, r: &impl Io<MsdcBase>, limit: PollLimit) -> bool {
        request_dma_stop(r);
        self.dma_stop_pending = true;
        let stopped = dma_stopped_within(r, limit);
        if stopped {
            self.dma_stop_pending = false;
        }
        stopped
    }

    /// One look at a pending DMA stop, no wait: whether it has taken effect (and then it is
    /// no longer pending).
    fn dma_stop_cleared(&mut self, r: &impl Io<MsdcBase>) -> bool {
        if dma_idle(r) {
            self.dma_stop_pending = false;
        }
        !self.dma_stop_pending
    }

    /// Whether a DMA stop the controller requested has not been seen to take effect yet:
    /// the request waits for it ([`Controller::awaits_dma_stop`]), or it outlived its
    /// request's bound. While it is pending no DMA may start: a data request finds the
    /// controller busy ([`Controller::bus_busy_for`]) and [`Controller::start`] waits for
    /// it with the full bound first.
    pub const fn dma_stop_pending(&self) -> bool {
        self.dma_stop_pending
    }

    /// Waits, with the full bound, for a pending DMA stop (process context: a start);
    /// refused with [`HwError::DmaStopTimeout`] if it still has not taken effect.
    pub(super) fn finish_dma_stop(&mut self, r: &impl Io<MsdcBase>) -> Result<(), HwError> {
        if !self.dma_stop_pending {
            return Ok(());
        }
        if dma_stopped_within(r, POLL) {
            self.dma_stop_pending = false;
            Ok(())
        } else {
            Err(HwError::DmaStopTimeout)
        }
    }
}

/// `MSDC_DMA_CTRL` as read, without the action bits (start, stop, resume) that would act
/// again if written back.
fn dma_ctrl_settings(ctrl: MSDC_DMA_CTRL) -> MSDC_DMA_CTRL {
    ctrl.with_start(false).with_stop(false).with_resume(false)
}

/// Stops the DMA (`MSDC_DMA_CTRL.STOP`).
fn request_dma_stop(r: &impl Io<MsdcBase>) {
    let ctrl = dma_ctrl_settings(r.read());
    r.write(ctrl.with_stop(true));
}

/// Polls, each within `limit`, for the DMA stop to take effect (`MSDC_DMA_CTRL.STOP`
/// clear) and then for `MSDC_DMA_CFG.STS` to report the engine idle.
fn dma_stopped_within(r: &impl Io<MsdcBase>, limit: PollLimit) -> bool {
    r.poll::<MSDC_DMA_CTRL>(|ctrl| !ctrl.stop(), limit).is_ok()
        && r.poll::<MSDC_DMA_CFG>(|cfg| !cfg.sts(), limit).is_ok()
}

/// One read of each: whether the DMA is stopped and idle.
pub(super) fn dma_idle(r: &impl Io<MsdcBase>) -> bool {
    !r.read::<MSDC_DMA_CTRL>().stop() && !r.read::<MSDC_DMA_CFG>().sts()
}

/// Stops the DMA (`MSDC_DMA_CTRL.STOP`) and waits, bounded, for the stop to take effect and
/// for `MSDC_DMA_CFG.STS` to report the engine idle. Process context only (the CQHCI
/// engine's recovery): the full bound is about 20 ms per register.
pub(crate) fn halt_dma(r: &impl Io<MsdcBase>) -> Result<(), HwError> {
    request_dma_stop(r);
    if dma_stopped_within(r, POLL) {
        Ok(())
    } else {
        Err(HwError::DmaStopTimeout)
    }
}
