// SPDX-License-Identifier: GPL-2.0

//! Tuning of the slot's sample points, driven from the MMC core's tuning callbacks: the
//! controller's state machine (`msdc::tuning`) programs each sample point under the lock,
//! and the probe it asks for (a tuning command, or an EXT_CSD read for the HS400 strobe)
//! goes to the card outside the lock, through the core, like any other command.

use kernel::prelude::*;

use super::Msdc;
use crate::{
    kernel_mmc::{Host, TuningBus, TuningCard, TuningExchange},
    msdc::{
        clock::Timing,
        tuning::{TuningError, TuningKind, TuningProbe, TuningReport},
    },
};

/// More probes than any plan sends (two edges of 64 cells, three tries per response
/// cell, plus the internal delay's 32 cells): a tuning that asks for more is abandoned.
const MAX_TUNING_PROBES: u32 = 1024;

/// What a probe is sent with: the tuning command of the callback, or the card for the
/// strobe sweep's EXT_CSD reads.
enum Prober<'a, 'b> {
    Command { bus: &'a TuningBus<'b>, opcode: u32 },
    ExtCsd(&'a TuningCard<'b>),
}

impl Prober<'_, '_> {
    /// Sends `probe` and says whether it passed.
    fn send(&self, probe: TuningProbe) -> bool {
        match (self, probe) {
            (Self::Command { bus, opcode }, TuningProbe::SendTuningResponse) => {
                bus.send_tuning(*opcode).response_ok
            }
            (Self::Command { bus, opcode }, TuningProbe::SendTuning) => {
                let TuningExchange { block_ok, .. } = bus.send_tuning(*opcode);
                block_ok
            }
            (Self::ExtCsd(card), TuningProbe::ReadExtCsd) => card.read_ext_csd().is_ok(),
            // A probe this callback cannot send fails: the sweep then finds no window
            // there rather than a wrong one.
            _ => false,
        }
    }
}

/// The errno the core gets for a tuning that did not finish.
fn tuning_errno(e: TuningError) -> Error {
    match e {
        TuningError::Busy => EBUSY,
        TuningError::BoardValue(_) => EINVAL,
        TuningError::NoWindow
        | TuningError::Incomplete
        | TuningError::NotTuning
        | TuningError::Suspended => EIO,
    }
}

impl Msdc {
    /// `execute_tuning`: tunes the sample points for the timing the core has set, with
    /// tuning command `opcode`.
    pub(super) fn execute_tuning(&self, host: &Host, bus: &TuningBus<'_>, opcode: u32) -> Result {
        let timing = Timing::from_mmc(u32::from(host.ios().timing));
        let Some(kind) = timing.and_then(TuningKind::for_timing) else {
            dev_err!(
                self.dev,
                "CMD{}: tuning asked for in timing {}, which has none\n",
                opcode,
                host.ios().timing
            );
            return Err(EINVAL);
        };
        let begun = self.state.lock().controller.begin_tuning(&self.regs, kind);
        begun.map_err(|e| {
            dev_err!(self.dev, "cannot start tuning for {:?}: {:?}\n", kind, e);
            tuning_errno(e)
        })?;
        self.run_tuning(Prober::Command { bus, opcode })
    }

    /// `prepare_hs400_tuning`: HS400 is the target of the HS200 tuning that follows.
    pub(super) fn prepare_hs400_tuning(&self) -> Result {
        let prepared = self
            .state
            .lock()
            .controller
            .prepare_hs400_tuning(&self.regs);
        prepared.map_err(|e| {
            dev_err!(self.dev, "cannot prepare HS400: {:?}\n", e);
            tuning_errno(e)
        })
    }

    /// `execute_hs400_tuning`: the data strobe's delay, probed with EXT_CSD reads.
    pub(super) fn execute_hs400_tuning(&self, card: &TuningCard<'_>) -> Result {
        let begun = self.state.lock().controller.begin_hs400_tuning(&self.regs);
        begun.map_err(|e| {
            dev_err!(self.dev, "cannot start the HS400 strobe tuning: {:?}\n", e);
            tuning_errno(e)
        })?;
        self.run_tuning(Prober::ExtCsd(card))
    }

    /// `hs400_enhanced_strobe`: the core has no way to hear of a failure, so it is logged.
    pub(super) fn set_enhanced_strobe(&self, on: bool) {
        let set = self
            .state
            .lock()
            .controller
            .set_hs400_enhanced_strobe(&self.regs, on);
        if let Err(e) = set {
            dev_err!(self.dev, "cannot switch enhanced strobe {}: {:?}\n", on, e);
        }
    }

    /// Runs the tuning the controller began: each probe programmed under the lock and sent
    /// outside it, then the choice; the outcome goes to the log and to debugfs.
    fn run_tuning(&self, prober: Prober<'_, '_>) -> Result {
        let mut probes = 0;
        loop {
            let probe = self.state.lock().controller.next_tuning_probe(&self.regs);
            let Some(probe) = probe else { break };
            if probes == MAX_TUNING_PROBES {
                // The state machine ends every plan well before; never loop on a bug.
                dev_err!(self.dev, "tuning did not end after {} probes\n", probes);
                self.state.lock().controller.abort_tuning(&self.regs);
                return Err(EIO);
            }
            probes += 1;
            let passed = prober.send(probe);
            self.state.lock().controller.record_tuning_probe(passed);
        }
        let finished = self.state.lock().controller.finish_tuning(&self.regs);
        match finished {
            Ok(report) => {
                self.report_tuning(&report);
                Ok(())
            }
            Err(e) => {
                dev_err!(self.dev, "tuning failed: {:?}\n", e);
                Err(tuning_errno(e))
            }
        }
    }

    fn report_tuning(&self, report: &TuningReport) {
        let s = report.sample;
        if let Some(r) = report.response {
            dev_info!(
                self.dev,
                "tuned command for {:?}: {:?} edge, window {}-{}, sampling at {}\n",
                report.timing,
                r.edge,
                r.window_start,
                r.window_end,
                r.chosen
            );
        }
        dev_info!(
            self.dev,
            "tuned {:?}: {:?} edge, window {}-{}, sampling at {}\n",
            report.timing,
            s.edge,
            s.window_start,
            s.window_end,
            s.chosen
        );
        self.counters.tuned(report);
    }
}
