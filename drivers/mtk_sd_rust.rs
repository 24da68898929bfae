// SPDX-License-Identifier: GPL-2.0

//! Rust driver for the MediaTek MSDC eMMC/SD/SDIO host controller.
//!
//! The controller-independent engines are shared source: the CQHCI command
//! queue engine (`cqhci/`) and the host software queue (`hsq/`) compile into
//! this crate as modules, exactly as they compile on the host for `cargo test`.

mod platform_driver;
mod soc;

#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
#[path = "../kunit/soc.rs"]
mod soc_kunit;

kernel::module_platform_driver! {
    type: platform_driver::MsdcDriver,
    name: "mtk_sd_rust",
    authors: ["The mtk-sd-rust authors"],
    description: "MediaTek MSDC eMMC/SD/SDIO host controller driver (Rust)",
    license: "GPL",
}
