// SPDX-License-Identifier: GPL-2.0

//! Runtime suspend and resume of the slot: the queue engine goes first (the software queue
//! drains and stops, CQHCI halts and is switched off so that its first task after resume
//! programs it again, task list base included), then the controller saves what a power-off
//! would lose; resume restores the controller first, then lets the queue run.
//!
//! The clocks and the power domain are the platform driver's: it gates them after
//! [`Msdc::suspend`] and ungates them before [`Msdc::resume`].

use core::sync::atomic::Ordering;

use kernel::{prelude::*, sync::Arc};

use super::{Msdc, Queue};
use crate::{
    hsq,
    kernel_mmc::PinState,
    msdc::{
        clock::Timing,
        controller::{BusClock, Resumed, SignalVoltage, SuspendError},
    },
    slot::command_queue,
};

impl Msdc {
    /// Runtime suspend: stops the queue engine and saves the controller's state. `EBUSY`
    /// while requests are in flight (the PM core tries again after the next idle period).
    pub(crate) fn suspend(self: &Arc<Self>) -> Result {
        self.suspend_queue()?;
        let saved = {
            let mut state = self.state.lock();
            state.controller.suspend(&self.regs)
        };
        if let Err(SuspendError::Busy) = saved {
            // The queue was idle, so this is a request outside it: let it finish.
            self.resume_queue();
            return Err(EBUSY);
        }
        // With the SDIO wake-up armed, DAT1 becomes the wake-up interrupt's GPIO line.
        let pads = if self.sdio_wake_armed() && self.host.sdio_irq_claimed() {
            PinState::Eint
        } else {
            PinState::Sleep
        };
        if let Err(e) = self.pins.select(pads) {
            dev_warn!(
                self.dev,
                "cannot select the {:?} pin state: {:?}\n",
                pads,
                e
            );
        }
        self.counters
            .runtime_suspends
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Runtime resume, with the clocks running again: restores the controller, the pads,
    /// then the queue. If the saved clock does not become stable, the clock the core last
    /// asked for is programmed once more and the core is asked to re-tune; if it does not
    /// become stable then either, the resume fails (as upstream's), which the PM core
    /// records as the device's runtime error.
    pub(crate) fn resume(&self) -> Result {
        let ios = self.host.ios();
        let clock = BusClock {
            hz: ios.clock_hz,
            timing: Timing::from_mmc(u32::from(ios.timing)).unwrap_or(Timing::Legacy),
        };
        let (resumed, pads) = {
            let mut state = self.state.lock();
            let resumed = state.controller.resume_with_clock(&self.regs, clock);
            (resumed, state.controller.signal_voltage())
        };
        let result = match resumed {
            Ok(Resumed::Restored) => Ok(()),
            Ok(Resumed::ClockRestarted { hz }) => {
                dev_warn!(
                    self.dev,
                    "clock not stable after resume: programmed again at {} Hz, re-tuning\n",
                    hz
                );
                self.host.retune_needed();
                Ok(())
            }
            Err(e) => {
                dev_err!(self.dev, "clock not stable after resume: {:?}\n", e);
                Err(EIO)
            }
        };
        let pins = match pads {
            SignalVoltage::V180 => PinState::Uhs,
            _ => PinState::Default,
        };
        if let Err(e) = self.pins.select(pins) {
            dev_err!(
                self.dev,
                "cannot select the {:?} pin state: {:?}\n",
                pins,
                e
            );
        }
        self.resume_queue();
        self.counters
            .runtime_resumes
            .fetch_add(1, Ordering::Relaxed);
        result
    }

    /// A system sleep ended (the device went through [`Msdc::suspend`] and
    /// [`Msdc::resume`] if it was active).
    pub(crate) fn system_resumed(&self) {
        self.counters.system_sleeps.fetch_add(1, Ordering::Relaxed);
    }

    /// Stops the queue engine: waits (bounded) for the software queue to drain; halts and
    /// switches off CQHCI when no task is queued.
    fn suspend_queue(self: &Arc<Self>) -> Result {
        // The kernel's C engine in the Rust engine's place (test kernels).
        #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
        if let Some(c) = self.c_engine() {
            return self.suspend_c_engine(c);
        }
        let hardware = match self.state.lock().queue {
            Queue::OneAtATime => return Ok(()),
            Queue::Software(_) => false,
            Queue::Hardware(_) => true,
        };
        if !hardware {
            let drained = self.wait_for(
                i64::from(hsq::DISABLE_TIMEOUT_MS),
                |state| match &mut state.queue {
                    Queue::Software(sq) => {
                        (sq.engine.try_suspend() == hsq::Progress::Done).then_some(())
                    }
                    _ => Some(()),
                },
            );
            return drained.ok_or(EBUSY);
        }
        // Halting waits for the controller: sleeping, with the lock released.
        if command_queue::suspend(self) {
            Ok(())
        } else {
            Err(EBUSY)
        }
    }

    /// Lets the queue engine take requests again. CQHCI needs nothing: its next task
    /// programs and switches on the controller.
    fn resume_queue(&self) {
        #[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
        if let Some(c) = self.c_engine() {
            self.resume_c_engine(c);
            return;
        }
        let resumed = self.with_software_queue(|sq| {
            if sq.engine.is_suspended() {
                sq.engine.resume()
            } else {
                Ok(())
            }
        });
        if let Some(Err(e)) = resumed {
            dev_err!(self.dev, "software queue did not resume: {:?}\n", e);
        }
    }
}
