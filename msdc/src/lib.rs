// SPDX-License-Identifier: GPL-2.0

//! Hardware-independent logic of the MediaTek MSDC (eMMC/SD/SDIO) host driver.
//!
//! Every module computes register values and descriptor bytes without touching hardware,
//! so the same code runs in the kernel driver, whose crate root (`mtk_sd_rust.rs`)
//! includes this file as a module, and, built on its own as a `no_std` crate, in host
//! tests against a model of the controller. For that reason the modules refer to each
//! other through `super::` and this file holds nothing but the crate attributes and the
//! module list.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

// The register layer is a crate of its own on the host and the kernel crate's `registers`
// module in the kernel: `crate::registers` names it in both, and `register!` is in scope.
#[cfg(not(CONFIG_RUST))]
#[macro_use]
extern crate registers;
// The request types, likewise: `crate::mmc_request` in both builds.
#[cfg(not(CONFIG_RUST))]
extern crate mmc_request;
// The CQHCI engine, whose vendor hooks the `cqe` module implements: `crate::cqhci` in both.
#[cfg(not(CONFIG_RUST))]
extern crate cqhci;

pub mod arith;
pub mod clock;
pub mod command;
pub mod controller;
pub mod cqe;
pub mod dma;
pub mod errors;
pub mod power;
pub mod regs;
pub mod soc;
pub mod timeout;
pub mod tuning;
