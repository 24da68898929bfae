// SPDX-License-Identifier: GPL-2.0

//! Where the driver's register accesses go: the controller's MMIO window or, in test
//! kernels only, a simulated controller. The engines see neither: they take an
//! [`Io`] of the window their registers live in, which this module implements once for
//! both backends.

use kernel::{
    io::{mem::DevresIoMem, poll::read_poll_timeout_atomic, Io as _},
    time::Delta,
};

use crate::{
    cqhci::regs::CqhciBlock,
    msdc::regs::{MsdcBase, CQHCI_BLOCK_OFFSET},
    registers::{Io, PollLimit, Window},
};

/// Bytes of the MSDC register window the driver maps (the base registers; the CQHCI
/// block sits at [`CQHCI_BLOCK_OFFSET`] inside the same window).
pub(crate) const REGISTER_WINDOW_SIZE: usize = 0x1000;

/// The controller's registers.
pub(crate) enum RegisterWindow {
    /// Memory-mapped registers; access ends when the device is unbound.
    Mmio(DevresIoMem<REGISTER_WINDOW_SIZE>),
    /// A simulated controller (test kernels).
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    Simulated(crate::simhw::Claim),
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
    fn read_at(&self, offset: usize) -> u32 {
        match self {
            // An unbound device reads as all ones, like a bus with nothing behind it.
            Self::Mmio(io) => io
                .try_access()
                .and_then(|io| (&*io).try_read32(offset).ok())
                .unwrap_or(u32::MAX),
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Self::Simulated(sim) => sim.read(offset),
        }
    }

    fn write_at(&self, offset: usize, value: u32) {
        match self {
            Self::Mmio(io) => {
                // An unbound device takes no writes; the offsets come from the register
                // definitions and lie inside the window, so the access itself cannot fail.
                if let Some(io) = io.try_access() {
                    if (&*io).try_write32(value, offset).is_err() {
                        kernel::pr_warn_once!("mtk_sd_rust: register write outside the window\n");
                    }
                }
            }
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Self::Simulated(sim) => sim.write(offset, value),
        }
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
        mut done: impl FnMut(u32) -> bool,
        limit: PollLimit,
    ) -> Result<u32, u32> {
        let mut last = 0;
        read_poll_timeout_atomic(
            || {
                last = self.read_at(W::START + offset);
                Ok(last)
            },
            |value| done(*value),
            Delta::from_micros(i64::from(limit.interval_us)),
            usize::try_from(limit.attempts.max(1)).unwrap_or(usize::MAX),
        )
        .map_err(|_| last)
    }
}
