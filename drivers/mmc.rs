// SPDX-License-Identifier: GPL-2.0

//! The driver's MMC abstraction layer: the only place with raw FFI to the MMC core.
//!
//! Linux 7.3's kernel crate has no MMC abstractions, so the build generates
//! bindings for the MMC headers (`mmc/bindings_helper.h`) and this module wraps
//! them once. Everything above this module is safe Rust.

mod bindings;
mod host;

pub(crate) use host::HostAllocation;
