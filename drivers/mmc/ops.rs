// SPDX-License-Identifier: GPL-2.0

//! The bridge from the C `struct mmc_host_ops` to the safe [`HostOps`] trait.

use core::ptr::NonNull;

use kernel::{error::VTABLE_DEFAULT_ERROR, ffi, prelude::*};

use super::{bindings, ios::Ios, request::Request};

/// What a host driver does when the MMC core calls it.
///
/// Callbacks may run concurrently from the block layer, the core's detect work and
/// the driver's own interrupt handler, hence `Sync`.
#[vtable]
pub trait HostOps: Send + Sync + Sized {
    /// Starts `request`; the driver completes it later through [`Request::complete`].
    fn request(&self, request: Request);

    /// Applies bus settings: clock, power, bus width, timing.
    fn set_ios(&self, ios: &Ios);

    /// Whether a card is in the slot. Hosts that cannot tell leave it out.
    fn get_cd(&self) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Whether the card is write protected. Hosts that cannot tell leave it out.
    fn get_ro(&self) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }

    /// Whether the card holds DAT0 low (busy).
    fn card_busy(&self) -> bool {
        build_error!(VTABLE_DEFAULT_ERROR)
    }
}

/// The `mmc_host_ops` table for host type `T`.
pub(super) struct OpsTable<T: HostOps>(core::marker::PhantomData<T>);

impl<T: HostOps> OpsTable<T> {
    const TABLE: bindings::mmc_host_ops = bindings::mmc_host_ops {
        request: Some(Self::request),
        set_ios: Some(Self::set_ios),
        get_cd: if T::HAS_GET_CD {
            Some(Self::get_cd)
        } else {
            None
        },
        get_ro: if T::HAS_GET_RO {
            Some(Self::get_ro)
        } else {
            None
        },
        card_busy: if T::HAS_CARD_BUSY {
            Some(Self::card_busy)
        } else {
            None
        },
        // SAFETY: every other member is an `Option` of a function pointer, for which
        // all-zero bytes mean `None`: the MMC core treats those operations as absent.
        ..unsafe { core::mem::zeroed() }
    };

    /// The table, for `mmc_host::ops`.
    pub(super) const fn build() -> &'static bindings::mmc_host_ops {
        &Self::TABLE
    }

    /// The driver data of a host registered by [`super::Registration`].
    ///
    /// # Safety
    ///
    /// `host` must be a host set up by `Registration::<T>::new`, not yet removed.
    unsafe fn data<'a>(host: *mut bindings::mmc_host) -> &'a T {
        // SAFETY: `Registration::new` stored a pointer to the pinned `T` in the host's
        // private area before adding the host, and the `T` outlives `mmc_remove_host`,
        // after which the core makes no more calls.
        unsafe { &*(*host).private.as_ptr().cast::<*const T>().read() }
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn request(host: *mut bindings::mmc_host, mrq: *mut bindings::mmc_request) {
        let (Some(host_ptr), Some(mrq)) = (NonNull::new(host), NonNull::new(mrq)) else {
            return;
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        let data = unsafe { Self::data(host) };
        // SAFETY: these are the callback's own arguments, wrapped once.
        data.request(unsafe { Request::from_raw(host_ptr, mrq) });
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn set_ios(host: *mut bindings::mmc_host, ios: *mut bindings::mmc_ios) {
        // SAFETY: `ios` is valid for the duration of the callback.
        let Some(ios) = (unsafe { ios.as_ref() }) else {
            return;
        };
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        unsafe { Self::data(host) }.set_ios(&Ios::from_raw(ios));
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn get_cd(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        ffi::c_int::from(unsafe { Self::data(host) }.get_cd())
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn get_ro(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        ffi::c_int::from(unsafe { Self::data(host) }.get_ro())
    }

    /// # Safety
    ///
    /// Called by the MMC core only, for a host set up by `Registration::<T>::new` and
    /// not yet removed, with arguments valid for the duration of the call.
    unsafe extern "C" fn card_busy(host: *mut bindings::mmc_host) -> ffi::c_int {
        // SAFETY: the MMC core calls this only for a registered host of type `T`.
        ffi::c_int::from(unsafe { Self::data(host) }.card_busy())
    }
}
