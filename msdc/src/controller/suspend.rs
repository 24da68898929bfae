// SPDX-License-Identifier: GPL-2.0

//! Runtime power management of the controller: suspend and resume around the glue's clock
//! gating, and where the setters' register accesses go while it is suspended.

use super::super::clock::{ClockPlan, Timing};
use super::super::power::{Configuration, SavedRegisters};
use super::super::regs::{
    InterruptSet, MsdcBase, MsdcRegs, MSDC_CFG, MSDC_INT, MSDC_INTEN, MSDC_PS, SDC_STS,
};
use super::{writable_cfg, Controller, HwError, SuspendError, POLL, RESET_CLEARS};
use crate::registers::Io;

/// The bus clock as the MMC core last asked for it (its `ios`): what a resume that lost the
/// clock programs again ([`Controller::resume_with_clock`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BusClock {
    /// The clock asked for, in Hz; 0 gates it.
    pub hz: u32,
    /// The timing the clock is for.
    pub timing: Timing,
}

/// How [`Controller::resume_with_clock`] brought the controller back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resumed {
    /// Everything saved went back as it was.
    Restored,
    /// The saved clock did not become stable: everything else went back, and the clock was
    /// programmed again from the bus settings and runs at `hz`. The sampling may have
    /// drifted meanwhile: the card should be re-tuned before it is trusted at a tuned rate.
    ClockRestarted {
        /// The rate now running.
        hz: u32,
    },
}

impl<R> Controller<R> {
    /// Runtime resume with a fallback for a clock that did not come back: [`Controller::resume`],
    /// and if the saved clock never became stable, the clock asked for (the core's last
    /// `ios`) programmed again as [`Controller::set_clock`] does, with the bounded `CKSTB`
    /// wait once more. The bus width and everything else went back with the saved state.
    ///
    /// [`Resumed::ClockRestarted`] tells the glue to ask the core for a re-tune. An error
    /// means the clock did not settle the second time either: it stays gated, as after
    /// [`Controller::resume`]'s own failure, and the controller cannot serve the card.
    pub fn resume_with_clock(
        &mut self,
        r: &impl MsdcRegs,
        clock: BusClock,
    ) -> Result<Resumed, HwError> {
        match self.resume(r) {
            Ok(()) => Ok(Resumed::Restored),
            Err(HwError::ClockTimeout) => {
                let hz = self.set_clock(r, clock.hz, clock.timing)?;
                Ok(Resumed::ClockRestarted { hz })
            }
            Err(e) => Err(e),
        }
    }

    /// Runtime suspend, before the glue gates the clocks (`msdc_runtime_suspend`).
    ///
    /// Refused while a request is in flight. Otherwise reads the save set (see the `power`
    /// module) into the controller, masks every interrupt, which [`Controller::resume`]
    /// enables again (so a latched event cannot hold a shared line up while the handlers
    /// are not allowed to look), tells the SoC's power manager that the controller releases
    /// its resources where it has to be told (`support_spm_res_release`, as upstream), and
    /// marks the controller suspended. Suspending a suspended controller does nothing.
    ///
    /// The glue suspends the CQHCI engine (or the software queue) first.
    pub fn suspend(&mut self, r: &impl MsdcRegs) -> Result<(), SuspendError> {
        if self.is_suspended() {
            return Ok(());
        }
        if self.request.is_some() {
            return Err(SuspendError::Busy);
        }
        self.tuner.abandon(r, self.setup.soc);
        let saved = SavedRegisters::save(r, self.setup.soc, self.tuner.step());
        r.write(MSDC_INTEN::zeroed());
        if self.setup.soc.support_spm_res_release {
            r.update::<SDC_STS>(|sts| sts.with_spm_resource_release(true));
        }
        self.saved = Some(saved);
        Ok(())
    }

    /// Runtime resume, after the glue ungated the clocks (`msdc_runtime_resume`).
    ///
    /// On SoCs with the new transmit and receive paths their enables go from 0 to 1 first,
    /// as upstream's. Then the saved `MSDC_CFG` goes back. When the saved clock was
    /// running, the divider goes back with the clock gated and the clock is ungated once
    /// `CKSTB` is set (a bounded [`Io::poll`], like upstream's 20 ms wait after ungating).
    /// Then the rest of the save set (the top region's last, on SoCs with one) and the
    /// enhanced strobe setting, if one was made; then the stale events of `MSDC_INT` are
    /// cleared except the card-detect and SDIO events, which the standing interrupts
    /// consume, and `MSDC_INTEN` goes back last. A tuning in progress at suspend is
    /// abandoned (the delay lines go back as they were before it began).
    ///
    /// The controller is no longer suspended afterwards, even on an error:
    /// [`HwError::ClockTimeout`] when `CKSTB` did not come back, and then everything else
    /// was still restored but the clock stays gated and forgotten, so the glue can log it and
    /// re-initialise. Resuming a controller that is not suspended does nothing.
    pub fn resume(&mut self, r: &impl MsdcRegs) -> Result<(), HwError> {
        let Some(saved) = self.saved.take() else {
            return Ok(());
        };
        self.tuner.before_restore(r, self.setup.soc);
        let cfg = writable_cfg(saved.clock_configuration());
        let mut result = Ok(());
        if self.clock.bus_hz() != 0 {
            r.write(cfg.with_ckpdn(false));
            if r.poll::<MSDC_CFG>(MSDC_CFG::ckstb, POLL).is_ok() {
                r.write(cfg);
            } else {
                self.clock = ClockPlan::Gated;
                self.clock_request = None;
                result = Err(HwError::ClockTimeout);
            }
        } else {
            r.write(cfg);
        }
        saved.restore_configuration(r);
        self.tuner.after_restore(r);
        let pending = InterruptSet::from_bits_retain(r.read::<MSDC_INT>().raw());
        r.write((pending & RESET_CLEARS).as_acknowledge());
        r.write(saved.interrupt_enables());
        result
    }

    /// Whether the controller is runtime suspended: between [`Controller::suspend`] and
    /// [`Controller::resume`], when no method touches the registers.
    pub const fn is_suspended(&self) -> bool {
        self.saved.is_some()
    }

    /// Runs `program` on the registers, or while suspended on the saved copy that resume
    /// writes back (the programs given here touch only registers of the save set).
    pub(super) fn configure<I: Io<MsdcBase>>(
        &mut self,
        r: &I,
        program: impl FnOnce(&mut Self, &Configuration<'_, I>),
    ) {
        let mut saved = self.saved.take();
        let target = match saved.as_mut() {
            Some(saved) => Configuration::Saved(saved.image()),
            None => Configuration::Hardware(r),
        };
        program(self, &target);
        self.saved = saved;
    }

    /// `MSDC_PS`: the pins now, or while suspended as they were at suspend.
    pub(super) fn pin_status(&self, r: &impl Io<MsdcBase>) -> MSDC_PS {
        match &self.saved {
            Some(saved) => saved.read(),
            None => r.read(),
        }
    }
}
