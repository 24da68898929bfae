// SPDX-License-Identifier: GPL-2.0

//! The driver's MMC abstraction layer: the only place with raw FFI to the MMC core.
//!
//! Linux 7.3's kernel crate has no MMC abstractions, so the build generates
//! bindings for the MMC headers (`mmc/bindings_helper.h`) and this module wraps
//! them once. Everything above this module is safe Rust.

mod bindings;
mod host;
mod ios;
mod ops;
mod request;

pub use host::{HostAllocation, HostSettings, Registration};
pub use ios::{Ios, PowerMode};
pub use ops::HostOps;
pub use request::Request;

/// Card voltage window bits of `ocr_avail` (`MMC_VDD_*`).
pub mod vdd {
    /// 3.2 V to 3.3 V.
    pub const VDD_32_33: u32 = super::bindings::MMC_VDD_32_33;
    /// 3.3 V to 3.4 V.
    pub const VDD_33_34: u32 = super::bindings::MMC_VDD_33_34;
}
