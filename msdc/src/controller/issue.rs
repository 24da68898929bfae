// SPDX-License-Identifier: GPL-2.0

//! Issuing the command of a request's phase and decoding its response: the bus-idle wait
//! and FIFO check before the command, the command registers, and the response registers
//! read back once it completed.

use super::super::command::{response_words, ResponseType};
use super::super::errors::Outcome;
use super::super::regs::{
    MsdcBase, MSDC_FIFOCS, SDC_ACMD_RESP, SDC_ARG, SDC_BLK_NUM, SDC_RESP0, SDC_RESP1, SDC_RESP2,
    SDC_RESP3, SDC_STS,
};
use super::data::dma_idle;
use super::request::{InFlight, Phase, Step};
use super::{modify_cfg, Controller, POLL, REQUEST_EVENTS};
use crate::mmc_request::{CommandResult, ErrorKind, Request};
use crate::registers::Io;

impl<R> Controller<R> {
    /// Issues the command of `phase`; on a bus that stays busy, fails the phase with a
    /// timeout (upstream's `REQ_CMD_BUSY`) and ends the request.
    pub(super) fn issue(
        &mut self,
        r: &impl Io<MsdcBase>,
        mut flight: InFlight,
        phase: Phase,
    ) -> Step {
        let Some(command) = flight.command_of(phase) else {
            return Step::Finished(flight.result);
        };
        if !self.wait_bus_idle(r, command.needs_idle_controller()) {
            flight.fail(phase, ErrorKind::TimedOut);
            self.end_with_error(r);
            return Step::Finished(flight.result);
        }
        let fifo = r.read::<MSDC_FIFOCS>();
        if fifo.rxcnt() != 0 || fifo.txcnt() != 0 {
            // Left over from an aborted transfer: upstream resets before the next command.
            self.recover(r);
        }
        // Events of earlier phases that were latched while masked would look like this
        // command's once its interrupts are enabled.
        r.write(REQUEST_EVENTS.as_acknowledge());
        if let Some(blocks) = command.blocks {
            modify_cfg(r, |cfg| cfg.with_pio(false));
            r.write(SDC_BLK_NUM::from_raw(blocks));
        }
        if phase == Phase::Stop {
            self.activity.stops = self.activity.stops.wrapping_add(1);
        }
        flight.phase = phase;
        self.enable_phase_interrupts(r, Some(phase));
        r.write(SDC_ARG::from_raw(command.argument));
        r.write(command.word);
        Step::Continue(flight)
    }

    /// Waits for `SDC_STS.CMDBUSY`, and `SDCBUSY` too for R1b and data commands, to clear
    /// (`msdc_cmd_is_ready`).
    fn wait_bus_idle(&self, r: &impl Io<MsdcBase>, whole_controller: bool) -> bool {
        r.poll::<SDC_STS>(|sts| !bus_busy(sts, whole_controller), POLL)
            .is_ok()
    }

    /// Whether [`Controller::start`] would find the bus busy for `req` now: one read of
    /// `SDC_STS`, no wait. `CMDBUSY`, and `SDCBUSY` too when a command of `req` needs an
    /// idle data line (R1b, or data: a card still programming an earlier write holds DAT0
    /// low). For a caller that must not spin (the host software queue's dispatch from the
    /// completion interrupt): it retries from process context while this answers true.
    ///
    /// A reset the interrupt handler left running ([`Controller::reset_pending`]) makes the
    /// controller busy too: [`Controller::finish_reset`] completes it from process context.
    /// So does, for a request with data, a DMA stop still in progress
    /// ([`Controller::dma_stop_pending`], one read of each DMA register).
    ///
    /// False while suspended (no register is touched; [`Controller::start`] refuses then).
    pub fn bus_busy_for(&self, r: &impl Io<MsdcBase>, req: &Request) -> bool {
        if self.is_suspended() {
            return false;
        }
        if self.reset_pending() {
            return true;
        }
        if req.data.is_some() && self.dma_stop_pending() && !dma_idle(r) {
            // A DMA stop that outlived its request: no DMA may start before it clears.
            return true;
        }
        let busy_response = |flags| ResponseType::from_mmc_flags(flags).is_ok_and(|r| r.has_busy());
        let whole_controller = req.data.is_some()
            || busy_response(req.cmd.flags)
            || req.sbc.is_some_and(|sbc| busy_response(sbc.flags));
        bus_busy(r.read::<SDC_STS>(), whole_controller)
    }
}

/// Whether `sts` shows the command line busy, or with `whole_controller` the controller
/// (the data line) too.
pub(super) fn bus_busy(sts: SDC_STS, whole_controller: bool) -> bool {
    sts.cmdbusy() || (whole_controller && sts.sdcbusy())
}

/// The response of a finished command phase, in `mmc_command.resp` order.
pub(super) fn read_response(
    r: &impl Io<MsdcBase>,
    response: ResponseType,
    outcome: Outcome,
) -> CommandResult {
    let mut registers = [0u32; 4];
    for (index, word) in registers
        .iter_mut()
        .enumerate()
        .take(response.response_registers())
    {
        *word = match index {
            0 => r.read::<SDC_RESP0>().raw(),
            1 => r.read::<SDC_RESP1>().raw(),
            2 => r.read::<SDC_RESP2>().raw(),
            _ => r.read::<SDC_RESP3>().raw(),
        };
    }
    CommandResult {
        response: response_words(response, registers),
        error: outcome.err(),
    }
}

/// The auto-CMD23 result: its R1 is in `SDC_ACMD_RESP`.
pub(super) fn auto_command_result(r: &impl Io<MsdcBase>, outcome: Outcome) -> CommandResult {
    CommandResult {
        response: [r.read::<SDC_ACMD_RESP>().raw(), 0, 0, 0],
        error: outcome.err(),
    }
}
