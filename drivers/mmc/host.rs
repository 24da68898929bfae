// SPDX-License-Identifier: GPL-2.0

//! Ownership of a `struct mmc_host` from allocation to release.

use core::ptr::{self, NonNull};

use kernel::{
    device::{Device, DeviceContext},
    prelude::*,
};

use super::bindings;

/// A `struct mmc_host` allocated for a device and not yet added to the MMC core.
///
/// # Invariants
///
/// `host` points to a host returned by `mmc_alloc_host()` that this value owns:
/// nothing else frees it, and it is freed exactly once, on drop.
pub(crate) struct HostAllocation {
    host: NonNull<bindings::mmc_host>,
}

impl HostAllocation {
    /// Allocates a host whose parent is `parent`.
    pub(crate) fn new<Ctx: DeviceContext>(parent: &Device<Ctx>) -> Result<Self> {
        // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
        let parent = ptr::from_ref(parent).cast_mut().cast::<bindings::device>();
        // SAFETY: `parent` points to a live `struct device` for the duration of the call;
        // the MMC core takes its own reference on it for as long as the host exists.
        let host = unsafe { bindings::mmc_alloc_host(0, parent) };
        let host = NonNull::new(host).ok_or(ENOMEM)?;
        // INVARIANT: `host` was just returned by `mmc_alloc_host()` and is owned here.
        Ok(Self { host })
    }

    /// The host's index, as in `mmcN`.
    pub(crate) fn index(&self) -> i32 {
        // SAFETY: by the type invariant `host` points to a live `mmc_host`.
        unsafe { (*self.host.as_ptr()).index }
    }

    /// Capability bits (`MMC_CAP_*`).
    pub(crate) fn caps(&self) -> u32 {
        // SAFETY: by the type invariant `host` points to a live `mmc_host`.
        unsafe { (*self.host.as_ptr()).caps }
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the host came from `mmc_alloc_host()`, was never
        // added to the core, and is released exactly once, here.
        unsafe { bindings::mmc_free_host(self.host.as_ptr()) };
    }
}
