// SPDX-License-Identifier: GPL-2.0

//! Rust driver for the MediaTek MSDC eMMC/SD/SDIO host controller.
//!
//! The controller-independent engines are shared source: the CQHCI command
//! queue engine (`cqhci/`) and the host software queue (`hsq/`) compile into
//! this crate as modules, exactly as they compile on the host for `cargo test`.

use kernel::prelude::*;

mod backend;
mod dt;
mod host;
pub mod mmc;
mod platform_driver;
#[cfg(CONFIG_MMC_MTK_RUST_SIM)]
mod simhw;
pub mod soc;

/// The eMMC 5.1 command queue engine (CQHCI), shared with other host drivers.
#[path = "../cqhci/src"]
pub mod cqhci {
    pub mod completion;
    pub mod desc;
    pub mod engine;
    pub mod host;
    pub mod regs;
}

/// The host software queue, for hosts without a command queue engine.
#[path = "../hsq/src"]
pub mod hsq {
    pub mod actions;
    pub mod depth;
    pub mod error;
    mod fifo;
    pub mod queue;
    pub mod scenarios;
    pub mod tag;
}

/// Hardware models (CQHCI block, MSDC controller, eMMC and SD cards) that the KUnit
/// suites drive the engines against. Test-only: a production configuration contains no simulation code.
#[cfg(any(CONFIG_MMC_MTK_RUST_KUNIT_TEST, CONFIG_MMC_MTK_RUST_SIM))]
#[path = "../sim/src"]
pub mod sim {
    pub mod cqhci;
    pub mod emmc;
    pub mod latency;
    pub mod memory;
    pub mod msdc;
    pub mod sd;
}

/// The MSDC's hardware-independent logic: registers, commands, clocks, DMA descriptors.
#[path = "msdc/src"]
pub mod msdc {
    pub mod arith;
    pub mod clock;
    pub mod command;
    pub mod controller;
    pub mod dma;
    pub mod errors;
    pub mod regs;
    pub mod timeout;
}

#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../kunit/cqhci.rs"]
mod cqhci_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../kunit/hsq.rs"]
mod hsq_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../kunit/mmc.rs"]
mod mmc_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../kunit/soc.rs"]
mod soc_kunit;

/// The module: the platform driver and, in test kernels, the simulated board it drives.
#[pin_data]
struct MtkSdRustModule {
    #[pin]
    _driver: kernel::driver::Registration<kernel::platform::Adapter<platform_driver::MsdcDriver>>,
}

impl kernel::InPlaceModule for MtkSdRustModule {
    fn init(module: &'static kernel::ThisModule) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            _driver <- kernel::driver::Registration::new(c"mtk_sd_rust", module),
            // The board's devices appear once the driver can bind them.
            _: {
                #[cfg(CONFIG_MMC_MTK_RUST_SIM)]
                simhw::install()?;
            },
        }? Error)
    }
}

module! {
    type: MtkSdRustModule,
    name: "mtk_sd_rust",
    authors: ["The mtk-sd-rust authors"],
    description: "MediaTek MSDC eMMC/SD/SDIO host controller driver (Rust)",
    license: "GPL",
}
