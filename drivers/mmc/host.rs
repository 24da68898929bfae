// SPDX-License-Identifier: GPL-2.0

//! Ownership of a `struct mmc_host` from allocation through registration to release.

use core::{
    mem::size_of,
    ptr::{self, NonNull},
};

use kernel::{
    device::{Device, DeviceContext},
    prelude::*,
};

use super::{
    bindings,
    ops::{HostOps, OpsTable},
};

/// A `struct mmc_host` allocated for a device and not added to the MMC core.
///
/// # Invariants
///
/// `host` points to a host returned by `mmc_alloc_host()` that this value owns:
/// nothing else frees it, and it is freed exactly once, on drop.
pub struct HostAllocation {
    host: NonNull<bindings::mmc_host>,
}

impl HostAllocation {
    /// Allocates a host whose parent is `parent`, with `private_bytes` of private area.
    pub fn new<Ctx: DeviceContext>(parent: &Device<Ctx>, private_bytes: usize) -> Result<Self> {
        let private_bytes = i32::try_from(private_bytes)?;
        // `Device` is a `#[repr(transparent)]` wrapper of the C `struct device`.
        let parent = ptr::from_ref(parent).cast_mut().cast::<bindings::device>();
        // SAFETY: `parent` points to a live `struct device` for the duration of the call;
        // the MMC core takes its own reference on it for as long as the host exists.
        let host = unsafe { bindings::mmc_alloc_host(private_bytes, parent) };
        let host = NonNull::new(host).ok_or(ENOMEM)?;
        // INVARIANT: `host` was just returned by `mmc_alloc_host()` and is owned here.
        Ok(Self { host })
    }

    /// The host's index, as in `mmcN`.
    pub fn index(&self) -> i32 {
        // SAFETY: by the type invariant `host` points to a live `mmc_host`.
        unsafe { (*self.host.as_ptr()).index }
    }

    /// Capability bits (`MMC_CAP_*`).
    pub fn caps(&self) -> u32 {
        // SAFETY: by the type invariant `host` points to a live `mmc_host`.
        unsafe { (*self.host.as_ptr()).caps }
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the host came from `mmc_alloc_host()`, is not
        // registered (a `Registration` removes it first) and is released once, here.
        unsafe { bindings::mmc_free_host(self.host.as_ptr()) };
    }
}

/// Limits and capabilities a host declares before it is added.
#[derive(Clone, Copy, Debug)]
pub struct HostSettings {
    /// Slowest bus clock, in Hz.
    pub min_frequency: u32,
    /// Fastest bus clock, in Hz.
    pub max_frequency: u32,
    /// Supported card voltages (`MMC_VDD_*` bits).
    pub ocr_avail: u32,
    /// `MMC_CAP_*` bits.
    pub caps: u32,
    /// `MMC_CAP2_*` bits.
    pub caps2: u32,
}

/// A host added to the MMC core, calling into the driver data `T`.
///
/// # Invariants
///
/// The host is registered with the core, its `ops` are `OpsTable::<T>`, and its private
/// area holds a pointer to `data`, which stays pinned until the host is removed.
pub struct Registration<T: HostOps> {
    host: HostAllocation,
    data: Pin<KBox<T>>,
}

impl<T: HostOps> Registration<T> {
    /// Allocates a host for `parent`, sets it up and adds it to the MMC core. The core
    /// starts calling `data` (power up, card detect) before this returns.
    pub fn new<Ctx: DeviceContext>(
        parent: &Device<Ctx>,
        settings: &HostSettings,
        data: impl PinInit<T, Error>,
    ) -> Result<Self> {
        let data = KBox::pin_init(data, GFP_KERNEL)?;
        let host = HostAllocation::new(parent, size_of::<*const T>())?;
        let raw = host.host.as_ptr();
        // SAFETY: `raw` is a live host that no other thread knows of yet; its private
        // area was allocated with room for one pointer, aligned for `unsigned long`.
        unsafe {
            (*raw)
                .private
                .as_mut_ptr()
                .cast::<*const T>()
                .write(ptr::from_ref(&*data));
            (*raw).ops = OpsTable::<T>::build();
            (*raw).f_min = settings.min_frequency;
            (*raw).f_max = settings.max_frequency;
            (*raw).ocr_avail = settings.ocr_avail;
            (*raw).caps = settings.caps;
            (*raw).caps2 = settings.caps2;
        }
        // SAFETY: the host is fully set up; on failure the core has undone everything
        // and the host can be freed by `HostAllocation`'s drop.
        kernel::error::to_result(unsafe { bindings::mmc_add_host(raw) })?;
        // INVARIANT: the host is registered with ops and private data set above.
        Ok(Self { host, data })
    }

    /// The host's index, as in `mmcN`.
    pub fn index(&self) -> i32 {
        self.host.index()
    }

    /// The driver data.
    pub fn data(&self) -> &T {
        &self.data
    }
}

impl<T: HostOps> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the host is registered; after this call the core
        // makes no more calls into `data`, so the fields may drop (host, then data).
        unsafe { bindings::mmc_remove_host(self.host.host.as_ptr()) };
    }
}
