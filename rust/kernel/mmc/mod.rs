// SPDX-License-Identifier: GPL-2.0

//! The driver's MMC abstraction layer: the only place with raw FFI to the MMC core (and,
//! in test kernels with simulated controllers, to the simulated board).
//!
//! Linux 7.3's kernel crate has no MMC abstractions, so the build generates
//! bindings for the MMC headers (`kernel_mmc/bindings_helper.h`) and this module wraps
//! them once. Everything above this module is safe Rust.

/// A callback table entry: the callback when the implementation provides it (`#[vtable]`'s
/// `HAS_*` constant), otherwise absent, so the MMC core falls back to its default.
macro_rules! optional_op {
    ($provided:expr, $callback:expr) => {
        if $provided {
            Some($callback)
        } else {
            None
        }
    };
}

mod bindings;
#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
mod c_engines;
mod cqe;
mod dma;
mod host;
mod ios;
mod module_dir;
mod ops;
mod pins;
pub mod pm;
mod request;
mod reset;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
pub mod selftest;
#[cfg(CONFIG_MMC_MTK_RUST_SIM)]
pub mod simboard;

#[cfg(CONFIG_MMC_MTK_RUST_C_ENGINES)]
pub use c_engines::{CEngine, CEngineKind, CqhciVendorOps};
pub use cqe::{CqeOps, QueueCard, QueuedRequest, Refused, RequestId};
pub use dma::{set_dma_mask, DescriptorMemory};
pub use host::{Host, HostAllocation, HostSettings, Registration, TransferLimits};
pub use ios::{Ios, PowerMode};
pub use module_dir::ModuleDir;
pub use ops::{HostOps, TuningBus, TuningCard, TuningExchange};
pub use pins::{PinState, Pins};
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
pub(crate) use request::wait_for_dropped_requests;
pub use request::{PreparedData, Request};
pub use reset::pulse_optional_reset;

/// The kernel's default work queue (`system_dfl_wq`) for a host's own work items; the
/// kernel crate of 7.3 only offers `system_wq`, which the kernel now warns about.
pub fn default_workqueue() -> &'static kernel::workqueue::Queue {
    // SAFETY: `system_dfl_wq` is allocated during early boot, before any initcall runs,
    // and never destroyed; reading the pointer copies it.
    unsafe { kernel::workqueue::Queue::from_raw(kernel::bindings::system_dfl_wq) }
}

/// Waits until `item`'s work item `ID` has finished if it is queued or running
/// (`flush_work`), and tells whether it was.
///
/// A flush, not a cancel: the work's own run takes back the pointer that enqueueing
/// handed over, so nothing leaks. Must not be called from that work item itself.
pub fn flush_work<T, const ID: u64>(item: &T) -> bool
where
    T: kernel::workqueue::HasWork<T, ID>,
{
    // SAFETY: `item` is a live `T`, so the pointer is valid for `raw_get_work`.
    let work = unsafe { T::raw_get_work(core::ptr::from_ref(item).cast_mut()) };
    // SAFETY: `work` points at the initialised `Work` inside the live `item`; flushing it
    // only waits for its queued or running instance.
    unsafe { kernel::bindings::flush_work(kernel::workqueue::Work::<T, ID>::raw_get(work)) }
}

/// Power management capabilities (`MMC_PM_*`), as in [`Host::pm_caps`].
pub mod pm_caps {
    use super::bindings as b;
    /// The card keeps its power through a system suspend (`keep-power-in-suspend`).
    pub const KEEP_POWER: u32 = b::MMC_PM_KEEP_POWER;
    /// The SDIO card's interrupt wakes the system (`wakeup-source`).
    pub const WAKE_SDIO_IRQ: u32 = b::MMC_PM_WAKE_SDIO_IRQ;
}

/// Card voltage window bits of `ocr_avail` (`MMC_VDD_*`).
pub mod vdd {
    /// 3.2 V to 3.3 V.
    pub const VDD_32_33: u32 = super::bindings::MMC_VDD_32_33;
    /// 3.3 V to 3.4 V.
    pub const VDD_33_34: u32 = super::bindings::MMC_VDD_33_34;
}

/// Host capability bits (`MMC_CAP_*`, `MMC_CAP2_*`).
pub mod caps {
    use super::bindings as b;

    /// 4-bit data bus.
    pub const BUS_4_BIT: u32 = b::MMC_CAP_4_BIT_DATA;
    /// 8-bit data bus.
    pub const BUS_8_BIT: u32 = b::MMC_CAP_8_BIT_DATA;
    /// eMMC high speed (52 MHz).
    pub const MMC_HIGHSPEED: u32 = b::MMC_CAP_MMC_HIGHSPEED;
    /// SD high speed (50 MHz).
    pub const SD_HIGHSPEED: u32 = b::MMC_CAP_SD_HIGHSPEED;
    /// SET_BLOCK_COUNT (CMD23) before multi-block transfers.
    pub const CMD23: u32 = b::MMC_CAP_CMD23;
    /// The card cannot be removed.
    pub const NONREMOVABLE: u32 = b::MMC_CAP_NONREMOVABLE;
    /// No card-detect signal: the core polls.
    pub const NEEDS_POLL: u32 = b::MMC_CAP_NEEDS_POLL;
    /// SDIO card interrupts.
    pub const SDIO_IRQ: u32 = b::MMC_CAP_SDIO_IRQ;
    /// eMMC hardware reset (RST_n).
    pub const HW_RESET: u32 = b::MMC_CAP_HW_RESET;
    /// Every UHS-I mode.
    pub const UHS: u32 = b::MMC_CAP_UHS;
    /// UHS-I SDR50.
    pub const UHS_SDR50: u32 = b::MMC_CAP_UHS_SDR50;
    /// UHS-I SDR104.
    pub const UHS_SDR104: u32 = b::MMC_CAP_UHS_SDR104;
    /// UHS-I DDR50.
    pub const UHS_DDR50: u32 = b::MMC_CAP_UHS_DDR50;
    /// eMMC DDR52 at 1.8 V.
    pub const DDR_1_8V: u32 = b::MMC_CAP_1_8V_DDR;
    /// Second word: no SDIO cards on this slot.
    pub const NO_SDIO: u32 = b::MMC_CAP2_NO_SDIO;
    /// Second word: the host has an eMMC command queue engine (DT `supports-cqe`).
    pub const CQE: u32 = b::MMC_CAP2_CQE;
    /// Second word: the command queue engine issues direct commands (cache flush).
    pub const CQE_DCMD: u32 = b::MMC_CAP2_CQE_DCMD;
    /// Second word: eMMC HS200.
    pub const HS200: u32 = b::MMC_CAP2_HS200;
    /// Second word: eMMC HS400.
    pub const HS400: u32 = b::MMC_CAP2_HS400;
    /// Second word: the SDIO interrupt is signalled without the core's kthread.
    pub const SDIO_IRQ_NOTHREAD: u32 = b::MMC_CAP2_SDIO_IRQ_NOTHREAD;
    /// Second word: the card-detect line is high with a card in the slot (`cd-inverted`).
    pub const CD_ACTIVE_HIGH: u32 = b::MMC_CAP2_CD_ACTIVE_HIGH;
    /// Second word: the slot never holds an eMMC (`no-mmc`).
    pub const NO_MMC: u32 = b::MMC_CAP2_NO_MMC;
    /// Second word: eMMC HS400 enhanced strobe.
    pub const HS400_ES: u32 = b::MMC_CAP2_HS400_ES;
}

// The MMC core's constants that the no_std crates carry as numbers (`mmc_request`'s
// flags, timings and opcodes) must be the kernel's: checked here, against the headers,
// when the driver is built.
macro_rules! same_as_headers {
    ($($module:ident :: $name:ident),* $(,)?) => {
        $(const _: () = assert!(
            crate::mmc_request::$module::$name == bindings::$name,
            concat!("mmc_request::", stringify!($module), "::", stringify!($name),
                " differs from the kernel's")
        );)*
    };
}

same_as_headers!(
    flags::MMC_RSP_PRESENT,
    flags::MMC_RSP_136,
    flags::MMC_RSP_CRC,
    flags::MMC_RSP_BUSY,
    flags::MMC_RSP_OPCODE,
    flags::MMC_RSP_NONE,
    flags::MMC_RSP_R1,
    flags::MMC_RSP_R1B,
    flags::MMC_RSP_R1B_NO_CRC,
    flags::MMC_RSP_R2,
    flags::MMC_RSP_R3,
    flags::MMC_CMD_AC,
    flags::MMC_CMD_ADTC,
    flags::MMC_CMD_BC,
    flags::MMC_CMD_BCR,
    timing::MMC_TIMING_LEGACY,
    timing::MMC_TIMING_MMC_HS,
    timing::MMC_TIMING_SD_HS,
    timing::MMC_TIMING_UHS_SDR12,
    timing::MMC_TIMING_UHS_SDR25,
    timing::MMC_TIMING_UHS_SDR50,
    timing::MMC_TIMING_UHS_SDR104,
    timing::MMC_TIMING_UHS_DDR50,
    timing::MMC_TIMING_MMC_DDR52,
    timing::MMC_TIMING_MMC_HS200,
    timing::MMC_TIMING_MMC_HS400,
    opcode::SD_SWITCH_VOLTAGE,
    opcode::MMC_STOP_TRANSMISSION,
    opcode::MMC_READ_MULTIPLE_BLOCK,
    opcode::MMC_SET_BLOCK_COUNT,
    opcode::MMC_WRITE_MULTIPLE_BLOCK,
    opcode::MMC_GO_IRQ_STATE,
);

/// Signal voltages (`MMC_SIGNAL_VOLTAGE_*`), as in [`Ios::signal_voltage`].
pub mod signal_voltage {
    use super::bindings as b;

    /// 3.3 V.
    pub const V330: u8 = b::MMC_SIGNAL_VOLTAGE_330 as u8;
    /// 1.8 V.
    pub const V180: u8 = b::MMC_SIGNAL_VOLTAGE_180 as u8;
    /// 1.2 V.
    pub const V120: u8 = b::MMC_SIGNAL_VOLTAGE_120 as u8;
}
