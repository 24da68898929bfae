// SPDX-License-Identifier: GPL-2.0

//! The sample-point tuning calls the glue makes between requests: each checks the
//! controller's state and hands over to the `tuning` module's state machine.

use super::super::regs::MsdcRegs;
#[cfg(doc)]
use super::super::tuning::BoardTuning;
use super::super::tuning::{TuningError, TuningKind, TuningProbe, TuningReport};
use super::Controller;

impl<R> Controller<R> {
    /// Starts tuning the sample points for `kind` (`execute_tuning`), with the SoC's plan
    /// (see the `tuning` module), and programs the first sample point's setup. Then the
    /// glue loops: [`Controller::next_tuning_probe`], the probe it names sent outside the
    /// lock, [`Controller::record_tuning_probe`], until the next probe is `None`; then
    /// [`Controller::finish_tuning`].
    ///
    /// A tuning still in progress is abandoned first. Refused while suspended, while a
    /// request is in flight, and for a [`BoardTuning`] value that does not fit its field.
    pub fn begin_tuning(&mut self, r: &impl MsdcRegs, kind: TuningKind) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.begin(r, self.setup.soc, kind)
    }

    /// Starts the HS400 data strobe sweep (`execute_hs400_tuning`, after the switch to
    /// HS400): the strobe's first delay over 32 cells, each probed with an EXT_CSD read
    /// ([`TuningProbe::ReadExtCsd`]); driven and finished like [`Controller::begin_tuning`].
    /// The sweep always runs, as upstream's, over the board's `hs400-ds-delay` if any.
    pub fn begin_hs400_tuning(&mut self, r: &impl MsdcRegs) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.begin_strobe(r, self.setup.soc)
    }

    /// Programs the next sample point of the tuning in progress and says what to send
    /// there; `None` once the sweeps are done (or one failed, or none is running, or the
    /// controller is suspended), and then [`Controller::finish_tuning`]. Asked again before
    /// [`Controller::record_tuning_probe`], it names the same probe and reprograms nothing.
    ///
    /// Call it with no request in flight: it reprograms the delay lines.
    pub fn next_tuning_probe(&mut self, r: &impl MsdcRegs) -> Option<TuningProbe> {
        if self.is_suspended() || self.request.is_some() {
            return None;
        }
        self.tuner.next_probe(r, self.setup.soc)
    }

    /// Records whether the probe [`Controller::next_tuning_probe`] named last passed (the
    /// MMC core's helper returned 0). Without a probe outstanding it does nothing.
    pub fn record_tuning_probe(&mut self, passed: bool) {
        self.tuner.record(passed);
    }

    /// Ends the tuning: on success reports what was chosen (programmed when its sweep
    /// ended) and keeps the delay lines and edges as the tuned parameters, which
    /// [`Controller::set_clock`] restores above 52 MHz and runtime suspend keeps (the
    /// strobe sweep's delay is kept by the save set alone). On failure
    /// ([`TuningError::NoWindow`], or [`TuningError::Incomplete`] before the sweeps were
    /// done) the delay lines and edges are as before the tuning began, and the tuned
    /// parameters are unchanged.
    pub fn finish_tuning(&mut self, r: &impl MsdcRegs) -> Result<TuningReport, TuningError> {
        if self.is_suspended() {
            return Err(TuningError::Suspended);
        }
        self.tuner.finish(r, self.setup.soc)
    }

    /// Abandons a tuning in progress (the card went away, the glue gave up): the delay
    /// lines and edges go back as they were before it began. Nothing happens without one,
    /// or while suspended (suspend already abandoned it).
    pub fn abort_tuning(&mut self, r: &impl MsdcRegs) {
        if !self.is_suspended() {
            self.tuner.abandon(r, self.setup.soc);
        }
    }

    /// Whether a tuning is in progress (begun and not yet finished or abandoned).
    pub const fn is_tuning(&self) -> bool {
        self.tuner.is_tuning()
    }

    /// HS400 is the target (`prepare_hs400_tuning`, before the HS200 tuning that precedes
    /// it): the board's strobe delays (`mediatek,hs400-ds-dly3` into `DLY3`, then a whole
    /// `hs400-ds-delay`, into `EMMC50_PAD_DS_TUNE` on SoCs with a top region, else
    /// `PAD_DS_TUNE`), `MSDC_PATCH_BIT2.CFGCRCSTS` clear and two outstanding writes
    /// (`EMMC50_CFG3.OUTS_WR`). The following tuning then leaves the data line to the
    /// strobe or, on `hs400_tune` SoCs, tunes the HS400 command pad delay. The target lasts
    /// until [`Controller::set_clock`] goes back to the legacy timing.
    pub fn prepare_hs400_tuning(&mut self, r: &impl MsdcRegs) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.prepare_hs400(r, self.setup.soc)
    }

    /// Whether HS400 is the target ([`Controller::prepare_hs400_tuning`]).
    pub const fn hs400_target(&self) -> bool {
        self.tuner.hs400_mode()
    }

    /// Switches HS400 enhanced strobe on or off (`hs400_enhanced_strobe`): on prepares HS400
    /// ([`Controller::prepare_hs400_tuning`]) and sets the command pad latch and response
    /// select (`EMMC50_CFG0`), the strobe configuration (`EMMC50_CFG1.DS_CFG`), clears the
    /// command queue's command windows (`CQHCI_SETTING`) and read data count
    /// (`EMMC51_CFG0.CMDQ_RDAT_CNT`); off reverses them, with the read data count at 0xB4.
    /// The setting is kept across runtime suspend.
    pub fn set_hs400_enhanced_strobe(
        &mut self,
        r: &impl MsdcRegs,
        on: bool,
    ) -> Result<(), TuningError> {
        self.check_tunable()?;
        self.tuner.set_enhanced_strobe(r, self.setup.soc, on)
    }

    /// Tuning needs a powered controller with no request in flight.
    fn check_tunable(&self) -> Result<(), TuningError> {
        if self.is_suspended() {
            Err(TuningError::Suspended)
        } else if self.request.is_some() {
            Err(TuningError::Busy)
        } else {
            Ok(())
        }
    }
}
