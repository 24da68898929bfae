// SPDX-License-Identifier: GPL-2.0

//! The board's device tree: applying its overlay (`dts/msdc-sim.dtso`, embedded) to the
//! live tree, and counted references to the nodes it adds, whose properties it trims,
//! whose children it populates and which it marks as set up for fw_devlink.

use core::ptr::NonNull;

use kernel::{error::to_result, prelude::*};

use super::bindings;

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
pub(crate) struct Node {
    pub(super) node: NonNull<bindings::device_node>,
}

impl Node {
    /// Finds the node at `path` in the live tree.
    pub(crate) fn find(path: &CStr) -> Option<Self> {
        // SAFETY: `path` is NUL-terminated; the function returns a counted reference.
        let node = unsafe {
            bindings::of_find_node_opts_by_path(path.as_char_ptr(), core::ptr::null_mut())
        };
        // INVARIANT: a non-null result carries one reference, now ours.
        NonNull::new(node).map(|node| Self { node })
    }

    /// Whether the node has the property `name` (a boolean property is there or not).
    pub(crate) fn has_property(&self, name: &CStr) -> bool {
        // SAFETY: by the type invariant the node is alive; `name` is NUL-terminated; the
        // result is only compared with null.
        let property = unsafe {
            bindings::of_find_property(
                self.node.as_ptr(),
                name.as_char_ptr(),
                core::ptr::null_mut(),
            )
        };
        !property.is_null()
    }

    /// Removes the property `name`, if the node has it (before its device is populated).
    pub(crate) fn remove_property(&self, name: &CStr) -> Result {
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

    /// Creates platform devices for the node's children (bus semantics of `simple-bus`),
    /// and for the children of those that are buses themselves (`simple-bus`, as the
    /// slots' buses are).
    pub(crate) fn populate_children(&self) -> Result {
        // SAFETY: by the type invariant the node is alive; a null lookup table and parent
        // are allowed (no auxiliary data, devices at the platform bus's root).
        to_result(unsafe {
            bindings::of_platform_default_populate(
                self.node.as_ptr(),
                core::ptr::null(),
                core::ptr::null_mut(),
            )
        })
    }

    /// Marks the node as set up by code that is not a driver, so that devices whose
    /// `interrupts`, `clocks` or `power-domains` point at it do not wait for it to probe
    /// (fw_devlink).
    pub(crate) fn mark_initialized(&self) {
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
pub(crate) fn apply_overlay() -> Result<i32> {
    let mut id = 0;
    let len = u32::try_from(OVERLAY.0.len())?;
    // SAFETY: the blob is a valid, 8-byte-aligned FDT of `len` bytes that lives forever;
    // the core copies what it keeps. A null base applies the fragments' target paths.
    to_result(unsafe {
        bindings::of_overlay_fdt_apply(OVERLAY.0.as_ptr().cast(), len, &mut id, core::ptr::null())
    })?;
    Ok(id)
}
