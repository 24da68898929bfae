// SPDX-License-Identifier: GPL-2.0
//! Model of a JESD84-B51 command queue host controller (CQHCI) block.

pub mod controller;
pub mod desc;
pub mod regs;

pub use controller::{
    CqhciModel, Fault, HostErrorKind, HostErrors, ModelConfig, Violation,
    COALESCING_CLOCKS_PER_UNIT,
};
