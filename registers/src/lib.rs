// SPDX-License-Identifier: GPL-2.0

//! Typed hardware registers and descriptor words, shaped like the kernel's own
//! `kernel::io::register!`: one type per hardware register, datasheet names kept, `HI:LO`
//! fields with getters and `with_*` setters, and the register window a register lives in
//! carried by its type.
//!
//! - [`register!`] declares the types: a register at `Window + offset`, or a word with no
//!   location (a DMA descriptor word, which lives in memory, not behind a register window).
//! - [`Io`] is the one access trait: read, write, update and a bounded poll, with one
//!   receiver convention (`&self`, as MMIO is). An [`Io`] implementation serves exactly the
//!   windows it names, so an access through the wrong window does not compile.
//!
//! What does not compile, by design:
//!
//! ```compile_fail
//! # use registers::{register, Io, PollLimit, Window};
//! struct Base;
//! impl Window for Base { const NAME: &'static str = "base"; }
//! struct Cqhci;
//! impl Window for Cqhci { const NAME: &'static str = "cqhci"; }
//! register! {
//!     /// A CQHCI register.
//!     CQCFG(u32) @ Cqhci + 0x08 { 0:0 enable => bool; }
//! }
//! /// Reaches the base window only.
//! fn legacy(io: &impl Io<Base>) -> bool {
//!     io.read::<CQCFG>().enable() // CQCFG is not in the base window
//! }
//! ```
//!
//! ```compile_fail
//! # use registers::register;
//! register! {
//!     /// A register.
//!     CFG(u32) { 15:8 ckdiv; }
//! }
//! const TOO_WIDE: CFG = CFG::zeroed().with_const_ckdiv::<0x100>();
//! # fn main() { let _ = TOO_WIDE; }
//! ```
//!
//! ```compile_fail
//! # use registers::register;
//! register! {
//!     /// A field past the end of its 32-bit word.
//!     CFG(u32) { 32:30 wide; }
//! }
//! ```
//!
//! The kernel driver's crate root (`mtk_sd_rust.rs`) includes this file as its module
//! `registers`, so the macro reaches its support items through `$crate::registers`, a
//! path that exists both in this crate and in the driver's crate.

#![cfg_attr(not(CONFIG_RUST), no_std)]
#![forbid(unsafe_code)]

pub mod field;
#[macro_use]
mod field_enum;
pub mod io;
#[macro_use]
mod register;

pub use field::{FieldOverflow, FieldValue, PartialFieldValue};
pub use io::{poll_by_reads, Io, PollLimit, PollTimeout, Register, Window};

/// The path the macro's expansion names its support items by (`$crate::registers::…`). In
/// the kernel crate the module itself has that path.
#[cfg(not(CONFIG_RUST))]
#[doc(hidden)]
pub use crate as registers;

// Identifier pasting for the macro's `with_*` setters: the kernel's own `paste!` in the
// kernel, the `paste` crate on the host.
#[cfg(CONFIG_RUST)]
#[doc(hidden)]
pub use kernel::macros::paste;
#[cfg(not(CONFIG_RUST))]
#[doc(hidden)]
pub use paste::paste;
