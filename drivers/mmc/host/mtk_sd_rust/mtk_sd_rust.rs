// SPDX-License-Identifier: GPL-2.0

//! Rust driver for the MediaTek MSDC eMMC/SD/SDIO host controller.
//!
//! The controller-independent engines are shared source: the CQHCI command
//! queue engine (`cqhci/`) and the host software queue (`hsq/`) compile into
//! this crate as modules, exactly as they compile on their own as `no_std`
//! crates for host tests.

use kernel::prelude::*;

// The `no_std` crates, each included through its own `lib.rs`, the file their standalone
// build starts from, so that they compile the same here. `registers` comes first:
// its `register!` macro is in scope for every module declared after it, the driver's
// own included.

/// Typed registers and descriptor words, and the register access trait.
#[macro_use]
#[path = "../../../../registers/src/lib.rs"]
pub mod registers;

/// An MMC request as the engines see it: commands, data, segments and results.
#[path = "../../../../mmc_request/src/lib.rs"]
pub mod mmc_request;

/// The eMMC 5.1 command queue engine (CQHCI), shared with other host drivers.
#[path = "../../../../cqhci/src/lib.rs"]
pub mod cqhci;

/// The host software queue, for hosts without a command queue engine.
#[path = "../../../../hsq/src/lib.rs"]
pub mod hsq;

/// The MSDC's hardware-independent logic: registers, commands, clocks, DMA descriptors and
/// the legacy request engine.
#[path = "../../../../msdc/src/lib.rs"]
pub mod msdc;

/// The slot logic: what the glue decides under its lock (requests on the controller, the
/// host software queue), over a trait for the kernel's services.
#[path = "../../../../slot/src/lib.rs"]
pub mod slot;

/// Hardware models (CQHCI block, MSDC controller, eMMC and SD cards) that the KUnit suites
/// drive the driver against. Test-only: a production configuration contains no simulation
/// code. (The simulated board, `mtk_sd_rust_sim.rs`, is a kernel object of its own with its
/// own copy of the models.)
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../models/src/lib.rs"]
pub mod models;

// The driver itself.
mod backend;
mod debugfs;
mod dt;
mod host;
#[path = "../../../../rust/kernel/mmc/mod.rs"]
pub mod kernel_mmc;
mod platform_driver;

#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[macro_use]
#[path = "../../../../kunit/scenario_suite.rs"]
mod scenario_suite;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../kunit/cqe.rs"]
mod cqe_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../kunit/cqhci.rs"]
mod cqhci_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../kunit/hsq.rs"]
mod hsq_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../kunit/mmc.rs"]
mod mmc_kunit;
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../../../../kunit/soc.rs"]
mod soc_kunit;

/// The module: the platform driver and the debugfs directory its hosts share. The fields
/// drop in this order when the module is unloaded: the driver's devices are unbound
/// first, then the directory goes.
#[pin_data]
struct MtkSdRustModule {
    #[pin]
    _driver:
        kernel::driver::Registration<kernel_mmc::pm::PlatformDriver<platform_driver::MsdcDriver>>,
    _debugfs: kernel_mmc::ModuleDir,
}

impl kernel::InPlaceModule for MtkSdRustModule {
    fn init(module: &'static kernel::ThisModule) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            _debugfs: debugfs::create_root()?,
            _driver <- kernel::driver::Registration::new(c"mtk_sd_rust", module),
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
