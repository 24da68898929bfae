// SPDX-License-Identifier: GPL-2.0

//! The simulated board's only raw FFI: applying its device tree overlay, populating its
//! devices, the interrupt simulator, and reading RAM by physical address as a DMA engine
//! does (through x86-64's direct map, hence the option's dependency on X86_64). Each item is wrapped once, safely, here.

use core::ptr::NonNull;

use kernel::{error::to_result, prelude::*, workqueue::Queue};

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

/// The board's device tree overlay (`dts/msdc-sim.dtso`), aligned as libfdt requires.
#[repr(C, align(8))]
struct Aligned<const N: usize>([u8; N]);

static OVERLAY: &Aligned<{ include_bytes!(env!("MTK_SD_RUST_SIM_OVERLAY")).len() }> =
    &Aligned(*include_bytes!(env!("MTK_SD_RUST_SIM_OVERLAY")));

/// A device tree node reference (`of_node_get`/`of_node_put`).
///
/// # Invariants
///
/// `node` holds one reference on a live `device_node`.
pub(super) struct Node {
    node: NonNull<bindings::device_node>,
}

impl Node {
    /// Finds the node at `path` in the live tree.
    pub(super) fn find(path: &CStr) -> Option<Self> {
        // SAFETY: `path` is NUL-terminated; the function returns a counted reference.
        let node = unsafe {
            bindings::of_find_node_opts_by_path(path.as_char_ptr(), core::ptr::null_mut())
        };
        // INVARIANT: a non-null result carries one reference, now ours.
        NonNull::new(node).map(|node| Self { node })
    }

    /// Removes the property `name`, if the node has it (before its device is populated).
    pub(super) fn remove_property(&self, name: &CStr) -> Result {
        // SAFETY: by the type invariant the node is alive; `name` is NUL-terminated.
        let property = unsafe {
            bindings::of_find_property(
                self.node.as_ptr(),
                name.as_char_ptr(),
                core::ptr::null_mut(),
            )
        };
        if property.is_null() {
            return Ok(());
        }
        // SAFETY: `property` belongs to this live node; the core keeps removed properties
        // (on the node's dead list), so nothing that read it is left dangling.
        to_result(unsafe { bindings::of_remove_property(self.node.as_ptr(), property) })
    }

    /// Creates platform devices for the node's children (bus semantics of `simple-bus`).
    pub(super) fn populate_children(&self) -> Result {
        // SAFETY: by the type invariant the node is alive; null match tables select the
        // defaults.
        to_result(unsafe {
            bindings::of_platform_populate(
                self.node.as_ptr(),
                core::ptr::null(),
                core::ptr::null(),
                core::ptr::null_mut(),
            )
        })
    }

    /// Marks the node as set up by code that is not a driver, so that devices whose
    /// `interrupts` point at it do not wait for it to probe (fw_devlink).
    pub(super) fn mark_initialized(&self) {
        // SAFETY: by the type invariant the node is alive; nothing else touches its flags
        // while the board is being set up (its consumers are not populated yet).
        unsafe {
            (*self.node.as_ptr()).fwnode.flags |= 1 << bindings::FWNODE_FLAG_INITIALIZED;
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        // SAFETY: by the type invariant we own one reference.
        unsafe { bindings::of_node_put(self.node.as_ptr()) };
    }
}

// SAFETY: node references may be taken and dropped on any thread.
unsafe impl Send for Node {}
// SAFETY: the methods only read the node or write its flags during single-threaded set-up.
unsafe impl Sync for Node {}

/// Applies the board overlay to the live device tree; returns the changeset id.
pub(super) fn apply_overlay() -> Result<i32> {
    let mut id = 0;
    let len = u32::try_from(OVERLAY.0.len())?;
    // SAFETY: the blob is a valid, 8-byte-aligned FDT of `len` bytes that lives forever;
    // the core copies what it keeps. A null base applies the fragments' target paths.
    to_result(unsafe {
        bindings::of_overlay_fdt_apply(OVERLAY.0.as_ptr().cast(), len, &mut id, core::ptr::null())
    })?;
    Ok(id)
}

/// An interrupt domain of the kernel's interrupt simulator.
///
/// # Invariants
///
/// `domain` was created by `irq_domain_create_sim` and is never removed (the board lives
/// as long as the kernel).
pub(super) struct SimIrqDomain {
    domain: NonNull<bindings::irq_domain>,
}

// SAFETY: the interrupt simulator's functions may be called from any context.
unsafe impl Send for SimIrqDomain {}
// SAFETY: as above; the domain is only read through its C functions.
unsafe impl Sync for SimIrqDomain {}

impl SimIrqDomain {
    /// Creates a domain of `lines` simulated interrupts for `node`, so that device tree
    /// `interrupts` pointing at the node resolve to it.
    pub(super) fn new(node: &Node, lines: u32) -> Result<Self> {
        // SAFETY: by `Node`'s invariant the node is alive; its embedded fwnode is what
        // `of_fwnode_handle()` returns.
        let domain = unsafe {
            bindings::irq_domain_create_sim(
                core::ptr::addr_of_mut!((*node.node.as_ptr()).fwnode),
                lines,
            )
        };
        let domain = kernel::error::from_err_ptr(domain)?;
        // INVARIANT: created just now, and never removed.
        Ok(Self {
            domain: NonNull::new(domain).ok_or(ENOMEM)?,
        })
    }

    /// Raises simulated interrupt `hwirq` if a driver mapped it; the handler runs from
    /// an irq_work, in hard-IRQ context. Returns whether the line was mapped.
    pub(super) fn raise(&self, hwirq: u32) -> bool {
        let Ok(hwirq) = usize::try_from(hwirq) else {
            return false;
        };
        let mut virq: kernel::ffi::c_uint = 0;
        // SAFETY: by the type invariant the domain is alive; `virq` receives the Linux
        // interrupt number of a mapped line.
        let desc =
            unsafe { bindings::__irq_resolve_mapping(self.domain.as_ptr(), hwirq, &mut virq) };
        if desc.is_null() || virq == 0 {
            return false;
        }
        // SAFETY: `virq` is a mapped interrupt of the simulator domain; setting its
        // pending state queues the simulator's irq_work, callable from any context.
        let _ = unsafe {
            bindings::irq_set_irqchip_state(
                virq,
                bindings::irqchip_irq_state_IRQCHIP_STATE_PENDING,
                true,
            )
        };
        true
    }
}

/// The kernel's direct mapping of `len` bytes of RAM at physical (DMA) address
/// `address`, as a DMA engine without an IOMMU reaches memory. The translation takes no
/// lock, so a simulated engine may run under the hard-IRQ-safe lock its registers need.
fn direct_map(address: u64, len: usize) -> Result<NonNull<u8>> {
    let address = usize::try_from(address)?;
    // SAFETY: both are set during early boot and never written afterwards.
    let (base, high) = unsafe { (bindings::page_offset_base, bindings::high_memory as usize) };
    let start = base.checked_add(address).ok_or(EFAULT)?;
    let end = start.checked_add(len).ok_or(EFAULT)?;
    // Beyond the end of the direct map is not RAM (and unmapped).
    if end > high {
        return Err(EFAULT);
    }
    NonNull::new(start as *mut u8).ok_or(EFAULT)
}

/// Reads RAM at physical address `address` into `buf`.
pub(super) fn ram_read(address: u64, buf: &mut [u8]) -> Result {
    if buf.is_empty() {
        return Ok(());
    }
    let src = direct_map(address, buf.len())?;
    // SAFETY: `src` is the direct mapping of `buf.len()` bytes of RAM that the driver
    // mapped for the device; the model is the only "device" accessing it, like a real DMA
    // engine, and `buf` is the model's own buffer.
    unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), buf.as_mut_ptr(), buf.len()) };
    Ok(())
}

/// Writes `data` to RAM at physical address `address`.
pub(super) fn ram_write(address: u64, data: &[u8]) -> Result {
    if data.is_empty() {
        return Ok(());
    }
    let dst = direct_map(address, data.len())?;
    // SAFETY: as in `ram_read`; the driver mapped the buffer for the device to write.
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), dst.as_ptr(), data.len()) };
    Ok(())
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
