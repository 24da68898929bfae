// SPDX-License-Identifier: GPL-2.0
//! Hardware models for testing the MediaTek MSDC driver's engines without hardware: a CQHCI
//! block, an MSDC controller, an eMMC card, an SD card, an SDIO card, bus-addressed memory and
//! a latency model, all `no_std` and allocation-free.
//!
//! The models are written from the JESD84-B51 specification and share no code with the
//! engines they test, so an engine's encoding bug shows up as a model violation rather than
//! being mirrored. The same modules compile into the kernel driver (as `crate::models`) for KUnit.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

// The register layer is a crate of its own on the host and the kernel crate's `registers`
// module in the kernel: `crate::registers` names it in both, and `register!` is in scope.
#[cfg(not(CONFIG_RUST))]
#[macro_use]
extern crate registers;

/// The register windows the models serve, named by the driver crates that access them
/// (`::cqhci` and `::msdc` on the host, the kernel crate's modules in the kernel). The
/// models keep their own register definitions; only the window types are shared.
#[cfg(not(CONFIG_RUST))]
pub mod windows {
    pub use ::cqhci::regs::CqhciBlock;
    pub use ::msdc::regs::{MsdcBase, MsdcTop};
}
/// The register windows the models serve (see the host build's documentation).
#[cfg(CONFIG_RUST)]
pub mod windows {
    pub use crate::cqhci::regs::CqhciBlock;
    pub use crate::msdc::regs::{MsdcBase, MsdcTop};
}

pub mod bus;
pub mod cards;
pub mod cqhci;
pub mod emmc;
pub mod idle;
pub mod latency;
pub mod memory;
pub mod msdc;
pub mod report;
pub mod sd;
pub mod sdio;

pub use memory::{BusFault, BusMemory, Ram};
