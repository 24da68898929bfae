// SPDX-License-Identifier: GPL-2.0
//! Hardware models for testing the MediaTek MSDC driver's engines without hardware: a CQHCI
//! block, an MSDC controller, an eMMC card, an SD card, bus-addressed memory and a latency
//! model, all `no_std` and allocation-free.
//!
//! The models are written from the JESD84-B51 specification and share no code with the
//! engines they test, so an engine's encoding bug shows up as a model violation rather than
//! being mirrored. The same modules compile into the kernel driver (as `crate::sim`) for KUnit.

#![no_std]

pub mod cqhci;
pub mod emmc;
pub mod latency;
pub mod memory;
pub mod msdc;
pub mod sd;

pub use memory::{BusFault, BusMemory, Ram};
