// SPDX-License-Identifier: GPL-2.0

//! The controller's side of the CQHCI command queue: the hooks it lends the engine, what it
//! takes over from them afterwards, and the decode of the `MSDC_INT.CMDQ` interrupt.

use super::super::cqe::{self, CqeAftermath, CqeEvent, CqeHooks, HookReset};
use super::super::errors::{command_queue_errors, is_command_queue_event};
use super::super::regs::{InterruptSet, MsdcBase, MSDC_INT};
use super::{Controller, REQUEST_EVENTS};
use crate::cqhci::regs::CQSSC1;
use crate::cqhci::HostError;
use crate::mmc_request::ErrorKind;
use crate::registers::Io;

impl<R> Controller<R> {
    /// The hooks for one call of the CQHCI engine on this controller, whose MSDC registers
    /// are `base` (see the `cqe` module): they keep the standing card-detect and SDIO
    /// interrupts enabled, program the queue's timeouts for the bus clock now running, and
    /// write `idle_timer` (from [`cqe::send_status_idle_timer`]) to `CQSSC1`.
    ///
    /// The hooks borrow the controller, so nothing changes its state during the engine call;
    /// give what they did back with [`Controller::absorb_cqe`].
    ///
    /// Hooks built while suspended do nothing at all. The glue suspends the CQHCI engine
    /// before the controller and resumes it after, so they are never called then; the
    /// engine's own accesses to the CQHCI block are the glue's to keep out of that window.
    pub fn cqe_hooks<'a, B: Io<MsdcBase>>(
        &'a self,
        base: &'a B,
        idle_timer: CQSSC1,
    ) -> CqeHooks<'a, B> {
        CqeHooks::new(
            base,
            self.is_suspended(),
            self.standing_interrupts,
            !self.setup.soc.busy_check,
            self.clock.timeout_clock(),
            idle_timer,
        )
    }

    /// Takes over what the CQHCI hooks did ([`CqeHooks::finish`]): the data timeout they
    /// programmed becomes the one a clock change rescales (every legacy data command
    /// programs its own), a reset they completed settles a reset left pending, one whose
    /// poll timed out is retried by the next [`Controller::start`], a DMA stop that did not
    /// take effect is waited for by the next start with data, and a poll that timed
    /// out is kept for [`Controller::take_hardware_fault`].
    pub fn absorb_cqe(&mut self, aftermath: CqeAftermath) {
        if aftermath.timeouts_written {
            self.data_timeout = cqe::READ_TIMEOUT;
        }
        match aftermath.reset {
            HookReset::NotRun => {}
            HookReset::Done => self.reset_pending = false,
            HookReset::Failed => self.reset_pending = true,
        }
        if aftermath.dma_stop_pending {
            self.dma_stop_pending = true;
        }
        if let Some(fault) = aftermath.fault {
            self.hardware_fault = Some(fault);
        }
    }

    /// Consumes a pending, enabled command queue interrupt (`MSDC_INT.CMDQ`), which the
    /// hooks enable while the CQHCI block owns the bus, with the errors the MSDC latched
    /// for the queue's commands and data (`msdc_cmdq_irq`): a response CRC error, else a
    /// command timeout, is the command error; a data CRC error, else a data timeout, the
    /// data error. The glue passes them to [`Cqhci::irq`](crate::cqhci::Cqhci::irq).
    ///
    /// Acknowledges `CMDQ` and the request events read with it, never card detect or SDIO.
    /// The acknowledgment comes before the engine reads `CQIS`, so an interrupt the block
    /// raises meanwhile latches again. `None`, touching nothing, without a `CMDQ` event,
    /// while a legacy request is in flight (whose events these would be) and while
    /// suspended.
    pub fn command_queue_event(&mut self, base: &impl Io<MsdcBase>) -> Option<CqeEvent> {
        if self.is_suspended() || self.request.is_some() {
            return None;
        }
        let int = base.read::<MSDC_INT>();
        if !is_command_queue_event(InterruptSet::pending_enabled(int, base.read())) {
            return None;
        }
        let events = InterruptSet::from_bits_retain(int.raw());
        base.write((InterruptSet::CMDQ | (events & REQUEST_EVENTS)).as_acknowledge());
        let errors = command_queue_errors(events);
        Some(CqeEvent {
            cmd_error: errors.command.map(host_error),
            data_error: errors.data.map(host_error),
        })
    }
}

/// The CQHCI engine's class of an error the MSDC detected.
const fn host_error(error: ErrorKind) -> HostError {
    match error {
        ErrorKind::BadCrc => HostError::Crc,
        ErrorKind::TimedOut => HostError::Timeout,
        ErrorKind::DmaFault => HostError::Other,
    }
}
