// SPDX-License-Identifier: GPL-2.0
//! MediaTek MSDC host controller model: the base register file, command engine and the
//! GPD/BD descriptor DMA, driving an attached eMMC or SD card model.
//!
//! Register offsets and bits are the model's own (from the MSDC register map, not from the
//! driver's crate), so a driver encoding bug shows up as a wrong result or a violation.

pub mod controller;
pub mod regs;
pub mod slot;

pub use controller::{Fault, ModelConfig, MsdcModel, Violation, MAX_VIOLATIONS};
pub use slot::CardSlot;
