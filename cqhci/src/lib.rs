// SPDX-License-Identifier: GPL-2.0
//! eMMC command queue host controller (CQHCI, JESD84-B51) engine: a `no_std`, allocation-free,
//! sans-I/O state machine that implements the MMC core's `cqe_ops` contract.
//!
//! The same modules compile into the Linux kernel driver (as `crate::cqhci`) and into this
//! host crate, so everything but module declarations lives outside this file.
//!
//! Inline crypto is not supported: the crypto word of 128-bit task descriptors is always zero
//! and CQCFG's crypto enable stays clear.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

// The register layer is a crate of its own on the host and the kernel crate's `registers`
// module in the kernel: `crate::registers` names it in both, and `register!` is in scope.
#[cfg(not(CONFIG_RUST))]
#[macro_use]
extern crate registers;

pub mod completion;
pub mod desc;
pub mod engine;
pub mod host;
pub mod regs;
// Test code: the engine-against-model scenarios, which need `models`. The kernel has `models` in
// KUnit builds only; on the host `models` depends on this crate, so `tests/scenarios.rs`
// compiles the module instead (see the module's documentation).
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
pub mod scenarios;

pub use completion::{
    Completion, CompletionStatus, Completions, HostError, IdleState, IrqOutcome, TaskError,
    TimeoutVerdict,
};
pub use desc::{
    Act, DataTask, DcmdResponse, DirectCommand, Direction, DmaWidth, Layout, LinkDescriptor,
    TaskDescriptorSize, TaskFlags, TransferDescriptor,
};
pub use engine::{
    CardInfo, Coalescing, Config, Cqhci, DescriptorMemory, Error, Finished, Step, Ticket, Wait,
    WaitCondition, Warnings,
};
pub use host::{CqhciHost, Segment, TransferList};
pub use regs::{CqhciBlock, Interrupts, RegisterDump, Tag, TaskMask};
