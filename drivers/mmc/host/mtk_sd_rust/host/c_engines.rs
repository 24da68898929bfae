// SPDX-License-Identifier: GPL-2.0

//! The kernel's C queue engines in a slot (test kernels, `mtk_sd_rust_sim.engine=c`): the
//! MSDC's hooks and register accesses the C `cqhci` calls, its interrupt, and both engines'
//! runtime suspend and resume.
//!
//! The C engine owns its queue. The slot serves it as a slot without a queue engine: the
//! C `mmc_hsq` dispatches each request through the host's `request` callback, whose
//! completion goes back through the C queue (`kernel_mmc`'s `Request` does that), and the
//! C `cqhci` runs its tasks on the CQHCI block with the same MSDC hooks
//! (`msdc::cqe::CqeHooks`) as the Rust engine.
//!
//! # Locks
//!
//! The C engines call into the slot from their own contexts: `mmc_hsq` calls `request`
//! from the completion of the previous request (the interrupt handler, or a failed issue),
//! `cqhci` the register accessors from `cqhci_irq` and with its own spinlock held, and the
//! hooks from the MMC core's calls. So the slot calls the C engines only with its request
//! lock released (completions, `cqhci_irq`, the power callbacks); the register accessors
//! take no lock (the register window is shared), and the hooks take the request lock only
//! for their own MSDC accesses, never while calling back into C.

use core::fmt;

use kernel::{prelude::*, sync::aref::ARef};

use super::{Msdc, MsdcSlot};
use crate::{
    backend::RegisterWindow,
    cqhci::{
        regs::{CqhciBlock, CQSSC1},
        CqhciHost, HostError,
    },
    kernel_mmc::{CEngine, CEngineKind, CqhciVendorOps, Host},
    msdc::{
        cqe::{CqeEvent, CqeHooks},
        regs::{MsdcBase, MSDC_INT, MSDC_INTEN},
    },
    registers::Io,
};

/// A slot's C engine and what its hooks need.
pub(crate) struct CEngineSlot {
    engine: CEngine,
    /// `CQSSC1` for the hooks: the send-status idle timer at this `hclk` (unused by
    /// `mmc_hsq`).
    idle_timer: CQSSC1,
    /// The queue mode debugfs shows.
    mode: CMode,
}

impl CEngineSlot {
    /// The slot's part of `engine` on `host`.
    pub(super) fn new(engine: CEngine, idle_timer: CQSSC1, host: ARef<Host>) -> Self {
        Self {
            engine,
            idle_timer,
            mode: CMode(host),
        }
    }

    /// The engine, for the registration.
    pub(crate) fn engine(&self) -> &CEngine {
        &self.engine
    }

    /// The queue mode as debugfs shows it (`cqe`, `hsq` or `legacy`).
    pub(crate) fn mode(&self) -> &CMode {
        &self.mode
    }
}

/// The queue mode of a slot with a C engine, as the MMC core set it up: `hsq` once it
/// enabled a software queue for the card, `cqe` once it enabled the command queue engine,
/// `legacy` otherwise (the driver's own engines keep a [`super::counters::ModeCell`]).
pub(crate) struct CMode(ARef<Host>);

impl fmt::Debug for CMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.hsq_enabled() {
            "hsq"
        } else if self.0.cqe_enabled() {
            "cqe"
        } else {
            "legacy"
        })
    }
}

/// The errno `cqhci_irq` takes for an error the MSDC saw (upstream's `msdc_cmdq_irq`).
fn errno(error: HostError) -> Error {
    match error {
        HostError::Crc => EILSEQ,
        HostError::Timeout => ETIMEDOUT,
        HostError::Other => EIO,
    }
}

impl Msdc {
    /// The slot's C engine, if it runs one.
    pub(crate) fn c_engine(&self) -> Option<&CEngineSlot> {
        self.c_engine.as_ref()
    }

    /// Whether the slot's CMDQ interrupt belongs to the C `cqhci`: the slot runs it and the
    /// core has it enabled (so never once the host is removed). Asked under the lock by the
    /// interrupt handler, which then takes the event out for [`Msdc::c_cqhci_irq`].
    pub(super) fn runs_c_cqhci(&self) -> bool {
        self.c_engine
            .as_ref()
            .is_some_and(|c| c.engine.kind() == CEngineKind::Cqhci)
            && self.host.cqe_enabled()
    }

    /// Hands a CMDQ interrupt to the C `cqhci`, with the request lock released.
    pub(super) fn c_cqhci_irq(&self, event: CqeEvent) {
        let Some(c) = &self.c_engine else {
            return;
        };
        if event.cmd_error.is_some() || event.data_error.is_some() {
            dev_err!(
                self.dev,
                "C engine: CQHCI interrupt with command error {:?}, data error {:?}\n",
                event.cmd_error,
                event.data_error
            );
        }
        c.engine.cqhci_irq(
            &self.host,
            event.cmd_error.map(errno),
            event.data_error.map(errno),
        );
    }

    /// Runtime suspend of the C engine (the queue part of [`Msdc::suspend`]).
    pub(super) fn suspend_c_engine(&self, c: &CEngineSlot) -> Result {
        c.engine.suspend(&self.host)
    }

    /// Runtime resume of the C engine (the queue part of [`Msdc::resume`]).
    pub(super) fn resume_c_engine(&self, c: &CEngineSlot) {
        if let Err(e) = c.engine.resume(&self.host) {
            dev_err!(
                self.dev,
                "the C {} engine did not resume: {:?}\n",
                c.engine.name(),
                e
            );
        }
    }

    /// Runs one MSDC hook for the C `cqhci` under the request lock, and brings the
    /// controller's state up to what it did.
    fn c_cqhci_hook(&self, hook: impl FnOnce(&CqeHooks<'_, RegisterWindow>, &RegisterWindow)) {
        let Some(c) = &self.c_engine else {
            return;
        };
        let mut state = self.state.lock();
        let hooks = state.controller.cqe_hooks(&self.regs, c.idle_timer);
        hook(&hooks, &self.regs);
        let aftermath = hooks.finish();
        if let Some(fault) = aftermath.fault {
            dev_err!(
                self.dev,
                "C engine: CQHCI hook: controller fault {:?}\n",
                fault
            );
        }
        state.controller.absorb_cqe(aftermath);
    }
}

impl CqhciVendorOps for MsdcSlot {
    fn cqhci_read(&self, offset: usize) -> u32 {
        Io::<CqhciBlock>::read32(&self.msdc.regs, offset)
    }

    fn cqhci_write(&self, offset: usize, value: u32) {
        Io::<CqhciBlock>::write32(&self.msdc.regs, offset, value);
    }

    fn cqhci_enable(&self) {
        self.msdc.c_cqhci_hook(|hooks, regs| hooks.enable(regs));
    }

    fn cqhci_disable(&self, recovery: bool) {
        self.msdc
            .c_cqhci_hook(|hooks, regs| hooks.disable(regs, recovery));
    }

    fn cqhci_pre_enable(&self) {
        self.msdc.c_cqhci_hook(|hooks, regs| hooks.pre_enable(regs));
    }

    fn cqhci_post_disable(&self) {
        self.msdc
            .c_cqhci_hook(|hooks, regs| hooks.post_disable(regs));
    }

    fn cqhci_dump(&self) {
        let regs = &self.msdc.regs;
        dev_err!(
            self.msdc.dev,
            "C engine: MSDC_INT {:#010x} MSDC_INTEN {:#010x}\n",
            Io::<MsdcBase>::read::<MSDC_INT>(regs).raw(),
            Io::<MsdcBase>::read::<MSDC_INTEN>(regs).raw()
        );
    }
}
