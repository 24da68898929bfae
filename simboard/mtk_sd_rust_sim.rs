// SPDX-License-Identifier: GPL-2.0

//! The simulated MSDC board of test kernels (`CONFIG_MMC_MTK_RUST_SIM`): controllers and
//! cards modelled at register level (`models/`), described by a device tree overlay, with
//! their clocks, power domains and interrupt lines served through the kernel's providers.
//!
//! It is a kernel object of its own, always built in, as hardware would be: the driver
//! (`mtk_sd_rust`, built in or a module) binds to its devices and reaches the models'
//! registers through the functions of `board::exports`, so that the module build can be
//! unloaded and loaded again while the board and its cards' data stay.

use kernel::prelude::*;

// The models and the register layer they share with the driver, included as the driver
// crate includes them (`docs/build.md`, "How the crates reach the kernel"): this crate has its
// own copy. `registers` comes first, for its `register!` macro.

/// Typed registers and descriptor words, and the register access trait.
#[macro_use]
#[path = "../registers/src/lib.rs"]
pub mod registers;

/// Request types, which the CQHCI and MSDC crates' window types come with.
#[path = "../mmc_request/src/lib.rs"]
pub mod mmc_request;

/// The CQHCI crate, for the register window type the CQHCI model serves.
#[path = "../cqhci/src/lib.rs"]
pub mod cqhci;

/// The MSDC crate, for the register window types the controller model serves.
#[path = "../msdc/src/lib.rs"]
pub mod msdc;

/// The hardware models: CQHCI block, MSDC controller, eMMC, SD and SDIO cards.
#[path = "../models/src/lib.rs"]
pub mod models;

mod board;

/// The board: installed once, when the kernel starts, and never taken down.
struct SimulatedBoard;

impl kernel::Module for SimulatedBoard {
    fn init(_module: &'static kernel::ThisModule) -> Result<Self> {
        // The out-of-tree build compiles the board as a module too, for clippy; loaded,
        // it would go away with its devices still bound. Test kernels build it in.
        if cfg!(MODULE) {
            pr_err!("the simulated board is built into test kernels, not loaded\n");
            return Err(ENODEV);
        }
        board::install().inspect_err(|e| pr_err!("simulated board not installed: {:?}\n", e))?;
        Ok(SimulatedBoard)
    }
}

module! {
    type: SimulatedBoard,
    name: "mtk_sd_rust_sim",
    authors: ["The mtk-sd-rust authors"],
    description: "Simulated MediaTek MSDC controllers with eMMC, SD and SDIO cards (test only)",
    license: "GPL",
}
