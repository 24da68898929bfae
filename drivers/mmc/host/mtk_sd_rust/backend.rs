// SPDX-License-Identifier: GPL-2.0

//! Where the driver's register accesses go: the controller's MMIO window or, in test
//! kernels only, a simulated controller. The engines see neither: they take an
//! [`Io`] of the window their registers live in, which this module implements once for
//! both backends.

use core::sync::atomic::{AtomicU32, Ordering};

use kernel::{
    io::{mem::DevresIoMem, poll::read_poll_timeout_atomic, Io as _},
    time::Delta,
};

use crate::{
    cqhci::regs::CqhciBlock,
    msdc::regs::{MsdcBase, MsdcTop, CQHCI_BLOCK_OFFSET},
    registers::{Io, PollLimit, Window},
};

/// Bytes of the MSDC register window the driver maps (the base registers; the CQHCI
/// block sits at [`CQHCI_BLOCK_OFFSET`] inside the same window).
pub(crate) const REGISTER_WINDOW_SIZE: usize = 0x1000;

/// Bytes of the "top" window (`reg` index 1) the driver maps on SoCs that have one: the
/// pad-control registers it uses end at `LOOP_TEST_CONTROL` (0x30).
pub(crate) const TOP_WINDOW_SIZE: usize = 0x100;

/// Where a simulated controller serves its top window: after the base window, where the
/// simulated board places it.
#[cfg(CONFIG_MMC_MTK_RUST_SIM)]
const SIMULATED_TOP_START: usize = 0x1000;

/// The controller's registers, and how many reads its polls made so far.
pub(crate) struct RegisterWindow {
    access: Access,
    /// Register reads made by polls of self-clearing bits, wrapping: the interrupt
    /// handler's figures compare two readings to tell a real wait from a slow guest.
    poll_reads: AtomicU32,
}

/// Where the registers are.
pub(crate) enum Access {
    /// Memory-mapped registers (`reg[0]`, and `reg[1]` on SoCs with a top window); access
    /// ends when the device is unbound.
    Mmio {
        base: DevresIoMem<REGISTER_WINDOW_SIZE>,
        top: Option<DevresIoMem<TOP_WINDOW_SIZE>>,
    },
    /// A simulated controller (test kernels), which serves both windows.
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    Simulated(crate::kernel_mmc::simboard::SimulatedWindow),
}

/// Where a window starts inside the mapping of `reg` index 0.
trait InBaseMapping: Window {
    const START: usize;
}

impl InBaseMapping for MsdcBase {
    const START: usize = 0;
}

impl InBaseMapping for CqhciBlock {
    const START: usize = CQHCI_BLOCK_OFFSET;
}

impl RegisterWindow {
    /// Registers reached through `access`.
    pub(crate) fn new(access: Access) -> Self {
        Self {
            access,
            poll_reads: AtomicU32::new(0),
        }
    }

    /// The register reads polls made so far, wrapping.
    pub(crate) fn poll_reads(&self) -> u32 {
        self.poll_reads.load(Ordering::Relaxed)
    }

    fn read_mapped<const SIZE: usize>(io: &DevresIoMem<SIZE>, offset: usize) -> u32 {
        // An unbound device reads as all ones, like a bus with nothing behind it.
        io.try_access()
            .and_then(|io| (&*io).try_read32(offset).ok())
            .unwrap_or(u32::MAX)
    }

    fn write_mapped<const SIZE: usize>(io: &DevresIoMem<SIZE>, offset: usize, value: u32) {
        // An unbound device takes no writes; the offsets come from the register
        // definitions and lie inside the window, so the access itself cannot fail.
        if let Some(io) = io.try_access() {
            if (&*io).try_write32(value, offset).is_err() {
                kernel::pr_warn_once!("mtk_sd_rust: register write outside the window\n");
            }
        }
    }

    fn read_at(&self, offset: usize) -> u32 {
        match &self.access {
            Access::Mmio { base, .. } => Self::read_mapped(base, offset),
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Access::Simulated(sim) => sim.read(offset),
        }
    }

    fn write_at(&self, offset: usize, value: u32) {
        match &self.access {
            Access::Mmio { base, .. } => Self::write_mapped(base, offset, value),
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Access::Simulated(sim) => sim.write(offset, value),
        }
    }

    /// A top-window access on a controller without one is a driver bug (the engine
    /// reaches the window only on SoCs whose probe required it): reported once, and the
    /// access goes nowhere.
    fn no_top_window() {
        kernel::pr_err_once!("mtk_sd_rust: access to a top register window that is not mapped\n");
    }
}

impl RegisterWindow {
    /// Reads with `read` until `done` holds, within `limit` (atomic context allowed).
    fn poll_with(
        &self,
        read: impl Fn() -> u32,
        mut done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        let mut last = 0;
        read_poll_timeout_atomic(
            || {
                self.poll_reads.fetch_add(1, Ordering::Relaxed);
                last = read();
                Ok(last)
            },
            |value| done(*value),
            Delta::from_micros(i64::from(limit.interval_us)),
            usize::try_from(limit.attempts.max(1)).unwrap_or(usize::MAX),
        )
        .map_err(|_| last)
    }
}

impl<W: InBaseMapping> Io<W> for RegisterWindow {
    fn read32(&self, offset: usize) -> u32 {
        self.read_at(W::START + offset)
    }

    fn write32(&self, offset: usize, value: u32) {
        self.write_at(W::START + offset, value);
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        self.poll_with(|| self.read_at(W::START + offset), done, limit)
    }
}

/// The top window: its own mapping, or the simulated controller's register space after the
/// base window.
impl Io<MsdcTop> for RegisterWindow {
    fn read32(&self, offset: usize) -> u32 {
        match &self.access {
            Access::Mmio { top: Some(top), .. } => Self::read_mapped(top, offset),
            Access::Mmio { top: None, .. } => {
                Self::no_top_window();
                0
            }
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Access::Simulated(sim) => sim.read(SIMULATED_TOP_START + offset),
        }
    }

    fn write32(&self, offset: usize, value: u32) {
        match &self.access {
            Access::Mmio { top: Some(top), .. } => Self::write_mapped(top, offset, value),
            Access::Mmio { top: None, .. } => Self::no_top_window(),
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Access::Simulated(sim) => sim.write(SIMULATED_TOP_START + offset, value),
        }
    }

    fn poll32(
        &self,
        offset: usize,
        done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        self.poll_with(|| Io::<MsdcTop>::read32(self, offset), done, limit)
    }
}
