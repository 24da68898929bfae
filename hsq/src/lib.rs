// SPDX-License-Identifier: GPL-2.0

//! Host software queue (HSQ) for MMC hosts that run one request at a time.
//!
//! The queue lets the block layer keep several requests outstanding on a host without a
//! hardware command queue: it holds up to 64 tagged requests, hands them to the host one at
//! a time in arrival order, and dispatches the next one from the completion of the previous
//! one. It plays the part of the command queue engine behind `mmc_cqe_ops`.
//!
//! The engine is a `no_std`, allocation-free state machine that takes events and returns
//! actions (see [`queue`]); the kernel glue owns the lock, the waits and the calls into the
//! host. The same source files are compiled into the kernel driver as submodules.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

pub mod actions;
pub mod depth;
pub mod error;
mod fifo;
pub mod queue;
// Test code, never in a production driver: the scenarios that KUnit runs. On the host
// `tests/scenarios.rs` compiles the same module (see the module's documentation).
#[cfg(CONFIG_MMC_MTK_RUST_KUNIT_TEST)]
pub mod scenarios;
pub mod tag;

pub use actions::{Actions, Dispatch, Finished, IdleState, Progress};
pub use depth::{DataDirection, RequestShape, NORMAL_DEPTH, PERFORMANCE_DEPTH};
pub use error::HsqError;
pub use queue::{Hsq, DISABLE_TIMEOUT_MS};
pub use tag::SLOT_COUNT;
