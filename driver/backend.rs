// SPDX-License-Identifier: GPL-2.0

//! Where the driver's register accesses go: the controller's MMIO window or, in test
//! kernels only, a simulated controller. The request engine sees neither: it talks to
//! the [`Registers`] trait.

use kernel::{
    io::{mem::DevresIoMem, Io},
    time::{delay::udelay, Delta},
};

use crate::msdc::controller::Registers;

/// Bytes of the MSDC register window the driver maps (the base registers; the CQHCI
/// block sits at 0x800 inside the same window).
pub(crate) const REGISTER_WINDOW_SIZE: usize = 0x1000;

/// The controller's registers.
pub(crate) enum RegisterWindow {
    /// Memory-mapped registers; access ends when the device is unbound.
    Mmio(DevresIoMem<REGISTER_WINDOW_SIZE>),
    /// A simulated controller (test kernels).
    #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
    Simulated(kernel::sync::Arc<crate::simhw::SimulatedMsdc>),
}

impl Registers for RegisterWindow {
    fn read(&self, offset: usize) -> u32 {
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

    fn write(&self, offset: usize, value: u32) {
        match self {
            Self::Mmio(io) => {
                if let Some(io) = io.try_access() {
                    // Offsets come from the register map, inside the window by construction.
                    let _ = (&*io).try_write32(value, offset);
                }
            }
            #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
            Self::Simulated(sim) => sim.write(offset, value),
        }
    }

    fn delay_us(&self, us: u32) {
        udelay(Delta::from_micros(i64::from(us)));
    }
}
