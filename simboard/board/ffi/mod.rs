// SPDX-License-Identifier: GPL-2.0

//! The simulated board's only raw FFI: applying its device tree overlay, populating its
//! devices, the interrupt simulator, the slots' clock gates (common clock framework) and
//! power domains (generic PM domains), reading RAM by physical address as a DMA engine
//! does (through the kernel's direct map of RAM, whose layout is the architecture's: the
//! option depends on X86_64 or ARM64), and the SDIO function driver API. Each item is
//! wrapped once, safely, here.
//!
//! Each kernel subsystem has a submodule. This module holds what they share: the
//! generated bindings and the slots' power hardware ([`SlotPower`]) behind the clock gates
//! and power domains; and two helpers of its own, the kernel's default workqueue and its
//! command line. What the board uses is re-exported here, as `ffi::Name`.

use kernel::workqueue::Queue;

mod clk;
mod direct_map;
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
mod genpd;
mod irq_sim;
mod of;
mod sdio;

pub(super) use self::clk::ClockProvider;
pub(super) use self::direct_map::{ram_read, ram_write};
#[cfg(CONFIG_PM_GENERIC_DOMAINS_OF)]
pub(super) use self::genpd::PowerDomains;
pub(super) use self::irq_sim::SimIrqDomain;
pub(super) use self::of::{apply_overlay, Node};
pub(super) use self::sdio::{SdioDriver, SdioFunc, SdioHost, SdioRegistration};

#[allow(
    dead_code,
    improper_ctypes,
    missing_docs,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unreachable_pub,
    unsafe_op_in_unsafe_fn,
    unnecessary_transmutes,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::ptr_as_ptr,
    clippy::ref_as_ptr,
    clippy::as_underscore,
    clippy::cast_lossless
)]
mod bindings {
    use kernel::ffi;
    include!(env!("MTK_SD_RUST_SIM_BINDINGS"));
}

/// The simulated hardware behind one slot's clock gates and power domain.
pub(super) trait SlotPower: Sync {
    /// Opens (`running`) or closes the slot's clock gate number `gate`. Called in atomic
    /// context: the clock framework runs its gates' `enable` and `disable` under its
    /// enable spinlock, interrupts off.
    fn set_clock(&self, gate: usize, running: bool);

    /// Whether the slot's gate number `gate` is open.
    fn clock_running(&self, gate: usize) -> bool;

    /// Powers the slot on or off. Called in process context, under the domain's lock.
    fn set_power(&self, on: bool);
}

/// The kernel's default unbound workqueue (`system_dfl_wq`), which 7.3's Rust workqueue
/// API does not name yet (its `system_unbound()` is the deprecated alias).
pub(super) fn default_queue() -> &'static Queue {
    // SAFETY: `system_dfl_wq` is allocated during early boot, before any initcall runs,
    // and never destroyed; reading the pointer copies it.
    unsafe { Queue::from_raw(kernel::bindings::system_dfl_wq) }
}

/// The value of `name=` on the kernel command line (the last one), if any. Built-in only:
/// the kernel does not export its saved command line to modules.
#[cfg(not(MODULE))]
pub(super) fn command_line_value(name: &str) -> Option<&'static [u8]> {
    use kernel::str::{CStr, CStrExt};

    // SAFETY: `saved_command_line` is set up before any initcall and never freed or
    // changed afterwards.
    let line = unsafe { bindings::saved_command_line };
    if line.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string that lives as long as the kernel (above).
    let line = unsafe { CStr::from_char_ptr(line) }.to_bytes();
    line.split(|&b| b == b' ').rev().find_map(|word| {
        let rest = word.strip_prefix(name.as_bytes())?;
        rest.strip_prefix(b"=")
    })
}

/// A module cannot read the kernel command line: no value.
#[cfg(MODULE)]
pub(super) fn command_line_value(_name: &str) -> Option<&'static [u8]> {
    None
}
