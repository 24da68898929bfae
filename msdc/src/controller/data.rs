// SPDX-License-Identifier: GPL-2.0

//! The data phase of a request: the descriptor DMA started once the command has its
//! response, stopped (bounded) on the data event, and the transfer's outcome.

use super::super::dma::{self, ChainStart};
use super::super::errors::data_outcome;
use super::super::regs::{InterruptSet, MsdcBase, MSDC_DMA_CFG, MSDC_DMA_CTRL};
use super::request::{InFlight, Phase, Step};
use super::{Controller, HwError, POLL};
use crate::mmc_request::DataResult;
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
            return self.issue(r, flight, Phase::Stop);
        }
        Step::Finished(flight.result)
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
